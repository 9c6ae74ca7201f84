#!/usr/bin/env python3
"""Serve's default against the untraced server by twins (issue 28 part 1): what one
server's windows cannot show on a shared machine, whose noise moves a window's CPU by
+-30%. Called by scripts/bench-sampling.sh --paired.

Two instances of the same server (twin A and twin B: each its own port, data directory and
copy of the executable, since serve watches by executable path), loaded by one open-loop
client that sends each request to both at the same due time (bench/http/client -twin), at
the same fixed rate for the whole run. Both live through the same host noise and the same
arrivals at the same time, so the ratio of their CPU in one window cancels what moves both.
Windows: none watched (the twins' baseline ratio A/B), A watched, none, B watched, none, ...
The watcher is `gotraced serve` as a user runs it: a config with its socket and one
[[watch]] of the twin's executable path, defaults otherwise (level low, CPU samples at
100 Hz, syscalls >= 1 ms from sched_switch). A watched window starts 2 s after serve
records the twin and has loaded its full-detail standby (start-up is not in it); serve is
stopped after it. The watched twin's cost in a window:

    (its CPU + serve's CPU) / (the other twin's CPU x the baseline ratio) - 1

with the baseline ratio the mean of the adjacent none windows' (watching A and B in turn
cancels a difference between the twins). What the twins hide: the other twin's context
switches run serve's sched_switch dispatcher too (one map lookup), charged to it. Counted
and added as its own column ("host"): the dispatcher's ns per run (bpf_stats: run_time_ns
/ run_cnt) x the other twin's context switches in the window (/proc/PID/task/*/status),
taken off the other twin's CPU. The kernel's run-time statistics cost every BPF program
run two clock reads (kernel/bpf: bpf_prog_run's stats path), which would be charged to the
watched twin; so they are off in the costed windows and the dispatcher's ns per run comes
from one calibration window after them: serve watching a third, idle instance of the server
while the twins run on, so that nearly every run is a miss, the dispatcher alone (the other
twin's switches are misses; a watched twin's runs with their tail calls in the average made
host about twice too big). The execs
column then counts the host's forks (/proc/stat processes): an exec needs one.
--bpf-stats keeps them on in every window (each window's own ns per run, the old way).

Printed: every window (both twins' CPU ms/s, requests/s served and client errors in the
window, the ratio A/B, serve's CPU and BPF run time), then per server every watched
window's cost, their median and range, and the A/A check: the baseline ratio across the
none windows, and each inner none window against the mean of its neighbours (the error the
cost's baseline makes when nothing is watched).
  paired.py --gotraced G --client C --server LABEL=CMD[@PATH]... [--rate R] [--seconds S]
            [--windows W] [--warmup S] [--bpf-stats]
{port} and {dir} in CMD are the twin's; the executable (CMD's first word) is copied into
the twin's directory and run from there."""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import alternate as alt  # noqa: E402

SETTLE_S = 2  # after serve has the twin recorded and its standby loaded


def threads_ns(pid):
    """{tid: ns on CPU} of pid's threads (/proc/PID/task/TID/schedstat's first field, the
    scheduler's own sum_exec_runtime): /proc/PID/stat counts in clock ticks, 10 ms, which is
    0.7% of a 10 s window of a server at 150 ms/s and 20% of serve's 5 ms/s."""
    got = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return got
    for t in tids:
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                got[t] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass
    return got


def cpu_delta_s(before, after):
    """CPU seconds of the threads between two threads_ns: a thread born in between counts
    from 0; one that ended in between is not seen (a Go server's threads live on)."""
    return sum(ns - before.get(t, 0) for t, ns in after.items()) / 1e9


class Twin:
    """One instance of the server."""

    def __init__(self, name, cmd):
        self.name = name
        self.work = tempfile.mkdtemp(prefix="bench-paired-%s-" % name)
        self.port = alt.free_port()
        argv = [x.replace("{port}", str(self.port)).replace("{dir}", self.work) for x in cmd.split()]
        exe = argv[0] if os.path.exists(argv[0]) else shutil.which(argv[0])
        if not exe:
            raise SystemExit("bench-paired: %s not found" % argv[0])
        self.exe = os.path.join(self.work, os.path.basename(exe))
        shutil.copy2(os.path.realpath(exe), self.exe)
        argv[0] = self.exe
        env = dict(os.environ, HOME=self.work, XDG_DATA_HOME=self.work, XDG_CONFIG_HOME=self.work)
        self.srv = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=self.work,
                                    env=env)
        self.pid = self.srv.pid
        if not alt.wait_port(self.port):
            self.srv.kill()
            raise SystemExit("bench-paired: twin %s did not listen on %d" % (name, self.port))

    def stop(self):
        self.srv.send_signal(signal.SIGTERM)
        try:
            self.srv.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.srv.kill()
        shutil.rmtree(self.work, ignore_errors=True)


