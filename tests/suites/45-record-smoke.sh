#!/usr/bin/env bash
# Record smoke: gotraced records a real Go 1.26 program end to end (Session: capture +
# decoder + model + encoder), attached mid-run with --pid and in launch mode, and Go's own
# parser (tracecheck, with its semantic checks) must accept the file; the counts must be
# plausible for the workload (goroutines created and ended, channel blocks with their
# reasons, syscalls, several generations) and repairs must stay rare.
#
# Skips (with the reason) only when this machine cannot load BPF programs at all
# (`gotraced selftest` fails: not root, no BTF ...).
set -euo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
SUITE=45-record-smoke
GOTRACED=$BUILD/cli/gotraced
TOOLS=$BUILD/tools
WORK=$BUILD/record-smoke
fail=0
ok() { echo "ok   45-record-smoke: $*"; }
bad() { echo "FAIL 45-record-smoke: $*"; fail=1; }
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
// Workload: worker pools over unbuffered channels, a mutex, a WaitGroup, file syscalls,
// sleeps and yields. -rounds 0 runs until killed.
package main

import (
	"flag"
	"os"
	"runtime"
	"sync"
	"time"
)

func worker(id int, in <-chan int, out chan<- int, wg *sync.WaitGroup) {
	defer wg.Done()
	for v := range in {
		out <- v * id
	}
}

func main() {
	rounds := flag.Int("rounds", 0, "rounds (0 = forever)")
	flag.Parse()
	var mu sync.Mutex
	total := 0
	for r := 0; *rounds == 0 || r < *rounds; r++ {
		in := make(chan int)
		out := make(chan int, 100)
		var wg sync.WaitGroup
		for i := 0; i < 4; i++ {
			wg.Add(1)
			go worker(i, in, out, &wg)
		}
		for i := 0; i < 50; i++ {
			in <- i
		}
		close(in)
		wg.Wait()
		close(out)
		for v := range out {
			mu.Lock()
			total += v
			mu.Unlock()
		}
		if f, err := os.Open("/proc/self/stat"); err == nil {
			buf := make([]byte, 64)
			f.Read(buf)
			f.Close()
		}
		runtime.Gosched()
		time.Sleep(2 * time.Millisecond)
	}
	_ = total
}
EOF
printf 'module smoke\ngo 1.26\n' >"$WORK/prog/go.mod"
if ! (cd "$WORK/prog" && GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -o "$WORK/smoke" . 2>"$WORK/build.log"); then
  echo "FAIL 45-record-smoke: cannot build the Go 1.26 workload: $(cat "$WORK/build.log")"
  exit 1
fi

# check NAME TRACE: tracecheck must accept it; then plausibility of the counts.
check() {
  local name=$1 trace=$2 min_gen=$3
  if ! "$TOOLS/tracecheck" "$trace" >"$WORK/$name.json" 2>"$WORK/$name.err"; then
    bad "$name: tracecheck rejects $trace: $(head -c 600 "$WORK/$name.err")"
    return
  fi
  local verdict
  verdict=$(python3 - "$WORK/$name.json" "$min_gen" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); min_gen = int(sys.argv[2])
t = d["transitions"]["goroutine"]; br = d["block_reasons"]
blocks = sum(br.values()); repairs = br.get("gotraced: transition not captured", 0)
problems = []
if d["creates"] < 40: problems.append(f"only {d['creates']} goroutines created")
if t.get("Running->NotExist", 0) < 40: problems.append(f"only {t.get('Running->NotExist', 0)} goroutines ended")
for r in ("chan receive", "chan send", "sleep", "sync"):
    if br.get(r, 0) < 5: problems.append(f"only {br.get(r, 0)} blocks on {r!r}")
if d["syscalls"] < 10: problems.append(f"only {d['syscalls']} syscalls")
if t.get("Syscall->Running", 0) < d["syscalls"] // 2: problems.append("most syscalls did not end in place")
if d["generations"] < min_gen: problems.append(f"{d['generations']} generations")
if blocks and repairs > 0.05 * blocks: problems.append(f"{repairs} of {blocks} blocks are repairs")
if d["stacks"] < blocks // 2: problems.append(f"only {d['stacks']} events with stacks")
if d["validation"]["errors"]: problems.append(f"{d['validation']['errors']} semantic errors")
summary = (f"{d['events']} events, {d['creates']} creates, {blocks} blocks ({repairs} repairs), "
           f"{d['syscalls']} syscalls, {d['generations']} generations, {d['distinct_stacks']} distinct stacks")
print(("BAD " + "; ".join(problems) + " | " + summary) if problems else ("OK " + summary))
PY
)
  if [[ $verdict == OK* ]]; then ok "$name: ${verdict#OK }"; else bad "$name: ${verdict#BAD }"; fi
}

# 1. Attach to a running process for 3 s.
"$WORK/smoke" &
pid=$!
sleep 0.5
if timeout 60 "$GOTRACED" --pid "$pid" --out "$WORK/attach.trace" --duration 3s -q >"$WORK/attach.log" 2>&1; then
  check attach "$WORK/attach.trace" 2
else
  bad "attach: gotraced failed: $(tail -5 "$WORK/attach.log")"
fi
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true

# 2. Launch mode: the program runs under tracing from its first goroutine to its exit.
if timeout 60 "$GOTRACED" --out "$WORK/launch.trace" -q -- "$WORK/smoke" -rounds 300 >"$WORK/launch.log" 2>&1; then
  check launch "$WORK/launch.trace" 1
else
  bad "launch: gotraced failed: $(tail -5 "$WORK/launch.log")"
fi

exit $fail
