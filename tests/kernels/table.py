#!/usr/bin/env python3
"""Prints the kernel matrix's one table (kernel x check) and, under it, why each failed
cell failed, every guest's first oops, and the selftest's per-program figures (one
program x kernel table from `selftest --json`, else the plain selftest's output).

    table.py WORKDIR LINE...

For each LINE it reads the fetch result (WORKDIR/lines/LINE.env or LINE.err, written
there by fetch-kernels.sh --out) and the guest's WORKDIR/logs/LINE/result.json (judge_guest.py).
Exit status 0 when every cell of every row is ok, 1 otherwise.
"""
import json
import os
import shlex
import sys

CHECKS = ["boot", "selftest", "launch", "attach", "parse launch", "parse attach", "go1.24/1.25", "low", "preempt",
          "no-oops"]


def read_env(path):
    env = {}
    with open(path) as f:
        for tok in shlex.split(f.read()):
            k, _, v = tok.partition("=")
            env[k] = v
    return env


def program_table(guests):
    """One table from the guests' `selftest --json` reports: a row per program, a column
    per kernel, each cell "INSNS insns STACK B MS ms" (processed instructions, combined
    stack of the deepest call chain, "?" when the kernel reported no stack depths, and
    verification time) or why the program did not load."""
    cols = [(g["_line"], g["selftest_json"]) for g in guests if g.get("selftest_json")]
    if not cols:
        return []
    names = []
    for _, rep in cols:
        for p in rep.get("programs", []):
            key = f"{p.get('object', '?')}/{p.get('name', '?')}"
            if key not in names:
                names.append(key)
    rows = [["program"] + [line for line, _ in cols]]
    for key in names:
        row = [key]
        for _, rep in cols:
            p = next((p for p in rep.get("programs", [])
                      if f"{p.get('object', '?')}/{p.get('name', '?')}" == key), None)
            if p is None:
                row.append("-")
            elif p.get("loaded"):
                # No stack depths in the verifier's stats: the stack is unknown, not 0.
                stack = p.get("combined_stack", "?") if p.get("stack_depths") else "?"
                row.append(f"{p.get('processed_insns', '?')} insns {stack} B "
                           f"{p.get('verification_usec', 0) / 1000:.0f} ms")
            else:
                row.append(f"REFUSED {p.get('error') or p.get('errno')}"[:60])
        rows.append(row)
    rows.append(["(exit, problem)"] + [f"{rep.get('exit')} {rep.get('problem', '')}"[:60]
                                        for _, rep in cols])
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w[i]) for i, c in enumerate(r)) for r in rows]


def main():
    work, lines = sys.argv[1], sys.argv[2:]
    rows, notes, all_ok = [], [], True
    for line in lines:
        envp = os.path.join(work, "lines", line + ".env")
        errp = os.path.join(work, "lines", line + ".err")
        resp = os.path.join(work, "logs", line, "result.json")
        if not os.path.exists(envp):
            why = open(errp).read().strip() if os.path.exists(errp) else "no fetch result"
            rows.append([line, "(not fetched)", "?"] + ["FAIL"] + ["-"] * (len(CHECKS) - 1))
            notes.append(f"{line}: kernel NOT FETCHED: {why}")
            all_ok = False
            continue
        env = read_env(envp)
        kernel = f"{env.get('IMAGE', env.get('PKG'))} {env.get('VERSION')} ({env.get('SUITE')})"
        if not os.path.exists(resp):
            rows.append([line, kernel, "?"] + ["FAIL"] + ["-"] * (len(CHECKS) - 1))
            notes.append(f"{line}: the guest was not judged (no {resp})")
            all_ok = False
            continue
        r = json.load(open(resp))
        cells = r["cells"]
        rows.append([line, f"{kernel} / {r['uname']}", r["preempt"]] +
                    [cells.get(c, {"text": "?"})["text"] for c in CHECKS])
        for c in CHECKS:
            cl = cells.get(c)
            if not cl or not cl["ok"]:
                all_ok = False
                notes.append(f"{line} {c}: {cl['why'] if cl else 'not judged'}")
            elif cl.get("detail"):
                notes.append(f"{line} {c}: ok: {cl['detail']}")
        r["_line"] = line
        rows[-1].append(r)

    head = ["line", "kernel (package version suite / uname -r)", "preempt"] + CHECKS
    table = [head] + [r[:len(head)] for r in rows]
    w = [max(len(str(r[i])) for r in table) for i in range(len(head))]
    sep = "+".join("-" * (x + 2) for x in w)
    print("kernel matrix (each kernel in its default preemption mode):")
    for i, r in enumerate(table):
        print("|".join(f" {str(c).ljust(w[j])} " for j, c in enumerate(r)))
        if i == 0:
            print(sep)
    if notes:
        print("\ndetails:")
        for n in notes:
            print("  " + n)
    for row in rows:
        r = row[-1] if isinstance(row[-1], dict) else None
        if not r:
            continue
        if r.get("oops_block"):
            print(f"\n{r['_line']} ({r['uname']}): first oops on the guest's console:")
            for l in r["oops_block"]:
                print("  " + l)
    guests = [row[-1] for row in rows if isinstance(row[-1], dict)]
    table = program_table(guests)
    if table:
        print("\ngotraced selftest --json per program (processed insns, combined stack, verification"
              " time in the TCG guest):")
        for l in table:
            print("  " + l)
    for r in guests:
        if r.get("selftest", "").strip() and not r.get("selftest_json"):
            print(f"\n{r['_line']} ({r['uname']}): gotraced selftest:")
            for l in r["selftest"].strip().split("\n")[:40]:
                print("  " + l)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
