#!/bin/sh
# /init of the kernel matrix's guest (copied into the initramfs by build-initramfs.sh;
# busybox sh). Mounts what gotraced needs, runs the checks one after another, each under
# its own timeout, and powers off. Nothing here judges a result: the host does
# (judge_guest.py), from two channels:
#   ttyS0 (the console): kernel messages, the tail of every step's output, and
#         "@@GTM ..." markers, for people and for the oops scan;
#   ttyS1 (the data port): the same markers and every file the host needs (step logs,
#         dmesg, the two traces), base64 between "@@GTM-BEGIN NAME BYTES" and
#         "@@GTM-END NAME": a second serial port works with no kernel module at all.
# /matrix.env (written by build-initramfs.sh) sets the step timeouts; the time budget of
# the steps comes from the kernel command line (gtm_budget=SECONDS, boot-guest.sh), so
# the host can give each guest what is left of the matrix's time.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1
mkdir -p /tmp /sys/kernel/tracing /sys/kernel/debug /sys/fs/bpf
mount -t tmpfs tmpfs /tmp
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
. /matrix.env
export LD_LIBRARY_PATH
stty -F /dev/ttyS1 raw -echo 2>/dev/null

say() {
  echo "@@GTM $*"
  echo "@@GTM $*" >/dev/ttyS1
}
send() { # NAME FILE: FILE to the host over the data port
  [ -f "$2" ] || return 0
  {
    echo "@@GTM-BEGIN $1 $(wc -c <"$2")"
    base64 "$2"
    echo "@@GTM-END $1"
  } >/dev/ttyS1
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }
uptime_i() { cut -d' ' -f1 /proc/uptime | cut -d. -f1; }
# The guest's time budget: every step ends by BUDGET_END (seconds of uptime), which leaves
# RESERVE seconds to send the files and power off before the host's timeout kills qemu.
budget=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^gtm_budget=\([0-9][0-9]*\)$/\1/p')
GUEST_BUDGET=${budget:-$GUEST_BUDGET}
BUDGET_END=$(($(uptime_i) + GUEST_BUDGET))

# kill_targets: ends every /target process left over by a step (a killed gotraced's
# launched child), by pid.
kill_targets() {
  for p in /proc/[0-9]*; do
    case $(readlink "$p/exe" 2>/dev/null) in /target | /target-go*) kill -9 "${p#/proc/}" 2>/dev/null ;; esac
  done
}

# step NAME TIMEOUT CMD...: runs CMD (output to /tmp/NAME.log, its tail shown on the
# console, all of it sent), then says its exit status and duration. TIMEOUT is cut to
# what is left of the budget; at TIMEOUT the step gets SIGTERM, 3 s later SIGKILL (a
# BPF_PROG_LOAD that libbpf retries on EAGAIN outlives a SIGTERM that gotraced handles),
# and says "timedout". With less than 5 s left the step does not run and says so.
step() {
  name=$1 limit=$2
  shift 2
  left=$((BUDGET_END - RESERVE - $(uptime_i)))
  if [ "$left" -lt 5 ]; then
    say "step $name not-run: the guest's ${GUEST_BUDGET}s budget was used up by the steps before"
    return 1
  fi
  [ "$left" -lt "$limit" ] && limit=$left
  say "step-begin $name timeout=${limit}s"
  t0=$(uptime_s)
  rm -f "/tmp/$name.timedout"
  "$@" >"/tmp/$name.log" 2>&1 &
  cpid=$!
  (
    sleep "$limit"
    touch "/tmp/$name.timedout"
    kill -TERM "$cpid" 2>/dev/null
    sleep 3
    kill -KILL "$cpid" 2>/dev/null
  ) &
  wpid=$!
  wait "$cpid"
  rc=$?
  kill "$wpid" 2>/dev/null
  t1=$(uptime_s)
  kill_targets
  case $name in
  *-json) echo "[$name] $(wc -c <"/tmp/$name.log") bytes, sent to the host" ;;
  *) tail -n "$CONSOLE_LINES" "/tmp/$name.log" | sed "s/^/[$name] /" ;;
  esac
  send "$name.log" "/tmp/$name.log"
  to=""
  [ -e "/tmp/$name.timedout" ] && to=" timedout"
  say "step $name rc=$rc secs=$(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") timeout=${limit}s$to"
  return $rc
}
# refused NAME: did step NAME fail because the kernel's verifier refused a program
# (gotraced's capture/load_error message)? Then the attach, which loads the same
# programs for the same binary on the same kernel, is not run (the verifier is slow
# under TCG: 75-120 s to refuse a program at the 1M-instruction limit), and says why.
refused() { grep -q "BPF verifier refused" "/tmp/$1.log" 2>/dev/null; }

