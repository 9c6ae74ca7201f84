#!/usr/bin/env bash
# A level switch under load, compared with the target's own trace of the same run
# (issue 15: switching a live process from serve's default level to full detail).
#
# serve watches the fidelity target (tests/fidelity/targets, workload midrun, go1.26) at
# level low. The target is busy before anything is traced (a paced ping-pong, sleepers,
# parked goroutines and lockers: midrun.go). `gotraced dump --seconds S` escalates it to
# full; once the daemon has logged the switch, SIGUSR1 makes the target start its own
# runtime/trace and run its measured part (ping-pong, mutex, spawn), then exit. The
# escalation must use the full-level recording serve loaded ahead (service/standby.h),
# and its recording must then:
#   * parse (tracecheck), and hold the whole measured part;
#   * match the in-process trace by suite 50's thresholds (tracecompare: every goroutine
#     of the window with the same id, creator and start function; block, unblock and
#     syscall counts within 2%; >= 95% of paired stacks identical);
#   * owe nothing to the switch: 0 inconsistencies repaired, 0 records discarded, 0 lost
#     (the daemon's "escalation of pid N ended" line);
# Run by tests/suites/60-serve.sh; env
# GOTRACED_BUILD, GOTRACED_ROOT.
set -euo pipefail
: "${GOTRACED_BUILD:?}" "${GOTRACED_ROOT:?}"
B=$GOTRACED_BUILD
GT=$B/cli/gotraced
TOOLS=$B/tools
bash "$GOTRACED_ROOT/scripts/build-tools.sh" "$B" >/dev/null
# shellcheck source=../fidelity/lib.sh
source "$GOTRACED_ROOT/tests/fidelity/lib.sh"
W=$(mktemp -d -t gotraced-level-switch.XXXXXX)
SOCK=$W/s.sock
DAEMON= TARGET=
cleanup() {
  [[ -n $TARGET ]] && kill -KILL "$TARGET" 2>/dev/null
  if [[ -n $DAEMON ]]; then kill -TERM "$DAEMON" 2>/dev/null || true; wait "$DAEMON" 2>/dev/null || true; fi
  if [[ ${KEEP:-0} == 1 ]]; then echo "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
fail() {
  echo "FAIL: level-switch: $*" >&2
  tail -n 20 "$W/serve.log" >&2 || true
  exit 1
}
ok() { echo "ok: level-switch: $*"; }
get() { curl -s --max-time 30 --unix-socket "$SOCK" "http://gotraced$1"; }
field() {  # pid key: the key of pid's entry in /processes
  get /processes | python3 -c '
import json, sys
ps = [p for p in json.load(sys.stdin)["processes"] if p["pid"] == int(sys.argv[1])]
print(ps[-1].get(sys.argv[2], "") if ps else "")' "$1" "$2"
}

bash "$GOTRACED_ROOT/tests/fidelity/build-targets.sh" "$W/targets" go1.26 >/dev/null || fail "cannot build the fidelity target with go1.26"
cp "$W/targets/go1.26/fidelity" "$W/switch-target"

cat >"$W/c.toml" <<EOF
[flight]
window_seconds = 4
generation_ms = 500
ring_mb = 64  # the escalation must lose nothing: room for a daemon starved by a loaded machine (8 MiB lost 32k records at load 8, 32 MiB 54k in a run beside three builds, and failed a CI run; 64 is the CLI's default and the most a standby may hold)
[endpoint]
socket = "$SOCK"
max_trace_seconds = 60
[discovery]
rescan_seconds = 1
[[watch]]
exe = "$W/switch-target"
EOF
"$GT" serve --check-config --config "$W/c.toml" >/dev/null || fail "config refused"
"$GT" serve --config "$W/c.toml" >"$W/serve.log" 2>&1 &
DAEMON=$!
for ((i = 0; i < 100; i++)); do [[ -S $SOCK ]] && break; sleep 0.1; done
[[ -S $SOCK ]] || fail "no socket"

"$W/switch-target" -workload midrun -reftrace "$W/ref.trace" >"$W/target.out" 2>&1 &
TARGET=$!
for ((i = 0; i < 100; i++)); do grep -q '^ready' "$W/target.out" && break; sleep 0.05; done
grep -q '^ready' "$W/target.out" || fail "the target never printed ready: $(tail -3 "$W/target.out")"
for ((i = 0; i < 150; i++)); do [[ $(field "$TARGET" state) == recording ]] && break; sleep 0.1; done
[[ $(field "$TARGET" state) == recording ]] || fail "serve does not record the target (state '$(field "$TARGET" state)')"
[[ $(field "$TARGET" level) == low ]] || fail "the target records at level '$(field "$TARGET" level)', want low"
# serve loads the next escalation's recording ahead (service/standby.h): wait for it, so
# that the switch measured is the one a user gets.
for ((i = 0; i < 300; i++)); do grep -q "pid $TARGET: full-detail standby loaded" "$W/serve.log" && break; sleep 0.1; done
grep -q "pid $TARGET: full-detail standby loaded" "$W/serve.log" || fail "no full-detail standby loaded for $TARGET within 30 s"
sleep 1  # a second of low recording of the busy target before the switch

"$GT" dump --socket "$SOCK" --pid "$TARGET" --seconds 30 --out "$W/full.trace" 2>"$W/dump.err" &
dump=$!
for ((i = 0; i < 200; i++)); do grep -q "pid $TARGET .*escalated from level low to full" "$W/serve.log" && break; sleep 0.05; done
esc=$(grep -o "pid $TARGET .*escalated from level low to full .*" "$W/serve.log" | head -1)
[[ -n $esc ]] || fail "no escalation of $TARGET logged within 10 s"
esc_ms=$(grep -o 'full detail after [0-9]* ms' <<<"$esc" | grep -o '[0-9]*')
grep -q 'loaded ahead' <<<"$esc" || fail "the escalation did not use the standby: $esc"
sleep 0.2
kill -USR1 "$TARGET"
wait "$TARGET" || fail "the target exited $?: $(tail -3 "$W/target.out")"
TARGET_PID=$TARGET
TARGET=
# The escalation ends with the target: its recording sees the exit.
for ((i = 0; i < 300; i++)); do kill -0 "$dump" 2>/dev/null || break; sleep 0.1; done
kill -0 "$dump" 2>/dev/null && fail "dump --seconds did not end within 30 s of the target's exit"
wait "$dump" || fail "dump --seconds failed: $(cat "$W/dump.err")"

fin=$(grep -o "escalation of pid $TARGET_PID ended: .*" "$W/serve.log" | head -1)
[[ -n $fin ]] || fail "no end of the escalation logged"
read -r rep disc lost < <(sed -E 's/.* ([0-9]+) inconsistencies repaired, ([0-9]+) records discarded, ([0-9]+) records lost.*/\1 \2 \3/' <<<"$fin")
[[ $rep == 0 && $disc == 0 && $lost == 0 ]] || fail "the switch cost consistency: $fin"

mkdir -p "$W/cmp"
fid_check_pair "$W/cmp" "$W/ref.trace" "$W/full.trace" --tol=5ms || fail "$FID_ERR"
python3 - "$W/cmp/compare.json" <<'PY' || { cat "$W/cmp/compare.txt" >&2 2>/dev/null; fail "the full-detail part does not match the in-process trace"; }
import json, sys
c = json.load(open(sys.argv[1]))
if not c["pass"]:
    sys.exit(1)
PY
summary=$(python3 - "$W/cmp/compare.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
print("; ".join(f"{r['class']} {r['ours']}/{r['ref']} ({r['figure']:.3g})" for r in c["rows"] if r.get("checked")))
PY
)
ok "escalated low -> full in $esc_ms ms under load; $fin; matches the in-process trace ($summary)"
