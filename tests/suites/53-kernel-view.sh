#!/usr/bin/env bash
# The kernel view (docs/kernel-view.md): what the kernel did to running goroutines'
# threads, as "kernel: ..." regions, checked against the kernel's own counters for the
# same run (tests/kernel-view/target: workloads with known kernel effects):
#   preempt   two goroutines locked to two threads pinned to one CPU: each goroutine's
#             "kernel: off-CPU preempted" time within 10% (or 5 ms) of its thread's
#             run-queue wait (/proc/PID/task/TID/schedstat, read by the target itself
#             around its spin);
#   throttle  one CPU-bound goroutine in a cgroup limited to 20 ms per 100 ms (v1
#             cpu.cfs_quota_us where the v1 cpu controller is mounted, else v2 cpu.max):
#             the trace's "kernel: throttled" time within 10% of the cgroup's cpu.stat
#             throttled time (the target joins the fresh cgroup, so its counter covers
#             the trace's window);
#   pipe      a goroutine reads a blocking pipe that another writes 300 ms later: one
#             region "kernel: syscall read pipe" on the reader, its length within 10% of
#             the read's wall time as the target measured it (and >= the delay), its log
#             saying the thread slept (off-CPU sleep) >= 90% of the delay;
#   file      a file written, fsynced and dropped from the page cache (fadvise DONTNEED),
#             read back with pread in 1 MiB calls: the target's /proc/self/io read_bytes
#             must show the reads went to storage; at least one "kernel: syscall pread64
#             FILE" region whose log has the thread blocked (uninterruptible), every read
#             the target timed at >= 1 ms in a region (slack 2), and the regions' total
#             no more than the reads' measured total (+5%);
#   off       --no-kernel-view: no "kernel:" region at all.
# Every file must pass tracecheck (Go's parser and its semantic checks); regions are
# summed from Go's parser's events (tests/kernel-view/regions.py), and `gotraced report
# --json` must agree with those sums within 1%. The report's text is printed.
# Needs root (cgroups, BPF). A noisy machine gets one retry (run_twice_on_fail).
set -euo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
export GOFLAGS=${GOFLAGS:--buildvcs=false}
SUITE=53-kernel-view
GOTRACED=$BUILD/cli/gotraced
OUT=$BUILD/kernel-view
# shellcheck source=../lib/suite.sh
source "$ROOT/tests/lib/suite.sh"

need_gotraced
need_bpf
build_tools
rm -rf "$OUT"
mkdir -p "$OUT"
# What the suite makes outside $OUT goes at exit, however the suite ends: the throttle
# case's cgroup and the file case's 64 MiB file (both named by this shell's pid).
CG= DATA=
cleanup() {
  if [[ -n $CG ]]; then rmdir "$CG" 2>/dev/null || true; fi
  if [[ -n $DATA ]]; then rm -f "$DATA"; fi
}
trap cleanup EXIT
g=$(go_for 1.26)
if ! (cd "$ROOT/tests/kernel-view/target" && $g build -o "$OUT/kview" .) >"$OUT/build.log" 2>&1; then
  echo "FAIL $SUITE: target build failed: $(tail -n1 "$OUT/build.log")"
  exit 1
fi
# The same workloads built with Go 1.21, whose syscalls come from uprobes (the kernel view's
# own sys_enter/sys_exit records name them: bpf/gt_kernel_syscall.bpf.h).
g121=$(go_for 1.21)
if ! (cd "$ROOT/tests/kernel-view/target" && $g121 build -o "$OUT/kview121" .) >>"$OUT/build.log" 2>&1; then
  echo "FAIL $SUITE: target build with Go 1.21 failed: $(tail -n1 "$OUT/build.log")"
  exit 1
fi
fail=0
ncpu=$(nproc)
# The CPU the pinned workloads share: the last one (the first takes more interrupts).
cpu=$((ncpu - 1))

