#!/usr/bin/env bash
# Suite 60: `gotraced serve` end to end with real Go targets (tests/serve/target).
#   attach to targets started after the daemon (exec notifications), flight windows and
#   /trace dumps judged by tracecheck (Go's parser), a go1.19 target's in its own legacy
#   format judged by Go 1.19's and 1.21's go tool trace too, go1.24 and go1.25 targets' windows in
#   their runtimes' formats (go1.23, go1.25) read by their own go tool trace, exit keeps the window, 403 for another
#   uid (client run as the unprivileged user gotraced-test), 400 for garbage, SIGHUP with a
#   broken config keeps serving, a reload that no longer matches detaches, a soak with 10
#   targets for 3 minutes asserting the daemon's RSS stays under memory_mb and that what
#   it holds besides the windows stops growing (RSS and per-target cost printed),
#   systemd-analyze verify of the unit, the .deb installed with dpkg into a scratch
#   root and run; levels (low by default, dump --seconds escalates to full) and the
#   triggers (tests/serve/triggers.sh: one target per kind, spool bounds, disk full), and
#   a level switch under load compared with the target's own trace (tests/serve/level-switch.sh),
#   the exec filter never hiding a target (tests/serve/exec-filter.sh), and the later
#   processes of a binary attached by reuse of an exited one's loaded object, none of its
#   records in theirs (tests/serve/attach-reuse.sh).
# Env: GOTRACED_SERVE_SOAK_SECONDS (default 180) for longer soaks, GOTRACED_SERVE_MEMORY_MB.
set -euo pipefail
: "${GOTRACED_BUILD:?}" "${GOTRACED_ROOT:?}"
B=$GOTRACED_BUILD
GT=$B/cli/gotraced
SOAK=${GOTRACED_SERVE_SOAK_SECONDS:-180}
MEM_MB=${GOTRACED_SERVE_MEMORY_MB:-128}
TEST_USER=gotraced-test

bash "$GOTRACED_ROOT/scripts/build-tools.sh" "$B" >/dev/null
TC=$B/tools/tracecheck
W=$(mktemp -d -t gotraced-serve.XXXXXX)  # in $TMPDIR (scripts/run-suites-twice.sh checks it is left empty)
chmod 755 "$W"
SOCK=$W/gotraced.sock
CONF=$W/gotraced.toml
DAEMON=
TARGETS=()
cleanup() {
  for p in "${TARGETS[@]}"; do kill "$p" 2>/dev/null || true; done
  if [[ -n $DAEMON ]]; then kill -TERM "$DAEMON" 2>/dev/null || true; wait "$DAEMON" 2>/dev/null || true; fi
  if [[ ${KEEP:-0} == 1 ]]; then echo "kept $W"; else rm -rf "$W"; fi
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  echo "--- daemon log (last 40 lines)" >&2
  tail -n 40 "$W/serve.log" >&2 || true
  exit 1
}
ok() { echo "ok: $*"; }

