#!/usr/bin/env bash
# serve's triggers (daemon/service/triggers.h), one target per kind (tests/serve/
# trigger-target): a long STW, a long goroutine syscall, CPU throttling of a cgroup this
# script makes (the v1 cpu controller's cpu.cfs_quota_us where mounted, else cgroup v2
# cpu.max), and scheduling latency (at level sched). For each: the spool holds
# NAME.before.trace (the window, level low's past) and NAME.after.trace (full detail),
# both pass tracecheck, the before file's time range holds the moment the daemon logged
# (at_ns) and the event kind that fired, /metrics counts it, further crossings are
# rate-limited and counted, gotraced ps lists the files. Then a spool on a 16 KiB tmpfs:
# the saves fail (counted, logged), no .partial is left and the file already there is
# byte for byte intact. Run by tests/suites/60-serve.sh; env GOTRACED_BUILD, GOTRACED_ROOT.
set -euo pipefail
: "${GOTRACED_BUILD:?}" "${GOTRACED_ROOT:?}"
B=$GOTRACED_BUILD
GT=$B/cli/gotraced
TC=$B/tools/tracecheck
bash "$GOTRACED_ROOT/scripts/build-tools.sh" "$B" >/dev/null
W=$(mktemp -d -t gotraced-triggers.XXXXXX)
SOCK=$W/s.sock
DAEMON=
PIDS=()
CG=
MNT=
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  if [[ -n $DAEMON ]]; then kill -TERM "$DAEMON" 2>/dev/null || true; wait "$DAEMON" 2>/dev/null || true; fi
  if [[ -n $CG ]]; then rmdir "$CG" 2>/dev/null || true; fi
  if [[ -n $MNT ]]; then umount "$MNT" 2>/dev/null || true; fi
  if [[ ${KEEP:-0} == 1 ]]; then echo "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
