#!/usr/bin/env bash
# Keeps the benches from rotting: every scripts/bench-*.sh runs with --smoke (a short
# run of each measurement: overhead, start-up, go test -exec, the HTTP server, the
# encoder replay) and must take every measurement, with every trace it writes parsing.
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
exit $fail
