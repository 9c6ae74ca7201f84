#!/usr/bin/env bash
# Start-up bench: the wall and CPU time tracing adds to a Go program that exits at once
# (bench/startup/hello, built with the machine's Go), with no tracing, the in-process
# runtime/trace and `gotraced --out F -- PROG`, side by side in one run, plus gotraced's
# --verbose breakdown of start-up and stop and how long after the program it ended.
#   scripts/bench-startup.sh [BUILD] [--smoke] [--reps N]
# --smoke: 2 reps (that the bench runs, not its figures). Exits non-zero if a run failed
# or a trace does not parse.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GOTRACED_BUILD:-$root/build}
if [[ $# -gt 0 && $1 != --* ]]; then build=$1; shift; fi
build=$(cd "$build" && pwd)
reps=15
while (($#)); do
  case $1 in
    --smoke) reps=2; shift ;;
    --reps) reps=$2; shift 2 ;;
    *) echo "bench-startup: unknown argument $1" >&2; exit 2 ;;
  esac
done
export GOFLAGS=${GOFLAGS:--buildvcs=false}
[[ -x $build/cli/gotraced ]] || { echo "bench-startup: $build/cli/gotraced is not built (cmake --build $build)" >&2; exit 1; }
bash "$root/scripts/build-tools.sh" "$build"
mkdir -p "$build/bench/startup"
(cd "$root/bench/startup/hello" && GOTOOLCHAIN=local go build -o "$build/bench/startup/hello" .)
exec python3 "$root/bench/startup/startup_bench.py" --gotraced "$build/cli/gotraced" \
  --tracecheck "$build/tools/tracecheck" --prog "$build/bench/startup/hello" --label "hello ($(go version | cut -d' ' -f3))" \
  --reps "$reps"
