#!/usr/bin/env python3
"""Event-by-event comparison of two legacy-format traces of one run (Go 1.19 / 1.21).

For a go1.19 / go1.21 target the in-process reference (runtime/trace) and gotraced's
file are in the same format, so they can be compared event by event, not only class by
class (tests/suites/51-fidelity-legacy.sh). Both are read by the Go 1.21 toolchain's own
parser (`go tool trace -d` prints every parsed event: "TS Name p=P g=G off=O k=v ...").

Per goroutine, the events that are its own (GoStart, GoBlock*, GoSched, GoSysCall,
GoEnd ...) or name it (GoCreate, GoUnblock, GoSysExit of it) form a sequence of event
names; the reference's sequence within its window (it starts at trace.Start and ends at
trace.Stop) is matched in order (align(): linear, resynchronising after a difference) against ours over the same stretch of time
(ours shifted by the difference of the first goroutine creation both saw). The figure is
matched / reference events; per event name, the counts on both sides.

usage: legacy_events.py [--go GO] [--min F] [--json] REF OURS
exit 0: figure >= --min (default 0.95); 1: below; 2: a file does not parse.
"""
import argparse
import collections
import json
import subprocess
import sys

# Events about a goroutine other than the one running (the first "g=" after off=).
TARGETED = {"GoCreate", "GoUnblock", "GoSysExit", "GoWaiting", "GoInSyscall"}
# Events that are not about goroutines at all.
NOT_G = {"ProcStart", "ProcStop", "Gomaxprocs", "HeapAlloc", "HeapGoal", "GCStart", "GCDone",
         "STWStart", "STWDone", "GCSTWStart", "GCSTWDone", "GCSweepStart", "GCSweepDone",
         "CPUSample", "TimerGoroutine", "Frequency"}
# Compared as one global sequence (their order matters, not their goroutine).
GLOBAL = ("GCStart", "GCDone", "STWStart", "STWDone", "GCSTWStart", "GCSTWDone")


def parse(go, path):
    out = subprocess.run([go, "tool", "trace", "-d", path], capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit("legacy_events: %s: %s" % (path, out.stderr.strip().splitlines()[-1:]))
    events = []
    start_trace_stw = False
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) < 5 or not parts[0].isdigit():
            continue
        ts, name = int(parts[0]), parts[1]
        # The in-process tracer's own start (runtime.StartTrace's stopTheWorld, "start
        # trace") happens before its trace begins, so only ours can have it: whether it
        # falls inside the compared window depends on the run's timing (go1.21 gc: 2 of
        # 3 runs, GC/STW sequence 2/3 matched). Left out, with its STWDone.
        if name == "STWStart" and " kind=start trace" in line:
            start_trace_stw = True
            continue
        if name == "STWDone" and start_trace_stw:
            start_trace_stw = False
            continue
        # gotraced's kernel view (docs/kernel-view.md): regions and logs no in-process
        # trace has ("name=kernel: ...", "category=kernel: ..."), left out of both sides.
        if name in ("UserRegion", "UserLog") and (" name=kernel: " in line or " category=kernel: " in line):
            continue
        g = int(parts[3][2:]) if parts[3].startswith("g=") else 0
        args = [p for p in parts[5:] if "=" in p]
        target = None
        if name in TARGETED and args and args[0].startswith("g="):
            target = int(args[0][2:])
        events.append((ts, name, g, target))
    return events


def sequences(events, lo, hi):
    per_g = collections.defaultdict(list)
    glob = []
    for ts, name, g, target in events:
        if ts < lo or ts > hi:
            continue
        if name in GLOBAL:
            glob.append(name)
        if name in NOT_G:
            continue
        who = target if target is not None else g
        if who:
            per_g[who].append(name)
    return per_g, glob


