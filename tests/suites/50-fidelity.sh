#!/usr/bin/env bash
# Fidelity: gotraced against the program's own runtime/trace, same run.
#
# For each Go version (1.26, 1.27, 1.22, 1.23, 1.24, 1.25) and each workload of
# tests/fidelity/targets (pingpong, mutex, select, timers, tcp, syscalls, spawn, cgo,
# midrun, annotations, gc) the target runs under gotraced in launch mode
#   gotraced --quiet --out OURS -- fidelity -workload W -reftrace REF
# (midrun: the target runs first, gotraced attaches with --pid, then the target starts
# its own trace). Both files must pass tracecheck, then tracecompare REF OURS asserts the
# issue's thresholds: every goroutine created in the window seen with the same id,
# creator and start function; block and unblock counts within 2% and the same reason on
# every paired block (>= 98%); syscall counts within 2%; stacks of paired events
# identical in >= 95%. One table at the end; any failure fails the suite.
#
# Artifacts of the last run (traces, logs, tracecompare JSON) stay in
# $GOTRACED_BUILD/fidelity/runs/<version>/<workload>/.
# GOTRACED_FIDELITY=off skips everything (development only; `make test` never sets it).
# FIDELITY_VERSIONS / FIDELITY_WORKLOADS (space-separated) narrow the matrix.
set -euo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
if [[ ${GOTRACED_FIDELITY:-} == off ]]; then
  echo "SKIP 50-fidelity: GOTRACED_FIDELITY=off is set in the environment (development switch); nothing was compared"
  exit 0
fi
export GOFLAGS=${GOFLAGS:--buildvcs=false}
# shellcheck source=../fidelity/lib.sh
source "$ROOT/tests/fidelity/lib.sh"
# shellcheck source=../lib/suite.sh
source "$ROOT/tests/lib/suite.sh"
SUITE=50-fidelity
GOTRACED=$BUILD/cli/gotraced
TOOLS=$BUILD/tools
FID=$BUILD/fidelity
RUNS=$FID/runs
read -r -a versions <<<"${FIDELITY_VERSIONS:-go1.26 go1.27 go1.22 go1.23 go1.24 go1.25}"
read -r -a workloads <<<"${FIDELITY_WORKLOADS:-pingpong mutex select timers tcp syscalls spawn cgo midrun annotations gc procs}"
RUN_TIMEOUT=${FIDELITY_RUN_TIMEOUT:-60}

need_gotraced
build_tools
build_ok=1
bash "$ROOT/tests/fidelity/build-targets.sh" "$FID/targets" "${versions[@]}" || build_ok=0
((build_ok)) || echo "50-fidelity: some targets could not be built (see above); their runs fail"

rm -rf "$RUNS"
mkdir -p "$RUNS"
results=$RUNS/results.jsonl
: >"$results"
timeouts=0

# emit VERSION WORKLOAD ERROR REF_JSON OURS_JSON CMP_JSON: one result line.
emit() {
  python3 - "$@" >>"$results" <<'PY'
import json, sys, os
v, w, err, refj, oursj, cmpj = sys.argv[1:7]
def load(p):
    try:
        with open(p) as f:
            return json.load(f)
    except Exception:
        return None
r, o, c = load(refj), load(oursj), load(cmpj)
print(json.dumps({"version": v, "workload": w, "error": err,
                  "ref_events": (r or {}).get("events"), "ours_events": (o or {}).get("events"),
                  "compare": c}))
PY
}