fail() {
  echo "FAIL: triggers: $*" >&2
  tail -n 30 "$W/serve.log" >&2 || true
  exit 1
}
ok() { echo "ok: triggers: $*"; }
get() { curl -s --max-time 30 --unix-socket "$SOCK" "http://gotraced$1"; }
# A pid's "triggers" object in /processes, as JSON.
trig() { get /processes | python3 -c '
import json, sys
for p in json.load(sys.stdin)["processes"]:
    if p["pid"] == int(sys.argv[1]): print(json.dumps(p["triggers"]))' "$1"; }
start_daemon() {
  "$GT" serve --config "$W/c.toml" >"$W/serve.log" 2>&1 &
  DAEMON=$!
  for ((i = 0; i < 100; i++)); do [[ -S $SOCK ]] && break; sleep 0.1; done
  [[ -S $SOCK ]] || fail "no socket"
}
stop_daemon() {
  kill -TERM "$DAEMON"
  wait "$DAEMON" || true
  DAEMON=
  rm -f "$SOCK"
}

(cd "$GOTRACED_ROOT/tests/serve/trigger-target" && GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -o "$W/trigger-target" .)
for k in stw syscall throttle latency; do cp "$W/trigger-target" "$W/t-$k"; done

# The throttled cgroup: 10 ms of CPU per 100 ms period for two spinning goroutines. Named
# after this run's directory: a run in another build tree makes its own.
if [[ -d /sys/fs/cgroup/cpu && -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]]; then
  CG=/sys/fs/cgroup/cpu/${W##*/}
  mkdir -p "$CG"
  echo 100000 >"$CG/cpu.cfs_period_us"
  echo 10000 >"$CG/cpu.cfs_quota_us"
elif [[ -f /sys/fs/cgroup/cgroup.controllers ]] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers; then
  CG=/sys/fs/cgroup/${W##*/}
  mkdir -p "$CG"
  echo "10000 100000" >"$CG/cpu.max"
else
  fail "no cgroup cpu controller (v1 cpu or v2 cpu.max) to throttle a target in"
fi

cat >"$W/c.toml" <<EOF
[flight]
window_seconds = 4
generation_ms = 500
ring_mb = 2
[spool]
dir = "$W/spool"
max_files = 40
max_mb = 64
[endpoint]
socket = "$SOCK"
[discovery]
rescan_seconds = 1
[[watch]]
exe = "$W/t-stw"
[watch.triggers]
stw_ms = 15
after_seconds = 1
min_interval_seconds = 120
[[watch]]
exe = "$W/t-syscall"
[watch.triggers]
syscall_ms = 50
after_seconds = 1
min_interval_seconds = 120
[[watch]]
exe = "$W/t-throttle"
[watch.triggers]
cpu_throttle_ms = 20
after_seconds = 1
min_interval_seconds = 120
[[watch]]
exe = "$W/t-latency"
level = "sched"
[watch.triggers]
sched_latency_ms = 5
after_seconds = 1
min_interval_seconds = 120
EOF
"$GT" serve --check-config --config "$W/c.toml" >/dev/null || fail "config refused"
start_daemon
GODEBUG=asyncpreemptoff=1 "$W/t-stw" -mode stw -spin 40ms >/dev/null 2>&1 &
P_stw=$!
"$W/t-syscall" -mode syscall -spin 100ms >/dev/null 2>&1 &
P_syscall=$!
"$W/t-throttle" -mode spin >/dev/null 2>&1 &
P_throttle=$!
echo "$P_throttle" >"$CG/cgroup.procs"
"$W/t-latency" -mode latency >/dev/null 2>&1 &
P_latency=$!
PIDS=("$P_stw" "$P_syscall" "$P_throttle" "$P_latency")

# check KIND PID: two files saved, both parse, the moment inside the before file.
check() {
  local kind=$1 pid=$2 t i
  for ((i = 0; i < 300; i++)); do
    t=$(trig "$pid")
    [[ $(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["files"])' "$t" 2>/dev/null) == 2 ]] && break
    sleep 0.1
  done
  [[ $(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["files"])' "$t" 2>/dev/null) == 2 ]] ||
    fail "$kind: pid $pid saved no window in 30 s: $t"
  local before after at
  before=$(ls "$W"/spool/t-*-"$pid"-*-"$kind".before.trace 2>/dev/null | head -1)
  after=$(ls "$W"/spool/t-*-"$pid"-*-"$kind".after.trace 2>/dev/null | head -1)
  [[ -f $before && -f $after ]] || fail "$kind: spool lacks the files of $pid: $(ls "$W/spool")"
  at=$(grep -o "pid $pid ([^)]*): trigger $kind [^(]*([^)]*) (at_ns=[0-9]*)" "$W/serve.log" | head -1 | grep -o 'at_ns=[0-9]*' | cut -d= -f2)
  [[ -n $at ]] || fail "$kind: no trigger of $pid logged"
  "$TC" "$before" >"$W/$kind-before.json" 2>"$W/$kind-before.err" || fail "$kind: tracecheck refused $before: $(head -c 300 "$W/$kind-before.err")"
  "$TC" "$after" >"$W/$kind-after.json" 2>"$W/$kind-after.err" || fail "$kind: tracecheck refused $after: $(head -c 300 "$W/$kind-after.err")"
  local verdict
  verdict=$(python3 - "$W/$kind-before.json" "$W/$kind-after.json" "$kind" "$at" <<'PY'
import json, sys
b = json.load(open(sys.argv[1])); a = json.load(open(sys.argv[2])); kind = sys.argv[3]; at = int(sys.argv[4])
p = []
# (1 us of slack: the trace's times are ticks converted back to ns, a few ns off.)
if not (b["first_ns"] - 1000 <= at <= b["last_ns"] + 1000): p.append(f"moment {at} outside the before file [{b['first_ns']}, {b['last_ns']}]")
# A cgroup reading's moment is in the trace itself: a "gotraced: trigger" log at it
# (Session::Note, level low), so a throttled process that wrote nothing then still shows
# where the trigger fired (a fresh-clone run once failed: the last event 3.3 ms before).
if kind == "cpu_throttle":
    tl = b.get("log_first_ns", {}).get("gotraced: trigger")
    if tl is None: p.append("no 'gotraced: trigger' log in the before file")
    elif abs(tl - at) > 1_000_000: p.append(f"the trigger log at {tl}, the moment at {at}")
stw = sum(v for k, v in b["ranges"].items() if k.startswith("stop-the-world"))
tb = b["transitions"]["goroutine"]
if kind == "stw" and stw < 1: p.append("no STW range in the before file")
if kind == "syscall" and tb.get("NotExist->Syscall", 0) + b["syscalls"] < 1: p.append("no syscall in the before file")
if kind == "sched_latency" and tb.get("Runnable->Running", 0) < 1: p.append("no goroutine start in the before file")
if kind == "cpu_throttle" and b["events"] < 1: p.append("empty before file")
ab = sum(a["block_reasons"].values()) + a["transitions"]["goroutine"].get("Runnable->Running", 0)
if ab < 1: p.append("the after file has no scheduling (not full detail)")
s = f"before {b['events']} events ({stw} STW, {b['syscalls'] + tb.get('NotExist->Syscall', 0)} syscalls), after {a['events']} events ({ab} scheduling)"
print(("BAD " + "; ".join(p) + " | " + s) if p else ("OK " + s))
PY
)
  [[ $verdict == OK* ]] || fail "$kind: ${verdict#BAD }"
  ok "$kind (pid $pid): $(basename "$before") + .after.trace parse, moment inside: ${verdict#OK }"
}
check stw "$P_stw"
check syscall "$P_syscall"
check cpu_throttle "$P_throttle"
check sched_latency "$P_latency"

# Rate limit: the targets keep crossing; none saved again within min_interval_seconds.
sleep 2
M=$(get /metrics)
for p in "$P_stw" "$P_syscall" "$P_latency"; do
  rl=$(grep "^gotraced_target_triggers_rate_limited_total{pid=\"$p\"" <<<"$M" | awk '{print $2}')
  ((${rl:-0} > 0)) || fail "pid $p: no rate-limited crossing counted ($rl)"
done
grep -q "^gotraced_target_triggers_total{pid=\"$P_stw\",.*kind=\"stw\"} 1" <<<"$M" || fail "/metrics: stw trigger of $P_stw"
n=$(ls "$W/spool" | wc -l)
((n == 8)) || fail "spool holds $n files, want 8 (a storm must cost one save per target): $(ls "$W/spool")"
PS=$("$GT" ps --socket "$SOCK")
grep -q "$P_syscall-.*-syscall.after.trace" <<<"$PS" || fail "gotraced ps does not list the saved files: $PS"
ok "storm rate-limited (8 files for 4 targets), counted in /metrics, listed by gotraced ps"
stop_daemon

# Disk full on the spool: a 16 KiB tmpfs that a 16 KiB file already fills (half-full, as
# it was, let a 2-8 KB level-low window through: the disk is full or it is not).
MNT=$W/full
mkdir -p "$MNT"
mount -t tmpfs -o size=16k tmpfs "$MNT"
head -c 16384 /dev/urandom >"$MNT/old.trace"
sum0=$(md5sum <"$MNT/old.trace")
sed -i "s|^dir = .*|dir = \"$MNT\"|" "$W/c.toml"
start_daemon
for ((i = 0; i < 300; i++)); do
  e=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["errors"])' "$(trig "$P_syscall")" 2>/dev/null || echo 0)
  ((e >= 2)) && break
  sleep 0.1
done
((e >= 2)) || fail "disk full: $(trig "$P_syscall")"
[[ $(md5sum <"$MNT/old.trace") == "$sum0" ]] || fail "disk full: the file already in the spool changed"
ls "$MNT" | grep -q partial && fail "disk full: a .partial was left: $(ls "$MNT")"
kill -0 "$DAEMON" || fail "disk full: the daemon died"
ok "spool on a full 16 KiB tmpfs (no byte free): $e saves failed and counted, no .partial left, the old file intact, daemon serving"
