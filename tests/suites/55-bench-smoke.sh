#!/usr/bin/env bash
# Keeps the overhead bench from rotting: scripts/bench-overhead.sh --smoke (one quick
# workload, one repetition of each mode, a short uprobe-cost run) must take every
# measurement. The figures are printed, not judged: the bench itself (make bench) is
# where overhead is measured.
set -euo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
exec bash "$ROOT/scripts/bench-overhead.sh" "$BUILD" --smoke
