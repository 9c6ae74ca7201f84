#!/usr/bin/env python3
"""`gotraced inspect --json` and `--addr2line --json` on one cell of the gobin matrix
(tests/suites/30-gobin-matrix.sh), judged by what the program said from inside itself
(callers.json: runtime.Version(), runtime.CallersFrames).

usage: inspect_json_check.py GOTRACED CELL_DIR FLAVOUR
Prints one line; exit 1 with the reason on the first difference."""
import json
import subprocess
import sys

FRAME_KEYS = ["function", "file", "line", "pc", "entry", "inlined"]


def run(*args):
    out = subprocess.run(list(args), capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        sys.exit(f"FAIL: {' '.join(args[1:3])}... exit {out.returncode}: {out.stderr.strip()[:300]}")
    return json.loads(out.stdout)


def main():
    gotraced, cell, flavour = sys.argv[1:4]
    binary = f"{cell}/callers"
    want = json.load(open(f"{cell}/callers.json"))
    got = run(gotraced, "inspect", "--json", binary)
    problems = []
    if got["go_version"] != want["go_version"]:
        problems.append(f"go_version {got['go_version']} != runtime {want['go_version']}")
    flags = got["flags"]
    expect = {"strip": {"stripped": True, "dwarf": False}, "pie": {"pie": True},
              "trimpath": {"trimpath": True}, "default": {"pie": False, "stripped": False, "dwarf": True}}
    for k, v in expect.get(flavour, {}).items():
        if flags[k] != v:
            problems.append(f"flags.{k} {flags[k]} for flavour {flavour}")
    for key in ("path", "build_id", "main_path", "settings", "pclntab", "symtab_check", "functions", "layout"):
        if key not in got:
            problems.append(f"no {key}")
    if not got["functions"] or any(set(f) < {"name", "found"} for f in got["functions"]):
        problems.append("functions: empty or without name/found")
    frames = 0
    if not flags["pie"]:  # a PIE's runtime PCs carry a load bias only --pid knows
        chains = want["chains"]
        a2l = run(gotraced, "inspect", binary, "--json", "--callers", "--addr2line", *[c["pcs"][0] for c in chains])
        for c, g in zip(chains, a2l):
            if g["pc"] != c["pcs"][0] or not g["frames"]:
                problems.append(f"chain {c['name']}: addr2line of {c['pcs'][0]}: {g}")
                continue
            mine = {k: g["frames"][0][k] for k in FRAME_KEYS}
            theirs = {k: c["frames"][0][k] for k in FRAME_KEYS}
            if mine != theirs:
                problems.append(f"chain {c['name']}: frame {mine} != runtime {theirs}")
            frames += 1
    if problems:
        sys.exit("FAIL: inspect --json: " + "; ".join(problems[:3]))
    print(f"inspect --json ok ({len(got['functions'])} runtime functions, layout "
          f"{'complete' if got['layout'].get('complete') else got['layout']}, {frames} chains' first frames as the runtime's)")


if __name__ == "__main__":
    main()
