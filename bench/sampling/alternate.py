#!/usr/bin/env python3
"""Serve's default (level low, CPU samples at 100 Hz, syscalls >= 1 ms) against the
untraced server, with the load running throughout (issue 28 part 1): one server, one
open-loop client at a fixed rate for the whole run, and windows alternating
untraced / watched-by-tracepoints / untraced / watched-by-sampling, every window printed.
A watched window starts 2 s after `gotraced --pid` does (its load and attach are not in
it) and counts the server's CPU plus gotraced's; its cost is over the untraced window just
before it. Medians per path at the end.
  alternate.py --gotraced G --client C --server LABEL=CMD... [--rate R] [--seconds S] [--reps N]
The server's command line is split on spaces; {port} is replaced by a free port, and the
URL requested is http://127.0.0.1:{port}{path} (--path per server: LABEL=CMD@PATH)."""
import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

TICK = os.sysconf("SC_CLK_TCK")
PATHS = {"tracepoint": ["--syscalls-by", "tracepoint"], "sample": ["--syscalls-by", "sample"]}


def cpu_s(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / TICK
    except OSError:
        return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port, timeout=30):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            socket.create_connection(("127.0.0.1", port), 0.5).close()
            return True
        except OSError:
            time.sleep(0.2)
    return False


def window(srv, gt, seconds):
    s0, g0 = cpu_s(srv), cpu_s(gt) if gt else 0
    time.sleep(seconds)
    s1, g1 = cpu_s(srv), cpu_s(gt) if gt else 0
    return s1 - s0, (g1 - g0) if gt else 0.0


def run_server(a, label, cmd, path):
    work = tempfile.mkdtemp(prefix="bench-sampling-")
    port = free_port()
    argv = [x.replace("{port}", str(port)).replace("{dir}", work) for x in cmd.split()]
    env = dict(os.environ, HOME=work, XDG_DATA_HOME=work, XDG_CONFIG_HOME=work)
    srv = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=work, env=env)
    if not wait_port(port):
        srv.kill()
        raise SystemExit("bench-sampling: %s did not listen on %d" % (label, port))
    total = a.reps * 4 * (a.seconds + 3) + 30
    cl = subprocess.Popen([a.client, "-url", "http://127.0.0.1:%d%s" % (port, path), "-rate", str(a.rate),
                           "-duration", "%ds" % total], stdout=subprocess.PIPE, text=True)
    time.sleep(3)  # warm-up
    rows = {p: [] for p in PATHS}
    print("%s (pid %d) at %d requests/s, %d s windows:" % (label, srv.pid, a.rate, a.seconds), flush=True)
    for rep in range(a.reps):
        for p in PATHS:
            base, _ = window(srv.pid, None, a.seconds)
            out = os.path.join(work, "t.trace")
            gt = subprocess.Popen([a.gotraced, "--quiet", "--pid", str(srv.pid), "--out", out, "--level", "low",
                                   "--cpu-hz", "100"] + PATHS[p], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
            time.sleep(2)
            s, d = window(srv.pid, gt.pid, a.seconds)
            gt.send_signal(signal.SIGINT)
            _, err = gt.communicate(timeout=60)
            if gt.returncode != 0:
                sys.stderr.write(err)
                raise SystemExit("bench-sampling: gotraced exited %d" % gt.returncode)
            cost = (s + d) / base - 1 if base > 0 else float("nan")
            rows[p].append(cost)
            print("  rep %d %-10s untraced %6.1f ms/s | watched server %6.1f + gotraced %5.1f ms/s = %+6.1f%%" %
                  (rep + 1, p, base * 1000 / a.seconds, s * 1000 / a.seconds, d * 1000 / a.seconds, cost * 100),
                  flush=True)
            os.unlink(out) if os.path.exists(out) else None
    cl.terminate()
    cl.wait()
    srv.send_signal(signal.SIGTERM)
    try:
        srv.wait(timeout=30)
    except subprocess.TimeoutExpired:
        srv.kill()
    for p, v in rows.items():
        print("  %s %-10s median %+.1f%% (%s)" % (label, p, statistics.median(v) * 100,
                                                ", ".join("%+.1f" % (x * 100) for x in sorted(v))), flush=True)
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gotraced", required=True)
    ap.add_argument("--client", required=True)
    ap.add_argument("--server", action="append", required=True, help="LABEL=CMD[@PATH]")
    ap.add_argument("--rate", type=int, default=3000)
    ap.add_argument("--seconds", type=int, default=10)
    ap.add_argument("--reps", type=int, default=5)
    a = ap.parse_args()
    for s in a.server:
        label, rest = s.split("=", 1)
        cmd, _, path = rest.partition("@")
        run_server(a, label, cmd, path or "/")


if __name__ == "__main__":
    main()
