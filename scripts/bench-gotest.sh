#!/usr/bin/env bash
# go test bench: `go test -count=1` over 9 std packages with a warm build cache, plain,
# with -exec 'gotraced --quiet --out-dir D --' and (one go test per package, as go test
# refuses -trace with several) with the in-process -trace, side by side in one run; traces
# checked with tracecheck; a failing package shows exit codes pass through gotraced.
#   scripts/bench-gotest.sh [BUILD] [--smoke] [--reps N]
# --smoke: 2 packages, 1 rep (that the bench runs, not its figures). Exits non-zero if a
# run failed, an exit code changed or a trace does not parse.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GOTRACED_BUILD:-$root/build}
if [[ $# -gt 0 && $1 != --* ]]; then build=$1; shift; fi
build=$(cd "$build" && pwd)
args=()
while (($#)); do
  case $1 in
    --smoke) args+=(--reps 1 --pkgs errors,path); shift ;;
    --reps) args+=(--reps "$2"); shift 2 ;;
    *) echo "bench-gotest: unknown argument $1" >&2; exit 2 ;;
  esac
done
export GOFLAGS=${GOFLAGS:--buildvcs=false} GOTOOLCHAIN=local
[[ -x $build/cli/gotraced ]] || { echo "bench-gotest: $build/cli/gotraced is not built (cmake --build $build)" >&2; exit 1; }
bash "$root/scripts/build-tools.sh" "$build"
exec python3 "$root/bench/gotest/gotest_bench.py" --gotraced "$build/cli/gotraced" \
  --tracecheck "$build/tools/tracecheck" --failing "$root/bench/gotest/failing" "${args[@]}"