def align(a, b, window=16):
    """Indexes into a of the events matched in order by b: equal heads match; after a
    difference the nearer resynchronisation within `window` events on either side wins
    (an event one side has and the other lacks), else both are skipped. Linear, where
    difflib is quadratic on the 60,000-event goroutines of a ping-pong."""
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            yield i
            i += 1
            j += 1
            continue
        skip_b = next((k for k in range(1, window) if j + k < len(b) and b[j + k] == a[i]), None)
        skip_a = next((k for k in range(1, window) if i + k < len(a) and a[i + k] == b[j]), None)
        if skip_b is not None and (skip_a is None or skip_b <= skip_a):
            j += skip_b
        elif skip_a is not None:
            i += skip_a
        else:
            i += 1
            j += 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--go", default="/usr/lib/go-1.21/bin/go")
    ap.add_argument("--min", type=float, default=0.95)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("ref")
    ap.add_argument("ours")
    a = ap.parse_args()
    ref, ours = parse(a.go, a.ref), parse(a.go, a.ours)
    if not ref or not ours:
        print("legacy_events: an empty trace", file=sys.stderr)
        return 2
    # Align the clocks on the first goroutine created in the reference window that ours
    # created too (both parsers give times relative to their own first event).
    ref_create = {t: ts for ts, n, g, t in ref if n == "GoCreate" and t}
    ours_create = {t: ts for ts, n, g, t in ours if n == "GoCreate" and t}
    first_gomaxprocs = next((ts for ts, n, g, t in ref if n == "Gomaxprocs"), 0)
    common = sorted((ts, g) for g, ts in ref_create.items() if g in ours_create and ts > first_gomaxprocs)
    if not common:
        print("legacy_events: no goroutine created in the reference window is in ours", file=sys.stderr)
        return 1
    shift = ours_create[common[0][1]] - common[0][0]
    lo, hi = first_gomaxprocs, ref[-1][0]
    ref_g, ref_glob = sequences(ref, lo, hi)
    ours_g, ours_glob = sequences(ours, lo + shift, hi + shift)
    matched = total = 0
    per_name = collections.defaultdict(lambda: [0, 0, 0])  # ref, ours, matched
    worst = []
    for g, rs in ref_g.items():
        os_ = ours_g.get(g, [])
        m = 0
        for a_i in align(rs, os_):
            m += 1
            per_name[rs[a_i]][2] += 1
        for n in rs:
            per_name[n][0] += 1
        for n in os_:
            per_name[n][1] += 1
        matched += m
        total += len(rs)
        if m < len(rs):
            worst.append((len(rs) - m, g, len(rs), len(os_)))
    gmatched = sum(1 for _ in align(ref_glob, ours_glob))
    figure = matched / total if total else 1.0
    gfigure = gmatched / len(ref_glob) if ref_glob else 1.0
    res = {
        "goroutines": len(ref_g),
        "ref_events": total,
        "matched": matched,
        "figure": figure,
        "gc_stw_ref": len(ref_glob),
        "gc_stw_matched": gmatched,
        "gc_stw_figure": gfigure,
        "per_event": {n: {"ref": v[0], "ours": v[1], "matched": v[2]} for n, v in sorted(per_name.items())},
        "worst_goroutines": [{"g": g, "missing": d, "ref": r, "ours": o} for d, g, r, o in sorted(worst, reverse=True)[:5]],
        "pass": figure >= a.min and gfigure >= a.min,
    }
    if a.json:
        print(json.dumps(res))
    else:
        print("event by event: %d of %d reference events of %d goroutines matched in order (%.2f%%); "
              "GC/STW sequence %d of %d" % (matched, total, len(ref_g), 100 * figure, gmatched, len(ref_glob)))
        for n, v in sorted(per_name.items()):
            print("  %-18s ref %7d  ours %7d  matched %7d" % (n, v[0], v[1], v[2]))
        for w in res["worst_goroutines"]:
            print("  goroutine %(g)d: %(missing)d of %(ref)d reference events unmatched (ours has %(ours)d)" % w)
    return 0 if res["pass"] else 1


if __name__ == "__main__":
    sys.exit(main())