# record NAME ARGS...: gotraced launches kview ARGS; its stdout to NAME.out, the trace to
# NAME.trace, then Go's parser's events and the region sums (NAME.sums) and the report.
record() {
  local name=$1
  shift
  local flags=()
  if [[ $1 == --no-kernel-view ]]; then
    flags=(--no-kernel-view)
    shift
  fi
  # shellcheck disable=SC2206  # REC_FLAGS: extra gotraced flags, word-split on purpose
  flags+=(${REC_FLAGS:-})
  if ! GODEBUG=asyncpreemptoff=1 timeout -k 5 60 "$GOTRACED" --quiet "${flags[@]}" --out "$OUT/$name.trace" -- \
    "${KVIEW:-$OUT/kview}" "$@" >"$OUT/$name.out" 2>"$OUT/$name.log"; then
    echo "FAIL $SUITE $name: gotraced failed: $(tail -n2 "$OUT/$name.log" | tr '\n' ' ')"
    return 1
  fi
  if ! "$BUILD/tools/tracecheck" "$OUT/$name.trace" --events-json >"$OUT/$name.events" 2>"$OUT/$name.tracecheck"; then
    echo "FAIL $SUITE $name: tracecheck rejects the trace: $(head -n1 "$OUT/$name.tracecheck")"
    return 1
  fi
  python3 "$ROOT/tests/kernel-view/regions.py" "$OUT/$name.events" >"$OUT/$name.sums"
  if ! "$GOTRACED" report "$OUT/$name.trace" >"$OUT/$name.report" 2>"$OUT/$name.report.err" ||
    ! "$GOTRACED" report --json "$OUT/$name.trace" >"$OUT/$name.report.json"; then
    echo "FAIL $SUITE $name: gotraced report cannot read the trace: $(head -n1 "$OUT/$name.report.err")"
    return 1
  fi
}

# agree NAME: the report's per-cause totals match Go's parser's within 1% (+0.1 ms).
agree() {
  python3 - "$OUT/$1.sums" "$OUT/$1.report.json" <<'PY'
import json, sys
sums, rep = (json.load(open(p)) for p in sys.argv[1:3])
r = {c["type"]: c["total_ns"] for c in rep["kernel"]["totals"] if c["type"].startswith("kernel: ")}
bad = [f"{t}: report {r.get(t, 0)} ns, parser {v} ns" for t, v in sums["totals"].items()
       if abs(r.get(t, 0) - v) > 0.01 * v + 100_000]
bad += [f"{t}: report {v} ns, parser none" for t, v in r.items() if t not in sums["totals"] and v > 100_000]
if bad:
    print("report and parser disagree: " + "; ".join(bad))
    sys.exit(1)
PY
}

# ---- preempt ---------------------------------------------------------------------------
preempt_check() {
  python3 - "$OUT/preempt.sums" "$OUT/preempt.out" <<'PY'
import json, sys
sums = json.load(open(sys.argv[1]))
rows = [json.loads(l) for l in open(sys.argv[2]) if l.startswith("{")]  # (gotraced's own summary line too)
errs, lines = [], []
if len(rows) != 2:
    errs.append(f"{len(rows)} spinner reports, want 2")
for r in rows:
    ours = sums["by_g"].get(str(r["goid"]), {}).get("kernel: off-CPU preempted", 0)
    ref = r["run_delay_ns"]
    lines.append(f"g{r['goid']} (tid {r['tid']}): preempted regions {ours/1e6:.1f} ms, schedstat run-queue wait {ref/1e6:.1f} ms")
    if ref < 200e6:
        errs.append(f"g{r['goid']}: run-queue wait {ref/1e6:.1f} ms: the threads did not share a CPU")
    if abs(ours - ref) > max(0.10 * ref, 5e6):
        errs.append(f"g{r['goid']}: preempted {ours/1e6:.1f} ms vs schedstat {ref/1e6:.1f} ms (> 10%)")
print("; ".join(lines))
if errs:
    print("MISSED: " + "; ".join(errs))
    sys.exit(1)
PY
}
preempt_once() {
  preempt_ok=0
  record preempt -workload preempt -seconds 2 -cpu "$cpu" || return 0
  if preempt_check >"$OUT/preempt.check"; then preempt_ok=1; fi
  return 0
}
preempt_missed() { ((preempt_ok == 0)) && [[ -s $OUT/preempt.check ]]; }
preempt_keep() {
  for f in trace out sums check report; do [[ -f $OUT/preempt.$f ]] && mv "$OUT/preempt.$f" "$OUT/preempt.first.$f"; done
  return 0
}
run_twice_on_fail preempt_missed preempt_keep "RETRY $SUITE preempt: the first run missed (its figures: $OUT/preempt.first.check)" -- preempt_once
if ((preempt_ok)); then
  echo "PASS $SUITE preempt: $(head -n1 "$OUT/preempt.check")"
