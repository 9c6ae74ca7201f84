#!/usr/bin/env python3
"""Compares `gotraced report --json` with the runtime's own metrics of the same window
(tests/report/target: its -out file), for tests/suites/56-report.sh.

    check_metrics.py METRICS.json REPORT.json LABEL SOURCE   (SOURCE: runtime or gotraced)

Prints one line per figure (runtime, report, tolerance) and exits 1 if one is out of its
tolerance. The tolerances, and why:
- GC cycles: the report's completed GCBegin..GCEnd cycles equal the runtime's
  /gc/cycles/total delta, +-2 (a background cycle may straddle an edge of the window).
- GC stop-the-world pauses: 2 per cycle (sweep and mark termination: runtime/mgc.go);
  the count +-4, the total within the histogram's bucket bounds of
  /sched/pauses/total/gc:seconds (/gc/pauses:seconds before 1.22) widened by x0.5..x2
  plus 0.5 ms on runtime/trace's traces: STWStart is written in stopTheWorldWithSema
  before it takes sched.lock, where the runtime's clock starts after it
  (runtime/proc.go). On gotraced's traces the span is shorter than the runtime's: its
  STWEnd probe is startTheWorldWithSema's entry (docs/probe-plan.md 3.9), the runtime
  writes STWDone and stops its clock after the restart (procresize, waking the Ms),
  which under uprobes is most of a pause: there the report's total must be at least 15%
  of the bucket bounds' low end and at most 2x their high end (measured: 30-35%).
- Mutex wait: /sync/mutex/wait/total is sampled (runtime/proc.go: one goroutine
  transition in gTrackingPeriod = 8 is timed, then scaled by 8): +-50%, and it counts
  runtime-internal lock waits since 1.22. Not in Go 1.19 (the metric is 1.20+).
- Scheduling latency: /sched/latencies is sampled the same way: the report's p99 within
  x0.33..x3 of the histogram's p99 bucket bounds, and its max >= the runtime's highest
  non-empty bucket's lower bound / 2 (the report sees every wait, the runtime 1 in 8).
- Goroutines: the report's growth (the runtime's own goroutines left out, as
  /sched/goroutines does) within 5% + 10 of the metric's delta.
"""
import json
import sys

m, r, label, source = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4]
before, after = m["before"], m["after"]
met = r["metrics"]
bad, lines = [], []


def hist_delta(name):
    if name not in after:
        return None
    a, b = after[name], before[name]
    return [x - y for x, y in zip(a["counts"], b["counts"])], a["buckets"]


def hist_quantile_bounds(counts, buckets, q):
    n = sum(counts)
    if n == 0:
        return None
    rank, seen = q * n, 0
    for i, c in enumerate(counts):
        seen += c
        if seen >= rank:
            return buckets[i], buckets[i + 1]
    return buckets[-2], buckets[-1]


def check(name, ok, runtime, report, tol):
    lines.append(f"  {'ok  ' if ok else 'BAD '} {name:<22} runtime {runtime:<28} report {report:<22} ({tol})")
    if not ok:
        bad.append(name)


ms = lambda s: f"{s * 1e3:.2f} ms"

# GC cycles
if "/gc/cycles/total:gc-cycles" in after:
    d = after["/gc/cycles/total:gc-cycles"] - before["/gc/cycles/total:gc-cycles"]
    check("gc_cycles", abs(met["gc_cycles"] - d) <= 2, d, met["gc_cycles"], "+-2")

# GC pauses
pname = "/sched/pauses/total/gc:seconds" if "/sched/pauses/total/gc:seconds" in after else "/gc/pauses:seconds"
hd = hist_delta(pname)
if hd:
    counts, buckets = hd
    n = sum(counts)
    lo = sum(c * max(buckets[i], 0) for i, c in enumerate(counts))
    hi = sum(c * min(buckets[i + 1], 1) for i, c in enumerate(counts))
    check("gc_pause_count", abs(met["gc_pause_count"] - n) <= 4, n, met["gc_pause_count"], "+-4")
    tot = met["gc_pause_total"] / 1e9
    low = 0.15 if source == "gotraced" else 0.5
    check("gc_pause_total", lo * low - 0.0005 <= tot <= hi * 2 + 0.0005, f"{ms(lo)}..{ms(hi)}", ms(tot),
          f"bucket bounds x{low}..x2 +-0.5 ms")

# Mutex wait
if "/sync/mutex/wait/total:seconds" in after:
    d = after["/sync/mutex/wait/total:seconds"] - before["/sync/mutex/wait/total:seconds"]
    got = (met.get("block_mutex_total", 0) + met.get("block_RWMutex_total", 0)) / 1e9
    check("mutex_wait", abs(got - d) <= 0.5 * d + 0.002, ms(d), ms(got), "+-50% +-2 ms")
else:
    lines.append("  --   mutex_wait             not in this Go's runtime/metrics (1.20+)")

# Scheduling latency
hd = hist_delta("/sched/latencies:seconds")
if hd:
    counts, buckets = hd
    b = hist_quantile_bounds(counts, buckets, 0.99)
    p99 = met["sched_latency_p99"] / 1e9
    check("sched_latency_p99", b is not None and b[0] / 3 <= p99 <= max(b[1], 1e-6) * 3,
          f"{ms(b[0])}..{ms(b[1])}" if b else "none", ms(p99), "bucket x0.33..x3")
    top = max((i for i, c in enumerate(counts) if c > 0), default=None)
    mx = met["sched_latency_max"] / 1e9
    check("sched_latency_max", top is not None and mx >= buckets[top] / 2, f">= {ms(buckets[top])}" if top is not None else "none",
          ms(mx), "report >= runtime's top bucket / 2")

# Goroutines
if "/sched/goroutines:goroutines" in after:
    d = after["/sched/goroutines:goroutines"] - before["/sched/goroutines:goroutines"]
    g = met["goroutine_growth"]
    check("goroutine_growth", abs(g - d) <= 0.05 * abs(d) + 10, d, g, "5% +-10")

print(f"{label}: {'PASS' if not bad else 'FAIL ' + ', '.join(bad)}")
print("\n".join(lines))
sys.exit(1 if bad else 0)
