#!/usr/bin/env bash
# Level low's syscalls from sched_switch (`--syscalls-by switch`, bpf/gt_sys_switch.bpf.h;
# docs/probe-plan.md §10): a Go program whose goroutines make known syscalls, recorded
# with `--pid --level low --syscalls-by switch` (the 1 ms threshold), on go1.26 and go1.19.
# The trace must hold, each on its own goroutine (the program prints their ids):
#   pipe    blocking read(2) on a pipe (syscall.Pipe: no netpoller) that a writer fills
#           5 ms later: syscalls of 4-50 ms on that goroutine;
#   nsleep  syscall.Nanosleep of 3 ms (no time.Sleep: a real syscall): 2.5-50 ms each;
#   short   syscall.Nanosleep of 100 us: under the threshold, so almost none (a thread kept
#           off CPU 1 ms longer by a loaded machine is a 1 ms syscall; at most 5% of them
#           may be written, each >= 1 ms);
# Go's parser accepts it with no error, and the summary says the syscalls came from
# sched_switch with no program on any syscall. And once more on go1.26 with the switch
# path refused (GOTRACED_TEST_REFUSE_SWITCH): the syscall tracepoint programs, loaded only
# then (capture.cc LoadSyscallFallback), must give the same syscalls, and the summary say so.
#   GOTRACED_BUILD=build bash tests/suites/48-syscalls-by-switch.sh
set -uo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
SUITE=48-syscalls-by-switch
GOTRACED=$BUILD/cli/gotraced
TOOLS=$BUILD/tools
fail=0
ok() { echo "ok   $SUITE: $*"; }
bad() { echo "FAIL $SUITE: $*"; fail=1; }
# shellcheck source=../lib/suite.sh
source "$ROOT/tests/lib/suite.sh"

need_gotraced
need_bpf
build_tools

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gotraced-48.XXXXXX")
pid=
trap 'if [[ -n $pid ]]; then kill "$pid" 2>/dev/null || true; fi' EXIT
mkdir -p "$WORK/prog"
cat >"$WORK/prog/main.go" <<'EOF'
// Known syscalls on known goroutines (tests/suites/48-syscalls-by-switch.sh).
package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync/atomic"
	"syscall"
)

var shortCalls atomic.Int64

func goid() int64 {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	f := bytes.Fields(b) // "goroutine N [running]:"
	n, _ := strconv.ParseInt(string(f[1]), 10, 64)
	return n
}

func main() {
	ready := make(chan string, 3)
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil { // blocking fds: read(2) sleeps in the kernel
		panic(err)
	}
	go func() { // the writer: one byte every 5 ms, by Nanosleep (no timer, no netpoller)
		ts := syscall.Timespec{Nsec: 5e6}
		for {
			syscall.Nanosleep(&ts, nil)
			syscall.Write(p[1], []byte{1})
		}
	}()
	go func() {
		ready <- fmt.Sprintf("pipe %d", goid())
		b := make([]byte, 1)
		for {
			syscall.Read(p[0], b)
		}
	}()
	go func() {
		ready <- fmt.Sprintf("nsleep %d", goid())
		ts := syscall.Timespec{Nsec: 3e6}
		for {
			syscall.Nanosleep(&ts, nil)
		}
	}()
	go func() {
		ready <- fmt.Sprintf("short %d", goid())
		ts := syscall.Timespec{Nsec: 100e3}
		for {
			syscall.Nanosleep(&ts, nil)
			shortCalls.Add(1)
		}
	}()
	// Ask by signal how many short sleeps were made: SIGUSR1 prints the count. Asked for
	// before the ready lines, which the suite waits for before its first SIGUSR1.
	c := make(chan os.Signal, 1)
	notify(c)
	for i := 0; i < 3; i++ {
		fmt.Println(<-ready)
	}
	os.Stdout.Sync()
	for range c {
		fmt.Println("short_calls", shortCalls.Load())
	}
}
EOF
cat >"$WORK/prog/notify.go" <<'EOF'
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func notify(c chan os.Signal) { signal.Notify(c, syscall.SIGUSR1) }
EOF
printf 'module switchtest\n\ngo 1.19\n' >"$WORK/prog/go.mod"

