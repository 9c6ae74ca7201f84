#!/usr/bin/env python3
"""go test bench: `go test -count=1` over std packages with a warm build cache, in one
run, interleaved rep by rep (median wall time of --reps):
  all packages in one go test:   plain  vs  -exec 'gotraced --quiet --out-dir D --'
  one go test per package:       plain  vs  -trace FILE (in-process; go test refuses
                                 -trace with several packages)  vs  -exec gotraced
Every trace gotraced or -trace wrote is checked with tracecheck (one per package expected);
a package with a failing test (bench/gotest/failing) is run plain and under -exec gotraced:
both must exit 1 and print its FAIL, and its trace must parse. Called by
scripts/bench-gotest.sh.
"""
import argparse
import atexit
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import benchutil as bu  # noqa: E402

PKGS = ["strings", "bytes", "sort", "container/list", "unicode/utf8", "math/bits", "encoding/hex", "path", "errors"]


def go_test(args, cwd=None):
    t0 = time.monotonic()
    r = subprocess.run(["go", "test", "-count=1"] + args, capture_output=True, text=True, cwd=cwd)
    return time.monotonic() - t0, r


def check_traces(tracecheck, d, want, what, failed):
    files = sorted(glob.glob(os.path.join(d, "*.trace")))
    if len(files) < want:
        failed.append("%s: %d traces in %s, %d expected" % (what, len(files), d, want))
    for f in files:
        if bu.tracecheck_events(tracecheck, f) is None:
            failed.append("%s: %s does not parse (tracecheck)" % (what, f))
    return len(files)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gotraced", required=True)
    ap.add_argument("--tracecheck", required=True)
    ap.add_argument("--failing", required=True, help="the failing package's directory")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--pkgs", default=",".join(PKGS))
    a = ap.parse_args()
    pkgs = a.pkgs.split(",")
    work = tempfile.mkdtemp(prefix="bench-gotest-")
    atexit.register(shutil.rmtree, work, True)  # each run left its (emptied) dir in /tmp
    failed = []
    exec_flag = lambda d: "-exec=%s --quiet --out-dir %s --" % (a.gotraced, d)  # noqa: E731

    _, r = go_test(pkgs)  # warms the build cache (and shows the packages pass)
    if r.returncode != 0:
        raise SystemExit("go test %s fails without gotraced:\n%s" % (" ".join(pkgs), r.stdout + r.stderr))
    t = {k: [] for k in ("all plain", "all gotraced", "each plain", "each -trace", "each gotraced")}
    for rep in range(a.reps):
        d = os.path.join(work, "all-%d" % rep)
        wall, r = go_test(pkgs)
        t["all plain"].append(wall)
        wall, r = go_test([exec_flag(d)] + pkgs)
        t["all gotraced"].append(wall)
        if r.returncode != 0:
            failed.append("go test -exec gotraced exited %d: %s" % (r.returncode, (r.stdout + r.stderr)[-600:]))
        check_traces(a.tracecheck, d, len(pkgs), "all packages, -exec gotraced", failed)
        shutil.rmtree(d, ignore_errors=True)
        for mode in ("each plain", "each -trace", "each gotraced"):
            d = os.path.join(work, "%s-%d" % (mode.replace(" ", "-"), rep))
            os.makedirs(d, exist_ok=True)
            total = 0.0
            for p in pkgs:
                extra = []
                if mode == "each -trace":
                    extra = ["-trace=%s/%s.trace" % (d, p.replace("/", "_"))]
                elif mode == "each gotraced":
                    extra = [exec_flag(d)]
                wall, r = go_test(extra + [p])
                total += wall
                if r.returncode != 0:
                    failed.append("go test %s %s exited %d" % (" ".join(extra), p, r.returncode))
            t[mode].append(total)
            if mode != "each plain":
                check_traces(a.tracecheck, d, len(pkgs), mode, failed)
            shutil.rmtree(d, ignore_errors=True)

    # Exit codes: a failing test fails the same way through gotraced.
    d = os.path.join(work, "failing")
    _, plain = go_test(["."], cwd=a.failing)
    _, traced = go_test([exec_flag(d), "."], cwd=a.failing)
    exit_note = "failing package: plain exit %d, -exec gotraced exit %d" % (plain.returncode, traced.returncode)
    if plain.returncode != 1 or traced.returncode != 1 or "--- FAIL: TestFailsOnPurpose" not in traced.stdout:
        failed.append(exit_note + ("" if "--- FAIL" in traced.stdout else " (no --- FAIL line)"))
    n = check_traces(a.tracecheck, d, 1, "failing package, -exec gotraced", failed)
    exit_note += ", %d trace parsed" % n

    med = {k: bu.median(v) for k, v in t.items()}
    rows = [
        ["all in one go test: plain", "%.2f" % med["all plain"], "1.00x", "-"],
        ["all in one go test: -exec gotraced", "%.2f" % med["all gotraced"], bu.ratio(med["all gotraced"], med["all plain"]), "-"],
        ["one go test per package: plain", "%.2f" % med["each plain"], "1.00x", "-"],
        ["one go test per package: -trace", "%.2f" % med["each -trace"], bu.ratio(med["each -trace"], med["each plain"]), "1.00x"],
        ["one go test per package: -exec gotraced", "%.2f" % med["each gotraced"],
         bu.ratio(med["each gotraced"], med["each plain"]), bu.ratio(med["each gotraced"], med["each -trace"])],
    ]
    bu.print_table("go test -count=1, %d packages (%s), warm build cache, median of %d" % (len(pkgs), " ".join(pkgs), a.reps),
                   ["run", "wall s", "x plain", "x -trace"], rows)
    print("  " + exit_note)
    if failed:
        print("FAIL: " + "; ".join(failed[:6]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
