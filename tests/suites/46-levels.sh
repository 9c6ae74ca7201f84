#!/usr/bin/env bash
# Capture levels (docs/levels.md, docs/probe-plan.md §10): one real program per Go
# version (1.26; 1.19, the oldest; 1.24 and 1.25, the last with the casgstatus syscall path;
# GOTRACED_LEVEL_GOS to choose), recorded with --pid
# at each level, --cpu-hz 100, 2 s. Every file must pass tracecheck (Go's parser and its
# semantic checks); then per level:
#   full   goroutine blocks with stacks, syscalls, GC cycles;
#   sched  blocks and syscalls, (almost) no stacks;
#   low    no block, no GoStart (no scheduling is recorded), syscalls with their
#          goroutine (created in the syscall: NotExist->Syscall), a GC cycle, CPU samples
#          with a goroutine, goroutine state samples (--state-sample 500ms: logs
#          "gotraced: goroutine states" counting the workload's 1000 goroutines blocked on
#          a channel as "chan receive"); and capture-dump --level low attaches no
#          casgstatus site and sees no GSTATUS record (zero hits of the
#          per-goroutine-switch site).
#          By default only syscalls of 1 ms or more (the 3 ms nanosleeps; the summary
#          counts the short ones left out); with --syscall-min 0 (low-all) every one, so
#          at least twice as many pieces; with --no-syscalls none (no tracepoint attached).
#          low-switch: the same checks with the syscalls from sched_switch, the default
#          (no --syscalls-by given), whose summary says so.
set -euo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
SUITE=46-levels
GOTRACED=$BUILD/cli/gotraced
TOOLS=$BUILD/tools
WORK=$BUILD/levels
fail=0
ok() { echo "ok   $SUITE: $*"; }
bad() { echo "FAIL $SUITE: $*"; fail=1; }
# shellcheck source=../lib/suite.sh
source "$ROOT/tests/lib/suite.sh"

need_gotraced
need_bpf
build_tools

# The target runs until killed: it goes with the suite, however the suite ends.
pid=
trap 'if [[ -n $pid ]]; then kill "$pid" 2>/dev/null || true; fi' EXIT
rm -rf "$WORK"
mkdir -p "$WORK/prog"
cat >"$WORK/prog/main.go" <<'EOF'
// Workload for the level checks: channel ping-pong (scheduling), file syscalls, sleeps,
// an allocator that keeps the GC busy, runtime.GC every 300 ms, a CPU spinner, and 1000
// goroutines blocked on a channel receive for good (level low's state samples).
package main

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

var sink [][]byte