for c in 1.26 1.19 1.26-fallback; do
  v=${c%-fallback}
  refuse=
  [[ $c == *-fallback ]] && refuse=1
  g=$(go_for "$v")
  if ! $g version >/dev/null 2>&1; then
    bad "go$v is not installed (scripts/install-deps.sh)"
    continue
  fi
  exe=$WORK/prog-go$v
  if [[ ! -x $exe ]] && ! (cd "$WORK/prog" && $g build -o "$exe" .) >"$WORK/build-go$v.log" 2>&1; then
    bad "go$v: the workload does not build: $(tail -3 "$WORK/build-go$v.log")"
    continue
  fi
  v=$c  # (the files of this case from here on)
  out=$WORK/out-go$v.txt
  "$exe" >"$out" 2>&1 &
  pid=$!
  for _ in $(seq 50); do [[ $(grep -c '^short ' "$out") == 1 ]] && break; sleep 0.1; done
  trace=$WORK/go$v.trace
  kill -USR1 "$pid"
  sleep 0.2
  if ! GOTRACED_TEST_REFUSE_SWITCH=$refuse timeout 60 "$GOTRACED" --pid "$pid" --level low --syscalls-by switch \
    --out "$trace" --duration 3s >"$WORK/go$v.log" 2>&1; then
    bad "go$v: gotraced failed: $(tail -3 "$WORK/go$v.log")"
    kill "$pid"; wait "$pid" 2>/dev/null; pid=
    continue
  fi
  kill -USR1 "$pid"
  sleep 0.2
  kill "$pid"; wait "$pid" 2>/dev/null; pid=
  if grep -q "overlapped one already written" "$WORK/go$v.log"; then
    bad "go$v: syscalls from sched_switch overlapped on one goroutine (stale notes): $(grep overlapped "$WORK/go$v.log")"
  fi
  if [[ -z $refuse ]] && ! grep -q "syscalls from sched_switch" "$WORK/go$v.log"; then
    bad "go$v: the summary does not say the syscalls came from sched_switch: $(grep 'level low' "$WORK/go$v.log")"
  fi
  if [[ -n $refuse ]] && ! grep -q "syscalls by the syscall tracepoints (sched_switch: refused for a test" "$WORK/go$v.log"; then
    bad "go$v: the summary does not say the syscalls came from the tracepoints: $(grep 'level low' "$WORK/go$v.log")"
  fi
  if ! "$TOOLS/tracecheck" "$trace" >"$WORK/go$v.json" 2>"$WORK/go$v.err" ||
    ! "$TOOLS/tracecheck" --events-json "$trace" >"$WORK/go$v.events" 2>>"$WORK/go$v.err"; then
    bad "go$v: Go's parser refuses the trace: $(head -c 600 "$WORK/go$v.err")"
    continue
  fi
  verdict=$(python3 - "$WORK/go$v.json" "$WORK/go$v.events" "$out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ids, counts = {}, []
for line in open(sys.argv[3]):
    f = line.split()
    if len(f) == 2 and f[0] in ("pipe", "nsleep", "short"): ids[f[0]] = int(f[1])
    if len(f) == 2 and f[0] == "short_calls": counts.append(int(f[1]))
short_made = counts[1] - counts[0] if len(counts) == 2 else 0
# A syscall at low: GoCreateSyscall (NotExist->Syscall) ... GoDestroySyscall (Syscall->NotExist).
open_, durs = {}, {}
for e in map(json.loads, open(sys.argv[2])):
    if e.get("resource") != "goroutine": continue
    g = e["id"]
    if e["from"] == "NotExist" and e["to"] == "Syscall": open_[g] = e["time"]
    elif e["from"] == "Syscall" and e["to"] == "NotExist" and g in open_:
        durs.setdefault(g, []).append((e["time"] - open_.pop(g)) / 1e6)
p = []
if d["validation"]["errors"]: p.append(f"{d['validation']['errors']} semantic errors: {d['validation']['first_errors'][:2]}")
if set(ids) != {"pipe", "nsleep", "short"}: p.append(f"goroutine ids not printed: {ids}")
def mid(v): return sorted(v)[len(v) // 2] if v else 0
summary = []
for name, lo, hi, want in (("pipe", 4.0, 50.0, 100), ("nsleep", 2.5, 50.0, 200)):
    v = durs.get(ids.get(name), [])
    out = [x for x in v if not lo <= x <= hi]
    # 3 s: ~600 reads of 5 ms and ~1,000 sleeps of 3 ms; a loaded machine stretches them.
    if len(v) < want: p.append(f"{name}: {len(v)} syscalls on G{ids.get(name)} (want >= {want})")
    if len(out) > len(v) // 20: p.append(f"{name}: {len(out)} of {len(v)} durations outside {lo}-{hi} ms: {sorted(out)[:5]}")
    summary.append(f"{name} G{ids.get(name)} {len(v)} syscalls, median {mid(v):.2f} ms")
v = durs.get(ids.get("short"), [])
if short_made < 1000: p.append(f"short: only {short_made} 100 us sleeps made during the recording")
if len(v) > max(short_made // 20, 5): p.append(f"short: {len(v)} of {short_made} 100 us sleeps written (threshold 1 ms)")
if any(x < 1.0 for x in v): p.append(f"short: a syscall under 1 ms written: {min(v):.3f} ms")
summary.append(f"short G{ids.get('short')} {len(v)} of {short_made} written" + (f" (min {min(v):.2f} ms)" if v else ""))
print(("BAD " + "; ".join(p) + " | " if p else "OK ") + "; ".join(summary))
PY
)
  if [[ $verdict == OK* ]]; then ok "go$v --syscalls-by switch: ${verdict#OK }"; else bad "go$v --syscalls-by switch: ${verdict#BAD }"; fi
done
((fail)) || rm -rf "$WORK"
exit $fail
