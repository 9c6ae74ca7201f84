#!/usr/bin/env bash
# User annotations of a program that does NOT trace itself (docs/trace-contents.md).
# The fidelity target's "annotations" workload runs without -reftrace, so package
# runtime/trace sees tracing off: NewTask, Task.End, Log and WithRegion still call the
# runtime (captured there, exact); StartRegion and Logf return early (captured at their
# own entry: StartRegion as a log "trace.StartRegion" naming the region type, Logf as a
# log with the unformatted format string); (*Region).End of a StartRegion region is lost.
# Asserts exactly that, event by event, from Go's own parser (tracecheck --events-json).
# The self-tracing case (everything exact, compared with the program's own trace) is
# suite 50's "annotations" workload.
#   USER_VERSIONS (default "go1.26 go1.22 go1.24 go1.25") narrows the toolchains.
set -euo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
export GOFLAGS=${GOFLAGS:--buildvcs=false}
SUITE=52-user-annotations
GOTRACED=$BUILD/cli/gotraced
OUT=$BUILD/user-annotations
read -r -a versions <<<"${USER_VERSIONS:-go1.26 go1.22 go1.24 go1.25}"
# shellcheck source=../lib/suite.sh
source "$ROOT/tests/lib/suite.sh"

need_gotraced
build_tools
mkdir -p "$OUT"
fail=0
for v in "${versions[@]}"; do
  dir=$OUT/$v
  rm -rf "$dir"
  mkdir -p "$dir"
  if ! bash "$ROOT/tests/fidelity/build-targets.sh" "$OUT/targets" "$v" >"$dir/build.log" 2>&1; then
    echo "FAIL 52-user-annotations $v: target build failed: $(tail -n1 "$dir/build.log")"
    fail=1
    continue
  fi
  t0=$SECONDS
  if ! timeout -k 5 60 "$GOTRACED" --quiet --out "$dir/ours.trace" -- "$OUT/targets/$v/fidelity" -workload annotations \
    >"$dir/gotraced.log" 2>&1; then
    echo "FAIL 52-user-annotations $v: gotraced failed: $(tail -n2 "$dir/gotraced.log" | tr '\n' ' ')"
    fail=1
    continue
  fi
  if ! "$BUILD/tools/tracecheck" "$dir/ours.trace" --events-json >"$dir/events.jsonl" 2>"$dir/tracecheck.err"; then
    echo "FAIL 52-user-annotations $v: tracecheck rejects the trace: $(head -n1 "$dir/tracecheck.err")"
    fail=1
    continue
  fi
  if python3 - "$dir/events.jsonl" "$v" <<'PY'; then
import collections, json, sys
path, v = sys.argv[1:3]
evs = [json.loads(l) for l in open(path) if l.strip()]
kind = lambda e: e.get("kind", "")
tasks = [e for e in evs if kind(e) == "TaskBegin"]
ends = [e for e in evs if kind(e) == "TaskEnd"]
# Not the kernel view's regions (docs/kernel-view.md: types "kernel: ...").
kernel = lambda e: e.get("type", "").startswith("kernel: ")
regions = [e for e in evs if kind(e) == "RegionBegin" and not kernel(e)]
rends = [e for e in evs if kind(e) == "RegionEnd" and not kernel(e)]
# Nor gotraced's own logs ("gotraced: target" at the start, on gotraced's goroutine).
logs = [e for e in evs if kind(e) == "Log" and not e.get("category", "").startswith(("kernel: ", "gotraced: "))]
rounds = 8  # annotations.go: 8 rounds at -scale 1
errs = []
def want(what, got, exp):
    if got != exp:
        errs.append(f"{what}: {got}, want {exp}")
types = collections.Counter(e.get("type") for e in tasks)
want("task begins", len(tasks), 3 * rounds)
want("task types", dict(types), {"request": rounds, "child": 2 * rounds})
want("task ends", len(ends), 3 * rounds)
ids = {e["task"] for e in tasks}
want("task ends of created tasks", sum(e["task"] in ids for e in ends), 3 * rounds)
parent = {e["task"]: e.get("parent", 0) for e in tasks}
reqs = {e["task"] for e in tasks if e.get("type") == "request"}
want("child tasks whose parent is a request", sum(parent[t] in reqs for t, ty in
     ((e["task"], e.get("type")) for e in tasks) if ty == "child"), 2 * rounds)
