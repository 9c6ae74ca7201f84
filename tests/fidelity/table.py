#!/usr/bin/env python3
"""Prints the fidelity table from the JSON lines 50-fidelity.sh writes, one per run:
{"version", "workload", "error" (why the run could not be compared, or ""),
 "ref_events", "ours_events", "compare" (tracecompare --json output, or null)}.
Exit 1 if any run failed or any checked row is out of its threshold."""
import json
import sys

# The classes the issue puts thresholds on, in tracecompare's row names, with a short
# column title.
CLASSES = [
    ("goroutines created", "created"),
    ("blocks (per reason)", "blocks"),
    ("blocks paired, same reason", "same reason"),
    ("unblocks", "unblocks"),
    ("syscalls (per goroutine)", "syscalls"),
    ("stacks (paired events)", "stacks"),
]


def cell(row):
    if row is None:
        return "-"
    n = row.get("ref", 0)
    if row["kind"] == "diff":
        fig = "d%.2f%%" % (100 * row["figure"])
    else:
        fig = "%.2f%%" % (100 * row["figure"])
    mark = "" if not row.get("checked") or row.get("pass") else "!"
    return "%s%s/%d" % (mark, fig, n)


def main(path):
    runs = [json.loads(l) for l in open(path) if l.strip()]
    head = ["version", "workload"] + [t for _, t in CLASSES] + ["result"]
    lines = []
    failed = 0
    notes = []
    for r in runs:
        cmp_ = r.get("compare")
        cells = []
        rows = {row["class"]: row for row in (cmp_ or {}).get("rows", [])}
        for cls, _ in CLASSES:
            cells.append(cell(rows.get(cls)) if cmp_ else "-")
        ok = not r.get("error") and cmp_ is not None and cmp_.get("pass", False)
        if not ok:
            failed += 1
            why = r.get("error") or "; ".join((cmp_ or {}).get("failures", [])[:4])
            notes.append("%s %s: %s" % (r["version"], r["workload"], why))
        lines.append([r["version"], r["workload"]] + cells + ["pass" if ok else "FAIL"])
    widths = [max(len(str(x[i])) for x in [head] + lines) for i in range(len(head))]
    fmt = "  ".join("%%-%ds" % w for w in widths)
    print("fidelity: ref = the program's own runtime/trace, ours = gotraced, same run")
    print("cells: figure/ref count; dX% = count difference (limit 2%), X% = matched share")
    print("(created 100%, same reason 98%, stacks 95%); ! = out of its threshold")
    print(fmt % tuple(head))
    for l in lines:
        print(fmt % tuple(l))
    for n in notes:
        print("  FAIL " + n)
    print("fidelity: %d runs, %d passed, %d failed" % (len(runs), len(runs) - failed, failed))
    return 1 if failed or not runs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