else
  echo "FAIL $SUITE preempt: $(cat "$OUT/preempt.check" 2>/dev/null | tr '\n' ' ')"
  fail=1
fi
[[ -f $OUT/preempt.report ]] && sed 's/^/    /' "$OUT/preempt.report"
if [[ -f $OUT/preempt.report.json ]] && ! msg=$(agree preempt); then
  echo "FAIL $SUITE preempt: $msg"
  fail=1
fi

# ---- throttle --------------------------------------------------------------------------
if [[ -f /sys/fs/cgroup/cpu/cpu.cfs_quota_us ]]; then
  CG=/sys/fs/cgroup/cpu/gotraced-kview-$$
  mkdir "$CG"
  echo 100000 >"$CG/cpu.cfs_period_us"
  echo 20000 >"$CG/cpu.cfs_quota_us"
  cgkind=v1
else
  v2=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
  if [[ -n $v2 ]] && grep -qw cpu "$v2/cgroup.controllers" 2>/dev/null; then
    grep -qw cpu "$v2/cgroup.subtree_control" || echo +cpu >"$v2/cgroup.subtree_control"
    CG=$v2/gotraced-kview-$$
    mkdir "$CG"
    echo "20000 100000" >"$CG/cpu.max"
    cgkind=v2
  fi
fi
v2mnt=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
if [[ ${cgkind:-} == v1 ]]; then
  # A controller serves one hierarchy at a time: with v1's cpu mounted, v2 has none.
  echo "NOTE $SUITE throttle: the cgroup v2 case (cpu.max, cpu.stat throttled_usec) does not run on this machine:" \
    "its cpu controller is bound to the v1 hierarchy at /sys/fs/cgroup/cpu, and the cgroup2 mount" \
    "${v2mnt:-(none)} has controllers '$(cat "${v2mnt:-/nonexistent}/cgroup.controllers" 2>/dev/null)';" \
    "moving it would need every v1 cpu cgroup emptied and unmounted. The v2 files' parsing is" \
    "unit-tested from samples (service_unit_tests CgroupCpu.*); the BPF throttle test" \
    "(cfs_rq throttle_count, cfs_bandwidth period) is the same kernel code for both versions."
fi
if [[ -z $CG ]]; then
  echo "FAIL $SUITE throttle: neither a v1 cpu controller nor a v2 one with cpu is available here"
  fail=1
