#!/usr/bin/env bash
# Kernel matrix (issues 11/12): Debian's own kernels booted in qemu (TCG), each in its
# DEFAULT preemption mode: bookworm's 6.1, bookworm-backports' 6.12 and the newest 6.16+
# and 7.x of trixie-backports (fetched with apt-get download through a private apt
# configuration into /var/cache/gotraced-kernels, never installed). In each guest:
# `gotraced selftest`, a launch-mode recording and a --pid attach; Go's parser
# (tracecheck) on both traces; no "BUG:", "Oops", "panic", "Call Trace" or "general
# protection" on the guest's console. One table (kernel x check); any failed cell, or a
# kernel that cannot be fetched (named with why), fails the suite. At most ~8 minutes
# (KERNEL_MATRIX_BUDGET seconds, default 510: each guest's share is enforced).
# Everything is in tests/kernels/ (run-matrix.sh; docs/requirements.md says how to run one kernel).
# KERNEL_MATRIX_LINES (space-separated: 6.1 6.12 6.16+ 7.x) narrows the matrix.
#
# Logs: $GOTRACED_BUILD/kernel-matrix/logs/<line>/ (the table's output names them).
# Skips nothing: the guests need neither KVM nor the host's BPF.
set -uo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
SUITE=80-kernel-matrix
GOTRACED=$BUILD/cli/gotraced
# shellcheck source=../lib/suite.sh
source "$ROOT/tests/lib/suite.sh"

need_gotraced
args=(--build "$BUILD")
for l in ${KERNEL_MATRIX_LINES:-}; do args+=(--kernel "$l"); done
if MATRIX_BUDGET=${KERNEL_MATRIX_BUDGET:-510} bash "$ROOT/tests/kernels/run-matrix.sh" "${args[@]}"; then
  echo "ok   $SUITE: every kernel boots, loads, records and parses with no oops"
else
  echo "FAIL $SUITE: see the table and details above (logs in $BUILD/kernel-matrix/logs/)"
  exit 1
fi
