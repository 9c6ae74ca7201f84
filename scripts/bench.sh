#!/usr/bin/env bash
# `make bench`: runs every bench script (scripts/bench-*.sh) in turn against BUILD and
# fails if any of them fails. Benches are slow and not part of `make test`
# (tests/suites/55-bench-smoke.sh runs a one-workload smoke of each instead).
#   scripts/bench.sh [BUILD]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-${GOTRACED_BUILD:-$root/build}}" && pwd)
export GOTRACED_BUILD=$build GOTRACED_ROOT=$root
failed=()
for b in "$root"/scripts/bench-*.sh; do
  [[ -e $b ]] || continue
  echo "== $(basename "$b")"
  if bash "$b" "$build"; then :; else failed+=("$(basename "$b")"); fi
done
if ((${#failed[@]})); then
  echo "bench: failed: ${failed[*]}"
  exit 1
fi
