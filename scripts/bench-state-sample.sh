#!/usr/bin/env bash
# Cost of level low's goroutine state samples (docs/levels.md): a program with N
# goroutines blocked on a channel (bench/state-sample/blocked) recorded at --level low
# with --state-sample 100ms for 4 s; gotraced -v says how many samples it took and the
# time they took (wall time of the read and the message). The cost bound (the next sample
# waits 100x the last one's cost) spaces them out as N grows. Also checks that the trace
# parses and that its last sample counts the N goroutines on "chan receive".
#   scripts/bench-state-sample.sh [BUILD] [--smoke] [N ...]   (default N: 1000 10000 100000)
# --smoke: N = 1000 only (that the bench runs, not its figures: tests/suites/55).
# BENCH_STATE_SAMPLE_ARGS: more gotraced options (e.g. --no-labels: no g.labels read).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GOTRACED_BUILD:-$root/build}
if [[ $# -gt 0 && ! $1 =~ ^[0-9]+$ && $1 != --* ]]; then build=$1; shift; fi
build=$(cd "$build" && pwd)
counts=()
for a in "$@"; do
  case $a in
    --smoke) counts=(1000) ;;
    *[!0-9]* | "") echo "bench-state-sample: '$a': expected --smoke or a number of goroutines" >&2; exit 2 ;;
    *) counts+=("$a") ;;
  esac
done
((${#counts[@]})) || counts=(1000 10000 100000)
[[ -x $build/cli/gotraced ]] || { echo "bench-state-sample: $build/cli/gotraced is not built" >&2; exit 1; }
bash "$root/scripts/build-tools.sh" "$build"
work=$build/bench/state-sample
mkdir -p "$work"
(cd "$root/bench/state-sample/blocked" && GOFLAGS=-buildvcs=false GOTOOLCHAIN=local go build -o "$work/blocked" .)
fail=0
printf '%-10s %-8s %-12s %-12s %s\n' goroutines samples "ms/sample" "max ms" "last sample"
for n in "${counts[@]}"; do
  "$work/blocked" -n "$n" &
  pid=$!
  sleep 1.5
  # shellcheck disable=SC2086 # options, split on spaces
  if ! timeout 120 "$build/cli/gotraced" --pid "$pid" --level low --state-sample 100ms --duration 4s -v ${BENCH_STATE_SAMPLE_ARGS:-} \
    --out "$work/$n.trace" >"$work/$n.log" 2>&1; then
    echo "bench-state-sample: gotraced failed for $n goroutines: $(tail -3 "$work/$n.log")" >&2
    fail=1
  fi
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  line=$(grep "goroutine state samples" "$work/$n.log" || true)
  if ! "$build/tools/tracecheck" --events-json "$work/$n.trace" >"$work/$n.events" 2>"$work/$n.err"; then
    echo "bench-state-sample: the $n-goroutine trace does not parse: $(head -c 300 "$work/$n.err")" >&2
    fail=1
    continue
  fi
  python3 - "$n" "$work/$n.events" "$line" <<'PY' || fail=1
import json, re, sys
n, line = int(sys.argv[1]), sys.argv[3]
logs = [e["message"] for e in map(json.loads, open(sys.argv[2])) if e["kind"] == "Log" and e.get("category") == "gotraced: goroutine states"]
m = re.search(r"(\d+) goroutine state samples .* ([\d.]+) ms per sample at most, ([\d.]+) ms in all", line)
if not logs or not m:
    sys.exit(f"bench-state-sample: {n}: no sample ({len(logs)} logs; '{line}')")
recv = re.search(r"chan receive (\d+)", logs[-1])
if not recv or int(recv.group(1)) < n:
    sys.exit(f"bench-state-sample: {n}: the last sample does not count {n} on chan receive: {logs[-1][:200]}")
k, mx, total = int(m.group(1)), float(m.group(2)), float(m.group(3))
print(f"{n:<10} {k:<8} {total / k:<12.2f} {mx:<12.2f} {logs[-1][:90]}")
PY
done
exit $fail