get() { curl -s --max-time 30 --unix-socket "$SOCK" "http://gotraced$1"; }
code() { curl -s --max-time 30 -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" "http://gotraced$1"; }
# Field of pid's line in /processes (one process per line; the newest entry when a pid
# was attached more than once).
field() {
  local all
  all=$(get /processes)
  grep "\"pid\":$1," <<<"$all" | tail -1 | grep -o "\"$2\":[^,}]*" | sed -n 1p | cut -d: -f2- | tr -d '"'
}
wait_state() {  # pid state [seconds]
  local i
  for ((i = 0; i < ${3:-15} * 10; i++)); do
    [[ $(field "$1" state) == "$2" ]] && return 0
    sleep 0.1
  done
  fail "pid $1 did not reach state $2 (is: $(field "$1" state))"
}
check_trace() {  # file what
  local out
  if ! out=$("$TC" "$1" 2>&1 >/dev/null); then fail "$2: tracecheck refused $1: $out"; fi
  local n
  n=$(stat -c %s "$1")
  ok "$2 parses ($n bytes, $(grep -o '"generations": [0-9]*' <("$TC" "$1") | grep -o '[0-9]*') generations)"
}
write_config() {  # window_seconds exe_glob [extra]
  cat >"$CONF" <<EOF
[flight]
window_seconds = $1
window_mb = 4
memory_mb = $MEM_MB
keep_exited = 4
generation_ms = 500
ring_mb = 2
state_sample_seconds = 1
[endpoint]
socket = "$SOCK"
mode = "0666"
max_trace_seconds = 30
[discovery]
rescan_seconds = 2
[[watch]]
exe = "$2"
${3:-}
EOF
}
start_target() {
  "$W/serve-target" -rate "${1:-100}" >/dev/null 2>&1 &
  TARGETS+=($!)
  LAST=$!
}
rss_kb() { awk '/^VmRSS:/ {print $2}' "/proc/$DAEMON/status"; }
cpu_ticks() { awk '{print $14 + $15}' "/proc/$DAEMON/stat"; }

# ---- set-up ---------------------------------------------------------------------------
(cd "$GOTRACED_ROOT/tests/serve/target" && GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -o "$W/serve-target" .)
# The same target built by Debian's Go 1.19 (its go.mod says go 1.22, which 1.19 cannot
# read as its own): served in its own legacy format ("go 1.19 trace").
GO119=/usr/lib/go-1.19/bin/go
[[ -x $GO119 ]] || fail "$GO119 missing (scripts/install-deps.sh installs golang-1.19-go)"
mkdir -p "$W/target119"
cp "$GOTRACED_ROOT"/tests/serve/target/*.go "$W/target119/"
printf 'module gotraced.test/serve-target\ngo 1.19\n' >"$W/target119/go.mod"
(cd "$W/target119" && GOTOOLCHAIN=local GOFLAGS=-buildvcs=false "$GO119" build -o "$W/serve-target-go119" .) ||
  fail "cannot build the target with $GO119"
# Built by Debian trixie's Go 1.24 and 1.25 (scripts/fetch-debian-go.sh): --trace-version
# auto serves each in its runtime's own format (1.24: go1.23, 1.25: go1.25).
# shellcheck source=../lib/suite.sh
source "$GOTRACED_ROOT/tests/lib/suite.sh"
NEWGO=(1.24 1.25)
declare -A WANT_HDR=([1.24]="go 1.23 trace" [1.25]="go 1.25 trace")
WATCHNEW=
for v in "${NEWGO[@]}"; do
  (cd "$GOTRACED_ROOT/tests/serve/target" && GOFLAGS=-buildvcs=false $(go_for "$v") build -o "$W/serve-target-go$v" .) ||
    fail "cannot build the target with go$v ($(go_for "$v"); scripts/install-deps.sh fetches it)"
  WATCHNEW+=$(printf '\n[[watch]]\nexe = "%s"\nlevel = "full"' "$W/serve-target-go$v")
done
# One account for every run on the machine: a run in another build tree may add it first.
if ! id "$TEST_USER" >/dev/null 2>&1; then
  useradd --system --no-create-home --shell /usr/sbin/nologin "$TEST_USER" || id "$TEST_USER" >/dev/null
fi
# The go1.19 target at level full: level low writes the go1.22 format whatever the target
# (its syscall pieces have no legacy form; session.cc), so only full serves go1.19's own.
WATCH119=$(printf '[[watch]]\nexe = "%s"\nlevel = "full"' "$W/serve-target-go119")
write_config 3 "$W/serve-target" "$WATCH119$WATCHNEW"
"$GT" serve --check-config --config "$CONF" >/dev/null || fail "test config refused"
"$GT" serve --config "$CONF" >"$W/serve.log" 2>&1 &
DAEMON=$!
for ((i = 0; i < 100; i++)); do [[ -S $SOCK ]] && break; sleep 0.1; done
[[ -S $SOCK ]] || fail "no socket after 10 s"
[[ $(code /processes) == 200 ]] || fail "/processes"
RSS_IDLE=$(rss_kb)
ok "daemon up (pid $DAEMON, RSS $((RSS_IDLE / 1024)) MiB idle)"

# ---- attach to targets started later ----------------------------------------------------
start_target; A=$LAST
start_target; Bp=$LAST
start_target; C=$LAST
"$W/serve-target-go119" -rate 100 >/dev/null 2>&1 &
TARGETS+=($!)
G19=$!
declare -A GNEW
for v in "${NEWGO[@]}"; do
  "$W/serve-target-go$v" -rate 100 >/dev/null 2>&1 &
  TARGETS+=($!)
  GNEW[$v]=$!
done
for p in $A $Bp $C $G19 "${GNEW[@]}"; do wait_state "$p" recording; done
ok "3 targets started after the daemon are attached: $A $Bp $C ($(field "$A" go_version)); and $G19 ($(field "$G19" go_version))"

# ---- flight windows and /trace ----------------------------------------------------------
sleep 4.5  # the 3 s window fills and starts trimming
for p in $A $Bp; do
  "$GT" dump --socket "$SOCK" --pid "$p" --out "$W/flight-$p.trace" 2>/dev/null || fail "dump --pid $p"
  check_trace "$W/flight-$p.trace" "flight window of $p (from generation $(field "$p" first_generation))"
done
(($(field "$A" first_generation) > 1)) || fail "window of $A was never trimmed: the dump proves nothing about k>1"
curl -s --unix-socket "$SOCK" -o "$W/curl-flight.trace" "http://gotraced/flight?pid=$C" || fail "curl /flight"
check_trace "$W/curl-flight.trace" "curl /flight of $C"
"$GT" dump --socket "$SOCK" --pid "$C" --seconds 1.5 --out "$W/trace-$C.trace" 2>/dev/null || fail "dump --seconds"
check_trace "$W/trace-$C.trace" "/trace?seconds=1.5 of $C"
# Levels: serve's default is low (no scheduling in the window); dump --seconds escalates
# the process to full for those seconds (blocks with their reasons) and drops back.
[[ $(field "$A" level) == low ]] || fail "pid $A records at level '$(field "$A" level)', want serve's default low"
blocks() { "$TC" "$1" | python3 -c 'import json,sys; print(sum(json.load(sys.stdin)["block_reasons"].values()))'; }
(( $(blocks "$W/flight-$A.trace") == 0)) || fail "the low window of $A has goroutine blocks"
# ... and its goroutine state samples (state_sample_seconds = 1): a log per second.
samples=$("$TC" --events-json "$W/flight-$A.trace" | grep -c '"category":"gotraced: goroutine states"' || true)
((samples >= 2)) || fail "the low window of $A has $samples goroutine state samples, want >= 2 in 3 s at 1 s"
nb=$(blocks "$W/trace-$C.trace")
((nb > 20)) || fail "dump --seconds of low $C: $nb blocks, want full detail"
esc_ms=$(grep -o "pid $C .*escalated from level low to full for 1.5 s (full detail after [0-9]* ms" "$W/serve.log" | grep -o "after [0-9]*" | cut -d' ' -f2 || true)
[[ -n $esc_ms ]] || fail "no escalation of $C logged"
[[ $(get /metrics | grep "^gotraced_target_escalations_total{pid=\"$C\"" | awk '{print $2}') == 1 ]] || fail "/metrics: escalations of $C"
[[ $(field "$C" level) == low ]] || fail "pid $C did not drop back to low"
ok "level low by default ($samples goroutine state samples in $A's window); dump --seconds escalated $C to full in $esc_ms ms ($nb blocks in 1.5 s) and dropped back"
# Each answer is read whole before grep looks at it: under pipefail, `curl | grep -q` fails
# when grep exits at its first match and curl is still writing (SIGPIPE; a CI run saw it).
METRICS=$(get /metrics)
grep -q "gotraced_target_events_total{pid=\"$A\"" <<<"$METRICS" || fail "/metrics lacks pid $A"
PS=$("$GT" ps --socket "$SOCK")
grep -q "$A .*recording" <<<"$PS" || fail "gotraced ps does not list $A"
ok "/metrics and gotraced ps list the targets"
# go1.19: the flight window (from a later generation: restart prelude and rebased
# generations, encoder/legacy_rebase.h) and /trace?seconds= (the endpoint's chunks) in
# the target's own format, read by Go 1.19's and 1.21's go tool trace and tracecheck.
legacy_check() {  # file what
  [[ $(head -c 13 "$1") == "go 1.19 trace" ]] || fail "$2: header '$(head -c 13 "$1")', want 'go 1.19 trace'"
  local g out
  for g in "$GO119" /usr/lib/go-1.21/bin/go; do
    out=$("$g" tool trace -d "$1" 2>&1 >"$1.d.txt") || fail "$2: $("$g" version | cut -d' ' -f3) go tool trace -d: $(grep -v Parsing <<<"$out" | head -n1)"
  done
  check_trace "$1" "$2 (go1.19 format, $(grep -c ' off=' "$1.d.txt") events read by go1.19 and go1.21 go tool trace -d)"
}
[[ $(field "$G19" level) == full ]] || fail "pid $G19 records at level '$(field "$G19" level)', want its rule's full"
"$GT" dump --socket "$SOCK" --pid "$G19" --out "$W/flight-$G19.trace" 2>/dev/null || fail "dump --pid $G19"
(($(field "$G19" first_generation) > 1)) || fail "window of $G19 was never trimmed: the dump proves nothing about k>1"
legacy_check "$W/flight-$G19.trace" "flight window of go1.19 $G19 (from generation $(field "$G19" first_generation))"
"$GT" dump --socket "$SOCK" --pid "$G19" --seconds 1 --out "$W/trace-$G19.trace" 2>/dev/null || fail "dump --seconds of $G19"
legacy_check "$W/trace-$G19.trace" "/trace?seconds=1 of go1.19 $G19"
kill "$G19"
# go1.24 / go1.25 at level full: the flight window in the runtime's own format, read by
# tracecheck and by that Go's own go tool trace (tests/lib/suite.sh own_reader_parses).
for v in "${NEWGO[@]}"; do
  p=${GNEW[$v]}
  [[ $(field "$p" go_version) == go$v* ]] || fail "pid $p: go_version '$(field "$p" go_version)', want go$v"
  "$GT" dump --socket "$SOCK" --pid "$p" --out "$W/flight-go$v.trace" 2>/dev/null || fail "dump --pid $p (go$v)"
  [[ $(head -c 13 "$W/flight-go$v.trace") == "${WANT_HDR[$v]}" ]] ||
    fail "go$v flight window: header '$(head -c 13 "$W/flight-go$v.trace")', want '${WANT_HDR[$v]}'"
  own=$(own_reader_parses "$v" "$W/flight-go$v.trace") || fail "go$v flight window: $own"
  check_trace "$W/flight-go$v.trace" "flight window of go$v $p (${WANT_HDR[$v]}, read by go$v go tool trace)"
  kill "$p"
done

# A Go process no rule watches: /trace attaches for the request only.
cp "$W/serve-target" "$W/unwatched-target"
"$W/unwatched-target" >/dev/null 2>&1 &
U=$!
TARGETS+=($U)
sleep 0.5
[[ -z $(field "$U" state) ]] || fail "unwatched $U is traced"
"$GT" dump --socket "$SOCK" --pid "$U" --seconds 1 --out "$W/adhoc-$U.trace" 2>/dev/null || fail "ad-hoc /trace of $U"
check_trace "$W/adhoc-$U.trace" "ad-hoc /trace?seconds=1 of unwatched $U"
kill "$U"

# ---- exit: detached, last window kept -----------------------------------------------------
kill "$C"
wait_state "$C" exited
"$GT" dump --socket "$SOCK" --pid "$C" --out "$W/exited-$C.trace" 2>/dev/null || fail "dump of exited $C"
check_trace "$W/exited-$C.trace" "last window of exited $C"

# ---- access: another uid gets 403 (and sees nothing), logged ------------------------------
as_user() { setpriv --reuid "$TEST_USER" --regid "$TEST_USER" --clear-groups "$@"; }
c=$(as_user curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" "http://gotraced/flight?pid=$A")
[[ $c == 403 ]] || fail "unprivileged /flight: $c, want 403"
set +e
# A directory that uid may write to (this run's own): only the refusal keeps the file away.
install -d -o "$TEST_USER" "$W/as-user"
as_user "$GT" dump --socket "$SOCK" --pid "$A" --out "$W/as-user/should-not-exist.trace" 2>/dev/null
rc=$?
set -e
((rc == 3)) || fail "unprivileged gotraced dump exit $rc, want 3 (403)"
[[ ! -e $W/as-user/should-not-exist.trace ]] || fail "refused dump left a file"
UNPRIV=$(as_user curl -s --unix-socket "$SOCK" http://gotraced/processes)
grep -q "\"pid\":$A," <<<"$UNPRIV" && fail "unprivileged /processes shows root's pid $A"
grep -q "403 GET /flight?pid=$A for uid $(id -u "$TEST_USER")" "$W/serve.log" || fail "403 not logged"
ok "uid $(id -u "$TEST_USER") ($TEST_USER): 403 on /flight and dump (exit 3), nothing listed, logged"

# ---- garbage: 400, daemon lives ---------------------------------------------------------
[[ $(code "/flight?pid=abc") == 400 ]] || fail "pid=abc not 400"
[[ $(code "/flight") == 400 ]] || fail "missing pid not 400"
[[ $(code "/trace?pid=$A&seconds=-1") == 400 ]] || fail "seconds=-1 not 400"
[[ $(code "/flight?pid=$A&x=%zz") == 400 ]] || fail "bad escape not 400"
c=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" --request-target 'garbage' http://gotraced/)
[[ $c == 400 ]] || fail "request target 'garbage': $c"
c=$(curl -s -o /dev/null -w '%{http_code}' --unix-socket "$SOCK" -X DELETE http://gotraced/processes)
[[ $c == 405 ]] || fail "DELETE: $c"
if command -v python3 >/dev/null; then
  python3 - "$SOCK" <<'PY' || fail "raw garbage"
import os, socket, sys
path = sys.argv[1]
payloads = [b"\x00\xff\r\n\r\n", b"GET / HTTP/1.1\r\n" + b"A" * 70000, os.urandom(4096), b"GET /" + b"%" * 9000 + b" HTTP/1.1\r\n\r\n"]
for p in payloads:
    s = socket.socket(socket.AF_UNIX); s.connect(path)
    # The daemon may answer (431) and close before it has read all of an oversized head:
    # the rest of the send then fails, and the answer is still there to read.
    try:
        s.sendall(p); s.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError):
        pass
    r = s.recv(64); s.close()
    code = int(r.split()[1]) if r.startswith(b"HTTP/1.1 ") else 0
    if not 400 <= code < 500: sys.exit("payload %r... answered %r" % (p[:16], r[:40]))
PY
  ok "raw binary garbage, an oversized head and a huge target: 4xx"
else
  echo "note: python3 not installed: raw-bytes garbage case skipped (curl cases ran)"
fi
kill -0 "$DAEMON" || fail "daemon died on garbage"
[[ $(code /processes) == 200 ]] || fail "/processes after garbage"
ok "malformed requests: 400/405, daemon still serving"

# ---- SIGHUP: broken config refused, old one stays; valid reload keeps windows -------------
cp "$CONF" "$W/good.toml"
printf '[flight]\nwindow_seconds = "oops"\n[[watch]]\nexe = "x"\n' >"$CONF"
kill -HUP "$DAEMON"
sleep 1
grep -q "configuration refused, the previous one stays in force: $CONF:2:" "$W/serve.log" || fail "broken config not refused with file:line"
kill -0 "$DAEMON" || fail "daemon died on a broken config"
[[ $(field "$A" state) == recording ]] || fail "pid $A not recording after refused reload"
"$GT" dump --socket "$SOCK" --pid "$A" --out "$W/after-bad-hup.trace" 2>/dev/null || fail "dump after refused reload"
check_trace "$W/after-bad-hup.trace" "window after SIGHUP with a broken config"
ev_before=$(field "$A" events_emitted)
attached_before=$(field "$A" attached_at)
write_config 2 "$W/serve-target"
kill -HUP "$DAEMON"
sleep 1
grep -q "configuration reloaded" "$W/serve.log" || fail "valid reload not applied"
[[ $(field "$A" state) == recording ]] || fail "pid $A lost by a reload that still matches"
[[ $(field "$A" attached_at) == "$attached_before" ]] || fail "pid $A re-attached by a reload that still matches"
(($(field "$A" events_emitted) >= ev_before)) || fail "pid $A lost its counters in the reload"
(($(field "$A" first_generation) > 0)) || fail "pid $A lost its window in the reload"
ok "SIGHUP: broken config refused (file:line logged, still serving); valid reload kept $A recording"
write_config 2 "$W/nothing-matches-*"
kill -HUP "$DAEMON"
wait_state "$A" detached
"$GT" dump --socket "$SOCK" --pid "$A" --out "$W/detached-$A.trace" 2>/dev/null || fail "dump of detached $A"
check_trace "$W/detached-$A.trace" "window of $A detached by a reload"
write_config 3 "$W/serve-target"
kill -HUP "$DAEMON"
wait_state "$A" recording
ok "reload that no longer matches detaches (window kept); matching again re-attaches"

# ---- soak: 10 targets, RSS under the cap --------------------------------------------------
kill "$A" "$Bp" 2>/dev/null || true
sleep 1
write_config 600 "$W/serve-target"  # windows limited by bytes and the cap, not time
kill -HUP "$DAEMON"
sleep 0.5
windows_kb() { get /metrics | awk '/^gotraced_flight_bytes / {printf "%d", $2 / 1024}'; }
RSS0=$(rss_kb)
HELD0=$((RSS0 - $(windows_kb)))  # what the daemon holds besides the windows
SOAK_PIDS=()
for ((i = 0; i < 10; i++)); do
  start_target 300
  SOAK_PIDS+=($LAST)
done
for p in "${SOAK_PIDS[@]}"; do wait_state "$p" recording 20; done
CPU0=$(cpu_ticks)
T0=$(date +%s.%N)
max=0
samples=""
held=()  # RSS minus windows, KiB, every 5 s
end=$(($(date +%s) + SOAK))
while (($(date +%s) < end)); do
  r=$(rss_kb)
  ((r > max)) && max=$r
  samples+="$((r / 1024)) "
  held+=($((r - $(windows_kb))))
  kill -0 "$DAEMON" || fail "daemon died during the soak"
  sleep 5
done
CPU1=$(cpu_ticks)
T1=$(date +%s.%N)
for p in "${SOAK_PIDS[@]}"; do [[ $(field "$p" state) == recording ]] || fail "soak target $p: $(field "$p" state)"; done
for p in "${SOAK_PIDS[@]:0:3}"; do
  "$GT" dump --socket "$SOCK" --pid "$p" --no-wait --out "$W/soak-$p.trace" 2>/dev/null || fail "soak dump $p"
  check_trace "$W/soak-$p.trace" "soak window of $p"
done
metrics=$(get /metrics)
sum() { echo "$metrics" | grep "^$1{" | awk '{s += $2} END {printf "%.0f", s}'; }
events=$(sum gotraced_target_events_total)
lost=$(sum gotraced_target_records_lost_total)
wbytes=$(echo "$metrics" | awk '/^gotraced_flight_bytes / {print $2}')
budget=$(echo "$metrics" | awk '/^gotraced_flight_budget_bytes / {print $2}')
evicted=$(echo "$metrics" | awk '/^gotraced_flight_evicted_generations_total / {print $2}')
refused=$(echo "$metrics" | awk '/^gotraced_attach_refused_memory_total / {print $2}')
secs=$(awk -v a="$T0" -v b="$T1" 'BEGIN {print b - a}')
hz=$(getconf CLK_TCK)
# Averages of 3 samples (RSS moves by a generation or two from one sample to the next)
# around the middle and at the end of the soak, 5 s apart.
n=${#held[@]}
((n >= 8)) || fail "soak too short for a trend ($n samples)"
avg3() { echo $(((held[$1 - 1] + held[$1] + held[$1 + 1]) / 3)); }
mid=$(avg3 $((n / 2)))
last=$(avg3 $((n - 2)))
half_min=$(awk -v k="$((n - 2 - n / 2))" 'BEGIN {print k * 5 / 60}')
growth=$(awk -v a="$mid" -v b="$last" -v m="$half_min" 'BEGIN {printf "%.2f", (b - a) / 1024 / m / 10}')
echo "soak: 10 targets x ${SOAK}s at 300 rounds/s; memory_mb = $MEM_MB, ring_mb = 2"
echo "  daemon RSS (MiB, every 5 s): $samples"
echo "  RSS idle $((RSS_IDLE / 1024)) MiB, before soak $((RSS0 / 1024)) MiB, max $((max / 1024)) MiB (cap $MEM_MB MiB)"
echo "  per target: $(((last - HELD0) / 10)) KiB resident besides its window (BPF ring mapped twice, binary, model);" \
  "windows hold $((${wbytes%.*} / 1024)) KiB in all (budget $((${budget%.*} / 1048576)) MiB, $evicted generations evicted)"
echo "  held besides windows: $((mid / 1024)) MiB at mid-soak, $((last / 1024)) MiB at the end: ${growth} MiB/min per target"
cpu=$(awk -v t="$((CPU1 - CPU0))" -v hz="$hz" -v s="$secs" 'BEGIN {printf "%.1f", t * 100 / hz / s}')
echo "  daemon CPU: ${cpu}% of one core for 10 targets ($(awk -v c="$cpu" 'BEGIN {printf "%.2f", c / 10}')% per target); events $events in all ($(awk -v e="$events" -v s="$secs" 'BEGIN {printf "%.0f", e / s / 10}')/s per target incl. warm-up), lost records $lost"
# All 10 are recording (checked above); one may have been turned away once while another
# start's kernel BTF was still resident, and taken at the next rescan (2 s here).
echo "  attaches deferred by the memory cap: ${refused%.*} (all 10 recording)"
((max < MEM_MB * 1024)) || fail "daemon RSS $((max / 1024)) MiB exceeded the cap $MEM_MB MiB"
ok "RSS stayed under memory_mb ($((max / 1024)) < $MEM_MB MiB)"
# The windows are held at the budget by now; the rest must have stopped growing (a model
# that remembered every ended goroutine grew ~0.7 MiB/min per target more here; 0.06 to
# 0.28 measured without it, the RSS moving with the windows' churn).
awk -v g="$growth" 'BEGIN {exit !(g < 0.5)}' || fail "the daemon's memory besides the windows grows ${growth} MiB/min per target"
ok "memory besides the windows flat in the second half of the soak (${growth} MiB/min per target)"
for p in "${SOAK_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done

kill -TERM "$DAEMON"
wait "$DAEMON" || fail "daemon exit status $? on SIGTERM"
DAEMON=
[[ ! -e $SOCK ]] || fail "socket left behind"
ok "SIGTERM: clean stop, socket removed"

# ---- systemd unit and Debian package ------------------------------------------------------
(cd "$B" && cpack -G DEB >"$W/cpack.log" 2>&1) || { cat "$W/cpack.log"; fail "cpack -G DEB"; }
DEB=$(ls "$B"/gotraced_*_amd64.deb | head -1)
ROOT=$W/root
mkdir -p "$ROOT/var/lib/dpkg/info" "$ROOT/var/lib/dpkg/updates" "$ROOT/var/lib/dpkg/triggers"
touch "$ROOT/var/lib/dpkg/status"
# Dependencies are this machine's libraries (checked below); the scratch root has none.
dpkg --root="$ROOT" --force-depends --force-script-chrootless --log=/dev/null -i "$DEB" >"$W/dpkg.log" 2>&1 ||
  { cat "$W/dpkg.log"; fail "dpkg -i into a scratch root"; }
for f in usr/bin/gotraced usr/lib/systemd/system/gotraced.service etc/gotraced/gotraced.toml usr/share/man/man1/gotraced.1; do
  [[ -e $ROOT/$f ]] || fail "package lacks /$f"
done
grep -q /etc/gotraced/gotraced.toml "$ROOT/var/lib/dpkg/info/gotraced.conffiles" || fail "config is not a conffile"
# Every dependency is installed here, by name or as a virtual package (Provides).
installed=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Provides}\n' | awk '$1 == "ii" {$1 = ""; print}' | tr ',' ' ')
for dep in $(dpkg-deb -f "$DEB" Depends | tr ',' '\n' | sed 's/(.*//; s/ //g'); do
  grep -qw -- "$dep" <<<"$installed" || fail "dependency $dep is not installed on this machine"
done
VER=$("$ROOT/usr/bin/gotraced" --version)
grep -q "^gotraced " <<<"$VER" || fail "installed binary --version"
"$ROOT/usr/bin/gotraced" serve --check-config --config "$ROOT/etc/gotraced/gotraced.toml" >/dev/null ||
  fail "installed default config refused"
ok "$(basename "$DEB"): dpkg-installed into a scratch root; --version and serve --check-config run"
# verify the installed unit with the installed binary and man page at their scratch paths.
sed "s|/usr/bin/gotraced|$ROOT/usr/bin/gotraced|g; s|/etc/gotraced/|$ROOT/etc/gotraced/|g" \
  "$ROOT/usr/lib/systemd/system/gotraced.service" >"$W/gotraced.service"
MANPATH=$ROOT/usr/share/man systemd-analyze verify "$W/gotraced.service" || fail "systemd-analyze verify"
ok "systemd-analyze verify gotraced.service (with its man page)"
# ---- triggers: one target per kind, the spool, rate limit, disk full (own daemon) -------
GOTRACED_BUILD=$B GOTRACED_ROOT=$GOTRACED_ROOT bash "$GOTRACED_ROOT/tests/serve/triggers.sh" || fail "triggers (above)"
# ---- a level switch under load against the target's own trace (own daemon) ----------
GOTRACED_BUILD=$B GOTRACED_ROOT=$GOTRACED_ROOT bash "$GOTRACED_ROOT/tests/serve/level-switch.sh" || fail "level switch (above)"
# ---- the exec filter never hides a target (own daemon) ----------------------------------
GOTRACED_BUILD=$B GOTRACED_ROOT=$GOTRACED_ROOT bash "$GOTRACED_ROOT/tests/serve/exec-filter.sh" || fail "exec filter (above)"
# ---- later processes of a binary attached by reuse of an exited one's object (own daemon)
GOTRACED_BUILD=$B GOTRACED_ROOT=$GOTRACED_ROOT bash "$GOTRACED_ROOT/tests/serve/attach-reuse.sh" || fail "attach by reuse (above)"
echo "60-serve: all checks passed"
