#!/usr/bin/env bash
# A Go version the probe plan does not know (a future go1.28, or one older than Go 1.19)
# is traced only when every required probe site and struct offset is found in the
# binary and the start-up self-check passes; otherwise gotraced refuses and names what
# is missing. Exercised on copies of real binaries whose version string is patched
# (same length, every occurrence: build info and runtime.buildVersion):
#   accept: go1.27.3 -> go1.28.3 with DWARF: attached (--pid, self-check), trace
#           accepted by tracecheck and within the matrix's thresholds (matrix.py);
#   refuse: the same in launch mode (the self-check cannot run before the program);
#           go1.28.3 stripped (-s -w: no DWARF, no offsets table for go1.28);
#           go1.28.3 with runtime.casgstatus renamed in the symbol tables;
#           go1.16.15 (from go1.19.8: older than the register ABI the probes read).
#   tests/versions/unknown-version.sh BUILD MATRIX_OUT   (MATRIX_OUT/bin/<v>-<f>/target)
set -uo pipefail
BUILD=${1:?usage: unknown-version.sh BUILD MATRIX_OUT}
OUT=${2:?}
GOTRACED=$BUILD/cli/gotraced
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../fidelity/lib.sh
source "$HERE/../fidelity/lib.sh"
TOOLS=$BUILD/tools
DIR=$OUT/unknown
rm -rf "$DIR"
mkdir -p "$DIR"
fails=0

# patch SRC DST FROM TO: DST = SRC with every occurrence of FROM replaced by TO (same
# length); fails if FROM does not occur.
patch_bin() {
  python3 - "$@" <<'PY'
import sys
src, dst, a, b = sys.argv[1:5]
assert len(a) == len(b)
data = open(src, "rb").read()
n = data.count(a.encode())
if n == 0:
    sys.exit("%s: %r not found" % (src, a))
open(dst, "wb").write(data.replace(a.encode(), b.encode()))
PY
  chmod +x "$2"
}

# refuse NAME BINARY EXPECT: `gotraced inspect` and a launch both refuse, naming EXPECT.
refuse() {
  local name=$1 bin=$2 expect=$3 log=$DIR/$1.log rc=0
  timeout -k 5 30 "$GOTRACED" --quiet --out "$DIR/$name.trace" -- "$bin" -o "$DIR/$name.ref" >"$log" 2>&1 || rc=$?
  if ((rc == 0)); then
    echo "FAIL unknown-version $name: gotraced traced it (exit 0), expected a refusal naming '$expect'"
    fails=$((fails + 1))
  elif ! grep -q -- "$expect" "$log"; then
    echo "FAIL unknown-version $name: refused (exit $rc) without naming '$expect': $(grep -m1 -i 'cannot\|error' "$log" | cut -c1-300)"
    fails=$((fails + 1))
  elif [[ -e $DIR/$name.ref ]]; then
    echo "FAIL unknown-version $name: refused, but the program ran (it wrote its reference trace)"
    fails=$((fails + 1))
  else
    echo "ok   unknown-version $name: refused: $(grep -m1 -- "$expect" "$log" | cut -c1-240)"
  fi
}

src27=$OUT/bin/1.27-default/target
src27s=$OUT/bin/1.27-strip/target
src19=$OUT/bin/1.19-default/target
for b in "$src27" "$src27s" "$src19"; do
  if [[ ! -x $b ]]; then
    echo "FAIL unknown-version: $b was not built (see the matrix above)"
    exit 1
  fi
done

# attach NAME BINARY: runs BINARY -wait 30s -o NAME.ref, attaches gotraced --pid once it
# printed "ready", sends SIGUSR1 once gotraced holds its probes, waits for both (gotraced stops when the program exits). Sets ERR.
attach() {
  local name=$1 bin=$2 log=$DIR/$1.log tout=$DIR/$1.target.log tpid gpid i rc=0 grc=0
  ERR=
  "$bin" -wait 30s -o "$DIR/$name.ref" >"$tout" 2>&1 &
  tpid=$!
  for ((i = 0; i < 100; i++)); do
    grep -q '^ready' "$tout" 2>/dev/null && break
    sleep 0.05
  done
  # Not under timeout(1): fid_wait_attached looks at gotraced's own descriptors.
  "$GOTRACED" --quiet --pid "$tpid" --out "$DIR/$name.trace" >"$log" 2>&1 &
  gpid=$!
  fid_wait_attached "$gpid" 30 || true  # a refusal shows in gotraced's exit status
  sleep 0.3
  kill -USR1 "$tpid" 2>/dev/null || true
  wait "$tpid" || rc=$?
  for ((i = 0; i < 300; i++)); do kill -0 "$gpid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$gpid" 2>/dev/null && kill -KILL "$gpid"
  wait "$gpid" || grc=$?
  if ((rc != 0)); then
    ERR="the program exited $rc: $(tail -n1 "$tout")"
  elif ((grc != 0)); then
    ERR="gotraced --pid exited $grc: $(grep -m1 -iE 'cannot|error|fail' "$log" | cut -c1-300)"
  elif [[ ! -s $DIR/$name.trace ]]; then
    ERR="gotraced wrote no trace: $(tail -n1 "$log")"
  fi
  [[ -z $ERR ]]
}

