#!/usr/bin/env bash
# Faults (issue 16): whatever goes wrong around a recording, every case asserts the same
# three things: the file parses (Go's reader, tracecheck), the summary's counts are
# true (those of the file: events, goroutines created, blocks, syscalls, generations;
# what was lost is said, never "nothing lost"), and the target is unharmed (alive, its
# code byte for byte the binary's again, tests/lib/text_check.py, and it still exits 0
# on SIGTERM), with nothing of gotraced left in the kernel (no uprobe_multi link, perf
# uprobe or tracefs uprobe_event on the target's file).
#
# Cases: target SIGKILL, SIGSTOP/SIGCONT, exec, fork; gotraced SIGKILL, SIGTERM; disk
# full at the header, mid-generation and at the stack table, and under
# --on-write-error drop (also for a go1.19 target, in the legacy format); the output file removed; ring-buffer overflow under a burst; 10k
# goroutines at attach; two gotraced on one target; another user without capabilities;
# the traced binary replaced on disk. Each prints PASS or FAIL with its figures; the
# last line counts cases, failures, target crashes and unparseable files (docs/reliability.md
# quotes it).
# Skips (with the reason) only when this machine cannot load BPF programs at all.
set -uo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
SUITE=65-faults
GOTRACED=$BUILD/cli/gotraced
REPLAY=$BUILD/bench/replay/gotraced-replay
TOOLS=$BUILD/tools
TC=$TOOLS/tracecheck
WORK=$BUILD/faults
TEXT_CHECK=$ROOT/tests/lib/text_check.py
GEN=200ms  # generation period: several generations in a short recording
# shellcheck source=../lib/suite.sh
source "$ROOT/tests/lib/suite.sh"

need_gotraced
need_bpf
build_tools
if [[ $EUID -ne 0 ]]; then
  echo "FAIL $SUITE: needs root (mounts tmpfs file systems to fill, runs gotraced as another user)"
  exit 1
fi
for t in python3 setpriv mount bpftool; do
  command -v $t >/dev/null || { echo "FAIL $SUITE: $t is not installed (scripts/install-deps.sh)"; exit 1; }
done
# The leftover checks read these; without them a check would pass by seeing nothing.
[[ -r /sys/kernel/tracing/uprobe_events ]] ||
  { echo "FAIL $SUITE: /sys/kernel/tracing is not mounted (mount -t tracefs tracefs /sys/kernel/tracing)"; exit 1; }
bpftool perf list >/dev/null 2>&1 || { echo "FAIL $SUITE: bpftool perf list fails: $(bpftool perf list 2>&1 | head -1)"; exit 1; }
[[ -x $REPLAY ]] || { echo "FAIL $SUITE: $REPLAY is not built"; exit 1; }

rm -rf "$WORK"
mkdir -p "$WORK/prog"
cat >"$WORK/prog/main.go" <<'GO'
// The fault suite's target: goroutines over channels, sleeps and file syscalls, in
// several modes. Every mode exits 0 on SIGTERM after saying how far it got, so "exit 0
// on SIGTERM" tells that its runtime still works.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"
)

var rounds atomic.Int64

func busy() {
	for {
		done := make(chan int)
		for i := 0; i < 8; i++ {
			go func(i int) {
				if f, err := os.Open("/proc/self/stat"); err == nil {
					f.Close()
				}
				done <- i
			}(i)
		}
		for i := 0; i < 8; i++ {
			<-done
		}
		rounds.Add(1)
		time.Sleep(200 * time.Microsecond)
	}
}

// burst: channel ping-pong as fast as it goes, on every P (a small ring overflows).
func burst() {
	for w := 0; w < 4; w++ {
		go func() {
			a, b := make(chan int), make(chan int)
			go func() {
				for v := range a {
					b <- v
				}
			}()
			for i := 0; ; i++ {
				a <- i
				<-b
				rounds.Add(1)
			}
		}()
	}
}

// walk blocks at the end of n calls that spell the low bits of `bits` as left/right
// frames: a distinct stack for each value.
//
//go:noinline
func walk(n, bits int) {
	if n == 0 {
		time.Sleep(20 * time.Millisecond)
		return
	}
	if bits&1 == 0 {
		left(n, bits)
	} else {
		right(n, bits)
	}
}

//go:noinline
func left(n, bits int) { walk(n-1, bits>>1) }

//go:noinline
func right(n, bits int) { walk(n-1, bits>>1) }

func main() {
	mode := flag.String("mode", "busy", "busy, burst, stacks, goroutines, exec, fork, child")
	n := flag.Int("n", 0, "goroutines: how many blocked goroutines; child: milliseconds to run")
	after := flag.Duration("after", time.Minute, "exec: when to exec at the latest")
	flag.Parse()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	var children, failed atomic.Int64
	switch *mode {
	case "busy":
		go busy()
	case "burst":
		burst()
	case "stacks": // 300 goroutines that block with 300 distinct stacks: a big stack table
		for d := 0; d < 300; d++ {
			go func(d int) {
				for {
					walk(12, d)
				}
			}(d)
		}
	case "goroutines":
		block := make(chan int)
		for i := 0; i < *n; i++ {
			go func() { <-block }()
		}
		go busy()
	case "child": // a short program of its own: busy for n ms, then exit 0
		go busy()
		time.Sleep(time.Duration(*n) * time.Millisecond)
		fmt.Printf("child %d ran %d rounds\n", os.Getpid(), rounds.Load())
		os.Exit(0)
	case "exec": // on SIGUSR1 (or after -after), exec this binary again, as a child-mode program of 2 s
		go busy()
		usr1 := make(chan os.Signal, 1)
		signal.Notify(usr1, syscall.SIGUSR1)
		select {
		case <-usr1:
		case <-time.After(*after):
		}
		fmt.Printf("exec after %d rounds\n", rounds.Load())
		err := syscall.Exec("/proc/self/exe", []string{os.Args[0], "-mode", "child", "-n", "2000"}, os.Environ())
		fmt.Println("exec failed:", err)
		os.Exit(4)
	case "fork": // fork and exec children all the time: this binary again and /bin/true
		go busy()
		go func() {
			for i := 0; ; i++ {
				var c *exec.Cmd
				if i%2 == 0 {
					c = exec.Command("/proc/self/exe", "-mode", "child", "-n", "30")
				} else {
					c = exec.Command("/bin/true")
				}
				children.Add(1)
				if out, err := c.CombinedOutput(); err != nil {
					failed.Add(1)
					fmt.Printf("child failed: %v: %s\n", err, out)
				}
			}
		}()
	}
	<-term
	fmt.Printf("terminated after %d rounds; %d children, %d failed\n", rounds.Load(), children.Load(), failed.Load())
	if failed.Load() > 0 {
		os.Exit(3)
	}
}
GO
(cd "$WORK/prog" && printf 'module faults\ngo 1.22\n' >go.mod && GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -o "$WORK/target" .) ||
  { echo "FAIL $SUITE: cannot build the target"; exit 1; }
