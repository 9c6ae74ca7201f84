#!/usr/bin/env bash
# Builds the kernel matrix's guest initramfs (newc cpio, gzip):
#   /init             tests/kernels/guest-init.sh
#   /matrix.env       the guest's time budget, step timeouts and workload lengths
#                     (GUEST_* from the environment, defaults below)
#   /bin/busybox      busybox-static, with a link per applet (sh, mount, timeout, base64 ...)
#   /bin/gotraced     BUILD/cli/gotraced without its debug info, plus every shared library
#                     ldd names and the dynamic loader, at the paths ldd names
#   /target           tests/kernels/target, static (CGO_ENABLED=0), the machine's go 1.26
#   /target-go1.24, /target-go1.25  the same, built by Debian trixie's Go 1.24 and 1.25
#                     (scripts/fetch-debian-go.sh; tests/lib/suite.sh's go_for)
#   /bin/privstack_repro, /bin/stack_guard_tests  BUILD/tests/preemption/ (docs/preemption.md),
#                     with their libraries the same way
#
#   tests/kernels/build-initramfs.sh BUILD OUTDIR    -> OUTDIR/initramfs.cpio.gz
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=$(cd "$1" && pwd)
OUT=$2
GOTRACED=$BUILD/cli/gotraced
die() { echo "build-initramfs: $*" >&2; exit 1; }

[[ -x $GOTRACED ]] || die "$GOTRACED is not built (cmake --build $BUILD)"
REPRO=$BUILD/tests/preemption/privstack_repro
[[ -x $REPRO ]] || die "$REPRO is not built (cmake --build $BUILD)"
GUARD=$BUILD/tests/preemption/stack_guard_tests
[[ -x $GUARD ]] || die "$GUARD is not built (cmake --build $BUILD)"
BUSYBOX=$(command -v busybox) || die "busybox not found (busybox-static: scripts/install-deps.sh)"
file -L "$BUSYBOX" | grep -q 'statically linked' || die "$BUSYBOX is not static (install busybox-static)"
command -v cpio >/dev/null || die "cpio not found (scripts/install-deps.sh)"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
tree=$OUT/initramfs
rm -rf "$tree"
mkdir -p "$tree"/{bin,dev,proc,sys,tmp,etc}
ln -s bin "$tree/sbin"
mkdir -p "$tree/usr"
ln -s ../bin "$tree/usr/bin"
ln -s ../bin "$tree/usr/sbin"

# The target: static, so the guest needs nothing for it.
(cd "$ROOT/tests/kernels/target" &&
  CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -o "$tree/target" .) ||
  die "cannot build tests/kernels/target with $(go version 2>&1)"
# shellcheck source=../lib/suite.sh
source "$ROOT/tests/lib/suite.sh"
# Its go.mod says go 1.26, which they refuse: their own go.mod says go 1.22 (-modfile; no
# dependencies, so no go.sum; the code uses nothing newer).
sed 's/^go .*/go 1.22/' "$ROOT/tests/kernels/target/go.mod" >"$OUT/target-go1.22.mod"
for v in 1.24 1.25; do
  g=$(go_for "$v")
  (cd "$ROOT/tests/kernels/target" &&
    CGO_ENABLED=0 GOFLAGS=-buildvcs=false $g build -modfile="$OUT/target-go1.22.mod" -o "$tree/target-go$v" .) ||
    die "cannot build tests/kernels/target with go$v ($g; scripts/install-deps.sh fetches it)"
done

cp "$BUSYBOX" "$tree/bin/busybox"
for a in $("$BUSYBOX" --list); do
  [[ $a == busybox || -e $tree/bin/$a ]] || ln -s busybox "$tree/bin/$a"
done

# gotraced, its libraries and the loader, each at the path ldd resolved it to.
objcopy --strip-debug "$GOTRACED" "$tree/bin/gotraced"
objcopy --strip-debug "$REPRO" "$tree/bin/privstack_repro"
objcopy --strip-debug "$GUARD" "$tree/bin/stack_guard_tests"
libdirs=()
while read -r path; do
  [[ -n $path ]] || continue
  mkdir -p "$tree$(dirname "$path")"
  cp -L "$path" "$tree$path"
  d=$(dirname "$path")
  [[ " ${libdirs[*]} " == *" $d "* ]] || libdirs+=("$d")
done < <({ ldd "$GOTRACED"; ldd "$REPRO"; ldd "$GUARD"; } | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' | sort -u)
[[ -e $tree/lib64/ld-linux-x86-64.so.2 ]] || die "ldd $GOTRACED named no /lib64/ld-linux-x86-64.so.2"

printf 'root:x:0:0:root:/:/bin/sh\n' >"$tree/etc/passwd"
printf 'root:x:0:\n' >"$tree/etc/group"
cp "$ROOT/tests/kernels/guest-init.sh" "$tree/init"
chmod 755 "$tree/init"
{
  echo "GUEST_BUDGET=${GUEST_BUDGET:-95}"  # unless the command line says gtm_budget=
  echo "RESERVE=${GUEST_RESERVE:-6}"
  echo "T_SELFTEST=${GUEST_T_SELFTEST:-150}"
  echo "T_LAUNCH=${GUEST_T_LAUNCH:-150}"
  echo "T_ATTACH=${GUEST_T_ATTACH:-150}"
  echo "TARGET_SECONDS=${GUEST_TARGET_SECONDS:-3}"
  echo "ATTACH_SECONDS=${GUEST_ATTACH_SECONDS:-3}"
  echo "CONSOLE_LINES=${GUEST_CONSOLE_LINES:-60}"
  echo "LD_LIBRARY_PATH=$(IFS=:; echo "${libdirs[*]}")"
} >"$tree/matrix.env"

# The kernel opens /dev/console before it runs /init (devtmpfs is mounted only by /init).
mknod -m 600 "$tree/dev/console" c 5 1 2>/dev/null || true

(cd "$tree" && find . -print0 | cpio --null -o -H newc --quiet --owner=0:0) | gzip -1 >"$OUT/initramfs.cpio.gz"
rm -rf "$tree"
echo "$OUT/initramfs.cpio.gz"
