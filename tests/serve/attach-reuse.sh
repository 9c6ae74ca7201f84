#!/usr/bin/env bash
# A process of an executable serve has recorded before is attached by reuse (issue 28
# part 0: capture.h EnableObjectReuse): when a recording's process exits its loaded object
# is kept, and the next process of the same executable takes it and loads nothing.
#   * 6 processes of one Go program at level low (serve's default), one after another (each
#     exits by itself after 1.5 s): the first is loaded, each later one takes its
#     predecessor's object (serve's log says "reusing the loaded object of pid <the
#     previous>"; gotraced_attach_reused_total = 5); then 3 of a copy of it at level full
#     (another executable, another key: its first loads, 2 more reuses);
#   * every process's window parses with Go's own parser (tracecheck);
#   * no record of a previous process reaches a later recording: with
#     GOTRACED_DEBUG_RECORDS every session writes its decoded records (each with its
#     tgid) to a file of its own, and every file holds the records of one process only;
#   * once idle for longer than the pool keeps them (10 s), the kept object is destroyed
#     (gotraced_reusable_objects back to 0).
# Run by tests/suites/60-serve.sh; env GOTRACED_BUILD, GOTRACED_ROOT.
set -euo pipefail
: "${GOTRACED_BUILD:?}" "${GOTRACED_ROOT:?}"
B=$GOTRACED_BUILD
GT=$B/cli/gotraced
bash "$GOTRACED_ROOT/scripts/build-tools.sh" "$B" >/dev/null
TC=$B/tools/tracecheck
W=$(mktemp -d -t gotraced-attach-reuse.XXXXXX)
chmod 755 "$W"
SOCK=$W/s.sock
DAEMON=
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  if [[ -n $DAEMON ]]; then kill -TERM "$DAEMON" 2>/dev/null || true; wait "$DAEMON" 2>/dev/null || true; fi
  if [[ ${KEEP:-0} == 1 ]]; then echo "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
fail() {
  echo "FAIL: attach-reuse: $*" >&2
  tail -n 30 "$W/serve.log" >&2 || true
  exit 1
}
ok() { echo "ok: attach-reuse: $*"; }
get() { curl -s --max-time 30 --unix-socket "$SOCK" "http://gotraced$1"; }
metric() { get /metrics | awk -v m="$1" '$1 == m {printf "%d", $2}'; }
state() {  # pid: its newest entry's state in /processes
  get /processes | python3 -c '
import json, sys
ps = [p for p in json.load(sys.stdin)["processes"] if p["pid"] == int(sys.argv[1])]
print(ps[-1]["state"] if ps else "")' "$1"
}
wait_for() {  # seconds command...: until the command succeeds
  local n=$(($1 * 10)) i
  shift
  for ((i = 0; i < n; i++)); do "$@" && return 0; sleep 0.1; done
  return 1
}
is_state() { [[ $(state "$1") == "$2" ]]; }
kept_at_least() { (($(metric gotraced_reusable_objects) >= $1)); }

(cd "$GOTRACED_ROOT/tests/serve/target" && GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -o "$W/gotarget" .) ||
  fail "cannot build the target"
cp "$W/gotarget" "$W/gotarget-full"  # another executable (its own key), recorded at level full
mkdir "$W/rec"
cat >"$W/c.toml" <<EOF
[flight]
window_seconds = 5
[endpoint]
socket = "$SOCK"
[discovery]
rescan_seconds = 600
[[watch]]
exe = "$W/gotarget"
[[watch]]
exe = "$W/gotarget-full"
level = "full"
EOF
GOTRACED_DEBUG_RECORDS=$W/rec/records "$GT" serve --config "$W/c.toml" --log-level info >"$W/serve.log" 2>&1 &
DAEMON=$!
wait_for 10 test -S "$SOCK" || fail "no socket"