run_one() {
  local v=$1 w=$2
  local dir=$RUNS/$v/$w
  mkdir -p "$dir/tmp"
  local ref=$dir/ref.trace ours=$dir/ours.trace log=$dir/gotraced.log
  local bin=$FID/targets/$v/fidelity
  [[ $w == cgo ]] && bin=$FID/targets/$v/fidelity-cgo
  local t0=$SECONDS err=
  if [[ ! -x $bin ]]; then
    err="no target binary for $v ($bin): toolchain missing or build failed"
  elif ((timeouts >= 2)); then
    err="not run: gotraced already timed out twice in this suite"
  elif [[ $w == midrun ]]; then
    fid_midrun "$log" "$ours" "$RUN_TIMEOUT" "$GOTRACED" -- "$bin" -workload midrun -reftrace "$ref" || err=$FID_ERR
  else
    fid_launch "$log" "$ours" "$RUN_TIMEOUT" "$GOTRACED" -- "$bin" -workload "$w" -reftrace "$ref" -tmpdir "$dir/tmp" ||
      err=$FID_ERR
  fi
  [[ $err == *"did not finish"* || $err == *"did not stop"* ]] && timeouts=$((timeouts + 1))
  # --tol=5ms: how far apart the two stamps of one event may be. Events pair per
  # goroutine in order, so a wide tolerance does not pair neighbours; on a loaded
  # machine the runtime's own stamp can trail the probe's by over 1 ms when the thread
  # is descheduled in between (seen: go1.22 park_m, GoPark written after casgstatus).
  if [[ -z $err ]] && ! fid_check_pair "$dir" "$ref" "$ours" --tol=5ms; then err=$FID_ERR; fi
  rm -rf "$dir/tmp"
  emit "$v" "$w" "$err" "$dir/ref.json" "$dir/ours.json" "$dir/compare.json"
  local verdict
  verdict=$(python3 -c 'import json,sys; r=json.loads(open(sys.argv[1]).read().splitlines()[-1]); c=r["compare"]; print("error" if r["error"] else ("pass" if c and c["pass"] else "FAIL"))' "$results")
  echo "$v $w: $verdict in $((SECONDS - t0))s${err:+: $err}"
}

# The last run missed a threshold by table.py's verdict: below a threshold, or a paired
# block with another reason (an error is not retried).
last_run_missed() {
  tail -n1 "$results" | python3 -c 'import json,sys; sys.path.insert(0, sys.argv[1]); import table
r = json.loads(sys.stdin.read()); c = r["compare"]
sys.exit(0 if (not r["error"] and c and (not c["pass"] or table.wrong_reasons(c))) else 1)' "$ROOT/tests/fidelity"
}
# Moves the last run's result line to retried.jsonl and its directory to <workload>.first.
keep_first_run() {
  tail -n1 "$results" >>"$retried"
  sed -i '$d' "$results"
  rm -rf "$RUNS/$v/$w.first"
  mv "$RUNS/$v/$w" "$RUNS/$v/$w.first"
}

# A run that misses a threshold is run once more and only the second result counts
# (run_twice_on_fail, tests/lib/suite.sh): one lost or late probe hit among 10-30 events
# of a small workload is enough to miss the 2% count threshold on a loaded 2-core
# machine. Both results are printed and the first is kept (runs/<ver>/<workload>.first/,
# retried.jsonl), so a retry is never silent; a workload that fails twice fails the suite.
retried=$RUNS/retried.jsonl
: >"$retried"
for v in "${versions[@]}"; do
  for w in "${workloads[@]}"; do
    run_twice_on_fail last_run_missed keep_first_run \
      "$v $w: missed a threshold; running it once more (first result kept in $RUNS/$v/$w.first)" -- run_one "$v" "$w"
  done
done
if [[ -s $retried ]]; then
  echo
  echo "50-fidelity: $(wc -l <"$retried") run(s) missed a threshold on the first try and were run again:"
  python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l); c = r["compare"] or {}
    bad = [x.get("class", "?") for x in c.get("rows", []) if x.get("checked") and not x.get("pass")]
    print("  %s %s: first try failed %s" % (r["version"], r["workload"], ", ".join(bad) or "a threshold"))' "$retried"
fi

echo
python3 "$ROOT/tests/fidelity/table.py" "$results"
