#!/usr/bin/env bash
# Builds tests/gobin-layouts/prog with every Go toolchain on the machine, in the link
# modes gobin must handle, into OUTDIR (default $GOTRACED_BUILD/gobin-targets):
#   OUTDIR/go1.NN/{plain,stripped,pie,pie-stripped}
#     plain         default build (.symtab + DWARF)
#     stripped      -ldflags='-s -w' (no .symtab, no DWARF)
#     pie           -buildmode=pie
#     pie-stripped  -buildmode=pie -ldflags='-s -w'
#   OUTDIR/go1.NN/.goroot: the toolchain's GOROOT (its runtime sources are the authority)
# Cached: a toolchain's directory is rebuilt only when prog/ or this script changed.
# Prints one line per missing toolchain ("skip go1.NN: <why>") and exits 0; exits non-zero
# only when a build fails. Safe to run concurrently (flock).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-${GOTRACED_BUILD:?set GOTRACED_BUILD or pass OUTDIR}/gobin-targets}
mkdir -p "$out"
out=$(cd "$out" && pwd)  # absolute: builds run from prog/
exec 9>"$out/.lock"
flock 9

# go1.27 lives in the module cache (scripts/install-deps.sh fetches it); ask `go` where.
G127=$(GOTOOLCHAIN=go1.27.3 go env GOROOT 2>/dev/null || true)
[[ -n $G127 ]] || G127=/root/go/pkg/mod/golang.org/toolchain@v0.0.1-go1.27.3.linux-amd64
DEBIAN_GO=${GOTRACED_GO_CACHE:-/var/cache/gotraced-go}
declare -A GO=(
  [go1.19]=/usr/lib/go-1.19/bin/go
  [go1.21]=/usr/lib/go-1.21/bin/go
  [go1.22]=/usr/lib/go-1.22/bin/go
  [go1.23]=/usr/lib/go-1.23/bin/go
  [go1.24]=$DEBIAN_GO/go1.24/bin/go  # trixie's, unpacked by scripts/fetch-debian-go.sh
  [go1.25]=$DEBIAN_GO/go1.25/bin/go  # trixie-backports'
  [go1.26]=/usr/local/go/bin/go
  [go1.27]=$G127/bin/go
)
stamp=$(cat "$here/prog/main.go" "$here/prog/go.mod" "$0" | sha256sum | cut -c1-16)
for v in go1.19 go1.21 go1.22 go1.23 go1.24 go1.25 go1.26 go1.27; do
  gobin=${GO[$v]}
  if [[ ! -x $gobin ]]; then echo "skip $v: $gobin not installed (scripts/install-deps.sh)"; continue; fi
  have=$(GOTOOLCHAIN=local "$gobin" env GOVERSION 2>/dev/null || true)
  if [[ $have != "$v" && $have != "$v".* ]]; then echo "skip $v: $gobin reports '$have'"; continue; fi
  d="$out/$v"
  if [[ -f $d/.stamp && $(cat "$d/.stamp") == "$stamp" && -x $d/plain && -x $d/stripped && -x $d/pie &&
        -x $d/pie-stripped ]]; then continue; fi
  rm -rf "$d"; mkdir -p "$d"
  build() {  # name, go build flags...
    local name=$1; shift
    (cd "$here/prog" && GOTOOLCHAIN=local GOFLAGS=-mod=mod CGO_ENABLED=0 "$gobin" build -o "$d/$name" "$@" .)
  }
  build plain
  build stripped -ldflags='-s -w'
  build pie -buildmode=pie
  build pie-stripped -buildmode=pie -ldflags='-s -w'
  GOTOOLCHAIN=local "$gobin" env GOROOT > "$d/.goroot"
  echo "$stamp" > "$d/.stamp"
  echo "built $v ($have) in $d"
done