# ---- processes one after another: the first loads, the others reuse --------------------
series() {  # exe n args...: n processes of exe in a row, each taking its predecessor's object
  local exe=$1 n=$2 prev= i p
  shift 2
  for ((i = 1; i <= n; i++)); do
    "$exe" "$@" >/dev/null 2>&1 &
    p=$!
    PIDS+=("$p")
    wait_for 15 is_state "$p" recording || fail "$exe: process $i (pid $p) not attached (state '$(state "$p")')"
    wait "$p" 2>/dev/null || true
    wait_for 15 is_state "$p" exited || fail "$exe: process $i (pid $p): its recording did not end (state '$(state "$p")')"
    wait_for 5 kept_at_least 1 || fail "$exe: process $i (pid $p) exited and no loaded object is kept"
    if [[ -n $prev ]]; then
      grep -q "pid $p .*reusing the loaded object of pid $prev)" "$W/serve.log" ||
        fail "$exe: process $i (pid $p) was not attached by reuse of pid $prev's object: $(grep -w "$p" "$W/serve.log" | head -3)"
    fi
    prev=$p
  done
}
series "$W/gotarget" 6 -rate 200 -workers 2 -exit-after 1500ms
reused=$(metric gotraced_attach_reused_total)
((reused == 5)) || fail "gotraced_attach_reused_total is $reused after 6 processes of one program, want 5"
ok "6 processes of one program in a row at level low: the first loaded, the next 5 attached by reuse ($reused)"
# Level full: many records a second, so that any of a previous process would show below.
series "$W/gotarget-full" 3 -rate 500 -workers 4 -exit-after 2500ms
reused=$(($(metric gotraced_attach_reused_total) - reused))
((reused == 2)) || fail "gotraced_attach_reused_total grew by $reused after 3 processes at level full, want 2"
ok "3 processes of another program in a row at level full: the next 2 attached by reuse"

# ---- every window parses with Go's parser -------------------------------------------------
for p in "${PIDS[@]}"; do
  "$GT" dump --socket "$SOCK" --pid "$p" --out "$W/w-$p.trace" 2>/dev/null || fail "dump --pid $p"
  out=$("$TC" "$W/w-$p.trace" 2>&1 >/dev/null) || fail "tracecheck refused pid $p's window: $out"
done
ok "the ${#PIDS[@]} windows parse with Go's parser"

# ---- no record of a previous process in a later recording ----------------------------------
python3 - "$W/rec" "${PIDS[@]}" <<'PY' || fail "records of one process reached another's recording (above)"
import glob, re, sys
d, pids = sys.argv[1], [int(p) for p in sys.argv[2:]]
seen, bad = {}, False
for f in sorted(glob.glob(d + "/records*")):
    tgids = {}
    for line in open(f):
        m = re.match(r"# \d+\.\d+ tgid=(\d+) ", line)
        if m:
            tgids[int(m.group(1))] = tgids.get(int(m.group(1)), 0) + 1
    if len(tgids) > 1:
        print(f"{f}: records of several processes: {tgids}", file=sys.stderr)
        bad = True
    for t, n in tgids.items():
        seen[t] = seen.get(t, 0) + n
missing = [p for p in pids if p not in seen]
if missing:
    print(f"no record file holds records of {missing} (seen {sorted(seen)})", file=sys.stderr)
    bad = True
sys.exit(1 if bad else 0)
PY
ok "each recording's records are of its own process only ($(ls "$W/rec" | wc -l) record files)"

# ---- an idle kept object does not stay -----------------------------------------------------
kb=$(metric gotraced_reusable_objects_ring_bytes)
((kb > 0 && kb <= 16 << 20)) || fail "kept objects' rings: $kb bytes, want 1 .. 16 MiB"
none_kept() { (($(metric gotraced_reusable_objects) == 0)); }
wait_for 20 none_kept || fail "a kept object still there after 20 s idle ($(metric gotraced_reusable_objects))"
ok "the kept object destroyed once idle"