class Load:
    """One open-loop client for both twins (bench/http/client -twin): each due request goes
    to both, the two in turn first, so the twins see the same arrivals, the client's own
    stalls included. A client per twin left the baseline ratio moving +-4% window to window
    (go1.26, load 4-8): each client's stalls batch its twin's requests differently."""

    def __init__(self, a, twins, path, run_seconds):
        url = "http://127.0.0.1:%d" + path
        self.p = subprocess.Popen([a.client, "-url", url % twins[0].port, "-twin", url % twins[1].port, "-rate",
                                   str(a.rate), "-duration", "%ds" % run_seconds], stdout=subprocess.PIPE, text=True)

    def served(self):
        """[(ok, errors) of A, of B] finished so far (the client's COUNT line at SIGUSR1)."""
        self.p.send_signal(signal.SIGUSR1)
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("bench-paired: the client ended")
            m = re.match(r"COUNT ok=(\d+),(\d+) errors=(\d+),(\d+)", line)
            if m:
                v = [int(x) for x in m.groups()]
                return [(v[0], v[2]), (v[1], v[3])]

    def stop(self):
        self.p.terminate()
        self.p.wait()


class Serve:
    """`gotraced serve` watching one executable path, defaults otherwise."""

    def __init__(self, gotraced, exe):
        self.work = tempfile.mkdtemp(prefix="bench-paired-serve-")
        self.sock = os.path.join(self.work, "serve.sock")
        cfg = os.path.join(self.work, "serve.toml")
        with open(cfg, "w") as f:
            f.write('[endpoint]\nsocket = "%s"\n[[watch]]\nexe = "%s"\n' % (self.sock, exe))
        self.log_path = os.path.join(self.work, "serve.log")
        self.log = open(self.log_path, "w")
        self.p = subprocess.Popen([gotraced, "serve", "--config", cfg], stdout=self.log, stderr=subprocess.STDOUT)
        self.pid = self.p.pid

    def log_text(self):
        with open(self.log_path) as f:
            return f.read()

    def wait_ready(self, pid, timeout=60):
        """Until serve records pid and has loaded its full-detail standby (docs/serve.md);
        returns serve's `tracing` line for it."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.p.poll() is not None:
                raise SystemExit("bench-paired: serve exited %d:\n%s" % (self.p.returncode, self.log_text()))
            text = self.log_text()
            if re.search(r"pid %d: full-detail standby loaded" % pid, text):
                m = re.search(r"tracing .*trace format.*$", text, re.M)
                return m.group(0) if m else "(no tracing line)"
            time.sleep(0.2)
        raise SystemExit("bench-paired: serve did not load pid %d's standby in %d s:\n%s" % (pid, timeout,
                                                                                            self.log_text()))

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.log.close()
        shutil.rmtree(self.work, ignore_errors=True)


def forks():
    with open("/proc/stat") as f:
        for line in f:
            if line.startswith("processes "):
                return int(line.split()[1])
    return 0


def snap(twins, load):
    return [{"cpu": threads_ns(t.pid), "sw": alt.ctx_switches(t.pid), "ok": ok, "err": err}
            for t, (ok, err) in zip(twins, load.served())]


def window(twins, load, serve, seconds):
    """Both twins' CPU (s), context switches, requests served and errors over one window,
    serve's CPU and its programs' BPF run time when serve is given."""
    b0 = alt.bpf_progs(serve.pid) if serve else None
    g0 = threads_ns(serve.pid) if serve else {}
    f0 = forks()
    t0 = snap(twins, load)
    w0 = time.monotonic()
    time.sleep(seconds)
    t1 = snap(twins, load)
    w1 = time.monotonic()
    f1 = forks()
    g1 = threads_ns(serve.pid) if serve else {}
    b1 = alt.bpf_progs(serve.pid) if serve else None
    el = w1 - w0
    row = {"s": el, "gt": cpu_delta_s(g0, g1) / el, "forks": (f1 - f0) / el}
    for t, x0, x1 in zip("AB", t0, t1):
        row[t] = {k: (x1[k] - x0[k]) / el for k in x0 if k != "cpu"}
        row[t]["cpu"] = cpu_delta_s(x0["cpu"], x1["cpu"]) / el
        row[t]["ended"] = len(set(x0["cpu"]) - set(x1["cpu"]))  # threads whose CPU is not counted
    row["bpf"] = None
    if b0 is not None and b1 is not None:
        row["bpf"] = {k: ((v[0] - b0.get(k, (0, 0))[0]) / el, (v[1] - b0.get(k, (0, 0))[1]) / el)
                      for k, v in b1.items() if v[1] > b0.get(k, (0, 0))[1]}
    return row


def dispatcher_ns(bpf):
    """The sched_switch dispatcher's ns per run in the window (its name is cut to 15
    characters by the kernel: gt_host_sched_s)."""
    for k, (ns, runs) in (bpf or {}).items():
        if k.startswith("gt_host_sched_s") and runs:
            return ns / runs
    return None


def print_window(i, kind, row):
    a, b = row["A"], row["B"]
    line = ("  w%02d %-9s A %6.1f ms/s %6.0f req/s %3.0f err/s | B %6.1f ms/s %6.0f req/s %3.0f err/s | "
            "A/B %.4f" % (i, kind, a["cpu"] * 1e3, a["ok"], a["err"], b["cpu"] * 1e3, b["ok"], b["err"],
                          a["cpu"] / b["cpu"] if b["cpu"] else float("nan")))
    if kind != "none":
        line += " | serve %5.2f ms/s" % (row["gt"] * 1e3)
    for t in "AB":
        if row[t]["ended"]:
            line += " | %s: %d threads ended, their CPU not counted" % (t, row[t]["ended"])
    print(line + "  (load %.2f)" % os.getloadavg()[0], flush=True)
    if row["bpf"]:
        top = sorted(row["bpf"].items(), key=lambda kv: -kv[1][0])[:4]
        print("        BPF %.2f ms/s (%s); context switches/s A %.0f, B %.0f" %
              (sum(v[0] for v in row["bpf"].values()) / 1e6,
               ", ".join("%s %s/s x %.0f ns" % (k, "%.1fk" % (v[1] / 1e3) if v[1] >= 1e3 else "%.0f" % v[1],
                                                 v[0] / v[1]) for k, v in top if v[1]),
               a["sw"], b["sw"]), flush=True)


def cost(row, watched, base, calib_ns):
    """(cost, host share added, total) of the watched twin in one window against the
    baseline ratio A/B, as fractions; the dispatcher's ns per run from the window's own
    statistics, else the calibration window's."""
    a, b = row["A"]["cpu"], row["B"]["cpu"]
    w, other, ratio_other = (a, b, base) if watched == "A" else (b, a, 1 / base)
    ns = dispatcher_ns(row["bpf"])
    if ns is None:
        ns = calib_ns
    disp = ns * 1e-9 * row["B" if watched == "A" else "A"]["sw"] if ns is not None else 0.0
    c = (w + row["gt"]) / (other * ratio_other) - 1
    total = (w + row["gt"]) / ((other - disp) * ratio_other) - 1
    return c, total - c, total