T=$WORK/target
# The same program built by Debian's Go 1.19: recorded in its own legacy format ("go 1.19
# trace", --trace-version auto), which has no generations of its own to restart from.
GO119=/usr/lib/go-1.19/bin/go
GO121=/usr/lib/go-1.21/bin/go
mkdir -p "$WORK/prog119"
cp "$WORK/prog/main.go" "$WORK/prog119/"
(cd "$WORK/prog119" && printf 'module faults\ngo 1.19\n' >go.mod && GOTOOLCHAIN=local GOFLAGS=-buildvcs=false "$GO119" build -o "$WORK/target-go119" .) ||
  { echo "FAIL $SUITE: cannot build the target with $GO119 (scripts/install-deps.sh installs golang-1.19-go)"; exit 1; }
T119=$WORK/target-go119

MNT=$WORK/mnt
mkdir -p "$MNT"
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  mountpoint -q "$MNT" && umount "$MNT" || true
  [[ ${NOBODY_DIR:-} == /tmp/gotraced-faults.* ]] && rm -rf "$NOBODY_DIR" || true
}
trap cleanup EXIT

# ---- bookkeeping ---------------------------------------------------------------------
cases=0 failed=0 crashes=0 unparseable=0
RESULTS=$WORK/results.txt
: >"$RESULTS"
CASE= PROBLEMS=() FIGS=()
begin() { CASE=$1; SLUG=$(tr -c 'a-zA-Z0-9\n' '-' <<<"$1"); PROBLEMS=(); FIGS=(); cases=$((cases + 1)); }
problem() { PROBLEMS+=("$*"); }
fig() { FIGS+=("$*"); }
join() {  # join ITEM...: "a; b; c"
  local out= x
  for x in "$@"; do out+=${out:+; }$x; done
  echo "$out"
}
finish() {
  local figs
  figs=$(join "${FIGS[@]}")
  if ((${#PROBLEMS[@]})); then
    failed=$((failed + 1))
    echo "FAIL $SUITE: $CASE: $(join "${PROBLEMS[@]}") | $figs"
    echo "$CASE|FAIL|$figs" >>"$RESULTS"
  else
    echo "PASS $SUITE: $CASE: $figs"
    echo "$CASE|PASS|$figs" >>"$RESULTS"
  fi
}

# start_target ARGS...: the target in the background as $tpid (child of this shell).
start_target() {
  "$T" "$@" >"$WORK/$SLUG.target.log" 2>&1 &
  tpid=$!
  PIDS+=("$tpid")
  sleep 0.4
}

# record OUT ARGS...: gotraced --pid $tpid in the background as $gpid; its stderr in
# $WORK/$SLUG.out, its exit status in $WORK/$SLUG.rc once it ends.
record() {
  local out=$1
  shift
  ("$GOTRACED" --quiet --pid "$tpid" --out "$out" --generation-period $GEN "$@" >"$WORK/$SLUG.out" 2>&1
   echo $? >"$WORK/$SLUG.rc") &
  gpid=$!
  PIDS+=("$gpid")
}
# wait_record: waits for it; sets rc and summary (the summary line, "" if none).
wait_record() {
  wait "$gpid" 2>/dev/null
  rc=$(cat "$WORK/$SLUG.rc" 2>/dev/null || echo "?")
  summary=$(grep -E "^gotraced: pid [0-9]+ " "$WORK/$SLUG.out" | tail -1)
  fig "exit $rc"
}
# The real gotraced's pid in the subshell record started (for signals to it).
gotraced_pid() { pgrep -P "$gpid" -f "$GOTRACED" | head -1; }

# recording FILE [SECONDS]: waits until FILE holds a generation (gotraced is attached and
# writing: start-up takes 0.3-0.7 s on a loaded 2-core machine), then SECONDS more.
recording() {
  local i
  for ((i = 0; i < 150; i++)); do
    [[ -s $1 ]] && break
    sleep 0.1
  done
  [[ -s $1 ]] || problem "$1 got no generation in 15 s"
  sleep "${2:-0}"
}

# fill_after_first_generation FILE: once FILE holds its first generation, fills the disk
# and waits until gotraced says a write failed and the recording goes on. Filling before
# the start left ~100 KiB, which a loaded CI machine's first generation (107 KB) outgrew:
# then the first write failed, the file began anew and no continuation was made.
fill_after_first_generation() {
  local i
  recording "$1"
  dd if=/dev/zero of="$MNT/filler" bs=4k 2>/dev/null  # until the disk is full
  for ((i = 0; i < 60; i++)); do grep -q "recording goes on" "$WORK/$SLUG.out" && break; sleep 0.1; done
  grep -q "recording goes on" "$WORK/$SLUG.out" || problem "no write failed in 6 s after the disk filled"
}

# parses FILE...: tracecheck accepts each (counted as unparseable otherwise).
parses() {
  local f ok=0
  for f in "$@"; do
    if [[ ! -s $f ]]; then
      problem "$f is missing or empty"
      unparseable=$((unparseable + 1))
      ok=1
    elif ! "$TC" "$f" >"$f.json" 2>"$f.err"; then
      problem "$f does not parse: $(tail -c 300 "$f.err")"
      unparseable=$((unparseable + 1))
      ok=1
    fi
  done
  return $ok
}

# counts_true FILE...: the summary's counts are those of the file(s): events (the file's
# minus its Sync events, which the reader adds), goroutines created, syscalls,
# generations, and blocks (the file's Running->Waiting but the model's repairs).
counts_true() {
  local verdict
  verdict=$(python3 - "$summary" "$@" <<'PY'
import json, re, sys
line, files = sys.argv[1], sys.argv[2:]
m = re.search(r"(\d+) events, (\d+) goroutines created, (\d+) blocks, (\d+) syscalls, (\d+) generations", line)
if not m:
    print("BAD no summary counts in: " + line[:200]); sys.exit()
said = dict(zip(["events", "creates", "blocks", "syscalls", "generations"], map(int, m.groups())))
got = dict.fromkeys(said, 0)
for f in files:
    d = json.load(open(f + ".json"))
    got["events"] += d["events"] - d["syncs"]
    got["creates"] += d["creates"]
    got["syscalls"] += d["syscalls"]
    got["generations"] += d["generations"]
    got["blocks"] += d["transitions"]["goroutine"].get("Running->Waiting", 0) - d["block_reasons"].get("gotraced: transition not captured", 0)
bad = [f"{k}: summary {said[k]}, file {got[k]}" for k in said if said[k] != got[k]]
print(("BAD " + ", ".join(bad)) if bad else f"OK {got['events']} events, {got['generations']} generations")
PY
)
  if [[ $verdict == OK* ]]; then fig "counts true (${verdict#OK })"; else problem "summary counts: ${verdict#BAD }"; fi
}

# leftovers: anything of a gotraced still attached to a file under $WORK (a uprobe_multi
# link held by a process, a perf-event uprobe, a tracefs uprobe event). Waits up to 3 s
# for the kernel to finish the teardown of a killed gotraced.
NOBODY_DIR=$WORK  # the other user's case adds a directory under /tmp
attached_now() {
  (grep -F -e "$WORK" -e "$NOBODY_DIR" /sys/kernel/tracing/uprobe_events 2>/dev/null
   grep -H "^path:" /proc/[0-9]*/fdinfo/* 2>/dev/null | grep -F -e "$WORK" -e "$NOBODY_DIR"
   bpftool perf list 2>/dev/null | grep -F -e "$WORK" -e "$NOBODY_DIR") | head -3
}
leftovers() {
  local i left
  for ((i = 0; i < 30; i++)); do
    left=$(attached_now)
    [[ -z $left ]] && return 0
    sleep 0.1
  done
  echo "$left"
}
no_leftovers() {
  local left
  left=$(leftovers)
  if [[ -n $left ]]; then problem "uprobes left in the kernel: $(tr '\n' ' ' <<<"$left")"; else fig "no uprobe left"; fi
}

# unharmed PID BINARY: alive, its text the binary's again, exits 0 on SIGTERM.
unharmed() {
  local pid=$1 bin=${2:-$T} text st
  if ! kill -0 "$pid" 2>/dev/null; then
    problem "the target died: $(tail -2 "$WORK/$SLUG.target.log" | tr '\n' ' ')"
    crashes=$((crashes + 1))
    return
  fi
  if text=$(python3 "$TEXT_CHECK" "$pid" "$bin"); then fig "$text"; else problem "target's code: $text"; fi
  kill -TERM "$pid"
  wait "$pid" 2>/dev/null
  st=$?
  if ((st != 0)); then
    problem "the target exited $st on SIGTERM: $(tail -2 "$WORK/$SLUG.target.log" | tr '\n' ' ')"
    crashes=$((crashes + 1))
  else
    fig "target ok ($(grep -o 'after [0-9]* rounds' "$WORK/$SLUG.target.log" | tail -1))"
  fi
}

says() {  # says PATTERN WHAT: the summary line matches PATTERN
  if grep -qE "$1" <<<"$summary"; then return 0; fi
  problem "the summary does not say $2: ${summary:-no summary: $(tail -3 "$WORK/$SLUG.out" | tr '\n' ' ')}"
  return 1
}
says_nothing_lost_only_if_true() {
  if grep -q "nothing lost" <<<"$summary" && grep -qE "records lost|OUTPUT|removed" "$WORK/$SLUG.out"; then
    problem "the summary says nothing lost, the log says otherwise"
  fi
}

fresh_tmpfs() {  # fresh_tmpfs SIZE
  mountpoint -q "$MNT" && umount "$MNT"
  mount -t tmpfs -o size="$1" tmpfs "$MNT"
}
bytes() { stat -c %s "$1" 2>/dev/null || echo 0; }
gens() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["generations"])' "$1.json" 2>/dev/null || echo "?"; }

start=$(date +%s)

# ---- the target dies, stops, execs, forks ----------------------------------------------
case_01_target_sigkill() {
  begin "target SIGKILL"
  start_target
  record "$WORK/tkill.trace" --duration 20s
  recording "$WORK/tkill.trace" 1
  kill -9 "$tpid"
  wait "$tpid" 2>/dev/null
  wait_record
  [[ $rc == 0 ]] || problem "gotraced exit $rc, want 0"
  says "target exited" "the target exited"
  parses "$WORK/tkill.trace" && { fig "$(bytes "$WORK/tkill.trace") bytes"; counts_true "$WORK/tkill.trace"; }
  no_leftovers
  finish
}

case_02_target_sigstop_sigcont() {
  begin "target SIGSTOP/SIGCONT"
  start_target
  record "$WORK/stop.trace" --duration 3s
  recording "$WORK/stop.trace" 0.5
  kill -STOP "$tpid"
  sleep 0.3
  # The check's own control: while gotraced is attached the breakpoints are there.
  if out=$(python3 "$TEXT_CHECK" "$tpid" "$T"); then problem "no breakpoint seen while attached: $out"; else fig "while attached ${out%% of*} text bytes were breakpoints"; fi
  # ... and the leftover check sees the attachment (else it could not see a leftover).
  [[ -n $(attached_now) ]] && fig "and $(attached_now | wc -l)+ attachments on the target's file" ||
    problem "the leftover check sees nothing while gotraced is attached"
  sleep 0.9
  kill -CONT "$tpid"
  wait_record
  [[ $rc == 0 ]] || problem "gotraced exit $rc, want 0"
  says "nothing lost \(duration reached\)" "nothing lost, duration reached"
  parses "$WORK/stop.trace" && counts_true "$WORK/stop.trace"
  unharmed "$tpid"
  no_leftovers
  finish
}

case_03_target_exec_s() {
  begin "target exec()s"
  start_target -mode exec
  record "$WORK/exec.trace" --duration 20s
  recording "$WORK/exec.trace" 0.5
  kill -USR1 "$tpid"  # exec now
  wait_record
  [[ $rc == 0 ]] || problem "gotraced exit $rc, want 0"
  says "target exec'd" "the target exec'd"
  parses "$WORK/exec.trace" && counts_true "$WORK/exec.trace"
  # The exec'd program (this binary again, 2 s of work) runs on unprobed.
  if kill -0 "$tpid" 2>/dev/null; then
    if out=$(python3 "$TEXT_CHECK" "$tpid" "$T"); then fig "exec'd program: $out"; else problem "exec'd program's code: $out"; fi
  else
    problem "the exec'd program ended before gotraced did"
  fi
  wait "$tpid"
  st=$?
  if ((st == 0)) && grep -q "^child .* ran" "$WORK/$SLUG.target.log"; then fig "exec'd program exit 0"
  else problem "exec'd program exit $st: $(tail -2 "$WORK/$SLUG.target.log" | tr '\n' ' ')"; crashes=$((crashes + 1)); fi
  no_leftovers
  finish
}

case_04_target_forks_children() {
  begin "target forks children"
  start_target -mode fork
  record "$WORK/fork.trace" --duration 2500ms
  wait_record
  [[ $rc == 0 ]] || problem "gotraced exit $rc, want 0"
  parses "$WORK/fork.trace" && counts_true "$WORK/fork.trace"
  unharmed "$tpid"
  fig "$(grep -o '[0-9]* children, [0-9]* failed' "$WORK/$SLUG.target.log")"
  no_leftovers
  finish
}

# ---- gotraced dies ------------------------------------------------------------------------
case_05_gotraced_sigkill() {
  begin "gotraced SIGKILL"
  start_target
  record "$WORK/gkill.trace" --duration 20s
  recording "$WORK/gkill.trace" 1
  kill -9 "$(gotraced_pid)"
  wait_record
  [[ $rc == 137 ]] || problem "gotraced exit $rc, want 137 (killed)"
  [[ -z $summary ]] || problem "a killed gotraced printed a summary?"
  parses "$WORK/gkill.trace" && fig "the file's $(gens "$WORK/gkill.trace") whole generations parse ($(bytes "$WORK/gkill.trace") bytes; no summary: killed)"
  no_leftovers
  unharmed "$tpid"
  finish
}

case_06_gotraced_sigterm() {
  begin "gotraced SIGTERM"
  start_target
  record "$WORK/gterm.trace" --duration 20s
  recording "$WORK/gterm.trace" 1
  kill -TERM "$(gotraced_pid)"
  wait_record
  [[ $rc == 0 ]] || problem "gotraced exit $rc, want 0"
  says "nothing lost \(terminated\)" "nothing lost, terminated"
  parses "$WORK/gterm.trace" && counts_true "$WORK/gterm.trace"
  unharmed "$tpid"
  no_leftovers
  finish
}

# ---- the output fails -----------------------------------------------------------------------
case_07_disk_full_at_the_header() {
  begin "disk full at the header"
  fresh_tmpfs 64k
  dd if=/dev/zero of="$MNT/filler" bs=4k 2>/dev/null
  start_target
  record "$MNT/t.trace" --duration 3s
  wait_record
  [[ $rc == 1 ]] || problem "gotraced exit $rc, want 1"
  says "OUTPUT FAILED, .* no trace file is left: write .*No space left on device \(0 of the [0-9]+ bytes of generation 1 and the header" \
    "that nothing could be written"
  [[ ! -e $MNT/t.trace ]] && fig "no file left (an empty file is no trace)" || problem "$MNT/t.trace was left ($(bytes "$MNT/t.trace") bytes)"
  says_nothing_lost_only_if_true
  fig "$(grep -o '[0-9]* generation(s) lost ([0-9]* events' <<<"$summary"))"
  unharmed "$tpid"
  no_leftovers
  umount "$MNT"
  finish
}

case_08_disk_full_mid_generation() {
  begin "disk full mid-generation"
  fresh_tmpfs 300k
  start_target
  record "$MNT/t.trace" --duration 8s
  wait_record
  [[ $rc == 1 ]] || problem "gotraced exit $rc, want 1"
  if says "OUTPUT FAILED, [0-9]+ generation\(s\) lost \([0-9]+ events.* the file keeps the [0-9]+ whole generation" "what was lost and kept"; then
    read -r done total < <(grep -oE '\(([0-9]+) of the ([0-9]+) bytes' <<<"$summary" | grep -oE '[0-9]+' | tr '\n' ' ')
    if ((done > 0 && done < total)); then fig "the write stopped at byte $done of a $total-byte generation"
    else problem "not a mid-generation failure: $done of $total bytes"; fi
    fig "$(grep -oE '[0-9]+ generation\(s\) lost \([0-9]+ events' <<<"$summary"))"
  fi
  cp "$MNT/t.trace" "$WORK/full.trace" 2>/dev/null
  parses "$WORK/full.trace" && { fig "$(bytes "$WORK/full.trace") bytes"; counts_true "$WORK/full.trace"; }
  unharmed "$tpid"
  no_leftovers
  umount "$MNT"
  finish
}

case_09_disk_full_at_the_stack_table() {
  begin "disk full at the stack table"
  # The cut must fall inside a generation's stack table, which a live recording cannot aim
  # at: a recording's capture records (GOTRACED_RECORD_FILE) are replayed through the same
  # pipeline and FileSink (gotraced-replay: byte-identical output but the wall clock) once
  # onto a roomy disk, to find a page boundary inside some generation's stack table batch,
  # then onto a tmpfs of exactly that many bytes.
  start_target -mode stacks
  GOTRACED_RECORD_FILE=$WORK/st.records record "$WORK/st-live.trace" --duration 2500ms
  wait_record
  unharmed "$tpid"
  if ! "$REPLAY" --records "$WORK/st.records" --passes 1 --out "$WORK/st-ref.trace" >"$WORK/st-ref.log" 2>&1; then
    problem "replay: $(tail -2 "$WORK/st-ref.log" | tr '\n' ' ')"
  else
    plan=$(python3 - "$WORK/st-ref.trace" <<'PY'
import sys
b = open(sys.argv[1], "rb").read()
def uv(i):
    v = s = 0
    while True:
        c = b[i]; i += 1; v |= (c & 0x7f) << s; s += 7
        if c < 0x80: return v, i
i, gen_start, gens, cur = 16, {}, [], None
while i < len(b):
    t = b[i]
    if t == 52:  # EndOfGeneration (go1.26)
        i += 1; continue
    if t not in (1, 49): sys.exit(f"unexpected byte {t} at {i}")
    j = i + 1 + (1 if t == 49 else 0)
    g, j = uv(j); _, j = uv(j); _, j = uv(j); n, j = uv(j)
    if g not in gen_start: gen_start[g] = i; gens.append(g)
    if t == 1 and n and b[j] == 2:  # a batch of Stacks
        s, e = j, j + n
        p = (s // 4096 + 1) * 4096
        if g > 1 and p < e:
            print(g, gen_start[g], s, e, p); sys.exit()
    i = j + n
print("none", len(gens))
PY
  )
    if [[ $plan == none* ]]; then
      problem "no generation's stack table crosses a page boundary in the reference (${plan#none } generations)"
    else
      read -r g gstart sstart send cut <<<"$plan"
      fig "generation $g: stack table at bytes $sstart-$send, disk of $cut bytes"
      fresh_tmpfs "$cut"
      "$REPLAY" --records "$WORK/st.records" --passes 1 --out "$MNT/t.trace" >"$WORK/st-cut.log" 2>&1
      rrc=$?
      err=$(grep -o 'write .*' "$WORK/st-cut.log")
      [[ $rrc == 1 ]] || problem "replay exit $rrc, want 1"
      if grep -qE "No space left on device \($((cut - gstart)) of the [0-9]+ bytes of generation $g written\)" <<<"$err"; then
        fig "the write stopped at byte $((cut - gstart)) of generation $g, $((cut - sstart)) bytes into its stack table"
      else
        problem "not the expected cut: $err"
      fi
      cp "$MNT/t.trace" "$WORK/st-cut.trace"
      umount "$MNT"
      [[ $(bytes "$WORK/st-cut.trace") == "$gstart" ]] && fig "cut back to $gstart bytes" ||
        problem "the file has $(bytes "$WORK/st-cut.trace") bytes, want $gstart (the end of generation $((g - 1)))"
      if parses "$WORK/st-cut.trace"; then
        [[ $(gens "$WORK/st-cut.trace") == $((g - 1)) ]] && fig "parses: $((g - 1)) whole generations" ||
          problem "$(gens "$WORK/st-cut.trace") generations, want $((g - 1))"
      fi
    fi
  fi
  no_leftovers
  finish
}

case_10_disk_full_on_write_error_drop() {
  begin "disk full, --on-write-error drop"
  fresh_tmpfs 3m
  start_target
  record "$MNT/t.trace" --duration 3s --on-write-error drop
  fill_after_first_generation "$MNT/t.trace"
  rm -f "$MNT/filler"  # room again: the trace goes on in a continuation file
  wait_record
  [[ $rc == 1 ]] || problem "gotraced exit $rc, want 1 (generations were lost)"
  files=()
  for f in "$MNT"/t*.trace; do cp "$f" "$WORK/drop-$(basename "$f")"; files+=("$WORK/drop-$(basename "$f")"); done
  umount "$MNT"
  says "OUTPUT FAILED, [0-9]+ generation\(s\) lost .* the trace is in ${#files[@]} file\(s\)" \
    "the generations lost and the ${#files[@]} files on disk"
  fig "$(grep -oE '[0-9]+ generation\(s\) lost \([0-9]+ events' <<<"$summary")); files:$(grep -oE 'each parseable on its own: .*\)' <<<"$summary" | sed "s|$MNT/||g; s/: write.*//; s/each parseable on its own://")"
  ((${#files[@]} >= 2)) || problem "${#files[@]} files on disk, want the file and a continuation"
  parses "${files[@]}" && counts_true "${files[@]}"
  unharmed "$tpid"
  no_leftovers
  finish
}

# The legacy format (a go1.19 target): each continuation file opens with the restart
# prelude of its first generation (encoder/sink.h FileSink, legacy_rebase.h), so Go 1.19's
# and 1.21's own `go tool trace -d` read every file on its own.
case_21_disk_full_on_write_error_drop_legacy() {
  begin "disk full, --on-write-error drop, go1.19 target (legacy format)"
  fresh_tmpfs 3m
  local tsave=$T
  T=$T119
  start_target
  T=$tsave
  record "$MNT/t.trace" --duration 3s --on-write-error drop
  fill_after_first_generation "$MNT/t.trace"
  rm -f "$MNT/filler"
  wait_record
  [[ $rc == 1 ]] || problem "gotraced exit $rc, want 1 (generations were lost)"
  files=()
  for f in "$MNT"/t*.trace; do cp "$f" "$WORK/drop119-$(basename "$f")"; files+=("$WORK/drop119-$(basename "$f")"); done
  umount "$MNT"
  says "OUTPUT FAILED, [0-9]+ generation\(s\) lost .* the trace is in ${#files[@]} file\(s\)" \
    "the generations lost and the ${#files[@]} files on disk"
  ((${#files[@]} >= 2)) || problem "${#files[@]} files on disk, want the file and a continuation"
  local f g v
  for f in "${files[@]}"; do
    [[ $(head -c 13 "$f") == "go 1.19 trace" ]] || problem "$(basename "$f"): header '$(head -c 13 "$f")', want 'go 1.19 trace'"
    for g in "$GO119" "$GO121"; do
      v=$("$g" version | cut -d' ' -f3)
      if "$g" tool trace -d "$f" >"$f.$v.txt" 2>"$f.$v.err"; then
        fig "$(basename "$f"): $v go tool trace -d reads $(grep -c ' off=' "$f.$v.txt") events"
      else
        problem "$(basename "$f"): $v go tool trace -d: $(grep -v Parsing "$f.$v.err" | head -n1)"
        unparseable=$((unparseable + 1))
      fi
    done
  done
  parses "${files[@]}"
  unharmed "$tpid" "$T119"
  no_leftovers
  finish
}

case_11_output_file_removed() {
  begin "output file removed"
  mkdir -p "$WORK/rm"
  start_target
  record "$WORK/rm/t.trace" --duration 10s
  recording "$WORK/rm/t.trace" 0.5
  rm "$WORK/rm/t.trace"
  t0=$(date +%s%N)
  wait_record
  fig "stopped $(( ($(date +%s%N) - t0) / 1000000 )) ms after the removal"
  [[ $rc == 1 ]] || problem "gotraced exit $rc, want 1"
  says "OUTPUT FAILED, .*no trace file is left: $WORK/rm/t.trace was removed while being written" "that the file was removed"
  [[ ! -e $WORK/rm/t.trace ]] || problem "a file reappeared at the path"
  says_nothing_lost_only_if_true
  unharmed "$tpid"
  no_leftovers
  finish
}

# ---- load and company ---------------------------------------------------------------------
case_12_ring_buffer_overflow_under_a_burst() {
  begin "ring-buffer overflow under a burst"
  start_target -mode burst
  record "$WORK/burst.trace" --duration 2s --ring-size 16K
  wait_record
  [[ $rc == 0 ]] || problem "gotraced exit $rc, want 0"
  lost=$(grep -oE 'LOST [0-9]+ records' <<<"$summary" | grep -oE '[0-9]+')
  # The first loss is said at once, later ones summed at most every 10 s (LossLog):
  # "N records lost (the ring ...)", "(M more records missing by ...)", "N more records
  # lost in C generation cuts" (not the end's "N records lost," of the counts line).
  warned=$(grep -oE '[0-9]+ (more )?records (lost (\(the ring|in [0-9]+ generation cuts)|missing by their sequence numbers)' "$WORK/$SLUG.out" |
    awk '{s += $1} END {print s + 0}')
  if [[ -z $lost ]]; then problem "no loss reported: $summary"
  elif [[ $lost != "$warned" ]]; then problem "the summary says LOST $lost, the warnings add up to $warned"
  else fig "LOST $lost records, as the $(grep -cE 'records (lost (\(the ring|in [0-9]+ generation cuts)|missing by)' "$WORK/$SLUG.out") warnings add up, $(grep -oE '[0-9]+ generation cuts' <<<"$summary")"; fi
  parses "$WORK/burst.trace" && counts_true "$WORK/burst.trace"
  unharmed "$tpid"
  no_leftovers
  finish
}

case_13_10k_goroutines_at_attach() {
  begin "10k goroutines at attach"
  start_target -mode goroutines -n 10000
  sleep 0.3
  record "$WORK/g10k.trace" --duration 1500ms --verbose
  wait_record
  [[ $rc == 0 ]] || problem "gotraced exit $rc, want 0"
  says "nothing lost" "nothing lost"
  if parses "$WORK/g10k.trace"; then
    counts_true "$WORK/g10k.trace"
    ng=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["goroutines"])' "$WORK/g10k.trace.json")
    ((ng >= 10000)) && fig "$ng goroutines in the trace" || problem "only $ng goroutines in the trace"
  fi
  fig "$(grep -oE 'snapshot [0-9]+' "$WORK/$SLUG.out") ms, $(grep -oE 'start-up [0-9]+ ms' "$WORK/$SLUG.out")"
  unharmed "$tpid"
  no_leftovers
  finish
}

case_14_two_gotraced_on_one_target() {
  begin "two gotraced on one target"
  start_target
  record "$WORK/two-a.trace" --duration 3s
  gpid_a=$gpid
  recording "$WORK/two-a.trace" 0.3
  SLUG_A=$SLUG
  SLUG="$SLUG_A-b"
  record "$WORK/two-b.trace" --duration 1500ms
  wait_record
  rc_b=$rc summary_b=$summary
  SLUG=$SLUG_A gpid=$gpid_a
  wait_record
  for w in a b; do
    if [[ $w == b ]]; then rc=$rc_b summary=$summary_b; fi
    [[ $rc == 0 ]] || problem "gotraced $w exit $rc"
    parses "$WORK/two-$w.trace" && counts_true "$WORK/two-$w.trace"
  done
  unharmed "$tpid"
  no_leftovers
  finish
}

case_15_another_user_without_capabilities() {
  begin "another user without capabilities"
  # nobody must reach gotraced and the target: the build may be in a directory only
  # root can enter (/root/...), so both run from a directory of their own under /tmp.
  NOBODY_DIR=$(mktemp -d /tmp/gotraced-faults.XXXXXX)
  chmod 755 "$NOBODY_DIR"
  cp "$GOTRACED" "$T" "$NOBODY_DIR/"
  mkdir -m 777 "$NOBODY_DIR/out"
  local gt=$NOBODY_DIR/gotraced
  start_target
  setpriv --reuid nobody --regid nogroup --clear-groups "$gt" --quiet --pid "$tpid" --out "$NOBODY_DIR/out/t.trace" \
    --duration 2s >"$WORK/$SLUG.out" 2>&1
  rc=$?
  fig "exit $rc"
  [[ $rc == 1 ]] || problem "gotraced exit $rc as nobody, want 1"
  grep -q "without root's capabilities" "$WORK/$SLUG.out" || problem "no warning that the capabilities are missing"
  local refusal
  refusal=$(grep -E "error" "$WORK/$SLUG.out" | tail -1)
  if grep -qiE "CAP_BPF|root" <<<"$refusal"; then fig "refused: ${refusal#*] }"
  else problem "no clear refusal: $(tail -2 "$WORK/$SLUG.out" | tr '\n' ' ')"; fi
  [[ ! -e $NOBODY_DIR/out/t.trace ]] || problem "a file was left: $(bytes "$NOBODY_DIR/out/t.trace") bytes"
  unharmed "$tpid"
  # nobody tracing its own process: the BPF load is what needs the capabilities.
  setpriv --reuid nobody --regid nogroup --clear-groups "$NOBODY_DIR/target" >"$WORK/$SLUG.target.log" 2>&1 &
  tpid=$!
  PIDS+=("$tpid")
  sleep 0.4
  setpriv --reuid nobody --regid nogroup --clear-groups "$gt" --quiet --pid "$tpid" --out "$NOBODY_DIR/out/own.trace" \
    --duration 2s >"$WORK/$SLUG.own.out" 2>&1
  rc=$?
  refusal=$(grep -E "error" "$WORK/$SLUG.own.out" | tail -1)
  [[ $rc == 1 ]] || problem "gotraced exit $rc as nobody on its own process, want 1"
  if grep -qiE "CAP_BPF|root" <<<"$refusal"; then fig "its own process: exit $rc, refused: $(cut -c1-160 <<<"${refusal#*] }")"
  else problem "no clear refusal on its own process: $(tail -2 "$WORK/$SLUG.own.out" | tr '\n' ' ')"; fi
  [[ ! -e $NOBODY_DIR/out/own.trace ]] || problem "a file was left: $(bytes "$NOBODY_DIR/out/own.trace") bytes"
  unharmed "$tpid" "$NOBODY_DIR/target"
  no_leftovers
  finish
}

case_16_traced_binary_replaced_on_disk() {
  begin "traced binary replaced on disk"
  mkdir -p "$WORK/repl"
  cp "$T" "$WORK/repl/prog"
  cp "$T" "$WORK/repl/prog.orig"
  "$WORK/repl/prog" >"$WORK/$SLUG.target.log" 2>&1 &
  tpid=$!
  PIDS+=("$tpid")
  sleep 0.4
  record "$WORK/repl.trace" --duration 2500ms
  recording "$WORK/repl.trace" 0.5
  if cp /bin/true "$WORK/repl/prog" 2>"$WORK/repl.cp"; then problem "cp over the running binary worked?"
  else fig "cp over it: $(sed 's/.*: //' "$WORK/repl.cp")"; fi
  cp /bin/true "$WORK/repl/prog.new" && mv -f "$WORK/repl/prog.new" "$WORK/repl/prog"  # replaced by rename
  fig "replaced by rename mid-recording"
  wait_record
  [[ $rc == 0 ]] || problem "gotraced exit $rc, want 0"
  says "nothing lost \(duration reached\)" "nothing lost"
  parses "$WORK/repl.trace" && counts_true "$WORK/repl.trace"
  unharmed "$tpid" "$WORK/repl/prog.orig"
  no_leftovers
  finish
}

case_18_launch_out_dir_disk_full() {
begin "launch, --out-dir, disk full"
# go test -exec 'gotraced --out-dir DIR --': the program's exit status is gotraced's, the
# output failure is in the summary, and DIR holds whole generations only.
fresh_tmpfs 200k
"$GOTRACED" --quiet --out-dir "$MNT/traces" --generation-period $GEN -- "$T" -mode child -n 3000 \
  >"$WORK/$SLUG.out" 2>&1
rc=$?
summary=$(grep -E "^gotraced: pid [0-9]+ " "$WORK/$SLUG.out" | tail -1)
fig "exit $rc"
[[ $rc == 0 ]] || problem "exit $rc, want the program's 0"
grep -q "^child .* ran" "$WORK/$SLUG.out" && fig "the program ran to its end" || problem "the program did not finish"
says "OUTPUT FAILED, [0-9]+ generation\(s\) lost .* the file keeps the [0-9]+ whole generation" "what was lost and kept"
local files=("$MNT"/traces/*.trace)
if ((${#files[@]} == 1)) && [[ -e ${files[0]} ]]; then
  cp "${files[0]}" "$WORK/outdir.trace"
  parses "$WORK/outdir.trace" && { fig "$(basename "${files[0]}"): $(gens "$WORK/outdir.trace") whole generations"; counts_true "$WORK/outdir.trace"; }
else
  problem "want one trace in the directory: $(ls "$MNT/traces")"
fi
umount "$MNT"
no_leftovers
finish
}

case_19_file_size_limit() {
begin "file size limit (ulimit -f)"
start_target
(ulimit -f 256  # KiB
 "$GOTRACED" --quiet --pid "$tpid" --out "$WORK/fsize.trace" --generation-period $GEN --duration 5s \
   >"$WORK/$SLUG.out" 2>&1
 echo $? >"$WORK/$SLUG.rc") &
gpid=$!
wait_record
[[ $rc == 1 ]] || problem "gotraced exit $rc, want 1"
says "OUTPUT FAILED, .*File too large" "that the file grew past the limit"
parses "$WORK/fsize.trace" && { fig "$(bytes "$WORK/fsize.trace") bytes (limit 262144)"; counts_true "$WORK/fsize.trace"; }
unharmed "$tpid"
no_leftovers
finish
}

case_17_serve_dump_to_a_full_disk() {
begin "serve: dump to a full disk"
# gotraced serve holds its windows in memory only (no spool on disk); what reaches a
# disk is the endpoint's response, which `gotraced dump` writes to FILE.partial and
# renames once whole: on a full disk it must leave nothing, and the daemon serve on.
local sock=$WORK/serve.sock conf=$WORK/serve.toml dpid
cat >"$conf" <<EOF
[flight]
window_seconds = 3
memory_mb = 256
generation_ms = 200
ring_mb = 4
[endpoint]
socket = "$sock"
[discovery]
rescan_seconds = 1
[[watch]]
exe = "$T"
EOF
start_target
"$GOTRACED" serve --config "$conf" >"$WORK/$SLUG.serve.log" 2>&1 &
dpid=$!
PIDS+=("$dpid")
local i
for ((i = 0; i < 100; i++)); do [[ -S $sock ]] && break; sleep 0.1; done
for ((i = 0; i < 100; i++)); do
  "$GOTRACED" ps --socket "$sock" 2>/dev/null | grep -q "^ *$tpid .*recording" && break
  sleep 0.1
done
sleep 1
fresh_tmpfs 64k
"$GOTRACED" dump --socket "$sock" --pid "$tpid" --seconds 1 --out "$MNT/d.trace" >"$WORK/$SLUG.out" 2>&1
rc=$?
fig "dump exit $rc"
[[ $rc == 1 ]] || problem "dump exit $rc onto a full disk, want 1"
grep -q "No space left on device" "$WORK/$SLUG.out" && fig "$(grep -o 'writing .*' "$WORK/$SLUG.out" | sed "s|$MNT/||g")" ||
  problem "dump does not say the disk is full: $(tail -1 "$WORK/$SLUG.out")"
local left
left=$(ls -A "$MNT")
[[ -z $left ]] && fig "nothing left on the disk" || problem "left on the disk: $left"
umount "$MNT"
if "$GOTRACED" dump --socket "$sock" --pid "$tpid" --out "$WORK/serve-after.trace" >/dev/null 2>&1; then
  parses "$WORK/serve-after.trace" && fig "the daemon serves on: its window of $(gens "$WORK/serve-after.trace") generations parses"
else
  problem "the window could not be dumped after the full disk"
fi
# The daemon killed in the middle of a response: the client keeps nothing either.
"$GOTRACED" dump --socket "$sock" --pid "$tpid" --seconds 3 --out "$WORK/serve-cut.trace" >"$WORK/$SLUG.cut.out" 2>&1 &
local dump=$!
sleep 1.2
kill -9 "$dpid"
wait "$dpid" 2>/dev/null
wait "$dump"
rc=$?
[[ $rc == 1 ]] || problem "dump exit $rc when the daemon died mid-response, want 1"
if [[ -e $WORK/serve-cut.trace || -e $WORK/serve-cut.trace.partial ]]; then problem "a cut response left a file"
else fig "daemon SIGKILLed mid-response: dump exit $rc ($(grep -o 'error\] .*' "$WORK/$SLUG.cut.out" | sed 's/^error\] //' | head -1)), no file"; fi
unharmed "$tpid"
no_leftovers
finish
}

case_20_serve_target_execs_itself() {
  begin "serve: a traced process exec()s itself"
  # The recording of the old program ends at the exec (its window kept, "exited"); the
  # new program, the same binary, is a new target with a recording of its own.
  local sock=$WORK/serve2.sock conf=$WORK/serve2.toml dpid i
  cat >"$conf" <<EOF
[flight]
window_seconds = 3
memory_mb = 256
generation_ms = 200
ring_mb = 4
[endpoint]
socket = "$sock"
[discovery]
rescan_seconds = 1
[[watch]]
exe = "$T"
EOF
  "$GOTRACED" serve --config "$conf" >"$WORK/$SLUG.serve.log" 2>&1 &
  dpid=$!
  PIDS+=("$dpid")
  for ((i = 0; i < 100; i++)); do [[ -S $sock ]] && break; sleep 0.1; done
  start_target -mode exec
  states() { curl -s --max-time 10 --unix-socket "$sock" http://gotraced/processes | grep "\"pid\":$tpid," |
    grep -o '"state":"[a-z]*"' | cut -d'"' -f4 | tr '\n' ' '; }
  for ((i = 0; i < 100; i++)); do [[ $(states) == "recording " ]] && break; sleep 0.1; done
  sleep 0.5
  kill -USR1 "$tpid"
  for ((i = 0; i < 100; i++)); do [[ $(states) == "exited recording " ]] && break; sleep 0.1; done
  [[ $(states) == "exited recording " ]] && fig "pid $tpid: the old program's recording exited, the new one records" ||
    problem "pid $tpid's recordings after the exec: $(states), want: exited recording"
  sleep 0.5
  if "$GOTRACED" dump --socket "$sock" --pid "$tpid" --out "$WORK/serve-exec.trace" >/dev/null 2>"$WORK/$SLUG.out"; then
    parses "$WORK/serve-exec.trace" && fig "the new program's window parses ($(gens "$WORK/serve-exec.trace") generations)"
  else
    problem "dump after the exec: $(tail -1 "$WORK/$SLUG.out")"
  fi
  wait "$tpid"
  rc=$?
  ((rc == 0)) && fig "the exec'd program exit 0" || { problem "the exec'd program exit $rc"; crashes=$((crashes + 1)); }
  kill -TERM "$dpid"
  wait "$dpid" 2>/dev/null
  fig "daemon exit $? on SIGTERM"
  no_leftovers
  finish
}

# GOTRACED_FAULT_CASES=REGEX runs only the cases whose name matches (for working on one).
for c in $(declare -F | awk '$3 ~ /^case_[0-9][0-9]_/ {print $3}'); do
  name=$(declare -f "$c" | grep -m1 -oE 'begin "[^"]*"' | cut -d'"' -f2)
  [[ -z ${GOTRACED_FAULT_CASES:-} || $name =~ $GOTRACED_FAULT_CASES ]] || continue
  "$c"
done

took=$(($(date +%s) - start))
echo "$SUITE: $cases cases, $((cases - failed)) passed, $failed failed; target crashes: $crashes; unparseable files: $unparseable ($took s)"
echo "total|$cases|$((cases - failed))|$failed|$crashes|$unparseable|$took" >>"$RESULTS"
((failed == 0))
