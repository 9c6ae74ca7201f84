#!/usr/bin/env python3
"""Serve's default (level low, CPU samples at 100 Hz, syscalls >= 1 ms) against the
untraced server, with the load running throughout (issue 28 part 1): one server, one
open-loop client at a fixed rate for the whole run, and windows alternating
untraced / watched-by-tracepoints / untraced / watched-by-sampling / untraced /
watched-from-sched_switch (--paths chooses which), every window printed.
A watched window starts 2 s after `gotraced --pid` does (its load and attach are not in
it) and counts the server's CPU plus gotraced's; its cost is over the untraced window just
before it. Medians per path at the end. With --bpf-stats (BPF_ENABLE_STATS, held for the
run only: the host's sysctl is left alone), or where kernel.bpf_stats_enabled is 1, each
watched window also prints the run time of
gotraced's BPF programs (bpftool prog show: run_time_ns of the programs that gotraced
process holds; a tail call's time is its caller's, so the daemon's dispatchers carry
the recording's programs), the part of the cost that is counted exactly whatever the machine's noise,
and the server's context switches per second (what sched_switch programs run on).
--getppid TOOL: a bystander's getppid (ns of CPU per call) after each untraced and each
watched window (gotraced still attached), outside the windows' CPU counts.
--syscall-rate: the server's syscalls per second, by perf stat, once after its windows.
  alternate.py --gotraced G --client C --server LABEL=CMD... [--rate R] [--seconds S] [--reps N]
               [--paths tracepoint,sample,switch] [--bpf-stats] [--getppid TOOL] [--syscall-rate]
The server's command line is split on spaces; {port} is replaced by a free port, and the
URL requested is http://127.0.0.1:{port}{path} (--path per server: LABEL=CMD@PATH)."""
import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import benchutil as bu  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
PATHS = {"tracepoint": ["--syscalls-by", "tracepoint"], "sample": ["--syscalls-by", "sample"],
         "switch": ["--syscalls-by", "switch"]}


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


def bpf_progs(pid):
    """{program name: (run_time_ns, run_cnt)} of the BPF programs process pid holds; None
    without kernel.bpf_stats_enabled or bpftool."""
    try:
        with open("/proc/sys/kernel/bpf_stats_enabled") as f:
            if f.read().strip() != "1" and STATS_FD is None:
                return None
        out = subprocess.run(["bpftool", "prog", "show", "-j"], capture_output=True, text=True, timeout=30).stdout
        progs = json.loads(out)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    ids = set()  # the programs whose fds pid holds (its fdinfo's prog_id)
    try:
        for fd in os.listdir("/proc/%d/fdinfo" % pid):
            try:
                with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                    for line in f:
                        if line.startswith("prog_id:"):
                            ids.add(int(line.split()[1]))
            except OSError:
                pass
    except OSError:
        return None
    got = {}
    for p in progs:
        if p.get("id") not in ids:
            continue
        t, c = got.get(p.get("name", "?"), (0, 0))
        got[p.get("name", "?")] = (t + p.get("run_time_ns", 0), c + p.get("run_cnt", 0))
    return got


STATS_FD = None


