# Shared by tests/suites/50-fidelity.sh, 55-bench-smoke.sh, 70-version-matrix.sh and
# scripts/bench-overhead.sh: running a fidelity target under gotraced, and judging the pair. Source it; functions return non-zero and
# leave the reason in $FID_ERR.

# fid_launch LOG OUT TIMEOUT_S GOTRACED -- PROG ARGS...
# Launch mode: gotraced starts PROG stopped at exec, attaches, lets it run, and stops
# when it exits. gotraced's exit code is the program's.
fid_launch() {
  local log=$1 out=$2 tmo=$3 gotraced=$4
  shift 5
  FID_ERR=
  local rc=0
  timeout -k 5 "$tmo" "$gotraced" --quiet --out "$out" -- "$@" >"$log" 2>&1 || rc=$?
  if ((rc == 124 || rc == 137)); then
    FID_ERR="gotraced did not finish within ${tmo}s"
  elif ((rc != 0)); then
    FID_ERR="gotraced exited $rc: $(fid_last_error "$log")"
  elif [[ ! -s $out ]]; then
    FID_ERR="gotraced exited 0 but wrote no trace ($out): $(fid_last_error "$log")"
  fi
  [[ -z $FID_ERR ]]
}

# The most telling line of a log: the first error/warning line, else the last line.
fid_last_error() {
  local line
  line=$(grep -m1 -iE 'error|cannot|fail|not implemented|panic' "$1" 2>/dev/null || true)
  [[ -n $line ]] || line=$(tail -n1 "$1" 2>/dev/null || true)
  echo "${line:0:300}"
}

# fid_wait_attached PID TIMEOUT_S: waits until gotraced (PID) holds perf_event/bpf_link
# descriptors (its uprobes and tracepoints) and their number has been stable for 0.3 s.
# Looked up from /proc rather than from gotraced's output so that it does not depend on
# what the CLI prints.
fid_wait_attached() {
  local pid=$1 tmo=$2 prev=-1 stable=0 n i
  for ((i = 0; i < tmo * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || return 1
    n=$(ls -l "/proc/$pid/fd" 2>/dev/null | grep -cE 'perf_event|bpf_link' || true)
    if ((n > 0 && n == prev)); then
      stable=$((stable + 1))
      ((stable >= 3)) && return 0
    else
      stable=0
    fi
    prev=$n
    sleep 0.1
  done
  return 1
}

# fid_midrun LOG OUT TIMEOUT_S GOTRACED -- PROG ARGS...
# The attach-mid-run case: starts PROG (a target run with -workload midrun) on its
# own, waits for its "ready", attaches gotraced with --pid, waits until gotraced has
# attached, sends SIGUSR1 (the program then starts its runtime/trace and the compared
# part), and waits for both to finish (gotraced stops when the target exits).
fid_midrun() {
  local log=$1 out=$2 tmo=$3 gotraced=$4
  shift 5
  FID_ERR=
  local tout=$log.target i tpid gpid rc=0 grc=0
  "$@" >"$tout" 2>&1 &
  tpid=$!
  for ((i = 0; i < 100; i++)); do
    grep -q '^ready' "$tout" 2>/dev/null && break
    kill -0 "$tpid" 2>/dev/null || break
    sleep 0.05
  done
  if ! grep -q '^ready' "$tout" 2>/dev/null; then
    kill -KILL "$tpid" 2>/dev/null || true
    wait "$tpid" 2>/dev/null || true
    FID_ERR="target never printed ready: $(fid_last_error "$tout")"
    return 1
  fi
  # Not under timeout(1): fid_wait_attached must look at gotraced's own descriptors.
  "$gotraced" --quiet --pid "$tpid" --out "$out" >"$log" 2>&1 &
  gpid=$!
  if ! fid_wait_attached "$gpid" 20; then
    kill -KILL "$tpid" 2>/dev/null || true
    wait "$tpid" 2>/dev/null || true
    kill -0 "$gpid" 2>/dev/null && sleep 1
    kill -KILL "$gpid" 2>/dev/null || true
    wait "$gpid" 2>/dev/null || grc=$?
    FID_ERR="gotraced --pid did not attach (exit $grc): $(fid_last_error "$log")"
    return 1
  fi
  sleep 0.2
  kill -USR1 "$tpid"
  wait "$tpid" || rc=$?
  # gotraced stops by itself when the target exits; give it TIMEOUT_S.
  for ((i = 0; i < tmo * 10; i++)); do
    kill -0 "$gpid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$gpid" 2>/dev/null; then
    kill -INT "$gpid" 2>/dev/null || true
    sleep 5
    kill -KILL "$gpid" 2>/dev/null || true
    wait "$gpid" 2>/dev/null || true
    grc=124
  else
    wait "$gpid" || grc=$?
  fi
  if ((rc != 0)); then
    FID_ERR="target exited $rc: $(fid_last_error "$tout")"
  elif ((grc == 124 || grc == 137)); then
    FID_ERR="gotraced did not stop within ${tmo}s of attaching"
  elif ((grc != 0)); then
    FID_ERR="gotraced exited $grc: $(fid_last_error "$log")"
  elif [[ ! -s $out ]]; then
    FID_ERR="gotraced exited 0 but wrote no trace ($out): $(fid_last_error "$log")"
  fi
  cat "$tout" >>"$log"
  [[ -z $FID_ERR ]]
}

# fid_check_pair DIR REF OURS [TRACECOMPARE FLAGS...]
# Judges one run: Go's parser (tracecheck) must accept both traces, then tracecompare
# asserts the suites' common thresholds on the pair. Leaves DIR/ref.json, DIR/ours.json
# and DIR/compare.json (the verdict; absent when tracecompare itself failed), and on a
# missed threshold DIR/compare.txt, the readable table, for whoever looks into it.
# Returns non-zero with the reason in $FID_ERR only when a run could not be judged; a
# missed threshold is in compare.json's "pass".
fid_check_pair() {
  local dir=$1 ref=$2 ours=$3
  shift 3
  FID_ERR=
  if ! "$TOOLS/tracecheck" "$ref" >"$dir/ref.json" 2>"$dir/ref.err"; then
    FID_ERR="tracecheck rejects the reference trace: $(head -n1 "$dir/ref.err" | cut -c1-300)"
  elif ! "$TOOLS/tracecheck" "$ours" >"$dir/ours.json" 2>"$dir/ours.err"; then
    FID_ERR="tracecheck rejects gotraced's trace: $(head -n1 "$dir/ours.err" | cut -c1-300)"
  else
    local rc=0
    "$TOOLS/tracecompare" --json --min-goroutine-match=1 --max-count-diff=0.02 --min-stack-match=0.95 \
      "$@" "$ref" "$ours" >"$dir/compare.json" 2>"$dir/compare.err" || rc=$?
    if ((rc > 1)); then
      FID_ERR="tracecompare exit $rc: $(head -n1 "$dir/compare.err" | cut -c1-300)"
      rm -f "$dir/compare.json"
    elif ((rc == 1)); then
      "$TOOLS/tracecompare" --no-assert "$@" "$ref" "$ours" >"$dir/compare.txt" 2>&1 || true
    fi
  fi
  [[ -z $FID_ERR ]]
}
