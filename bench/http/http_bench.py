#!/usr/bin/env python3
"""HTTP server bench: a net/http server (bench/http/server) built with each Go given,
driven at a fixed rate on loopback by bench/http/client (open loop), three ways in one
run: no tracing, in-process runtime/trace (server -trace) and gotraced --pid attached to
the running server. Called by scripts/bench-http.sh.

For each mode the client sends -warmup s of requests, then the measured window of
-seconds s. Over the window: the server's CPU (/proc/PID/stat utime+stime), the
client's achieved rate and p50/p99 latency (from each request's due time), and for
gotraced its own CPU in the window, its RSS at the window's start and end and its peak
(VmHWM). Daemon CPU per event = gotraced's CPU in the window / the events it wrote in the
window, the latter from its summary line (events over the recorded seconds, times the
window: the load is steady). Daemon memory: its peak RSS (VmHWM), of which the BPF ring
buffer's mapping (its pages are allocated at load and mapped twice: 2 x --ring-size
whatever the load), and its own heap (RssAnon) at the window's start and end and the
largest seen (sampled every 0.5 s): flat RSS is a heap that does not grow. For runtime/trace, its CPU per event is the server's CPU
above the untraced run's, over the events tracecheck counts in its file, scaled the same
way. Every trace written is checked with tracecheck.
"""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import benchutil as bu  # noqa: E402

MODES = ("none", "runtime/trace", "gotraced")
# --levels: gotraced at each capture level (README "Capture levels"); "low+cpu" is serve's
# default (level low, events with cpu at 100 Hz); "low-all" is level low with every
# goroutine syscall written (--syscall-min 0; low's default leaves out those under 1 ms);
# "low-nosys+cpu" is level low with no syscall tracepoint attached (--no-syscalls: serve's
# events without "syscall").
LEVEL_MODES = ("none", "runtime/trace", "gotraced", "gotraced:sched", "gotraced:low-all", "gotraced:low",
               "gotraced:low+cpu", "gotraced:low-nosys+cpu")
# --kernel-view: what the kernel view (docs/kernel-view.md, on by default) adds: gotraced
# with it and with --no-kernel-view, side by side.
KERNEL_VIEW_MODES = ("none", "runtime/trace", "gotraced", "gotraced:no-kernel-view")


def gotraced_args(mode):
    """Extra gotraced options of a mode: "gotraced" (full), "gotraced:LEVEL[+cpu]"."""
    if mode == "gotraced":
        return []
    if mode == "gotraced:no-kernel-view":
        return ["--no-kernel-view"]
    level = mode.split(":", 1)[1]
    extra = []
    if level.endswith("+cpu"):
        level = level[:-4]
        extra += ["--cpu-hz", "100"]
    if level.endswith("-all"):
        level = level[:-4]
        extra += ["--syscall-min", "0"]
    if level.endswith("-nosys"):
        level = level[:-6]
        extra += ["--no-syscalls"]
    return ["--level", level] + extra


def start_server(server, trace_path):
    cmd = [server, "-addr", "127.0.0.1:0"] + (["-trace", trace_path] if trace_path else [])
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line.startswith("listening "):
        p.kill()
        raise SystemExit("http bench: server did not start: %r" % line)
    return p, line.split()[1]


