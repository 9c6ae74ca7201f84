#!/usr/bin/env python3
"""Start-up bench: what tracing adds to a program that exits at once (bench/startup/hello),
in one run, interleaved rep by rep (median of --reps):
  none           PROG
  runtime/trace  PROG -trace FILE                     (in-process tracer)
  gotraced       gotraced --quiet --verbose --out FILE -- PROG
Wall time of the whole command and its CPU (user + system of the command and its children,
from wait4); added wall = the mode's median minus no tracing's. gotraced's --verbose line
says where its start-up and stop went (medians per part), and "exit lag" is how long after
PROG's last instruction (its -exit-stamp, wall clock) gotraced had exited. Traces of the
first rep are checked with tracecheck. Called by scripts/bench-startup.sh.
"""
import argparse
import atexit
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import benchutil as bu  # noqa: E402

MODES = ("none", "runtime/trace", "gotraced")


def timed(cmd):
    """(wall s, CPU s of it and its children, stdout+stderr text, exit status)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_utime + ru.ru_stime, out, p.returncode


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gotraced", required=True)
    ap.add_argument("--tracecheck", required=True)
    ap.add_argument("--prog", required=True)
    ap.add_argument("--label", default="hello")
    ap.add_argument("--reps", type=int, default=10)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="bench-startup-")
    atexit.register(shutil.rmtree, work, True)  # each run left its dir in /tmp
    stamp = os.path.join(work, "stamp")
    runs = {m: [] for m in MODES}
    failed = []
    for rep in range(a.reps):
        for mode in MODES:
            trace = os.path.join(work, "%s-%d.trace" % (mode.replace("/", "_"), rep))
            prog = [a.prog, "-exit-stamp", stamp]
            if mode == "none":
                cmd = prog
            elif mode == "runtime/trace":
                cmd = prog + ["-trace", trace]
            else:
                cmd = [a.gotraced, "--quiet", "--verbose", "--out", trace, "--"] + prog
            wall, cpu, out, rc = timed(cmd)
            end_ns = time.time_ns()
            r = {"wall": wall, "cpu": cpu}
            if rc != 0:
                failed.append("%s exited %d: %s" % (" ".join(cmd), rc, out.strip()[-400:]))
            if mode == "gotraced":
                try:
                    with open(stamp) as f:
                        r["exit_lag_ms"] = (end_ns - int(f.read())) / 1e6
                except (OSError, ValueError):
                    pass
                v = bu.parse_verbose(out)
                if v is None:
                    failed.append("gotraced printed no --verbose breakdown: " + out.strip()[-400:])
                else:
                    r.update(v)
            if mode != "none":
                if rep == 0 and bu.tracecheck_events(a.tracecheck, trace, validate=(mode == "gotraced")) is None:
                    failed.append("%s: %s trace does not parse (tracecheck)" % (trace, mode))
                if os.path.exists(trace):
                    os.unlink(trace)
            runs[mode].append(r)
    med = {m: {k: bu.median([r.get(k) for r in runs[m]]) for k in runs[m][0]} for m in MODES}
    base = med["none"]
    rows = []
    for m in MODES:
        r = med[m]
        rows.append([m, "%.1f" % (r["wall"] * 1000), "%+.1f" % ((r["wall"] - base["wall"]) * 1000),
                     bu.ratio(r["wall"], base["wall"]), "%.1f" % (r["cpu"] * 1000), bu.ratio(r["cpu"], base["cpu"]),
                     bu.fmt(r.get("exit_lag_ms"), "%.1f")])
    bu.print_table("start-up: %s, median of %d" % (a.label, a.reps),
                   ["mode", "wall ms", "added ms", "x none", "CPU ms", "x none", "exit lag ms"], rows)
    g = med["gotraced"]
    if "start_ms" in g:
        print("  gotraced --verbose (medians): start-up %.0f ms = binary analysis %.0f + BPF load and verification "
              "%.0f (%d programs) + attach %.0f (%d uprobes) + snapshot %.0f + self-check %.0f; stop %.0f ms = detach "
              "%.0f + last records, model and flush %.0f" %
              (g["start_ms"], g["plan_ms"], g["load_ms"], g["programs"], g["attach_ms"], g["uprobes"],
               g["snapshot_ms"], g["self_check_ms"], g["stop_ms"], g["detach_ms"], g["stop_ms"] - g["detach_ms"]))
    if failed:
        print("FAIL: " + "; ".join(failed[:5]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
