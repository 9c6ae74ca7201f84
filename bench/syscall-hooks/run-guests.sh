#!/usr/bin/env bash
# Runs syscall-hooks-bench (build.sh) in Debian's kernels under qemu, one guest at a time,
# each under `nice -n 19` (the kernels tests/kernels/fetch-kernels.sh cached; nothing is
# fetched here). A guest's figures are compared only with each other: under TCG the
# guest's clock is the host's, so a guest's ns are emulated time, good for ratios within
# one boot (its modes alternate), not for comparing with the host's.
#   bench/syscall-hooks/run-guests.sh [--out DIR] [--accel tcg|icount|kvm] [--reps R]
#        [--calls N] [--timeout S] KERNEL...       KERNEL: a version prefix (6.1, 6.12, 7.3)
# --accel tcg     TCG, 2 vCPUs (the kernel matrix's boot-guest.sh options)
# --accel icount  TCG, 1 vCPU, -icount shift=0,sleep=off: the guest's clock counts the
#                 instructions it ran, so the host's load does not move its figures
#                 (cost in executed instructions, not in cycles: no cache or branch misses)
# --accel kvm     -enable-kvm -cpu $KVM_CPU (default kvm64), where /dev/kvm works: on this
#                 project's machine (kvm_pvm) every guest stops in its boot with "KVM
#                 internal error" (-cpu host: at a BMI2 instruction; kvm64 too)
# DIR/<kernel>-<accel>/console.log: the guest's console; DIR/<kernel>-<accel>/result.txt:
# the bench's lines.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=$HERE/../../build/syscall-hooks
ACCEL=tcg REPS=7 CALLS=200000 TIMEOUT=900
kernels=()
while (($#)); do
  case $1 in
    --out) OUT=$2; shift 2 ;;
    --accel) ACCEL=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --calls) CALLS=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    -*) echo "run-guests: unknown option $1" >&2; exit 2 ;;
    *) kernels+=("$1"); shift ;;
  esac
done
((${#kernels[@]})) || { echo "run-guests: name a kernel (6.1, 6.12, 7.3 ...)" >&2; exit 2; }
CACHE=${GOTRACED_KERNEL_CACHE:-/var/cache/gotraced-kernels}/kernels
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

nice -n 19 "$HERE/build.sh" "$OUT" >/dev/null
tree=$OUT/initramfs
rm -rf "$tree"
mkdir -p "$tree"/{bin,dev,proc,sys,tmp}
BUSYBOX=$(command -v busybox)
cp "$BUSYBOX" "$tree/bin/busybox"
for a in sh mount sed tr cut grep poweroff cat mkdir; do ln -s busybox "$tree/bin/$a"; done
cp "$OUT/syscall-hooks-bench" "$tree/bin/"
cp "$HERE/guest-init.sh" "$tree/init"
chmod 755 "$tree/init"
mknod -m 600 "$tree/dev/console" c 5 1 2>/dev/null || true
(cd "$tree" && find . -print0 | cpio --null -o -H newc --quiet --owner=0:0) | gzip -1 >"$OUT/initramfs.cpio.gz"
rm -rf "$tree"

case $ACCEL in
  tcg) accel=(-accel tcg,thread=multi -cpu max -smp 2) ;;
  icount) accel=(-accel tcg,thread=single -cpu max -smp 1 -icount shift=0,sleep=off) ;;
  kvm) accel=(-enable-kvm -cpu "${KVM_CPU:-kvm64}" -smp 2) ;;
  *) echo "run-guests: --accel tcg|icount|kvm" >&2; exit 2 ;;
esac
status=0
for k in "${kernels[@]}"; do
  vmlinuz=$(find "$CACHE" -path "*[-/]$k.*" -name 'vmlinuz*' | sort | tail -1)
  [[ -n $vmlinuz ]] || { echo "$k: no vmlinuz under $CACHE (tests/kernels/fetch-kernels.sh)"; status=1; continue; }
  dir=$OUT/$k-$ACCEL
  mkdir -p "$dir"
  echo "$k ($vmlinuz), $ACCEL: $dir"
  rc=0
  timeout -s KILL "$TIMEOUT" nice -n 19 qemu-system-x86_64 "${accel[@]}" -m 1G \
    -nographic -monitor none -no-reboot \
    -kernel "$vmlinuz" -initrd "$OUT/initramfs.cpio.gz" \
    -append "console=ttyS0 panic=-1 rdinit=/init quiet shb_reps=$REPS shb_calls=$CALLS" \
    -serial "file:$dir/console.log" </dev/null >"$dir/qemu.log" 2>&1 || rc=$?
  sed -n 's/^.*@@SHB //p' "$dir/console.log" | tr -d '\r' >"$dir/result.txt"
  grep -q '^end rc=0' "$dir/result.txt" || { echo "  guest failed (qemu rc=$rc): $dir/console.log"; status=1; }
  grep -E '^(begin|kernel|symbol|mode|base|median)' "$dir/result.txt" | sed 's/^/  /' || true
done
exit $status
