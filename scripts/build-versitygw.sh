#!/usr/bin/env bash
# Builds versitygw (github.com/versity/versitygw, Apache-2.0), the S3 server the
# upload suite (tests/suites/62-upload.sh) runs against, into BUILD/tools/versitygw.
# Pinned; cached: returns at once when BUILD/tools/versitygw is that version.
# Go's module and build caches are the machine's default ones (GOMODCACHE, GOCACHE),
# so a second build directory does not download its ~840 MB of modules again.
#   scripts/build-versitygw.sh [BUILD]     (default: $GOTRACED_BUILD, else build)
set -euo pipefail
VERSION=v1.8.0
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${GOTRACED_BUILD:-$root/build}}
mkdir -p "$build/tools"
build=$(cd "$build" && pwd)
bin="$build/tools/versitygw"
stamp="$build/tools/versitygw.version"
if [[ -x "$bin" && "$(cat "$stamp" 2>/dev/null)" == "$VERSION" ]]; then
  exit 0
fi
# versitygw's go.mod asks for its own Go version: let the go command fetch that
# toolchain through the module proxy if the machine's is older.
export GOTOOLCHAIN=${GOTOOLCHAIN_VERSITYGW:-auto}
export GOFLAGS=-buildvcs=false
export GOBIN="$build/tools/versitygw.tmp"
rm -rf "$GOBIN"
echo "[build-versitygw] go install github.com/versity/versitygw/cmd/versitygw@$VERSION (minutes the first time)" >&2
go install "github.com/versity/versitygw/cmd/versitygw@$VERSION"
mv "$GOBIN/versitygw" "$bin"
rmdir "$GOBIN"
echo "$VERSION" > "$stamp"