func main() {
	never := make(chan int)
	for i := 0; i < 1000; i++ {
		go func() { <-never }()
	}
	ping, pong := make(chan int), make(chan int)
	go func() {
		for v := range ping {
			pong <- v + 1
		}
	}()
	go func() { // syscalls
		buf := make([]byte, 256)
		for {
			if f, err := os.Open("/proc/self/stat"); err == nil {
				f.Read(buf)
				f.Close()
			}
			time.Sleep(time.Millisecond)
		}
	}()
	go func() { // long syscalls: what level low writes under its default 1 ms threshold
		ts := syscall.Timespec{Nsec: 3e6}
		for {
			syscall.Nanosleep(&ts, nil)
		}
	}()
	go func() { // allocations
		for i := 0; ; i++ {
			sink = append(sink, make([]byte, 64<<10))
			if len(sink) > 64 {
				sink = sink[:0]
			}
			if i%100 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	}()
	go func() { // CPU
		x := 0
		for {
			for i := 0; i < 1000000; i++ {
				x += i ^ x
			}
			time.Sleep(200 * time.Microsecond)
		}
	}()
	go func() {
		for {
			time.Sleep(300 * time.Millisecond)
			runtime.GC()
		}
	}()
	for i := 0; ; i++ {
		ping <- i
		<-pong
		if i%50 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
}
EOF

# check NAME LEVEL TRACE
check() {
  local name=$1 level=$2 trace=$3
  if ! "$TOOLS/tracecheck" "$trace" >"$WORK/$name.json" 2>"$WORK/$name.err"; then
    last_verdict="BAD tracecheck rejects $trace: $(head -c 600 "$WORK/$name.err")"
    return
  fi
  local verdict
  if [[ $level == low ]] && ! "$TOOLS/tracecheck" --events-json "$trace" >"$WORK/$name.events" 2>>"$WORK/$name.err"; then
    last_verdict="BAD tracecheck --events-json rejects $trace"
    return
  fi
  verdict=$(python3 - "$WORK/$name.json" "$level" "$v" "$WORK/$name.events" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1])); level = sys.argv[2]; legacy = sys.argv[3] in ("1.19", "1.20")
t = d["transitions"]["goroutine"]; br = d["block_reasons"]
blocks = sum(br.values()); gc = d["ranges"].get("GC concurrent mark phase", 0)
starts = t.get("Runnable->Running", 0)
sys_created = t.get("NotExist->Syscall", 0)
p = []
if d["validation"]["errors"]: p.append(f"{d['validation']['errors']} semantic errors: {d['validation']['first_errors'][:2]}")
if level in ("full", "sched"):
    if blocks < 20: p.append(f"only {blocks} blocks")
    if d["syscalls"] < 20: p.append(f"only {d['syscalls']} syscalls")
    if level == "full" and d["stacks"] < blocks // 2: p.append(f"only {d['stacks']} events with stacks for {blocks} blocks")
    # (Go <= 1.20's STW site keeps its stack at sched: the decoder needs it, a few per cycle.)
    if level == "sched" and d["stacks"] > blocks // 4: p.append(f"{d['stacks']} events with stacks for {blocks} blocks (no stacks at sched)")
else:
    if blocks: p.append(f"{blocks} blocks (low records no scheduling)")
    if sys_created < 20: p.append(f"only {sys_created} syscalls (goroutines created in a syscall)")
    if d["cpu_samples_with_goroutine"] < 10: p.append(f"only {d['cpu_samples_with_goroutine']} of {d['cpu_samples']} CPU samples with a goroutine")
    # Goroutine state samples every 500 ms for 2 s: the 1000 blocked goroutines (and the
    # ping-pong pair's receives at most) waiting on "chan receive", every sample.
    logs = [e for e in map(json.loads, open(sys.argv[4])) if e["kind"] == "Log" and e.get("category") == "gotraced: goroutine states"]
    recv = [int(m.group(1)) for m in (re.search(r"chan receive (\d+)", e["message"]) for e in logs) if m]
    if len(logs) < 3: p.append(f"{len(logs)} goroutine state samples (want >= 3 in 2 s at 500 ms)")
    elif len(recv) != len(logs) or not all(1000 <= n <= 1003 for n in recv):
        p.append(f"state samples' chan receive counts {recv}, want 1000..1003 each: {logs[0]['message'][:200]}")
    if logs and not any("longest waits" in e["message"] for e in logs):
        p.append(f"no state sample names the longest waits (a GC every 300 ms sets g.waitsince): {logs[-1]['message'][:200]}")
    state = f", {len(logs)} state samples (chan receive {min(recv) if recv else '?'}..{max(recv) if recv else '?'}: {logs[-1]['message'][:160] if logs else ''})"
if gc < 1: p.append("no GC cycle")
s = (f"{d['events']} events, {blocks} blocks, {d['syscalls']} syscall begins, {sys_created} syscall pieces, "
     f"{starts} starts, {gc} GC cycles, {d['stacks']} stacks, {d['cpu_samples']} CPU samples "
     f"({d['cpu_samples_with_goroutine']} with a goroutine), {d['generations']} generations" + (state if level == "low" else ""))
print(("BAD " + "; ".join(p) + " | " + s) if p else ("OK " + s))
PY
)
  last_verdict=$verdict
}
# record NAME LEVEL: one 2 s --pid recording of $pid, then check (sets last_verdict).
# LEVEL low is level low with its syscalls from the tracepoints (--syscalls-by tracepoint:
# the threshold's count of short syscalls below is theirs), low-switch the same from
# sched_switch (the default: no --syscalls-by, bpf/gt_sys_switch.bpf.h), low-all level low
# with --syscall-min 0 (every goroutine syscall written, by the tracepoints).
last_verdict=
record() {
  local name=$1 level=$2 opts=()
  [[ $level == low ]] && opts=(--syscalls-by tracepoint --state-sample 500ms)
  if [[ $level == low-switch ]]; then level=low; opts=(--state-sample 500ms); fi
  if [[ $level == low-all ]]; then level=low; opts=(--syscall-min 0 --state-sample 500ms); fi
  if timeout 60 "$GOTRACED" --pid "$pid" --level "$level" "${opts[@]}" --cpu-hz 100 "${fmt[@]}" --out "$WORK/$name.trace" \
    --duration 2s -q >"$WORK/$name.log" 2>&1; then
    check "$name" "$level" "$WORK/$name.trace"
  else
    last_verdict="BAD gotraced failed: $(tail -5 "$WORK/$name.log")"
  fi
}
missed() { [[ $last_verdict != OK* ]]; }
keep_first() { echo "note $SUITE: first try: ${last_verdict#BAD }"; }