def enable_bpf_stats():
    """BPF_ENABLE_STATS(BPF_STATS_RUN_TIME): run time counted while the returned fd is open
    (kernel/bpf/syscall.c bpf_enable_runtime_stats), without touching the sysctl."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    attr = ctypes.create_string_buffer(8)  # union bpf_attr { .enable_stats.type = 0 }
    fd = libc.syscall(321, 32, attr, 8)  # __NR_bpf (x86-64), BPF_ENABLE_STATS
    if fd < 0:
        raise SystemExit("bench-sampling: BPF_ENABLE_STATS: errno %d" % ctypes.get_errno())
    return fd


def ctx_switches(pid):
    n = 0
    try:
        for t in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/status" % (pid, t)) as f:
                for line in f:
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        n += int(line.split()[1])
    except OSError:
        pass
    return n


def window(srv, gt, seconds):
    s0, g0, b0, x0 = cpu_s(srv), cpu_s(gt) if gt else 0, bpf_progs(gt) if gt else None, ctx_switches(srv)
    time.sleep(seconds)
    s1, g1, b1, x1 = cpu_s(srv), cpu_s(gt) if gt else 0, bpf_progs(gt) if gt else None, ctx_switches(srv)
    bpf = None
    if b0 is not None and b1 is not None:
        bpf = {k: ((v[0] - b0.get(k, (0, 0))[0]) / seconds, (v[1] - b0.get(k, (0, 0))[1]) / seconds)
               for k, v in b1.items() if v[1] > b0.get(k, (0, 0))[1]}
    window.last = (bpf, (x1 - x0) / seconds)
    return s1 - s0, (g1 - g0) if gt else 0.0


def bystander_ns(a):
    """A bystander's getppid in ns of CPU (benchutil.getppid_ns), between windows; None
    without --getppid."""
    return bu.getppid_ns(a.getppid) if a.getppid else None


def run_server(a, label, cmd, path):
    work = tempfile.mkdtemp(prefix="bench-sampling-")
    port = free_port()
    argv = [x.replace("{port}", str(port)).replace("{dir}", work) for x in cmd.split()]
    argv[0] = os.path.abspath(argv[0]) if os.path.exists(argv[0]) else argv[0]
    env = dict(os.environ, HOME=work, XDG_DATA_HOME=work, XDG_CONFIG_HOME=work)
    srv = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=work, env=env)
    if not wait_port(port):
        srv.kill()
        raise SystemExit("bench-sampling: %s did not listen on %d" % (label, port))
    paths = a.paths.split(",")
    total = a.reps * 2 * len(paths) * (a.seconds + 3) + 30
    cl = subprocess.Popen([a.client, "-url", "http://127.0.0.1:%d%s" % (port, path), "-rate", str(a.rate),
                           "-duration", "%ds" % total], stdout=subprocess.PIPE, text=True)
    time.sleep(3)  # warm-up
    rows = {p: [] for p in paths}
    print("%s (pid %d) at %d requests/s, %d s windows, load average %s:" %
          (label, srv.pid, a.rate, a.seconds, " ".join("%.2f" % x for x in os.getloadavg())), flush=True)
    for rep in range(a.reps):
        for p in paths:
            base, _ = window(srv.pid, None, a.seconds)
            base_switches = window.last[1]
            by0 = bystander_ns(a)
            out = os.path.join(work, "t.trace")
            gt = subprocess.Popen([a.gotraced, "--quiet", "--pid", str(srv.pid), "--out", out, "--level", "low",
                                   "--cpu-hz", "100"] + PATHS[p], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True)
            time.sleep(2)
            s, d = window(srv.pid, gt.pid, a.seconds)
            watched = window.last
            by1 = bystander_ns(a)
            gt.send_signal(signal.SIGINT)
            _, err = gt.communicate(timeout=60)
            if gt.returncode != 0:
                sys.stderr.write(err)
                raise SystemExit("bench-sampling: gotraced exited %d" % gt.returncode)
            cost = (s + d) / base - 1 if base > 0 else float("nan")
            rows[p].append(cost)
            print("  rep %d %-10s untraced %6.1f ms/s | watched server %6.1f + gotraced %5.1f ms/s = %+6.1f%%"
                  "  (load %.2f)" % (rep + 1, p, base * 1000 / a.seconds, s * 1000 / a.seconds, d * 1000 / a.seconds,
                                     cost * 100, os.getloadavg()[0]), flush=True)
            bpf, switches = watched
            if bpf is not None:
                top = sorted(bpf.items(), key=lambda kv: -kv[1][0])[:4]
                print("        BPF %.2f ms/s (%s); server %.0f context switches/s (untraced %.0f)" %
                      (sum(v[0] for v in bpf.values()) / 1e6,
                       ", ".join("%s %.0fk/s x %.0f ns" % (k, v[1] / 1e3, v[0] / v[1]) for k, v in top if v[1]),
                       switches, base_switches), flush=True)
            if by0 is not None:
                print("        bystander getppid %.0f ns untraced, %.0f ns watched" % (by0, by1), flush=True)
            os.unlink(out) if os.path.exists(out) else None
    rate = bu.syscall_rate(srv.pid) if a.syscall_rate else None
    if rate is not None:
        print("  %s makes %.0f syscalls/s at %d requests/s (perf stat, untraced)" % (label, rate, a.rate), flush=True)
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
    ap.add_argument("--paths", default=",".join(PATHS), help="which of %s, in this order" % ",".join(PATHS))
    ap.add_argument("--bpf-stats", action="store_true", help="count gotraced's BPF run time (BPF_ENABLE_STATS)")
    ap.add_argument("--getppid", help="bench/host's gotraced-getppid-ns: a bystander's syscall after each window")
    ap.add_argument("--syscall-rate", action="store_true", help="the server's syscalls/s after the windows (perf)")
    a = ap.parse_args()
    if a.bpf_stats:
        global STATS_FD
        STATS_FD = enable_bpf_stats()
    for p in a.paths.split(","):
        if p not in PATHS:
            ap.error("--paths: %s is not one of %s" % (p, ",".join(PATHS)))
    for s in a.server:
        label, rest = s.split("=", 1)
        cmd, _, path = rest.partition("@")
        run_server(a, label, cmd, path or "/")


if __name__ == "__main__":
    main()
