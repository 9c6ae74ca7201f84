#!/usr/bin/env bash
# Version matrix: every Go toolchain on the machine (1.19, 1.21, 1.22, 1.23, 1.24, 1.25, 1.26,
# 1.27)
# x every build flavour (default, stripped -s -w, PIE, cgo, -trimpath).
#
# Each cell builds tests/versions/target (cached in $GOTRACED_BUILD/version-matrix/bin),
# runs it under gotraced in launch mode while it traces itself with runtime/trace
#   gotraced --quiet --out OURS -- target -o REF
# then: tracecheck must accept both files (1.19/1.21 references are the legacy v1
# format, which x/exp/trace converts; gotraced writes go1.22 for those targets), and
# tracecompare REF OURS gives one figure per event class. The matrix at the end has one
# row per version x flavour and one column per event class (tests/versions/matrix.py
# reads tracecompare's rows generically, so classes added to tracecompare appear as
# they are added). Asserted, with suite 50's thresholds: every row tracecompare checks
# in the core columns (goroutine creation, blocks and their reasons, unblocks,
# syscalls, stacks) on every version; rows of the classes others own (GC, STW, heap,
# user, CPU) once tracecompare checks them, on the versions their owners test (1.22+),
# report-only ("info") on 1.19/1.21 (VERSION_MATRIX_STRICT=1 asserts them there too).
# The default flavour's file is also read by the same Go's own `go tool trace`, and the
# file's format must be the reference's (--trace-version auto: 1.24 -> go1.23, 1.25 ->
# go1.25, matrix.py). Then the unknown-version checks (tests/versions/unknown-version.sh).
#
# Artifacts: $GOTRACED_BUILD/version-matrix/runs/<version>-<flavour>/.
# VERSION_MATRIX_VERSIONS / VERSION_MATRIX_FLAVOURS (space-separated) narrow the matrix.
set -uo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
GOTRACED=$BUILD/cli/gotraced
TOOLS=$BUILD/tools
OUT=$BUILD/version-matrix
RUNS=$OUT/runs
read -r -a versions <<<"${VERSION_MATRIX_VERSIONS:-1.19 1.21 1.22 1.23 1.24 1.25 1.26 1.27}"
read -r -a flavours <<<"${VERSION_MATRIX_FLAVOURS:-default strip pie cgo trimpath}"
RUN_TIMEOUT=${VERSION_MATRIX_RUN_TIMEOUT:-40}
SUITE=70-version-matrix
t_start=$SECONDS
# shellcheck source=../lib/suite.sh
source "$ROOT/tests/lib/suite.sh"

need_gotraced
# shellcheck source=../fidelity/lib.sh
source "$ROOT/tests/fidelity/lib.sh"
build_tools
bash "$ROOT/tests/versions/build-targets.sh" "$OUT/bin" "${versions[*]}" "${flavours[*]}"
echo "70-version-matrix: targets ready in $((SECONDS - t_start))s"

rm -rf "$RUNS"
mkdir -p "$RUNS"
results=$RUNS/results.jsonl
: >"$results"

# emit VERSION FLAVOUR ERROR REF_JSON OURS_JSON CMP_JSON: one result line.
emit() {
  python3 - "$@" >>"$results" <<'PY'
import json, sys
v, f, err, refj, oursj, cmpj = sys.argv[1:7]
def load(p):
    try:
        with open(p) as fh:
            return json.load(fh)
    except Exception:
        return None
r, o, c = load(refj), load(oursj), load(cmpj)
print(json.dumps({"version": v, "flavour": f, "error": err, "ref_version": (r or {}).get("version"),
                  "ours_version": (o or {}).get("version"), "compare": c}))
PY
}

timeouts=0
run_cell() {
  local v=$1 f=$2
  local dir=$RUNS/$v-$f bin=$OUT/bin/$v-$f/target
  mkdir -p "$dir"
  local ref=$dir/ref.trace ours=$dir/ours.trace log=$dir/gotraced.log err= t0=$SECONDS
  local built
  built=$(cat "$OUT/bin/$v-$f/build.result" 2>/dev/null || echo "FAIL: not built")
  if [[ $built != ok ]]; then
    err=$built
  elif ((timeouts >= 2)); then
    err="not run: gotraced already timed out twice in this suite"
  else
    fid_launch "$log" "$ours" "$RUN_TIMEOUT" "$GOTRACED" -- "$bin" -o "$ref" || err=$FID_ERR
    [[ $err == *"did not finish"* ]] && timeouts=$((timeouts + 1))
  fi
  if [[ -z $err ]] && ! fid_check_pair "$dir" "$ref" "$ours"; then err=$FID_ERR; fi
  # The target's own Go reads our file with its own go tool trace (not only x/exp/trace):
  # once per version, on the default flavour (the format does not depend on the flavour).
  if [[ -z $err && $f == default ]]; then err=$(own_reader_parses "$v" "$ours"); fi
  emit "$v" "$f" "$err" "$dir/ref.json" "$dir/ours.json" "$dir/compare.json"
  echo "go$v $f: $([[ -z $err ]] && echo compared || echo error) in $((SECONDS - t0))s${err:+: $err}"
}

for v in "${versions[@]}"; do
  for f in "${flavours[@]}"; do
    run_cell "$v" "$f"
  done
done

echo
rc=0
python3 "$ROOT/tests/versions/matrix.py" "$results" || rc=1
echo
bash "$ROOT/tests/versions/unknown-version.sh" "$BUILD" "$OUT" || rc=1
echo "70-version-matrix: $((SECONDS - t_start))s in total"
exit $rc
