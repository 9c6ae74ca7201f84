#!/usr/bin/env python3
"""The labels gotraced attributes to each goroutine's running intervals, against the truth
the program wrote (tests/labels/target): for every "truth" log on goroutine G, the set of
G's last "gotraced: labels" log before it ("" when none). Both come from gotraced's trace
(its user-annotation capture carries the program's own logs), read by Go's parser
(tracecheck --events-json).

  check_labels.py EVENTS.jsonl TRUTHS MIN_PERCENT   -> exit 1 below MIN_PERCENT, or when
                                                      fewer truth logs than the program wrote
"""
import json
import sys

path, want_truths, min_pct = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
current = {}  # goroutine -> its last labels log's text
n = match = 0
misses = []
labels_logs = 0
for line in open(path):
    if not line.strip():
        continue
    e = json.loads(line)
    if e.get("kind") != "Log":
        continue
    g, cat, msg = e.get("g"), e.get("category", ""), e.get("message", "")
    if cat == "gotraced: labels":
        current[g] = msg
        labels_logs += 1
    elif cat == "truth":
        n += 1
        got = current.get(g, "")
        if got == msg:
            match += 1
        elif len(misses) < 5:
            misses.append(f"g{g} at {e.get('time')}: truth {msg!r}, gotraced {got!r}")
pct = 100.0 * match / n if n else 0.0
print(f"{match}/{n} truth logs match ({pct:.2f}%), {labels_logs} labels logs, program wrote {want_truths}")
for m in misses:
    print("  miss: " + m)
ok = n >= want_truths and pct >= min_pct
sys.exit(0 if ok else 1)