declare -A pieces
for v in ${GOTRACED_LEVEL_GOS:-1.26 1.19 1.24 1.25}; do
  pieces=()
  g=$(go_for "$v") || { bad "go$v: unknown Go version"; continue; }
  if ! $g version >/dev/null 2>&1; then
    bad "go$v: toolchain not installed ($g)"
    continue
  fi
  printf 'module levels\ngo %s\n' "$v" >"$WORK/prog/go.mod"
  bin=$WORK/levels-go$v
  if ! (cd "$WORK/prog" && GOFLAGS=-buildvcs=false $g build -o "$bin" . 2>"$WORK/build-$v.log"); then
    bad "go$v: cannot build the workload: $(head -c 400 "$WORK/build-$v.log")"
    continue
  fi
  "$bin" &
  pid=$!
  sleep 0.5
  # The v2 format for every level (what low writes for a <= 1.21 target anyway): the
  # legacy go1.19 writer's own semantic slip on this workload at full ("goroutine N leaves
  # Syscall but was Running", main at d41e32e too) is not what this suite checks.
  fmt=()
  [[ $v == 1.19 || $v == 1.21 ]] && fmt=(--trace-version go1.22)
  for level in full sched low low-switch low-all; do
    name=go$v-$level
    # The suites' one retry rule: go1.19 at full and sched (with or without stacks) had 1
    # STWBegin the parser refused ("already in-flight") in 1 of 5 recordings of this
    # GC-heavy workload: a model slip on <= 1.20 STW ranges not found yet, not a level's.
    run_twice_on_fail missed keep_first "$name: retrying once (go1.19 STW ranges, docs/probe-plan.md §10)" -- \
      record "$name" "$level"
    if [[ $last_verdict == OK* ]]; then ok "$name: ${last_verdict#OK }"; else bad "$name: ${last_verdict#BAD }"; fi
    if [[ $level == low* ]] && ! grep -q "level low: .*goroutine states counted every 0.5 s.*NOT scheduling" "$WORK/$name.log"; then
      bad "$name: the summary does not say what a low trace leaves out: $(tail -2 "$WORK/$name.log")"
    fi
    if [[ $level == low-switch ]] && ! grep -q "level low: syscalls from sched_switch: .*1 ms or longer" "$WORK/$name.log"; then
      bad "$name: the summary does not say the syscalls came from sched_switch: $(grep 'level low: ' "$WORK/$name.log" | tail -1)"
    fi
    # The decoder's guard (RecordDecoder::EmitSampledSyscall) keeps the file valid; the
    # capture side must not need it (a goroutine in two syscalls at once: stale notes).
    if [[ $level == low* ]] && grep -q "overlapped one already written" "$WORK/$name.log"; then
      bad "$name: $(grep overlapped "$WORK/$name.log")"
    fi
    [[ $last_verdict =~ ([0-9]+)\ syscall\ pieces ]] && pieces[$level]=${BASH_REMATCH[1]}
  done
  # The 1 ms threshold: the summary counts what it left out, and every syscall written
  # (low-all) is at least twice the long ones (the stat loop's open/read/close are short).
  short=$(sed -n 's/.*only syscalls of 1 ms or longer are in the trace; \([0-9]*\) shorter.*/\1/p' "$WORK/go$v-low.log")
  if [[ -n $short ]] && ((short >= 1000)) && ((${pieces[low-all]:-0} >= 2 * ${pieces[low]:-1})); then
    ok "go$v low: $short syscalls under 1 ms left out; ${pieces[low]} pieces, ${pieces[low-all]} with --syscall-min 0"
  else
    bad "go$v low: syscall threshold: short '${short}', pieces ${pieces[low]:-?} at 1 ms vs ${pieces[low-all]:-?} with --syscall-min 0: $(grep 'level low: syscalls' "$WORK/go$v-low.log")"
  fi
  grep -q "level low: .*only syscalls" "$WORK/go$v-low-all.log" && bad "go$v low-all: the summary claims a threshold with --syscall-min 0"
  # Which path ran, said in the summary: the tracepoints when asked, and with no threshold.
  grep -q "level low: syscalls by the syscall tracepoints: only syscalls of 1 ms" "$WORK/go$v-low.log" ||
    bad "go$v low: the summary does not say the tracepoints ran: $(grep 'level low: syscalls' "$WORK/go$v-low.log")"
  grep -q "level low: syscalls by the syscall tracepoints (no threshold" "$WORK/go$v-low-all.log" ||
    bad "go$v low-all: the summary does not say why the tracepoints ran: $(grep 'level low: syscalls' "$WORK/go$v-low-all.log")"
  # --no-syscalls: no syscall tracepoint, no syscall in the trace, which still parses.
  if timeout 60 "$GOTRACED" --pid "$pid" --level low --no-syscalls --out "$WORK/go$v-low-nosys.trace" --duration 1s \
    >"$WORK/go$v-low-nosys.log" 2>&1 && "$TOOLS/tracecheck" "$WORK/go$v-low-nosys.trace" >"$WORK/go$v-low-nosys.json" 2>&1; then
    n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["transitions"]["goroutine"].get("NotExist->Syscall", 0) + d["syscalls"], d["validation"]["errors"])' "$WORK/go$v-low-nosys.json")
    if [[ $n == "0 0" ]] && grep -q "no syscall tracepoint was attached" "$WORK/go$v-low-nosys.log" && ! grep -q "uprobes at entersyscall" "$WORK/go$v-low-nosys.log"; then
      ok "go$v low --no-syscalls: no syscall in the trace, no syscall tracepoint attached"
    else
      bad "go$v low --no-syscalls: syscalls and errors '$n': $(grep -E 'syscall|warn' "$WORK/go$v-low-nosys.log" | head -3)"
    fi
  else
    bad "go$v low --no-syscalls failed: $(tail -3 "$WORK/go$v-low-nosys.log")"
  fi
  # Zero hits of the per-goroutine-switch site at level low: it is not even attached.
  if timeout 60 "$GOTRACED" capture-dump --pid "$pid" --level low --syscalls-by tracepoint --duration 1 -q \
    >"$WORK/go$v-dump.txt" 2>&1; then
    cas=$(grep -c "casgstatus" "$WORK/go$v-dump.txt" || true)
    gst=$(grep -cE "^  GSTATUS" "$WORK/go$v-dump.txt" || true)
    # One record per syscall at low, at its exit (ProbePlan::syscall_pair).
    sys=$(grep -E "^  CALL exitsyscall " "$WORK/go$v-dump.txt" | awk '{print $NF}' || true)
    if ((cas == 0 && gst == 0)) && [[ -n $sys ]] && ((sys > 0)); then
      ok "go$v capture-dump --level low: no casgstatus site, 0 GSTATUS records, $sys syscalls (one record each, from sys_exit)"
    else
      bad "go$v capture-dump --level low: $cas casgstatus lines, $gst GSTATUS record kinds, syscall records '${sys}': $(grep -E "casgstatus|GSTATUS|CALL" "$WORK/go$v-dump.txt" | head -5)"
    fi
  else
    bad "go$v capture-dump --level low failed: $(tail -3 "$WORK/go$v-dump.txt")"
  fi
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
done

exit $fail
