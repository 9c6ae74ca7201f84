#!/usr/bin/env bash
# Host bench (issue 28 part 0): a bystander's getppid with 0/1/10/50 idle Go processes
# watched by serve's default, beside no serve; serve's CPU, RSS, BPF programs and map
# memory; serve's CPU per attach of 100 short-lived processes of one binary (bench/host).
#   scripts/bench-host.sh [BUILD] [--smoke] [--counts 0 1 10 50] [--reps N] [--settle S] [--attach N] [--json FILE]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${GOTRACED_BUILD:-$root/build}
if [[ $# -gt 0 && $1 != --* ]]; then build=$1; shift; fi
build=$(cd "$build" && pwd)
args=()
while (($#)); do
  case $1 in
    --smoke) args+=(--counts 0 2 --reps 2 --seconds 3 --settle 1 --attach 5); shift ;;
    *) args+=("$1"); shift ;;
  esac
done
for f in "$build/cli/gotraced" "$build/bench/host/gotraced-getppid-ns"; do
  [[ -x $f ]] || { echo "bench-host: $f is not built (cmake --build $build)" >&2; exit 1; }
done
mkdir -p "$build/bench/host"
(cd "$root/bench/host/idle" && GOTOOLCHAIN=local GOFLAGS=${GOFLAGS:--buildvcs=false} go build -o "$build/bench/host/idle-go" .)
exec python3 "$root/bench/host/host_cost.py" --build "$build" --idle "$build/bench/host/idle-go" "${args[@]}"
