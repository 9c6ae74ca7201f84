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

# Where each toolchain is: go_for's go asked for its GOROOT (tests/lib/suite.sh): go1.27
# lives in the module cache (scripts/install-deps.sh fetches it), go1.24/go1.25 are
# trixie's unpacked by scripts/fetch-debian-go.sh.
source "$here/../lib/suite.sh"
stamp=$(cat "$here/prog/main.go" "$here/prog/go.mod" "$0" | sha256sum | cut -c1-16)
for v in go1.19 go1.21 go1.22 go1.23 go1.24 go1.25 go1.26 go1.27; do
  gobin=$(goroot_for "$v" || true)/bin/go
  if [[ ! -x $gobin ]]; then echo "skip $v: not installed (scripts/install-deps.sh)"; continue; fi
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
