#!/usr/bin/env bash
# Daemon replay bench: the daemon's per-record path (decoder -> model -> encoder) on one
# core, without the kernel. A recording of the HTTP bench's server (bench/http, go1.26,
# driven at a fixed rate) keeps its capture records (GOTRACED_RECORD_FILE); gotraced-replay
# feeds them through session::RecordPipeline as the recording did, several passes, and
# reports events/s of thread CPU time (best pass) and us per event; the replayed trace is
# checked with tracecheck and must hold as many events as the recording wrote, give or
# take the statuses of the attach-time snapshot (the replay has none).
#   scripts/bench-replay.sh [BUILD] [--smoke] [--rate R] [--seconds S] [--passes N]
# --smoke: 500 requests/s for 1 s, 1 pass (that the bench runs, not its figures).
# Exits non-zero if the recording lost records, the replay dropped events or its trace
# does not parse.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GOTRACED_BUILD:-$root/build}
if [[ $# -gt 0 && $1 != --* ]]; then build=$1; shift; fi
build=$(cd "$build" && pwd)
rate=3000 seconds=4 passes=5
while (($#)); do
  case $1 in
    --smoke) rate=500 seconds=1 passes=1; shift ;;
    --rate) rate=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --passes) passes=$2; shift 2 ;;
    *) echo "bench-replay: unknown argument $1" >&2; exit 2 ;;
  esac
done
export GOFLAGS=${GOFLAGS:--buildvcs=false} GOTOOLCHAIN=local
gt=$build/cli/gotraced replay=$build/bench/replay/gotraced-replay
for f in "$gt" "$replay"; do
  [[ -x $f ]] || { echo "bench-replay: $f is not built (cmake --build $build)" >&2; exit 1; }
done
bash "$root/scripts/build-tools.sh" "$build"
bin=$build/bench/http
mkdir -p "$bin"
(cd "$root/bench/http/client" && go build -o "$bin/client" .)
(cd "$root/bench/http/server" && go build -o "$bin/server-go1.26" .)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

"$bin/server-go1.26" -addr 127.0.0.1:0 >"$work/server.out" &
srv=$!
pids+=("$srv")
for _ in $(seq 50); do [[ -s $work/server.out ]] && break; sleep 0.1; done
addr=$(awk '/^listening/ {print $2}' "$work/server.out")
[[ -n $addr ]] || { echo "bench-replay: the server did not start"; exit 1; }
"$bin/client" -url "http://$addr/" -rate "$rate" -duration "$((seconds + 2))s" >"$work/client.out" &
pids+=("$!")
sleep 0.5
GOTRACED_RECORD_FILE=$work/records.bin "$gt" --quiet --pid "$srv" --out "$work/live.trace" --duration "${seconds}s" \
  2>"$work/gotraced.err" >/dev/null || { cat "$work/gotraced.err"; echo "bench-replay: the recording failed"; exit 1; }
summary=$(grep '^gotraced: pid' "$work/gotraced.err")
echo "recording: $summary"
live_events=$(sed -n 's/.*\]: \([0-9]*\) events,.*/\1/p' <<<"$summary")
if ! grep -q 'nothing lost' <<<"$summary"; then echo "FAIL: the recording lost records"; exit 1; fi

"$replay" --records "$work/records.bin" --passes "$passes" --out "$work/replay.trace" | tee "$work/replay.log"
result=$(grep '^RESULT' "$work/replay.log")
parsed=$("$build/tools/tracecheck" "$work/replay.trace" | sed -n 's/^  "events": \([0-9]*\),$/\1/p')
[[ -n $parsed ]] || { echo "FAIL: the replayed trace does not parse (tracecheck)"; exit 1; }
awk -v r="$result" -v live="$live_events" -v parsed="$parsed" -v rate="$rate" 'BEGIN {
  n = split(r, kv, /[ =]/); for (i = 2; i < n; i += 2) v[kv[i]] = kv[i + 1]
  printf "\n== daemon replay: %d records of a %d requests/s HTTP server (go1.26), one core\n", v["records"], rate
  printf "events: recording %d, replay %d (tracecheck: %d parsed), writer refused %d\n", live, v["events"], parsed, v["dropped"]
  target = (v["events_per_sec"] >= 2e6) ? "met" : "NOT met"
  printf "events/s, one core : %6.2f M   (target >= 2 M: %s)\n", v["events_per_sec"] / 1e6, target
  printf "records/s, one core: %6.2f M\n", v["records_per_sec"] / 1e6
  printf "us of CPU per event: %6.3f\n", v["us_per_event"]
  exit (v["dropped"] == 0) ? 0 : 1
}'
