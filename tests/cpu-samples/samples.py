#!/usr/bin/env python3
"""Summarizes the CPU samples of a trace, from `tracecheck --events-json FILE` on stdin.

Prints one JSON object: n (samples), top (most frequent leaf function, injected
asyncPreempt frames skipped), top_share,
share[FUNC] (fraction of samples with FUNC anywhere in the stack) for each FUNC given
as an argument, any_n (samples with at least one of them in the stack), with_g / with_p (fraction of samples carrying a goroutine / a P), and
ms (distinct threads). The same for the samples in the program's own code (a frame of
package main in the stack): main_n, main_share[FUNC], main_with_g. Those leave out the
runtime's own work on g0 (the scheduler waking an M, netpoll), whose amount varies with
the machine's load and which has no goroutine to attribute. Used by tests/suites/47-cpu-samples.sh.
"""
import collections
import json
import sys

funcs = sys.argv[1:]
n = 0
leaf = collections.Counter()
has = collections.Counter()
with_g = with_p = 0
main_n = main_with_g = 0
any_n = 0
main_has = collections.Counter()
ms = set()
for line in sys.stdin:
    e = json.loads(line)
    if e.get("kind") != "StackSample":
        continue
    n += 1
    stack = e.get("stack") or []
    names = [f.get("func", "") for f in stack]
    # The leaf, not counting the call the runtime injects for an async preemption
    # (runtime/preempt.go asyncPreempt): the runtime's own SIGPROF samples often land
    # there (same rule as tracecompare's cpu class, tests/tracecheck/internal/compare/cpu.go).
    own = [n for n in names if n not in ("runtime.asyncPreempt", "runtime.asyncPreempt2")]
    leaf[own[0] if own else "?"] += 1
    for f in funcs:
        if f in names:
            has[f] += 1
    any_n += any(f in names for f in funcs)
    # tracecheck prints -1 for NoGoroutine / NoProc.
    if e.get("g", -1) not in (-1, 0):
        with_g += 1
    if e.get("p", -1) != -1:
        with_p += 1
    if any(f.startswith("main.") for f in names):
        main_n += 1
        main_with_g += e.get("g", -1) not in (-1, 0)
        for f in funcs:
            if f in names:
                main_has[f] += 1
    ms.add(e.get("m"))
top, top_n = leaf.most_common(1)[0] if leaf else ("", 0)
print(json.dumps({
    "n": n,
    "top": top,
    "top_share": round(top_n / n, 3) if n else 0,
    "share": {f: round(has[f] / n, 3) if n else 0 for f in funcs},
    "any_n": any_n,
    "with_g": round(with_g / n, 3) if n else 0,
    "with_p": round(with_p / n, 3) if n else 0,
    "ms": len(ms),
    "main_n": main_n,
    "main_share": {f: round(main_has[f] / main_n, 3) if main_n else 0 for f in funcs},
    "main_with_g": round(main_with_g / main_n, 3) if main_n else 0,
}))
