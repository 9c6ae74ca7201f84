#!/usr/bin/env bash
# Runs suites twice in a row in one build directory (issue 27: no run leaves state that the
# next one trips on), each run with a TMPDIR of its own that must be empty afterwards, and
# with no process of this build directory left running and nothing mounted under it.
#   scripts/run-suites-twice.sh [BUILD] [SUITE...]   SUITE: 45-record-smoke or its path
# Default: every tests/suites/*.sh. Prints each run's time; exits 1 when a run fails or
# leaves something behind. Not part of `make test` (it doubles the suites' ~20 min): run it
# after a change to a suite, and for a closing note.
set -uo pipefail
BUILD=${1:-build}
shift || true
cd "$(dirname "$0")/.."
export GOTRACED_BUILD=$(realpath "$BUILD") GOTRACED_ROOT=$(pwd)
suites=()
for s in "$@"; do suites+=("tests/suites/$(basename "${s%.sh}").sh"); done
((${#suites[@]})) || suites=(tests/suites/*.sh)

# What a run may leave behind that this script can tell apart from other runs on the
# machine: a process whose executable or command line is in this build directory, a
# mount under it, a file in the run's own TMPDIR.
leftovers() {
  local tmp=$1 p
  for p in /proc/[0-9]*; do
    [[ ${p#/proc/} == "$$" || ${p#/proc/} == "$BASHPID" ]] && continue
    # (a process may end meanwhile: cat's error is silenced, the redirection's would not be)
    if [[ $(readlink "$p/exe" 2>/dev/null) == "$GOTRACED_BUILD"/* ]] ||
       cat "$p/cmdline" 2>/dev/null | tr '\0' ' ' | grep -q -- "$GOTRACED_BUILD/"; then
      echo "process ${p#/proc/}: $(cat "$p/cmdline" 2>/dev/null | tr '\0' ' ' | head -c 200)"
    fi
  done
  awk -v b="$GOTRACED_BUILD/" 'index($2, b) == 1 {print "mount " $2}' /proc/mounts
  find "$tmp" -mindepth 1 -maxdepth 1 -printf 'left in TMPDIR: %f\n' 2>/dev/null
}

failed=()
for s in "${suites[@]}"; do
  name=$(basename "$s" .sh)
  for run in 1 2; do
    # Mode 1777 as /tmp: suites hand directories to another uid (60-serve, 65-faults).
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/gotraced-twice.XXXXXX") && chmod 1777 "$tmp"
    t0=$(date +%s)
    TMPDIR=$tmp bash "$s" >"$GOTRACED_BUILD/twice-$name.$run.log" 2>&1
    rc=$?
    left=$(leftovers "$tmp")
    echo "$name run $run: exit $rc in $(( $(date +%s) - t0 ))s${left:+; left behind: $(tr '\n' ';' <<<"$left")}"
    if ((rc != 0)) || [[ -n $left ]]; then
      failed+=("$name/$run")
      tail -n 5 "$GOTRACED_BUILD/twice-$name.$run.log" | sed 's/^/    /'
    fi
    rm -rf "$tmp"
  done
done
if ((${#failed[@]})); then echo "failed: ${failed[*]} (logs: $GOTRACED_BUILD/twice-*.log)"; exit 1; fi
echo "every suite passed twice in a row, nothing left behind"
