#!/usr/bin/env bash
# Encoder benchmark: speed (events/s on one core) and size (bytes/event) of encoder/
# against the Go runtime's own trace writer on the same events.
#  1. builds and runs bench/encoder/workload (runtime/trace on goroutine ping-pong,
#     mutexes, syscalls) -> runtime.trace, written by the runtime;
#  2. encoder_bench decodes it and re-encodes every event with TraceWriter (timed, best
#     of several passes on one thread) -> ours.trace;
#  3. tests/tracecheck counts the events of both files (they must agree) and the
#     bytes/event are file size / parsed events.
#   scripts/bench-encoder.sh [BUILD_DIR] [--smoke]   (default: $GOTRACED_BUILD, else build)
# --smoke: short passes (that the bench runs, not its figures).
# Exits 1 if something fails or ours is larger per event than the runtime's; the speed
# target (>= 20 M events/s) is reported, not enforced (it depends on machine load).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GOTRACED_BUILD:-$root/build}
if [[ $# -gt 0 && $1 != --* ]]; then build=$1; shift; fi
secs=(2 1s 4)  # synthetic pass, workload run, replay passes
if [[ ${1:-} == --smoke ]]; then secs=(0.2 200ms 0.4); fi
[[ -f $build/build.ninja ]] || cmake -S "$root" -B "$build" -G Ninja >/dev/null
cmake --build "$build" --target encoder_bench > "${TMPDIR:-/tmp}/bench-encoder-build.log" 2>&1 ||
  { cat "${TMPDIR:-/tmp}/bench-encoder-build.log"; exit 1; }
bash "$root/scripts/build-tools.sh" "$build"
tc=$build/tools/tracecheck
bench=$build/bench/encoder/encoder_bench
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

(cd "$root/bench/encoder/workload" && GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -o "$work/workload" .)
"$work/workload" -o "$work/runtime.trace" -d "${secs[1]}"

events_of() { "$tc" "$1" | sed -n 's/^  "events": \([0-9]*\),$/\1/p'; }

echo "-- synthetic mix"
"$bench" --seconds "${secs[0]}" | grep -v '^RESULT'
echo "-- replay of a runtime/trace file ($(go version | cut -d' ' -f3))"
"$bench" --trace "$work/runtime.trace" --out "$work/ours.trace" --seconds "${secs[2]}" | tee "$work/bench.log"

rt_events=$(events_of "$work/runtime.trace")
our_events=$(events_of "$work/ours.trace")
if [[ -z $rt_events || $rt_events != "$our_events" ]]; then
  echo "FAIL: tracecheck counts differ: runtime $rt_events events, ours $our_events"; exit 1
fi
rt_bytes=$(stat -c %s "$work/runtime.trace")
our_bytes=$(stat -c %s "$work/ours.trace")
result=$(grep '^RESULT' "$work/bench.log")
eps=$(sed 's/.* events_per_sec=\([0-9]*\).*/\1/' <<<"$result")
eps_ids=$(sed 's/.* events_per_sec_ids=\([0-9]*\).*/\1/' <<<"$result")

awk -v eps="$eps" -v eps_ids="$eps_ids" -v rb="$rt_bytes" -v ob="$our_bytes" -v ev="$rt_events" 'BEGIN {
  printf "\n== encoder benchmark (%d events parsed by tracecheck in each file)\n", ev
  speed = (eps >= 20e6) ? "met" : "NOT met"
  size = (ob <= rb) ? "met" : "NOT met"
  printf "events/s, one core, strings + pc stacks interned per event : %6.1f M   (target >= 20 M: %s)\n", eps / 1e6, speed
  printf "events/s, one core, table ids interned once per generation: %6.1f M\n", eps_ids / 1e6
  printf "bytes/event ours   : %.3f  (%d bytes)\n", ob / ev, ob
  printf "bytes/event runtime: %.3f  (%d bytes)   (target ours <= runtime: %s)\n", rb / ev, rb, size
  exit (ob <= rb) ? 0 : 1
}'
