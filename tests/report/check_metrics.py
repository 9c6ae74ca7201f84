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
  plus 0.5 ms: STWStart is written in stopTheWorldWithSema before it takes sched.lock,
  where the runtime's clock starts after it (runtime/proc.go). gotraced's STWEnd is
  startTheWorldWithSema's CALL of wakep, where the runtime writes STWDone (probe-plan.md
  3.9): the same bounds hold for both sources.
- Mutex wait: /sync/mutex/wait/total is sampled (runtime/proc.go: one goroutine
  transition in gTrackingPeriod = 8 is timed, then scaled by 8): +-50%, and it counts
  runtime-internal lock waits since 1.22. Not in Go 1.19 (the metric is 1.20+).
- Scheduling latency: /sched/latencies is sampled the same way (1 transition in 8 per
  goroutine). The report's p50, p90 and p99 are each checked two ways and pass if either
  holds: by value, within x0.33..x3 of the histogram's bucket bounds at that quantile; or
  by rank, the share of the runtime's samples above the report's value is the quantile's
  (1% for p99) within 4 binomial standard deviations of the runtime's sample count plus
  0.5%. (Values under 1 us count as 1 us: below that the two clocks differ by their
  own cost.) The rank check is what holds at a knee: this target's waits are bimodal (~1 us
  handoffs, ~1-30 ms behind the hog), the long ones are 0.2-20% of all from run to run,
  and a p99 near the knee moved 4x between two runs of the same binary while the two
  distributions agreed (56-report failed so in CI). The value check is what holds where
  the distribution is flat in rank. The max must be >= the runtime's highest non-empty
  bucket's lower bound / 2 (the report sees every wait, the runtime 1 in 8).
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
    lines.append(f"  {'ok  ' if ok else 'BAD '} {name:<22} runtime {str(runtime):<28} report {str(report):<22} ({tol})")
    if not ok:
        bad.append(name)


ms = lambda s: f"{s * 1e3:.2f} ms" if abs(s) >= 1e-4 else f"{s * 1e6:.2f} us"

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
    check("gc_pause_total", lo * 0.5 - 0.0005 <= tot <= hi * 2 + 0.0005, f"{ms(lo)}..{ms(hi)}", ms(tot),
          "bucket bounds x0.5..x2 +-0.5 ms")

# Mutex wait
if "/sync/mutex/wait/total:seconds" in after:
    d = after["/sync/mutex/wait/total:seconds"] - before["/sync/mutex/wait/total:seconds"]
    got = (met.get("block_mutex_total", 0) + met.get("block_RWMutex_total", 0)) / 1e9
    check("mutex_wait", abs(got - d) <= 0.5 * d + 0.002, ms(d), ms(got), "+-50% +-2 ms")
else:
    lines.append("  --   mutex_wait             not in this Go's runtime/metrics (1.20+)")

# Scheduling latency
def exceedance(counts, buckets, v):
    """The share of the histogram's samples above v, as bounds: the bucket holding v counts
    as wholly below for the low bound and wholly above for the high one."""
    n = sum(counts)
    surely = sum(c for i, c in enumerate(counts) if buckets[i] > v)
    maybe = sum(c for i, c in enumerate(counts) if buckets[i + 1] > v)
    return surely / n, maybe / n


hd = hist_delta("/sched/latencies:seconds")
dist = r.get("sched_latency", {}).get("all", {})
if hd:
    counts, buckets = hd
    n = sum(counts)
    for q, key in ((0.50, "p50_ns"), (0.90, "p90_ns"), (0.99, "p99_ns")):
        b = hist_quantile_bounds(counts, buckets, q)
        v = dist.get(key, met["sched_latency_p99"] if key == "p99_ns" else 0) / 1e9
        by_value = b is not None and b[0] / 3 <= v <= max(b[1], 1e-6) * 3
        tol = 4 * (q * (1 - q) / max(n, 1)) ** 0.5 + 0.005
        lo, hi = exceedance(counts, buckets, v) if n else (0, 1)
        by_rank = n > 0 and lo <= (1 - q) + tol and hi >= (1 - q) - tol
        check(f"sched_latency_p{round(q * 100)}", by_value or by_rank,
              f"{ms(b[0])}..{ms(b[1])}" if b else "none",
              f"{ms(v)} ({100 * lo:.2f}..{100 * hi:.2f}% above)",
              f"x0.33..x3, or {100 * (1 - q):.0f}% +-{100 * tol:.2f}% of {n} samples above")
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
