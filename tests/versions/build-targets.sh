#!/usr/bin/env bash
# Builds the version-matrix target (tests/versions/target) for each Go version x flavour:
#   OUT/<version>-<flavour>/target
# flavours: default (CGO_ENABLED=0), strip (-ldflags='-s -w': no DWARF, no .symtab),
# pie (-buildmode=pie), cgo (CGO_ENABLED=1: C calls, cgo runtime, external linker),
# trimpath (-trimpath: source paths in pclntab without the build directory).
# A cell is rebuilt only when its stamp (sources, this script, `go version`, flags)
# changes; at most 2 builds run at a time (the machine has 2 cores). Each cell leaves
# OUT/<cell>/build.result: "ok" or "FAIL: why" — never a silent skip.
#   tests/versions/build-targets.sh OUT "1.19 1.21 ..." "default strip pie cgo trimpath"
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: build-targets.sh OUT VERSIONS FLAVOURS}
read -r -a versions <<<"${2:-1.19 1.21 1.22 1.23 1.24 1.25 1.26 1.27}"
read -r -a flavours <<<"${3:-default strip pie cgo trimpath}"
mkdir -p "$out"
src=$here/target

# go_for: the toolchain of a version.
# shellcheck source=../lib/suite.sh
source "$here/../lib/suite.sh"

build_cell() {
  local v=$1 f=$2 dir=$out/$1-$2 go
  mkdir -p "$dir"
  if ! go=$(go_for "$v") || ! $go version >/dev/null 2>&1; then
    echo "FAIL: no toolchain for go$v (${go:-unknown version}; scripts/install-deps.sh installs it)" >"$dir/build.result"
    return
  fi
  local -a env=(GOTOOLCHAIN=local GOFLAGS=-buildvcs=false CGO_ENABLED=0) args=(build -o "$dir/target")
  case $f in
    default) ;;
    strip) args+=("-ldflags=-s -w") ;;
    pie) args+=(-buildmode=pie) ;;
    cgo) env+=(CGO_ENABLED=1) ;;
    trimpath) args+=(-trimpath) ;; # file names in pclntab without the build machine's paths
    *) echo "FAIL: unknown flavour $f" >"$dir/build.result"; return ;;
  esac
  local stamp
  stamp=$({ cat "$src"/*.go "$src/go.mod" "$here/build-targets.sh"; $go version; echo "${env[*]} ${args[*]}"; } |
    sha256sum | cut -c1-16)
  if [[ -x $dir/target && -f $dir/stamp && $(cat "$dir/stamp") == "$stamp" ]]; then
    echo ok >"$dir/build.result"
    return
  fi
  rm -f "$dir/target" "$dir/stamp"
  if (cd "$src" && env "${env[@]}" $go "${args[@]}" .) >"$dir/build.log" 2>&1; then
    echo "$stamp" >"$dir/stamp"
    echo ok >"$dir/build.result"
  else
    echo "FAIL: go$v $f build failed: $(tail -n 2 "$dir/build.log" | tr '\n' ' ' | cut -c1-200)" >"$dir/build.result"
  fi
}

running=0
for v in "${versions[@]}"; do
  for f in "${flavours[@]}"; do
    build_cell "$v" "$f" &
    running=$((running + 1))
    if ((running >= 2)); then
      wait -n
      running=$((running - 1))
    fi
  done
done
wait