else
  throttled_ns() {  # the cgroup's own counter (v1 throttled_time ns, v2 throttled_usec)
    if [[ $cgkind == v1 ]]; then awk '$1 == "throttled_time" {print $2}' "$CG/cpu.stat"
    else awk '$1 == "throttled_usec" {print $2 * 1000}' "$CG/cpu.stat"; fi
  }
  throttle_once() {
    throttle_ok=0
    local before after
    before=$(throttled_ns)
    record throttle -workload throttle -seconds 3 -cpu "$cpu" -cgroup "$CG" || return 0
    after=$(throttled_ns)
    if python3 - "$OUT/throttle.sums" "$((after - before))" >"$OUT/throttle.check" <<'PY'; then throttle_ok=1; fi
import json, sys
sums = json.load(open(sys.argv[1]))
ref = int(sys.argv[2])
ours = sums["totals"].get("kernel: throttled", 0)
print(f"throttled regions {ours/1e6:.1f} ms ({sums['counts'].get('kernel: throttled', 0)} intervals), cgroup cpu.stat {ref/1e6:.1f} ms")
errs = []
if ref < 1e9:
    errs.append(f"the cgroup was throttled only {ref/1e6:.1f} ms in 3 s at 20 ms/100 ms")
if abs(ours - ref) > 0.10 * max(ref, 1):
    errs.append(f"{ours/1e6:.1f} ms vs {ref/1e6:.1f} ms (> 10%)")
if errs:
    print("MISSED: " + "; ".join(errs))
    sys.exit(1)
PY
    return 0
  }
  throttle_missed() { ((throttle_ok == 0)) && [[ -s $OUT/throttle.check ]]; }
  throttle_keep() {
    for f in trace out sums check report; do [[ -f $OUT/throttle.$f ]] && mv "$OUT/throttle.$f" "$OUT/throttle.first.$f"; done
    return 0
  }
  run_twice_on_fail throttle_missed throttle_keep "RETRY $SUITE throttle: the first run missed (its figures: $OUT/throttle.first.check)" -- throttle_once
  if ((throttle_ok)); then
    echo "PASS $SUITE throttle ($cgkind): $(head -n1 "$OUT/throttle.check")"
  else
    echo "FAIL $SUITE throttle ($cgkind): $(cat "$OUT/throttle.check" 2>/dev/null | tr '\n' ' ')"
    fail=1
  fi
  [[ -f $OUT/throttle.report ]] && sed 's/^/    /' "$OUT/throttle.report"
  if [[ -f $OUT/throttle.report.json ]] && ! msg=$(agree throttle); then
    echo "FAIL $SUITE throttle: $msg"
    fail=1
  fi
fi