def run_server(a, label, cmd, path):
    order = ["none"]
    for i in range(a.windows):
        order += ["A" if i % 2 == 0 else "B", "none"]
    per_watch = a.seconds + 30 + SETTLE_S + 10
    run_seconds = a.warmup + len(order) * per_watch + 60
    twins, load = [], None
    try:
        twins.append(Twin("a", cmd))
        twins.append(Twin("b", cmd))
        load = Load(a, twins, path, run_seconds)
        print("%s: twins A (pid %d, %s) and B (pid %d, %s), each at %d requests/s (one client), %d s windows, "
              "load average %s:"
              % (label, twins[0].pid, twins[0].exe, twins[1].pid, twins[1].exe, a.rate, a.seconds,
                 " ".join("%.2f" % x for x in os.getloadavg())), flush=True)
        time.sleep(a.warmup)
        rows = []
        for i, kind in enumerate(order):
            serve = None
            if kind != "none":
                t = twins[0] if kind == "A" else twins[1]
                serve = Serve(a.gotraced, t.exe)
                tracing = serve.wait_ready(t.pid)
                if i in (1, 3):  # the first of each twin
                    print("  serve on %s: %s" % (kind, tracing.strip()), flush=True)
                time.sleep(SETTLE_S)
            try:
                row = window(twins, load, serve, a.seconds)
            finally:
                if serve:
                    serve.stop()
            rows.append((kind, row))
            print_window(i + 1, kind, row)
        calib_ns = None
        if alt.STATS_FD is None:
            calib_ns = calibrate(a, cmd, twins, load)
    finally:
        if load:
            load.stop()
        for t in twins:
            t.stop()
    summarize(label, rows, calib_ns)


