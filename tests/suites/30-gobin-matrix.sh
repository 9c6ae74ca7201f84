#!/usr/bin/env bash
# gobin matrix: tests/gobin/callers built with every Go toolchain on the machine x
# {default, -ldflags='-s -w', -buildmode=pie, cgo (external link), -trimpath}. Each binary
# prints, from inside itself, runtime.Callers PCs and runtime.CallersFrames frames for
# chains through inlined functions; gobin_matrix_check asserts that gobin makes the same
# frames of the same PCs, reads the same version/build info as `go version -m`, agrees
# with .symtab, and sees the flavour's flags; `gotraced inspect --json` and `--addr2line
# --json` agree with it too (tests/gobin/inspect_json_check.py: version, flags, the first
# frame of each chain). A cell that cannot be built is a failure with its reason, never
# a skip. Builds are cached in $GOTRACED_BUILD/gobin-matrix and run at most 2 at a time.
set -uo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
OUT=$BUILD/gobin-matrix
SRC=$ROOT/tests/gobin/callers
CHECK=$BUILD/tests/unit/gobin/gobin_matrix_check
SELF=$(realpath "$0")

source "$ROOT/tests/lib/suite.sh"  # goroot_for: where each toolchain is
VERSIONS=(1.19 1.21 1.22 1.23 1.24 1.25 1.26 1.27)
FLAVOURS=(default strip pie cgo trimpath)

# One cell: build (unless the stamp says it is up to date), run, `go version -m`.
# Writes $dir/result: "ok" or "FAIL: reason".
build_cell() {
  local ver=$1 flavour=$2
  local go dir=$OUT/$ver-$flavour
  local bin=$dir/callers
  mkdir -p "$dir"
  go=$(goroot_for "$ver" || true)/bin/go
  if [[ ! -x $go ]]; then echo "FAIL: toolchain go$ver not installed (scripts/install-deps.sh)" >"$dir/result"; return; fi
  local -a args=(build -o "$bin")
  # Own GOCACHE: cached across runs, and no interference with anyone else's cache.
  local -a env=(GOTOOLCHAIN=local GOFLAGS=-buildvcs=false GOCACHE=$OUT/gocache)
  case $flavour in
    default) ;;
    strip) args+=(-ldflags=-s\ -w) ;;
    pie) args+=(-buildmode=pie) ;;
    cgo) env+=(CGO_ENABLED=1); args+=(-tags=withcgo -ldflags=-linkmode=external) ;;
    trimpath) args+=(-trimpath) ;;
  esac
  local stamp
  stamp=$( { cat "$SRC"/*.go "$SRC"/go.mod "$SELF"; "$go" version; echo "${env[*]} ${args[*]}"; } | sha256sum | cut -c1-16)
  if [[ -x $bin && -f $dir/stamp && $(cat "$dir/stamp") == "$stamp" && -s $dir/callers.json && -s $dir/go-version-m.txt ]]; then
    echo ok >"$dir/result"
    return
  fi
  rm -f "$dir/stamp" "$bin"
  if ! (cd "$SRC" && env "${env[@]}" "$go" "${args[@]}" .) >"$dir/build.log" 2>&1; then
    echo "FAIL: build failed: $(tail -n 3 "$dir/build.log" | tr '\n' ' ')" >"$dir/result"
    return
  fi
  if ! "$bin" >"$dir/callers.json" 2>"$dir/run.log"; then
    echo "FAIL: program failed: $(tail -n 3 "$dir/run.log" | tr '\n' ' ')" >"$dir/result"
    return
  fi
  if ! (cd "$dir" && GOTOOLCHAIN=local "$go" version -m callers) >"$dir/go-version-m.txt" 2>&1; then
    echo "FAIL: go version -m failed: $(head -c 300 "$dir/go-version-m.txt")" >"$dir/result"
    return
  fi
  echo "$stamp" >"$dir/stamp"
  echo ok >"$dir/result"
}

if [[ ${1:-} == --cell ]]; then
  build_cell "$2" "$3"
  exit 0
fi

if [[ ! -x $CHECK ]]; then
  echo "FAIL: $CHECK not built (cmake --build $BUILD --target gobin_matrix_check)"
  exit 1
fi
GT=$BUILD/cli/gotraced
if [[ ! -x $GT ]]; then
  echo "FAIL: $GT not built (cmake --build $BUILD --target gotraced)"
  exit 1
fi
mkdir -p "$OUT"
t0=$(date +%s)
for v in "${VERSIONS[@]}"; do for f in "${FLAVOURS[@]}"; do echo "$v $f"; done; done |
  xargs -P 2 -n 2 bash "$SELF" --cell
echo "builds ready in $(( $(date +%s) - t0 ))s (cache: $OUT)"

fail=0
declare -A CELL
details=()
for v in "${VERSIONS[@]}"; do
  for f in "${FLAVOURS[@]}"; do
    dir=$OUT/$v-$f
    res=$(cat "$dir/result" 2>/dev/null || echo "FAIL: no result")
    if [[ $res != ok ]]; then
      CELL[$v-$f]=FAIL; fail=1; details+=("go$v $f: $res"); continue
    fi
    if ! out=$("$CHECK" --binary "$dir/callers" --callers-json "$dir/callers.json" \
        --go-version-m "$dir/go-version-m.txt" --flavour "$f" 2>&1); then
      CELL[$v-$f]=FAIL; fail=1; details+=("go$v $f: $out")
    elif ! ins=$(python3 "$ROOT/tests/gobin/inspect_json_check.py" "$GT" "$dir" "$f" 2>&1); then
      CELL[$v-$f]=FAIL; fail=1; details+=("go$v $f: $ins")
    else
      CELL[$v-$f]=pass
      details+=("go$v $f: $(head -n 1 <<<"$out"); $ins")
    fi
  done
done

printf '\n%-8s' "go"; for f in "${FLAVOURS[@]}"; do printf '%-10s' "$f"; done; echo
for v in "${VERSIONS[@]}"; do
  printf '%-8s' "$v"; for f in "${FLAVOURS[@]}"; do printf '%-10s' "${CELL[$v-$f]}"; done; echo
done
echo
printf '%s\n' "${details[@]}"
echo
# Lookup rate of FramesForPC on a real binary (Go 1.26, default build).
"$CHECK" --binary "$OUT/1.26-default/callers" --bench 1 | grep -E "lookups/s" || { echo "FAIL: benchmark"; fail=1; }
exit $fail
