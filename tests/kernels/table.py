#!/usr/bin/env python3
"""Prints the kernel matrix's one table (kernel x check) and, under it, why each failed
cell failed, every guest's oops, and the selftest's per-program figures.

    table.py WORKDIR LINE...

For each LINE it reads the fetch result (WORKDIR/lines/LINE.env or LINE.err, copied
there by run-matrix.sh) and the guest's WORKDIR/logs/LINE/result.json (judge_guest.py).
Exit status 0 when every cell of every row is ok, 1 otherwise.
"""
import json
import os
import shlex
import sys

CHECKS = ["boot", "selftest", "launch", "attach", "parse launch", "parse attach", "no-oops"]


def read_env(path):
    env = {}
    with open(path) as f:
        for tok in shlex.split(f.read()):
            k, _, v = tok.partition("=")
            env[k] = v
    return env


def selftest_lines(text, limit=40):
    """The selftest's output for the report: a per-program table from --json when the
    output is JSON with a list of programs, else its lines as they are."""
    text = text.strip()
    try:
        d = json.loads(text)
    except ValueError:
        return text.split("\n")[:limit]
    progs = d.get("programs") if isinstance(d, dict) else d
    if not isinstance(progs, list) or not all(isinstance(p, dict) for p in progs):
        return json.dumps(d, indent=1).split("\n")[:limit]
    keys = []
    for p in progs:
        for k in p:
            if k not in keys and not isinstance(p[k], (dict, list)):
                keys.append(k)
    rows = [keys] + [[str(p.get(k, "")) for k in keys] for p in progs]
    w = [max(len(r[i]) for r in rows) for i in range(len(keys))]
    out = ["  ".join(c.ljust(w[i]) for i, c in enumerate(r)) for r in rows]
    rest = {k: v for k, v in d.items() if k != "programs"} if isinstance(d, dict) else {}
    if rest:
        out.append(json.dumps(rest)[:400])
    return out[:limit]


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
    for row in rows:
        r = row[-1] if isinstance(row[-1], dict) else None
        if r and r.get("selftest", "").strip():
            print(f"\n{r['_line']} ({r['uname']}): gotraced selftest {r.get('selftest_args', '')}:")
            for l in selftest_lines(r["selftest"]):
                print("  " + l)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