def calibrate(a, cmd, twins, load):
    """The dispatcher's ns per run when it misses: one window with the run-time statistics
    on and serve watching an idle third instance (not costed)."""
    idle = Twin("idle", cmd)
    serve = None
    try:
        serve = Serve(a.gotraced, idle.exe)
        serve.wait_ready(idle.pid)
        time.sleep(SETTLE_S)
        alt.STATS_FD = alt.enable_bpf_stats()
        try:
            row = window(twins, load, serve, a.seconds)
        finally:
            os.close(alt.STATS_FD)
            alt.STATS_FD = None
    finally:
        if serve:
            serve.stop()
        idle.stop()
    print_window(0, "calibrate", row)
    ns = dispatcher_ns(row["bpf"])
    print("  calibration (serve watching an idle third instance, BPF statistics on, not costed): "
          "dispatcher %s ns/run" % ("%.0f" % ns if ns is not None else "?"), flush=True)
    return ns


def summarize(label, rows, calib_ns):
    ratios = [(i, r["A"]["cpu"] / r["B"]["cpu"]) for i, (k, r) in enumerate(rows) if k == "none"]
    rv = [x for _, x in ratios]
    print("  %s A/A: baseline ratio A/B over %d none windows: median %.4f, range %.4f..%.4f (%+.1f..%+.1f%%)" %
          (label, len(rv), statistics.median(rv), min(rv), max(rv), (min(rv) / statistics.median(rv) - 1) * 100,
           (max(rv) / statistics.median(rv) - 1) * 100), flush=True)
    inner = [rv[j] / ((rv[j - 1] + rv[j + 1]) / 2) - 1 for j in range(1, len(rv) - 1)]
    if inner:
        print("  %s A/A: each inner none window against its neighbours' mean: %s (median |x| %.1f%%)" %
              (label, " ".join("%+.1f%%" % (x * 100) for x in inner),
               statistics.median(abs(x) for x in inner) * 100), flush=True)
    by_index = dict(ratios)
    costs = []
    for i, (k, r) in enumerate(rows):
        if k == "none":
            continue
        base = (by_index[i - 1] + by_index[i + 1]) / 2
        c, host, total = cost(r, k, base, calib_ns)
        costs.append((c, host, total))
        ns = dispatcher_ns(r["bpf"])
        if ns is None:
            ns = calib_ns
        execs = sum(v[1] for n, v in (r["bpf"] or {}).items() if n.startswith("exec_watch_exec"))
        if r["bpf"] is None:
            execs = r["forks"]
        other = r["B"]["cpu"] * base if k == "A" else r["A"]["cpu"] / base
        print("  %s w%02d %s watched: ratio %.4f, baseline %.4f -> cost %+.1f%% (serve's CPU %+.1f%% of it, "
              "the host's %s %.0f/s) + host %+.2f%% = %+.1f%%  (dispatcher %s ns/run)" %
              (label, i + 1, k, r["A"]["cpu"] / r["B"]["cpu"], base, c * 100, r["gt"] / other * 100,
               "forks" if r["bpf"] is None else "execs", execs,
               host * 100, total * 100, "%.0f" % ns if ns is not None else "?"), flush=True)
    if costs:
        tot = sorted(x[2] for x in costs)
        print("  %s serve's default, %d watched windows: cost median %+.1f%%, with host %+.1f%% (range %+.1f..%+.1f%%;"
              " host share median %+.2f%%)" %
              (label, len(costs), statistics.median(x[0] for x in costs) * 100, statistics.median(tot) * 100,
               tot[0] * 100, tot[-1] * 100, statistics.median(x[1] for x in costs) * 100), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gotraced", required=True)
    ap.add_argument("--client", required=True)
    ap.add_argument("--server", action="append", required=True, help="LABEL=CMD[@PATH]")
    ap.add_argument("--rate", type=int, default=3000, help="requests/s of each twin's client")
    ap.add_argument("--seconds", type=int, default=10, help="seconds per window")
    ap.add_argument("--windows", type=int, default=8, help="watched windows per server (A and B in turn)")
    ap.add_argument("--warmup", type=int, default=5, help="seconds of load before the first window")
    ap.add_argument("--bpf-stats", action="store_true",
                    help="BPF run-time statistics on in every window (they cost each program run two clock reads)")
    a = ap.parse_args()
    signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop the twins and serve on the way out
    signal.signal(signal.SIGINT, signal.default_int_handler)  # also when started in the background
    if a.bpf_stats:
        alt.STATS_FD = alt.enable_bpf_stats()  # each window's dispatcher ns per run: the host column
    for s in a.server:
        label, rest = s.split("=", 1)
        cmd, _, path = rest.partition("@")
        run_server(a, label, cmd, path or "/")


if __name__ == "__main__":
    main()
