#!/usr/bin/env bash
# Keeps the benches from rotting: every scripts/bench-*.sh runs with --smoke (a short
# run of each measurement: overhead, start-up, go test -exec, the HTTP server, the
# encoder replay) and must take every measurement, with every trace it writes parsing;
# bench-sampling's twins (--paired --smoke) too, which must print a watched window's cost.
# The figures are printed, not judged: the benches themselves (make bench) are where cost
# is measured. Whole suite: well under a minute on an idle 2-core machine.
set -euo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
SUITE=55-bench-smoke
GOTRACED=$BUILD/cli/gotraced
# shellcheck source=../lib/suite.sh
source "$ROOT/tests/lib/suite.sh"
need_gotraced
need_bpf
fail=0
for b in "$ROOT"/scripts/bench-*.sh; do
  name=$(basename "$b" .sh)
  t0=$SECONDS
  if bash "$b" "$BUILD" --smoke; then
    echo "ok   $SUITE: $name --smoke ($((SECONDS - t0)) s)"
  else
    echo "FAIL $SUITE: $name --smoke failed ($((SECONDS - t0)) s)"
    fail=1
  fi
done
t0=$SECONDS
out=$(bash "$ROOT/scripts/bench-sampling.sh" "$BUILD" --paired --smoke 2>&1) || true
echo "$out"
if grep -q "serve's default, 1 watched windows: cost median" <<<"$out" && grep -q "w02 A .* req/s" <<<"$out"; then
  echo "ok   $SUITE: bench-sampling --paired --smoke ($((SECONDS - t0)) s)"
else
  echo "FAIL $SUITE: bench-sampling --paired --smoke printed no watched window's cost ($((SECONDS - t0)) s)"
  fail=1
fi
exit $fail
