#!/usr/bin/env bash
# pprof labels on the timeline (issue 34, docs/trace-contents.md "pprof labels"). The
# target (tests/labels/target) sets labels per request (pprof.Do, nested Do, goroutines
# that inherit them, SetGoroutineLabels) and writes into its own runtime/trace, as "truth"
# logs, which set each goroutine has; gotraced records it from launch, and the set it
# attributes to each running interval (the goroutine's last "gotraced: labels" log) must
# match the truth logs in that interval >= 99% (tests/labels/check_labels.py, from Go's
# own parser). Then label sets with unusual content (empty values and keys, 1 KB values,
# bytes that are not UTF-8, quotes, 100 labels) on a map version (1.21) and a slice
# version (1.26): the trace parses, each set is logged once per goroutine and cut where
# over a bound (saying so), and `gotraced report` (text and --json) reads it.
#   LABEL_VERSIONS (default: go1.19 go1.21 go1.26, and go1.24 go1.25 when installed).
# ~1 min on a loaded 2-core machine (most of it building the target per toolchain).
set -euo pipefail
ROOT=${GOTRACED_ROOT:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${GOTRACED_BUILD:-$ROOT/build}
export GOFLAGS=${GOFLAGS:--buildvcs=false}
SUITE=57-labels
GOTRACED=$BUILD/cli/gotraced
# shellcheck source=../lib/suite.sh
source "$ROOT/tests/lib/suite.sh"

need_gotraced
need_bpf
build_tools
WORK=$(mktemp -d -t gotraced-57-labels.XXXXXX)
echo "$SUITE: work dir $WORK"
if [[ -n ${LABEL_VERSIONS:-} ]]; then
  read -r -a versions <<<"$LABEL_VERSIONS"
else
  versions=(go1.19 go1.21 go1.26)
  for v in go1.24 go1.25; do
    g=$(go_for "$v") && $g version >/dev/null 2>&1 && versions+=("$v")
  done
fi
fail=0

build_target() { # VERSION -> $WORK/VERSION/labelstarget
  local g
  g=$(go_for "$1") || return 1
  mkdir -p "$WORK/$1"
  (cd "$ROOT/tests/labels/target" && $g build -o "$WORK/$1/labelstarget" .) >"$WORK/$1/build.log" 2>&1
}

record() { # VERSION NAME ARGS... -> $WORK/VERSION/NAME.{trace,log,jsonl}
  local v=$1 name=$2 dir=$WORK/$1
  shift 2
  if ! timeout -k 5 120 "$GOTRACED" --quiet --out "$dir/$name.trace" -- "$dir/labelstarget" -o "$dir/$name.ref.trace" "$@" \
    >"$dir/$name.log" 2>&1; then
    echo "FAIL $SUITE $v $name: gotraced failed: $(tail -n2 "$dir/$name.log" | tr '\n' ' ')"
    return 1
  fi
  if ! "$BUILD/tools/tracecheck" "$dir/$name.trace" --events-json >"$dir/$name.jsonl" 2>"$dir/$name.tracecheck.err"; then
    echo "FAIL $SUITE $v $name: tracecheck rejects the trace: $(head -n1 "$dir/$name.tracecheck.err")"
    return 1
  fi
  if ! "$BUILD/tools/tracecheck" "$dir/$name.ref.trace" >/dev/null 2>&1 && ! own_reader_parses "$v" "$dir/$name.ref.trace" >/dev/null; then
    echo "FAIL $SUITE $v $name: the program's own trace does not parse"
    return 1
  fi
}

for v in "${versions[@]}"; do
  t0=$SECONDS
  if ! build_target "$v"; then
    echo "FAIL $SUITE $v: target build failed: $(tail -n1 "$WORK/$v/build.log")"
    fail=1
    continue
  fi
  record "$v" requests -n 400 || { fail=1; continue; }
  truths=$(sed -n 's/^truths \([0-9]*\)$/\1/p' "$WORK/$v/requests.log")
  if out=$(python3 "$ROOT/tests/labels/check_labels.py" "$WORK/$v/requests.jsonl" "${truths:-1}" 99); then
    echo "ok $SUITE $v: $(head -n1 <<<"$out") ($((SECONDS - t0))s)"
  else
    echo "FAIL $SUITE $v: $out"
    fail=1
  fi
done

# gotraced report --by-label route (report/goroutine_table.cc): the requests' goroutines
# grouped by their route, in the text and in --json.
v=go1.26
if [[ -f $WORK/$v/requests.trace ]]; then
  dir=$WORK/$v
  if ! "$GOTRACED" report --by-label route "$dir/requests.trace" >"$dir/by-label.txt" 2>"$dir/by-label.err" ||
    ! "$GOTRACED" report --by-label route --json "$dir/requests.trace" >"$dir/by-label.json" 2>>"$dir/by-label.err"; then
    echo "FAIL $SUITE report --by-label: $(head -n1 "$dir/by-label.err")"
    fail=1
  elif out=$(python3 - "$dir/by-label.json" "$dir/by-label.txt" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
routes = {"route=/api/orders", "route=/api/users", "route=/healthz", "route=/api/orders/{id}"}
errs = []
if r.get("grouped_by") != "label route":
    errs.append(f"grouped_by {r.get('grouped_by')!r}")
sched = {g["group"]: g["dist"]["count"] for g in r["sched_latency"]["groups"]}
if not routes <= set(sched):
    errs.append(f"scheduling latency groups {sorted(sched)} lack a route")
# The target's goroutines block (time.Sleep, Gosched) inside pprof.Do: their waits count
# under the route they blocked with (the labels read at the block, model_labels.cc).
block = {g["group"]: g["dist"]["count"] for g in r["blocking"]["groups"]}
if not routes <= set(block):
    errs.append(f"blocking groups {sorted(block)} lack a route")
if "syscalls" not in r or "groups" not in r["syscalls"]:
    errs.append("no syscalls.groups in --json")
if "goroutines grouped by label route" not in text or "route=/api/orders" not in text:
    errs.append("the text does not show the grouping")
if errs:
    print("; ".join(errs))
    sys.exit(1)
print("scheduling latency per route: " + ", ".join(f"{k} {sched[k]} waits" for k in sorted(routes)) +
      "; blocking per route: " + ", ".join(f"{k} {block[k]}" for k in sorted(routes)))
PY
  ); then
    echo "ok $SUITE report --by-label route: $out"
  else
    echo "FAIL $SUITE report --by-label route: $out"
    fail=1
  fi
fi

# Unusual content: a map version and a slice version (procmem/label_set.h).
for v in go1.21 go1.26; do
  if [[ ! -x $WORK/$v/labelstarget ]] && ! build_target "$v"; then
    echo "FAIL $SUITE $v unusual: target build failed"
    fail=1
    continue
  fi
  record "$v" unusual -unusual || { fail=1; continue; }
  dir=$WORK/$v
  if ! "$GOTRACED" report "$dir/unusual.trace" >"$dir/report.txt" 2>"$dir/report.err"; then
    echo "FAIL $SUITE $v unusual: gotraced report failed: $(head -n1 "$dir/report.err")"
    fail=1
    continue
  fi
  if ! "$GOTRACED" report --json "$dir/unusual.trace" >"$dir/report.json" 2>"$dir/report.err" ||
    ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$dir/report.json"; then
    echo "FAIL $SUITE $v unusual: gotraced report --json failed or is not JSON"
    fail=1
    continue
  fi
  if python3 - "$dir/unusual.jsonl" <<'PY'; then
import collections, json, sys
evs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
logs = [e for e in evs if e.get("kind") == "Log"]
lab = collections.Counter(e["message"] for e in logs if e.get("category") == "gotraced: labels")
own = sum(e.get("category") == "unusual" and e.get("message") == "done" for e in logs)
errs = []
def want(what, ok):
    if not ok:
        errs.append(what)
want(f"the program's 100 logs intact ({own})", own == 100)
want(f"5 sets, 20 goroutines each ({sorted(lab.values())})", sorted(lab.values()) == [20] * 5)
texts = list(lab)
def one(pred):
    return [t for t in texts if pred(t)]
want("empty value quoted", one(lambda t: t == 'empty=""'))
want("empty key quoted", one(lambda t: t == '""="empty key"'))
want("bytes that are not UTF-8 escaped", one(lambda t: t == 'bytes="\\xff\\xfe\\x00\\x01ok" quote="a \\"b\\" = c\\\\d\\n"'))
big = one(lambda t: t.startswith("big="))
want("1 KB value cut and said", big and big[0].endswith(" small=s [cut: 2 labels]") and len(big[0]) < 400)
h = one(lambda t: t.startswith("key000=0 "))
want("100 labels cut and said", h and h[0].endswith(" [cut: 100 labels]") and len(h[0]) <= 1000)
if errs:
    print("FAIL 57-labels: " + "; ".join(errs))
    sys.exit(1)
print(f"{len(texts)} unusual sets logged as expected, the program's logs intact")
PY
    echo "ok $SUITE $v unusual: report and report --json read the trace"
  else
    echo "FAIL $SUITE $v unusual (above)"
    fail=1
  fi
done
((fail == 0)) && rm -rf "$WORK"
exit $fail
