#!/usr/bin/env bash
# Boots one kernel of the matrix with the matrix's initramfs under QEMU's TCG and waits
# for it to power off, at most TIMEOUT seconds (then qemu is killed: a hung guest fails in
# bounded time). The kernel runs in its DEFAULT preemption mode: no preempt= on the
# command line (6.16+ default to PREEMPT_LAZY; the host's PREEMPT_NONE hides crashes).
#
#   tests/kernels/boot-guest.sh VMLINUZ INITRD LOGDIR TIMEOUT [BUDGET [NEWGO]]
#
# BUDGET (default TIMEOUT-20): seconds the guest's steps may take after /init starts
# (gtm_budget= on the command line, read by guest-init.sh); /init starts 6-11 s after
# qemu, and sending the files and powering off take a few seconds more. NEWGO (0|1,
# default 1; gtm_newgo=): whether the guest records the go1.24/go1.25 targets too.
#
# LOGDIR/console.log  ttyS0: the kernel's console and /init's output
# LOGDIR/data.log     ttyS1: /init's data port (markers, base64 files)
# LOGDIR/qemu.log     qemu's own stderr, LOGDIR/qemu.cmd its command line
# Exit status: qemu's, or 124 when it was killed: at TIMEOUT, or OOPS_GRACE (30) seconds
# after a kernel oops showed on the console (LOGDIR/qemu.log's last line says which).
#
# Why these options (measured on this project's machines):
#  - TCG, not KVM: /dev/kvm here is kvm_pvm (software virtualisation), `-cpu host` aborts
#    on MSR 0x10a. `-cpu max` is TCG's fullest model.
#  - QEMU 10 (bookworm-backports, scripts/install-deps.sh): bookworm's 7.2 double-faulted
#    6.12 guests under TCG in 3 of 3 boots.
#  - panic=-1 with -no-reboot: a panicking guest reboots at once and qemu then exits,
#    instead of sitting out the timeout.
#  - setpriv --pdeathsig KILL: qemu dies with this script, however this script ends.
set -uo pipefail
VMLINUZ=$1 INITRD=$2 LOGDIR=$3 TIMEOUT=$4 BUDGET=${5:-$(($4 - 20))} NEWGO=${6:-1}
QEMU=${GOTRACED_QEMU:-qemu-system-x86_64}
OOPS_GRACE=${OOPS_GRACE:-30}
mkdir -p "$LOGDIR"
rm -f "$LOGDIR/console.log" "$LOGDIR/data.log" "$LOGDIR/qemu.log"
cmd=(
  setpriv --pdeathsig KILL
  "$QEMU" -accel tcg,thread=multi -cpu max -smp 2 -m 2G
  -nographic -monitor none -no-reboot
  -kernel "$VMLINUZ" -initrd "$INITRD"
  -append "console=ttyS0 panic=-1 rdinit=/init gtm_budget=$BUDGET gtm_newgo=$NEWGO"
  -serial "file:$LOGDIR/console.log"
  -serial "file:$LOGDIR/data.log"
)
printf '%q ' "${cmd[@]}" >"$LOGDIR/qemu.cmd"
echo >>"$LOGDIR/qemu.cmd"

qpid=
cleanup() { [[ -n $qpid ]] && kill -9 "$qpid" 2>/dev/null; }
trap cleanup EXIT
trap 'cleanup; exit 130' INT TERM
"${cmd[@]}" </dev/null >"$LOGDIR/qemu.log" 2>&1 &
qpid=$!
deadline=$((SECONDS + TIMEOUT))
why="its ${TIMEOUT}s timeout"
oopsed=0
while kill -0 "$qpid" 2>/dev/null; do
  # After a kernel oops the guest often hangs (an oops inside a uprobe handler kills the
  # task that holds the uprobe's locks): it gets OOPS_GRACE more seconds, not the rest.
  if ((!oopsed)) && grep -qaE 'BUG:|Oops|Kernel panic|general protection' "$LOGDIR/console.log" 2>/dev/null; then
    oopsed=1
    if ((SECONDS + OOPS_GRACE < deadline)); then
      deadline=$((SECONDS + OOPS_GRACE))
      why="${OOPS_GRACE}s after a kernel oops on its console (at ${SECONDS}s)"
    fi
  fi
  if ((SECONDS >= deadline)); then
    kill -9 "$qpid" 2>/dev/null
    wait "$qpid" 2>/dev/null
    qpid=
    echo "boot-guest: killed qemu at ${SECONDS}s: $why" >>"$LOGDIR/qemu.log"
    exit 124
  fi
  sleep 0.5
done
wait "$qpid"
rc=$?
qpid=
exit $rc
