#!/usr/bin/env bash
# The trace judges: builds tracecheck and tracecompare into $GOTRACED_BUILD/tools,
# runs their Go unit tests, then proves on real runtime/trace files of every Go
# toolchain on the machine that tracecheck accepts what Go writes and rejects
# broken files, and that tracecompare passes two traces of one run.
set -euo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
export GOFLAGS=${GOFLAGS:--buildvcs=false}
TOOLS=$BUILD/tools
MOD=$ROOT/tests/tracecheck
GEN=$MOD/testdata/tracegen
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
pass=0
ok() { echo "ok   $*"; pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

bash "$ROOT/scripts/build-tools.sh" "$BUILD"
ok "built $TOOLS/tracecheck and $TOOLS/tracecompare"

if (cd "$MOD" && GOTOOLCHAIN=local go test -count=1 ./... >"$work/gotest.log" 2>&1); then
  ok "go test ./... in tests/tracecheck ($(grep -c '^ok' "$work/gotest.log") packages)"
else
  cat "$work/gotest.log"
  bad "go test ./... in tests/tracecheck"
fi

# summary FILE: one line from tracecheck's JSON.
summary() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("header %s, %d events, %d generations, %d goroutines, %d blocks, %d syscalls, %d semantic errors" % (d["version"], d["events"], d["generations"], d["goroutines"], sum(d["block_reasons"].values()), d["syscalls"], d["validation"]["errors"]))' "$1"
}

# record NAME WANT_HEADER GO_COMMAND... : runs tracegen with that toolchain and
# checks the file. go1.25+ toolchains also write a flight-recorder snapshot
# of the same run, compared with tracecompare.
record() {
  local name=$1 want=$2
  shift 2
  local out=$work/$name.trace fr=()
  if ! "$@" version >/dev/null 2>&1; then
    echo "SKIP $name: toolchain '$*' is not available (scripts/install-deps.sh installs it)"
    return
  fi
  case $want in go1.2[5-9]) fr=(-fr "$work/$name.fr.trace" -fr-age 50ms) ;; esac
  if ! (cd "$GEN" && GODEBUG=traceadvanceperiod=5000000 "$@" run . -o "$out" "${fr[@]}" -rounds 8) >"$work/$name.gen.log" 2>&1; then
    cat "$work/$name.gen.log"
    bad "$name: tracegen did not run"
    return
  fi
  if "$TOOLS/tracecheck" "$out" >"$work/$name.json" 2>"$work/$name.err"; then
    local got
    got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["version"])' "$work/$name.json")
    if [[ $got == "$want" ]]; then ok "$name: tracecheck accepts it: $(summary "$work/$name.json")"
    else bad "$name: header $got, want $want"; fi
  else
    cat "$work/$name.err"
    bad "$name: tracecheck rejects a trace written by Go itself"
  fi
  if ((${#fr[@]})); then
    if "$TOOLS/tracecompare" --clip-at-sync "$out" "$work/$name.fr.trace" >"$work/$name.cmp" 2>&1; then
      ok "$name: tracecompare passes the full trace against a flight-recorder snapshot of the same run ($(grep -m1 '^goroutines created' "$work/$name.cmp" | awk '{print $3 " goroutines, " $NF}'))"
    else
      cat "$work/$name.cmp"
      bad "$name: tracecompare fails two traces of the same run"
    fi
  fi
}

export GOTOOLCHAIN=local
record go1.26 go1.26 go
GOTOOLCHAIN=go1.27.3 record go1.27 go1.26 go
record go1.23 go1.23 /usr/lib/go-1.23/bin/go
record go1.22 go1.22 /usr/lib/go-1.22/bin/go
# Legacy formats, converted by the parser (extra coverage).
record go1.21 go1.21 /usr/lib/go-1.21/bin/go
record go1.19 go1.19 /usr/lib/go-1.19/bin/go

# tracecheck must be able to fail: truncated, corrupted, foreign files.
src=$work/go1.26.trace
if [[ -s $src ]]; then
  size=$(stat -c %s "$src")
  head -c $((size / 2)) "$src" >"$work/truncated.trace"
  cp "$src" "$work/corrupted.trace"
  printf '\xff%.0s' $(seq 1 64) | dd of="$work/corrupted.trace" bs=1 seek=$((size / 3)) conv=notrunc status=none
  head -c $((size - 1)) "$src" >"$work/lastbyte.trace"
  echo "not a trace at all" >"$work/text.trace"
  for f in truncated corrupted lastbyte text; do
    if "$TOOLS/tracecheck" "$work/$f.trace" >/dev/null 2>"$work/$f.err"; then
      bad "tracecheck accepts a $f file"
    else
      rc=$?
      if ((rc == 1)); then ok "tracecheck rejects a $f file: $(head -c 150 "$work/$f.err" | head -1)"
      else bad "tracecheck exits $rc (want 1) on a $f file"; fi
    fi
  done
else
  bad "no go1.26 trace to corrupt"
fi

echo "tracecheck: $pass passed, $fails failed"
((fails == 0))
