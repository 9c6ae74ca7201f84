#!/usr/bin/env python3
"""Sums the kernel view's regions of a trace as Go's own parser sees them.

Input: tracecheck --events-json output (golang.org/x/exp/trace events, one JSON per
line). Output (stdout, JSON): {"by_g": {g: {type: total_ns}}, "totals": {type: total_ns},
"counts": {type: n}, "unclosed": n}. Regions are matched per goroutine, innermost
first (internal/trace/order.go gState.endRegion).
"""
import collections
import json
import sys

PREFIX = "kernel: "
by_g = collections.defaultdict(lambda: collections.defaultdict(int))
totals = collections.defaultdict(int)
counts = collections.defaultdict(int)
stack = collections.defaultdict(list)
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    e = json.loads(line)
    k = e.get("kind")
    if k not in ("RegionBegin", "RegionEnd"):
        continue
    t = e.get("type", "")
    if not t.startswith(PREFIX):
        continue
    g = e["g"]
    if k == "RegionBegin":
        stack[g].append((t, e["time"]))
        counts[t] += 1
        continue
    s = stack[g]
    for i in range(len(s) - 1, -1, -1):
        if s[i][0] == t:
            d = e["time"] - s[i][1]
            by_g[g][t] += d
            totals[t] += d
            del s[i]
            break
print(json.dumps({"by_g": by_g, "totals": totals, "counts": counts,
                  "unclosed": sum(len(s) for s in stack.values())}))
