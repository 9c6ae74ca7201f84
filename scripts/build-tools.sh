#!/usr/bin/env bash
# Builds the Go trace judges tracecheck and tracecompare, and traceread (x/exp/trace
# reading a file, nothing more: bench/report's reference) (tests/tracecheck, one
# Go module pinned to golang.org/x/exp) into BUILD/tools/. Idempotent and fast
# when up to date (go's build cache); other suites call it before using them.
#   scripts/build-tools.sh [BUILD]     (default: $GOTRACED_BUILD, else build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${GOTRACED_BUILD:-$root/build}}
mkdir -p "$build/tools"
build=$(cd "$build" && pwd)
export GOFLAGS=${GOFLAGS:--buildvcs=false}
# The module needs the machine's Go (1.26); never let a go line switch toolchains.
export GOTOOLCHAIN=local
cd "$root/tests/tracecheck"
go build -o "$build/tools/" ./cmd/tracecheck ./cmd/tracecompare ./cmd/traceread