# Accept: go1.28 with DWARF, attached to the running program (the self-check needs it
# running), compared with its own trace.
patch_bin "$src27" "$DIR/go128" go1.27.3 go1.28.3 || exit 1
if ! "$GOTRACED" inspect "$DIR/go128" >"$DIR/go128.inspect" 2>&1 || ! grep -q 'go1.28' "$DIR/go128.inspect"; then
  echo "FAIL unknown-version go1.28 (DWARF): inspect does not read go1.28: $(head -n3 "$DIR/go128.inspect" | tr '\n' ' ')"
  fails=$((fails + 1))
fi
log=$DIR/go128.log
if ! attach go128 "$DIR/go128"; then
  echo "FAIL unknown-version go1.28 (DWARF): not traced: $ERR"
  fails=$((fails + 1))
elif ! grep -q 'outside the Go versions' "$log"; then
  echo "FAIL unknown-version go1.28 (DWARF): traced without the untested-version warning: $(tail -n1 "$log")"
  fails=$((fails + 1))
elif ! "$TOOLS/tracecheck" "$DIR/go128.trace" >/dev/null 2>"$DIR/go128.check"; then
  echo "FAIL unknown-version go1.28 (DWARF): tracecheck rejects the trace: $(head -n1 "$DIR/go128.check")"
  fails=$((fails + 1))
elif ! "$TOOLS/tracecompare" --json --min-goroutine-match=1 --max-count-diff=0.02 --min-stack-match=0.95 \
  "$DIR/go128.ref" "$DIR/go128.trace" >"$DIR/go128.compare.json" 2>"$DIR/go128.compare.err" &&
  [[ ! -s $DIR/go128.compare.json ]]; then
  echo "FAIL unknown-version go1.28 (DWARF): tracecompare: $(head -n1 "$DIR/go128.compare.err")"
  fails=$((fails + 1))
elif ! python3 -c 'import json,sys; print(json.dumps({"version": "1.28", "flavour": "patched", "error": "",
    "ref_version": "go1.26", "ours_version": "go1.26", "compare": json.load(open(sys.argv[1]))}))' \
  "$DIR/go128.compare.json" >"$DIR/go128.results.jsonl" ||
  ! python3 "$HERE/matrix.py" "$DIR/go128.results.jsonl" >"$DIR/go128.matrix" 2>&1; then
  echo "FAIL unknown-version go1.28 (DWARF): out of the matrix's thresholds: $(grep -m3 '^FAIL' "$DIR/go128.matrix" | tr '\n' ' ')"
  fails=$((fails + 1))
else
  echo "ok   unknown-version go1.28 (DWARF, --pid): traced and within the matrix's thresholds; $(grep -m1 'outside the Go versions' "$log" | sed 's/.*gotraced: //' | cut -c1-200)"
fi
# The same binary in launch mode: refused (no self-check possible before it runs).
refuse go128-launch "$DIR/go128" "needs the start-up self-check"

patch_bin "$src27s" "$DIR/go128-strip" go1.27.3 go1.28.3 || exit 1
refuse go128-strip "$DIR/go128-strip" "no runtime layout for go1.28"
patch_bin "$src27" "$DIR/go128-nocas-tmp" go1.27.3 go1.28.3 || exit 1
patch_bin "$DIR/go128-nocas-tmp" "$DIR/go128-nocas" runtime.casgstatus runtime.casgstatuX || exit 1
refuse go128-nocas "$DIR/go128-nocas" "runtime.casgstatus not found"
patch_bin "$src19" "$DIR/go116" go1.19.8 go1.16.8 || exit 1
refuse go116 "$DIR/go116" "Go 1.16"

((fails == 0)) && echo "unknown-version: all checks pass" || echo "unknown-version: $fails check(s) failed"
((fails == 0))