say "init-start uptime=$(uptime_s)"
say "uname-r $(uname -r)"
say "uname-v $(uname -v)"
# The preemption mode: debugfs's sched/preempt marks the current one "(lazy)" on a
# PREEMPT_DYNAMIC kernel; dmesg's "Dynamic Preempt: MODE" says it at boot.
say "preempt-debugfs $(cat /sys/kernel/debug/sched/preempt 2>/dev/null || echo absent)"
say "preempt-dmesg $(dmesg | grep -o 'Dynamic Preempt: .*' | head -1)"
say "cmdline $(cat /proc/cmdline)"
say "budget ${GUEST_BUDGET}s"

# selftest: the kernel features, every program loaded and verified on its own (per
# program: processed instructions, stack, verification time), the attach check.
step selftest "$T_SELFTEST" /bin/gotraced selftest

step launch "$T_LAUNCH" /bin/gotraced --out /tmp/launch.trace -q -- /target -seconds "$TARGET_SECONDS"

if refused launch; then
  say "step attach not-run: launch's load was refused by the verifier (attach loads the same programs for the same binary; see launch)"
else
  /target -forever >/tmp/attach-target.log 2>&1 &
  tpid=$!
  sleep 1
  step attach "$T_ATTACH" /bin/gotraced --pid "$tpid" --duration "${ATTACH_SECONDS}s" --out /tmp/attach.trace -q
  kill "$tpid" 2>/dev/null
  kill_targets
fi

# Go 1.24 and 1.25 (Debian trixie's toolchains, issue 29): the same target built by each,
# recorded in launch mode (their runtimes' own probe plans: casgstatus syscalls, <= 1.25).
# On the one kernel run-matrix.sh asks it of (gtm_newgo=1; 8-45 s of TCG time per Go).
newgo=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^gtm_newgo=\([01]\)$/\1/p')
[ "$newgo" = 1 ] || say "newgo off: run-matrix.sh runs the go1.24/go1.25 launches on another kernel of the matrix"
for v in 1.24 1.25; do
  if [ "$newgo" != 1 ]; then
    :
  elif refused launch; then
    say "step launch-go$v not-run: launch's load was refused by the verifier"
  else
    step "launch-go$v" "$T_LAUNCH" /bin/gotraced --out "/tmp/launch-go$v.trace" -q -- "/target-go$v" -seconds 1
  fi
done

# Preemption (issue 12, docs/preemption.md): the reproducer (two threads on CPU 0 hitting
# two uprobe programs: a 128-byte BPF frame and gotrace's task-storage design; a clobbered
# frame is counted, never followed), then a recording of the target pinned to one CPU
# with two Ps, whose records must never show an M on another thread than before.
# Level low: its own syscall programs (sys_enter notes the time, sys_exit reads the g),
# every syscall written.
if refused launch; then
  say "step low not-run: launch's load was refused by the verifier"
else
  step low "$T_LAUNCH" /bin/gotraced --level low --syscall-min 0 --out /tmp/low.trace -- /target -seconds 2
fi
step privstack "$T_ATTACH" /bin/privstack_repro 1.5
step stackguard "$T_ATTACH" /bin/stack_guard_tests
step pinned "$T_LAUNCH" env GOMAXPROCS=2 taskset -c 0 /bin/gotraced -v -q --out /tmp/pinned.trace -- /target -seconds 2
kill_targets

# The same report as JSON (the host's per-program table reads it), when this gotraced
# has --json: last, since it checks nothing the plain run did not, and the recordings
# should have the guest's time first.
case $(/bin/gotraced selftest --help 2>&1) in
*--json*)
  if [ -e /tmp/selftest.timedout ]; then
    say "step selftest-json not-run: selftest without --json was killed at its timeout"
  else
    step selftest-json "$T_SELFTEST" /bin/gotraced selftest --json
  fi
  ;;
*) say "selftest-json absent: this gotraced's selftest has no --json" ;;
esac

dmesg >/tmp/dmesg.txt
send dmesg.txt /tmp/dmesg.txt
send launch.trace /tmp/launch.trace
send attach.trace /tmp/attach.trace
send pinned.trace /tmp/pinned.trace
send low.trace /tmp/low.trace
send launch-go1.24.trace /tmp/launch-go1.24.trace
send launch-go1.25.trace /tmp/launch-go1.25.trace
say "done uptime=$(uptime_s)"
sync
poweroff -f
