#!/usr/bin/env bash
# Overhead bench: the fidelity workloads timed with no tracing, with the in-process
# runtime/trace and under gotraced (launch mode), side by side in one run, plus the bare
# cost of one uprobe hit (bench/overhead/gotraced-uprobe-cost). Prints two tables and
# the uprobe figures; exits non-zero if any measurement could not be taken.
#   scripts/bench-overhead.sh [BUILD] [--smoke] [--reps N] [--go go1.26]
#                             [--workloads pingpong=10,mutex=5] [--json FILE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GOTRACED_BUILD:-$root/build}
if [[ $# -gt 0 && $1 != --* ]]; then build=$1; shift; fi
build=$(cd "$build" && pwd)
gover=go1.26
args=()
while (($#)); do
  case $1 in
    --go) gover=$2; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
done
export GOFLAGS=${GOFLAGS:--buildvcs=false}
bash "$root/scripts/build-tools.sh" "$build"
bash "$root/tests/fidelity/build-targets.sh" "$build/fidelity/targets" "$gover"
for f in "$build/cli/gotraced" "$build/bench/overhead/gotraced-uprobe-cost"; do
  [[ -x $f ]] || { echo "bench-overhead: $f is not built (cmake --build $build)" >&2; exit 1; }
done
exec python3 "$root/bench/overhead/overhead.py" --build "$build" --target "$build/fidelity/targets/$gover/fidelity" "${args[@]}"
