#!/usr/bin/env bash
# Runs every test: C++ unit tests (ctest), then each suite script in tests/suites/
# in name order. A suite prints why it skipped anything; a failure fails the run.
set -euo pipefail
BUILD=${1:-build}
cd "$(dirname "$0")/.."
export GOTRACED_BUILD=$(realpath "$BUILD")
export GOTRACED_ROOT=$(pwd)
start=$(date +%s)
failed=()
passed=0
echo "== C++ tests (ctest)"
if ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)"; then passed=$((passed+1)); else failed+=(ctest); fi
for s in tests/suites/*.sh; do
  [[ -e "$s" ]] || continue
  echo "== suite $(basename "$s")"
  s0=$(date +%s)
  if bash "$s"; then passed=$((passed+1)); echo "-- $(basename "$s") ok in $(( $(date +%s) - s0 ))s"
  else failed+=("$(basename "$s")"); echo "-- $(basename "$s") FAILED after $(( $(date +%s) - s0 ))s"; fi
done
echo "== $(( $(date +%s) - start ))s"
echo "suites: ${passed} passed, ${#failed[@]} failed"
if ((${#failed[@]})); then echo "failed: ${failed[*]}"; exit 1; fi