# ---- syscalls --------------------------------------------------------------------------
# syscalls NAME: the syscall regions and logs of NAME.events, per region type (JSON).
syscalls() {
  python3 - "$OUT/$1.events" <<'PY'
import collections, json, re, sys
regions, logs, stack = collections.defaultdict(list), collections.defaultdict(list), collections.defaultdict(list)
for l in open(sys.argv[1]):
    e = json.loads(l)
    k, t = e.get("kind"), e.get("type", "")
    if k == "RegionBegin" and t.startswith("kernel: syscall "):
        stack[e["g"]].append((t, e["time"]))
    elif k == "RegionEnd" and t.startswith("kernel: syscall "):
        s = stack[e["g"]]
        if s and s[-1][0] == t:
            regions[t].append({"g": e["g"], "ns": e["time"] - s.pop()[1]})
    elif k == "Log" and e.get("category") == "kernel: syscall":
        m = e["message"]
        head, rest = m.split(": ", 1)
        parts = {p: float(v) * 1e6 for p, v in re.findall(r"(?:, |: |then )([a-zA-Z -]+?) ([0-9.]+) ms", rest)}
        parts["total"] = float(rest.split(" ms", 1)[0]) * 1e6
        b = re.match(r"[0-9.]+ ms, ([0-9]+) bytes: ", rest)
        if b:
            parts["bytes"] = int(b.group(1))
        parts["g"] = e["g"]
        logs["kernel: syscall " + head].append(parts)
print(json.dumps({"regions": regions, "logs": logs}))
PY
}
# pipe_once NAME MODE: the pipe workload (KVIEW, REC_FLAGS as record takes them). MODE
# region: one "kernel: syscall read pipe" region on the reader, its length within 10% of
# the read's wall time (and >= the delay), its log's off-CPU sleep >= 90% of the delay and
# "4 bytes"; the report's read bytes 4. MODE log (the legacy formats, where a syscall that
# lost its P gets no region: docs/kernel-view.md): no such region, one such log on the
# reader with the same figures, and the report's total for the syscall from it within 10%.
# The target closes the pipe right after the read and exits, so the name "pipe" shows that
# the fd was named while the read waited.
pipe_once() {
  local name=$1 mode=$2
  eval "${name//-/_}_ok=0"
  record "$name" -workload pipe -delay 300ms || return 0
  syscalls "$name" >"$OUT/$name.sys"
  if python3 - "$OUT/$name.sys" "$OUT/$name.out" "$OUT/$name.report.json" "$mode" >"$OUT/$name.check" <<'PY'; then eval "${name//-/_}_ok=1"; fi
import json, sys
sysc = json.load(open(sys.argv[1]))
row = [json.loads(l) for l in open(sys.argv[2]) if l.startswith("{")][0]
rep = json.load(open(sys.argv[3]))
mode = sys.argv[4]
t = "kernel: syscall read pipe"
regs, logs = sysc["regions"].get(t, []), sysc["logs"].get(t, [])
ref = row["read_ns"]
errs = []
if mode == "region":
    if len(regs) != 1 or regs[0]["g"] != row["reader_goid"]:
        errs.append(f"want one '{t}' region on g{row['reader_goid']}, have {regs} (all: {sorted(sysc['regions'])})")
    ours = regs[0]["ns"] if regs else 0
else:
    if regs:
        errs.append(f"a legacy trace has a '{t}' region: {regs}")
    ours = logs[0].get("total", 0) + logs[0].get("waiting for a P", 0) if logs else 0
if len(logs) != 1 or logs[0]["g"] != row["reader_goid"]:
    errs.append(f"want one '{t}' log on g{row['reader_goid']}, have {logs} (all: {sorted(sysc['logs'])})")
log = logs[0] if logs else {}
sleep = log.get("off-CPU sleep", 0)
cause = next((c for c in rep["kernel"]["totals"] if c["type"] == t), {})
rbytes = sum(grp.get("syscall_bytes", {}).get("read", {}).get("bytes", 0) for grp in rep["kernel"]["groups"])
print(f"read pipe {'region' if mode == 'region' else 'log'} {ours/1e6:.1f} ms on g{row['reader_goid']}, "
      f"the target timed the read at {ref/1e6:.1f} ms (written 300 ms late); its log: off-CPU sleep {sleep/1e6:.1f} ms, "
      f"{log.get('bytes', '?')} bytes, "
      + ", ".join(f"{k} {v/1e6:.3f} ms" for k, v in log.items() if k not in ("off-CPU sleep", "bytes", "g", "total"))
      + f"; report: {cause.get('total_ns', 0)/1e6:.1f} ms, read {rbytes} bytes")
if abs(ours - ref) > 0.10 * ref or ours < 300e6:
    errs.append(f"syscall {ours/1e6:.1f} ms vs read {ref/1e6:.1f} ms (> 10%, or under the 300 ms delay)")
if sleep < 0.9 * 300e6:
    errs.append(f"off-CPU sleep {sleep/1e6:.1f} ms < 90% of the delay")
if log.get("bytes") != row["bytes"]:
    errs.append(f"log bytes {log.get('bytes')}, the read returned {row['bytes']}")
if abs(cause.get("total_ns", 0) - ref) > 0.10 * ref:
    errs.append(f"report: {t} {cause.get('total_ns', 0)/1e6:.1f} ms vs read {ref/1e6:.1f} ms")
if rbytes != row["bytes"]:
    errs.append(f"report: read bytes {rbytes}, want {row['bytes']}")
if errs:
    print("MISSED: " + "; ".join(errs))
    sys.exit(1)
PY
  return 0
}
# pipe_case NAME MODE: pipe_once with its retry, and the verdict.
pipe_case() {
  local name=$1 mode=$2 okvar=${1//-/_}_ok
  pipe_missed() { ((${!okvar} == 0)) && [[ -s $OUT/$name.check ]]; }
  pipe_keep() {
    for f in trace out sums check report sys; do [[ -f $OUT/$name.$f ]] && mv "$OUT/$name.$f" "$OUT/$name.first.$f"; done
    return 0
  }
  run_twice_on_fail pipe_missed pipe_keep "RETRY $SUITE $name: the first run missed (its figures: $OUT/$name.first.check)" -- pipe_once "$name" "$mode"
  if ((${!okvar})); then
    echo "PASS $SUITE $name: $(head -n1 "$OUT/$name.check")"
  else
    echo "FAIL $SUITE $name: $(cat "$OUT/$name.check" 2>/dev/null | tr '\n' ' ')"
    fail=1
  fi
  [[ -f $OUT/$name.report ]] && sed 's/^/    /' "$OUT/$name.report"
  if [[ $mode == region && -f $OUT/$name.report.json ]] && ! msg=$(agree "$name"); then
    echo "FAIL $SUITE $name: $msg"
    fail=1
  fi
  return 0
}
pipe_case pipe region
# Go 1.21: syscalls from uprobes, named by the kernel view's own records; in the Go 1.22
# format (regions), and in its own legacy format (logs; gotraced report reads it).
KVIEW=$OUT/kview121 REC_FLAGS="--trace-version go1.22" pipe_case pipe-go121 region
KVIEW=$OUT/kview121 pipe_case pipe-go121-legacy log

# The file lives on a disk-backed filesystem (not tmpfs, whose pages are never dropped).
DATA=${KERNEL_VIEW_DATA_DIR:-/var/tmp}/gotraced-kview-$$.data
file_once() {
  file_ok=0
  record file -workload file -file "$DATA" -mb 64 || return 0
  rm -f "$DATA"
  syscalls file >"$OUT/file.sys"
  if python3 - "$OUT/file.sys" "$OUT/file.out" "$DATA" >"$OUT/file.check" <<'PY'; then file_ok=1; fi
import json, sys
sysc = json.load(open(sys.argv[1]))
row = [json.loads(l) for l in open(sys.argv[2]) if l.startswith("{")][0]
t = "kernel: syscall pread64 " + sys.argv[3]
regs, logs = sysc["regions"].get(t, []), sysc["logs"].get(t, [])
blocked = sum(l.get("off-CPU blocked", 0) for l in logs)
total = sum(r["ns"] for r in regs)
print(f"{len(regs)} pread64 regions, {total/1e6:.1f} ms, blocked (uninterruptible) {blocked/1e6:.1f} ms in {sum(1 for l in logs if l.get('off-CPU blocked'))} of them; "
      f"the target: 64 reads in {row['read_ns']/1e6:.1f} ms, {row['slow_reads']} of them >= 1 ms, {row['read_bytes']>>20} MiB from storage")
errs = []
if row["read_bytes"] < 0.9 * row["bytes"]:
    errs.append(f"only {row['read_bytes']} of {row['bytes']} bytes came from storage: the page cache was not dropped")
if blocked <= 0:
    errs.append("no pread64 region has the thread blocked in the kernel")
if len(regs) < row["slow_reads"] - 2:
    errs.append(f"{len(regs)} regions for {row['slow_reads']} reads of >= 1 ms")
if total > 1.05 * row["read_ns"]:
    errs.append(f"regions {total/1e6:.1f} ms > the reads' {row['read_ns']/1e6:.1f} ms")
if errs:
    print("MISSED: " + "; ".join(errs))
    sys.exit(1)
PY
  return 0
}
file_missed() { ((file_ok == 0)) && [[ -s $OUT/file.check ]]; }
file_keep() {
  for f in trace out sums check report sys; do [[ -f $OUT/file.$f ]] && mv "$OUT/file.$f" "$OUT/file.first.$f"; done
  return 0
}
run_twice_on_fail file_missed file_keep "RETRY $SUITE file: the first run missed (its figures: $OUT/file.first.check)" -- file_once
rm -f "$DATA"
if ((file_ok)); then
  echo "PASS $SUITE file: $(head -n1 "$OUT/file.check")"
else
  echo "FAIL $SUITE file: $(cat "$OUT/file.check" 2>/dev/null | tr '\n' ' ')"
  fail=1
fi
[[ -f $OUT/file.report ]] && sed 's/^/    /' "$OUT/file.report"

# ---- off -------------------------------------------------------------------------------
if record off --no-kernel-view -workload preempt -seconds 0.5 -cpu "$cpu"; then
  n=$(python3 -c 'import json,sys; print(sum(json.load(open(sys.argv[1]))["counts"].values()))' "$OUT/off.sums")
  if [[ $n == 0 ]]; then
    echo "PASS $SUITE off: --no-kernel-view wrote no kernel region"
  else
    echo "FAIL $SUITE off: --no-kernel-view wrote $n kernel regions"
    fail=1
  fi
else
  fail=1
fi
exit $fail