def run_mode(a, server, mode, work, tag):
    trace = os.path.join(work, "%s-%s.trace" % (tag, mode.replace("/", "_")))
    srv, addr = start_server(server, trace if mode == "runtime/trace" else None)
    started = time.monotonic()
    gt = None
    if mode.startswith("gotraced"):
        gt = subprocess.Popen([a.gotraced, "--quiet", "--verbose", "--pid", str(srv.pid), "--out", trace] + gotraced_args(mode),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    cl = subprocess.Popen([a.client, "-url", "http://%s/" % addr, "-rate", str(a.rate), "-warmup",
                           "%gs" % a.warmup, "-duration", "%gs" % a.seconds], stdout=subprocess.PIPE, text=True)
    time.sleep(a.warmup + 0.01)
    s0 = bu.proc_cpu_s(srv.pid)
    d0 = bu.proc_cpu_s(gt.pid) if gt else None
    rss0 = bu.proc_status_kb(gt.pid, "RssAnon") if gt else None
    anon_max = rss0
    t0 = time.monotonic()
    while True:
        left = t0 + a.seconds - time.monotonic()
        if left <= 0:
            break
        time.sleep(min(0.5, left))
        if gt:
            anon_max = max(anon_max or 0, bu.proc_status_kb(gt.pid, "RssAnon") or 0)
    s1 = bu.proc_cpu_s(srv.pid)
    d1 = bu.proc_cpu_s(gt.pid) if gt else None
    rss1 = bu.proc_status_kb(gt.pid, "RssAnon") if gt else None
    hwm = bu.proc_status_kb(gt.pid, "VmHWM") if gt else None
    ring = bu.bpf_map_rss_kb(gt.pid) if gt else None
    srv_hwm = bu.proc_status_kb(srv.pid, "VmHWM")
    window = time.monotonic() - t0
    out, _ = cl.communicate()
    client = dict(kv.split("=") for kv in out.split()[1:]) if out.startswith("RESULT") else {}
    res = {"mode": mode, "window_s": window, "server_cpu_s": (s1 - s0) if s0 is not None and s1 is not None else None,
           "achieved": float(client.get("achieved", 0)), "p50_us": int(client.get("p50_us", -1)),
           "p99_us": int(client.get("p99_us", -1)), "errors": int(client.get("errors", -1)),
           "server_hwm_kb": srv_hwm}
    if gt:
        gt.send_signal(signal.SIGINT)
        _, err = gt.communicate(timeout=60)
        summ = bu.parse_summary(err) or {}
        verb = bu.parse_verbose(err) or {}
        events = summ.get("events")
        # events in the window: the load is steady, so the recording's mean rate times it
        win_events = events * window / summ["seconds"] if events and summ.get("seconds") else None
        res.update({"daemon_cpu_s": d1 - d0 if d0 is not None and d1 is not None else None, "events": events,
                    "window_events": win_events, "lost": summ.get("lost"), "rss0_kb": rss0, "rss1_kb": rss1,
                    "anon_max_kb": anon_max, "ring_kb": ring, "hwm_kb": hwm, "start_ms": verb.get("start_ms"), "gotraced_exit": gt.returncode})
        if gt.returncode != 0 or not summ:
            sys.stderr.write(err)
            res["error"] = "gotraced exited %d" % gt.returncode
    srv.send_signal(signal.SIGTERM)
    srv.wait(timeout=30)
    lifetime = time.monotonic() - started
    if mode != "none":
        n = bu.tracecheck_events(a.tracecheck, trace, validate=mode.startswith("gotraced"))
        res["trace_events"] = n
        if n is None:
            res["error"] = "%s: tracecheck failed" % trace
        elif mode == "runtime/trace":
            res["window_events"] = n * window / lifetime
        os.unlink(trace)
    return res


def kernel_view_delta(runs, rate):
    """What the kernel view adds: each rep's gotraced run against the same rep's
    --no-kernel-view run (interleaved, so machine load hits both alike), as median and
    range: events/s, server and daemon CPU, per request and per added event."""
    on, off = runs["gotraced"], runs["gotraced:no-kernel-view"]
    d = {k: [] for k in ("ev_s", "srv_ms_s", "dmn_ms_s", "us_req", "us_ev", "p99")}
    for a, b in zip(on, off):
        if None in (a.get("server_cpu_s"), b.get("server_cpu_s"), a.get("daemon_cpu_s"), b.get("daemon_cpu_s"),
                    a.get("window_events"), b.get("window_events")):
            continue
        ev = a["window_events"] / a["window_s"] - b["window_events"] / b["window_s"]
        srv = (a["server_cpu_s"] / a["window_s"] - b["server_cpu_s"] / b["window_s"]) * 1000
        dmn = (a["daemon_cpu_s"] / a["window_s"] - b["daemon_cpu_s"] / b["window_s"]) * 1000
        req = a["achieved"] or rate
        d["ev_s"].append(ev)
        d["srv_ms_s"].append(srv)
        d["dmn_ms_s"].append(dmn)
        d["us_req"].append((srv + dmn) * 1000 / req)
        d["us_ev"].append((srv + dmn) * 1000 / ev if ev > 0 else None)
        d["p99"].append(a["p99_us"] - b["p99_us"])
    def m(k, f):
        xs = [x for x in d[k] if x is not None]
        if not xs:
            return "-"
        return (f + " (" + f + ".." + f + ")") % (bu.median(xs), min(xs), max(xs))
    print("  kernel view (gotraced vs --no-kernel-view, median and range of %d reps): events/s %s, server CPU "
          "ms/s %s, daemon CPU ms/s %s, p99 us %s; per request %s us of CPU; per added event %s us" %
          (len(d["ev_s"]), m("ev_s", "%+.0f"), m("srv_ms_s", "%+.1f"), m("dmn_ms_s", "%+.1f"), m("p99", "%+.0f"),
           m("us_req", "%+.2f"), m("us_ev", "%+.2f")))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gotraced", required=True)
    ap.add_argument("--tracecheck", required=True)
    ap.add_argument("--client", required=True)
    ap.add_argument("--server", action="append", required=True, help="LABEL=PATH, once per Go")
    ap.add_argument("--rate", type=float, default=3000)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--warmup", type=float, default=2)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--json")
    ap.add_argument("--levels", action="store_true", help="also gotraced at levels sched, low, low+cpu (serve's default)")
    ap.add_argument("--modes", help="comma-separated modes instead of a preset (e.g. none,gotraced:low)")
    ap.add_argument("--kernel-view", action="store_true", help="also gotraced --no-kernel-view: what the kernel view adds")
    a = ap.parse_args()
    modes = LEVEL_MODES if a.levels else KERNEL_VIEW_MODES if a.kernel_view else MODES
    if a.modes:
        modes = tuple(a.modes.split(","))
        if "none" not in modes:  # every figure is against the untraced run of the same rep
            modes = ("none",) + modes
        unknown = [m for m in modes if m not in LEVEL_MODES + KERNEL_VIEW_MODES]
        if unknown:
            raise SystemExit("http bench: unknown mode(s) %s (known: %s)" % (", ".join(unknown),
                                                                         ", ".join(LEVEL_MODES + KERNEL_VIEW_MODES[-1:])))
    work = tempfile.mkdtemp(prefix="bench-http-")
    results = {}
    failed = []
    for spec in a.server:
        label, server = spec.split("=", 1)
        runs = {m: [] for m in modes}
        for rep in range(a.reps):
            for mode in modes:  # interleaved rep by rep: machine load hits every mode alike
                r = run_mode(a, server, mode, work, "%s-%d" % (label, rep))
                runs[mode].append(r)
                if "error" in r:
                    failed.append("%s %s: %s" % (label, mode, r["error"]))
        results[label] = runs
        med = {m: {k: bu.median([r.get(k) for r in runs[m]]) for k in runs[m][0] if k != "mode" and k != "error"}
               for m in modes}
        base = med["none"]
        rt = med.get("runtime/trace", {})
        rows = []
        for m in modes:
            r = med[m]
            cpu_ms_s = r["server_cpu_s"] / r["window_s"] * 1000 if r.get("server_cpu_s") is not None else None
            ev_s = r["window_events"] / r["window_s"] if r.get("window_events") else None
            if m.startswith("gotraced"):
                tracer_cpu = r.get("daemon_cpu_s")
            elif m == "runtime/trace" and r.get("server_cpu_s") is not None and base.get("server_cpu_s") is not None:
                # the runtime's tracer runs in the server: its CPU is the server's extra
                tracer_cpu = max(0.0, r["server_cpu_s"] - base["server_cpu_s"])
            else:
                tracer_cpu = None
            us_ev = tracer_cpu / r["window_events"] * 1e6 if tracer_cpu is not None and r.get("window_events") else None
            r["tracer_us_per_event"] = us_ev
            # Server + tracer CPU over the untraced server's, each rep against its own
            # untraced run (interleaved), as median and range: the figure the always-on
            # target (<= 3% above untraced) is about.
            tot = []
            for i, run in enumerate(runs[m]):
                b = runs["none"][i] if i < len(runs["none"]) else None
                if not b or run.get("server_cpu_s") is None or not b.get("server_cpu_s"):
                    continue
                extra = run.get("daemon_cpu_s") or 0.0
                tot.append(((run["server_cpu_s"] + extra) / run["window_s"]) / (b["server_cpu_s"] / b["window_s"]) - 1)
            r["total_cpu_over_none"] = bu.median(tot) if tot else None
            tot_s = ("%+.1f%% (%+.1f..%+.1f)" % (100 * bu.median(tot), 100 * min(tot), 100 * max(tot))) if tot else "-"
            rows.append([m, bu.fmt(r["achieved"], "%.0f"), bu.fmt(r["p50_us"], "%.0f"), bu.fmt(r["p99_us"], "%.0f"),
                         bu.fmt(cpu_ms_s, "%.0f"), bu.ratio(r.get("server_cpu_s"), base.get("server_cpu_s")), tot_s,
                         bu.fmt(r.get("daemon_cpu_s") and r["daemon_cpu_s"] / r["window_s"] * 1000, "%.0f"),
                         bu.fmt(r.get("server_hwm_kb") and r["server_hwm_kb"] / 1024, "%.1f"),
                         bu.fmt(ev_s, "%.0f"), bu.fmt(us_ev, "%.3f"),
                         bu.fmt(r.get("hwm_kb") and r["hwm_kb"] / 1024, "%.1f"),
                         bu.fmt(r.get("ring_kb") and r["ring_kb"] / 1024, "%.0f"),
                         bu.fmt(r.get("rss0_kb") and r["rss0_kb"] / 1024, "%.1f") + " -> " +
                         bu.fmt(r.get("rss1_kb") and r["rss1_kb"] / 1024, "%.1f") + " (max " +
                         bu.fmt(r.get("anon_max_kb") and r["anon_max_kb"] / 1024, "%.1f") + ")"
                         if m.startswith("gotraced") else "-",
                         bu.fmt(r.get("lost"), "%d") if m.startswith("gotraced") else "-"])
        bu.print_table(
            "HTTP server (%s), %g requests/s on loopback, %gs window after %gs warm-up, median of %d" %
            (label, a.rate, a.seconds, a.warmup, a.reps),
            ["mode", "req/s", "p50 us", "p99 us", "server CPU ms/s", "x none", "server+daemon CPU vs none (range)",
             "daemon CPU ms/s", "server peak RSS MB", "events/s", "tracer CPU us/event",
             "daemon peak RSS MB", "of it ring MB", "daemon heap MB (window)", "lost"], rows)
        g, t = med.get("gotraced", {}), rt
        if g:
            print("  gotraced daemon CPU per event: %s us (runtime/trace: %s us in the process; ratio %s)" %
                  (bu.fmt(g.get("tracer_us_per_event"), "%.3f"), bu.fmt(t.get("tracer_us_per_event"), "%.3f"),
                   bu.ratio(g.get("tracer_us_per_event"), t.get("tracer_us_per_event"))))
        if a.kernel_view:
            kernel_view_delta(runs, a.rate)
        if g.get("start_ms") and g["start_ms"] > a.warmup * 1000:
            print("  note: gotraced's start-up (%.0f ms) outlasted the warm-up: its window holds start-up CPU" %
                  g["start_ms"])
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    if failed:
        print("FAIL: " + "; ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