# WithRegion reaches the runtime: begins and ends, in the child task, on the child goroutine.
want("region begins (WithRegion 'work' only)", collections.Counter(e.get("type") for e in regions), {"work": 2 * rounds})
want("region ends", collections.Counter(e.get("type") for e in rends), {"work": 2 * rounds})
children = {e["task"] for e in tasks if e.get("type") == "child"}
want("regions in a child task", sum(e["task"] in children for e in regions), 2 * rounds)
creator = {e["task"]: e.get("g") for e in tasks}
want("regions on another goroutine than the task's creator", sum(e.get("g") != creator.get(e["task"]) for e in regions), 2 * rounds)
# Logs: Log exact; Logf as its format; StartRegion as a marker log.
lc = collections.Counter((e.get("category"), e.get("message")) for e in logs)
want("Log round/begin", lc[("round", "begin")], rounds)
want("Log no category", lc[("", "no category")], 2 * rounds)
want("Logf child (format)", lc[("child", "k=%d i=%d")], 2 * rounds)
want("Logf bg (format)", lc[("bg", "round %d")], rounds)
want("StartRegion inner", lc[("trace.StartRegion", "inner")], 2 * rounds)
want("StartRegion tail", lc[("trace.StartRegion", "tail")], rounds)
want("logs in all", len(logs), 9 * rounds)
want("Logf child logs in a child task (task from the context)",
     sum(e["task"] in children for e in logs if e.get("category") == "child"), 2 * rounds)
want("Logf bg logs without a task", sum(e["task"] == 0 for e in logs if e.get("category") == "bg"), rounds)
want("StartRegion 'tail' markers in a request task", sum(e["task"] in reqs for e in logs if e.get("message") == "tail"), rounds)
want("annotations with a stack", sum(bool(e.get("stack")) for e in tasks + regions + logs), len(tasks) + len(regions) + len(logs))
if errs:
    print(f"FAIL 52-user-annotations {v}: " + "; ".join(errs))
    sys.exit(1)
print(f"ok 52-user-annotations {v}: {len(tasks)} tasks, {len(ends)} task ends, {len(regions)} regions, "
      f"{len(rends)} region ends, {len(logs)} logs (program not tracing itself)")
PY
    echo "  ($((SECONDS - t0))s)"
  else
    fail=1
  fi
done

# --no-user: the same program, no annotation probe attached, no user event written.
v=${versions[0]}
dir=$OUT/$v-no-user
rm -rf "$dir"
mkdir -p "$dir"
if [[ ! -x $OUT/targets/$v/fidelity ]]; then
  echo "FAIL 52-user-annotations --no-user: no target built for $v"
  fail=1
elif ! timeout -k 5 60 "$GOTRACED" --quiet --no-user --out "$dir/ours.trace" -- "$OUT/targets/$v/fidelity" -workload annotations \
  >"$dir/gotraced.log" 2>&1; then
  echo "FAIL 52-user-annotations --no-user: gotraced failed: $(tail -n2 "$dir/gotraced.log" | tr '\n' ' ')"
  fail=1
elif ! "$BUILD/tools/tracecheck" "$dir/ours.trace" --events-json >"$dir/events.jsonl" 2>"$dir/tracecheck.err"; then
  echo "FAIL 52-user-annotations --no-user: tracecheck rejects the trace: $(head -n1 "$dir/tracecheck.err")"
  fail=1
else
  # (The kernel view's "kernel: ..." regions and logs, and gotraced's own "gotraced: ..."
  # logs, are not the program's annotations.)
  n_user=$(grep -E '"kind": ?"(TaskBegin|TaskEnd|RegionBegin|RegionEnd|Log)"' "$dir/events.jsonl" |
    grep -c -v -E '"(type|category)": ?"(kernel|gotraced): ' || true)
  n_all=$(wc -l <"$dir/events.jsonl")
  if [[ $n_user -ne 0 || $n_all -lt 100 ]]; then
    echo "FAIL 52-user-annotations --no-user: $n_user user events among $n_all (want 0 among >= 100)"
    fail=1
  else
    echo "ok 52-user-annotations --no-user $v: 0 user events among $n_all events"
  fi
fi
exit $fail
