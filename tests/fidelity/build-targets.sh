#!/usr/bin/env bash
# Builds the fidelity targets (tests/fidelity/targets) with each requested Go toolchain:
#   OUT/goX.Y/fidelity       CGO_ENABLED=0 (every workload but cgo)
#   OUT/goX.Y/fidelity-cgo   CGO_ENABLED=1 (the cgo workload)
# Idempotent and quick when up to date (go's build cache). A toolchain that is not on
# the machine is reported on stderr and its directory left without binaries; the caller
# decides whether that is a failure.
#   tests/fidelity/build-targets.sh OUT [go1.26 go1.27 go1.22 go1.23 go1.24 go1.25]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: build-targets.sh OUT [goX.Y ...]}
shift
mkdir -p "$out"
out=$(cd "$out" && pwd)
versions=("$@")
((${#versions[@]})) || versions=(go1.26 go1.27 go1.22 go1.23 go1.24 go1.25)
export GOFLAGS=${GOFLAGS:--buildvcs=false}

# go_for: the toolchain of a version.
# shellcheck source=../lib/suite.sh
source "$root/tests/lib/suite.sh"

rc=0
cd "$root/tests/fidelity/targets"
for v in "${versions[@]}"; do
  dir=$out/$v
  mkdir -p "$dir"
  if ! g=$(go_for "$v"); then
    echo "build-targets: unknown Go version $v" >&2
    rc=1
    continue
  fi
  if ! have=$($g version 2>/dev/null); then
    echo "build-targets: $v: toolchain '$g' is not available (scripts/install-deps.sh installs it)" >&2
    rm -f "$dir/fidelity" "$dir/fidelity-cgo"
    rc=1
    continue
  fi
  # Go 1.19 / 1.21 (the legacy trace format, tests/suites/51-fidelity-legacy.sh): go.mod
  # says go 1.22 for the loop-variable semantics of the newer toolchains, which 1.21
  # refuses to build; the code uses nothing newer than 1.19, so they get a go.mod of
  # their own that says so (-modfile; no dependencies, so no go.sum).
  modflag=()
  case $v in go1.19 | go1.20 | go1.21)
    sed 's/^go 1\.22$/go 1.19/' go.mod >"$dir/go.mod"
    modflag=(-modfile="$dir/go.mod")
    ;;
  esac
  if ! CGO_ENABLED=0 $g build "${modflag[@]}" -o "$dir/fidelity" . ||
    ! CGO_ENABLED=1 $g build "${modflag[@]}" -o "$dir/fidelity-cgo" .; then
    echo "build-targets: $v: go build failed" >&2
    rc=1
    continue
  fi
  echo "$have" >"$dir/.goversion"
done
exit $rc
