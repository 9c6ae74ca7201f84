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

Per request and per syscall (issue 28 part 4), per mode: the server's CPU per request and
what the mode adds to it, per request and per syscall of the server (its syscalls per
request counted once, untraced, by perf stat: --syscall-rate); what other processes'
syscalls pay (--getppid: a bystander's getppid in ns of CPU, run after each mode's window
with the mode still on, against the same rep's untraced run); the daemon's CPU per second
and per request.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import benchutil as bu  # noqa: E402

MODES = ("none", "runtime/trace", "gotraced")
# --levels: gotraced at each capture level (docs/levels.md); "low+cpu" is serve's
# default (level low, events with cpu at 100 Hz); "low-all" is level low with every
# goroutine syscall written (--syscall-min 0; low's default leaves out those under 1 ms);
# "low-nosys+cpu" is level low with no syscall tracepoint attached (--no-syscalls: serve's
# events without "syscall").
LEVEL_MODES = ("none", "runtime/trace", "gotraced", "gotraced:sched", "gotraced:low-all", "gotraced:low",
               "gotraced:low+cpu", "gotraced:low-nosys+cpu")
# --kernel-view: what the kernel view (docs/kernel-view.md, on by default) adds: gotraced
# with it and with --no-kernel-view, side by side.
KERNEL_VIEW_MODES = ("none", "runtime/trace", "gotraced", "gotraced:no-kernel-view")
# --labels (issue 34): the server with a pprof label set per request ("+labels": its
# -labels flag) untraced, and under gotraced without (--no-labels) and with its labels logs.
# A labelled gotraced run's line also gives the daemon's label reads (its summary): how
# many sets it read, how many it dropped because their memory had been reused by then, and
# how long after its record a set was read at the ring (session/label_prefetch.h).
LABEL_MODES = ("none", "none+labels", "gotraced:no-labels+labels", "gotraced+labels")


def server_labels(mode):
    return mode.endswith("+labels")


def gotraced_args(mode):
    """Extra gotraced options of a mode: "gotraced" (full), "gotraced:LEVEL[+cpu]"."""
    if mode.endswith("+labels"):
        mode = mode[: -len("+labels")]
    if mode == "gotraced":
        return []
    if mode == "gotraced:no-labels":
        return ["--no-labels"]
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


# What Debian's caddy (a real program built with go1.24.4, scripts/fetch-debian-go.sh)
# answers: a small JSON reply, as bench/http/server's handler does.
CADDY_BODY = '{"id":1,"square":1,"words":["alpha","beta","gamma","1"]}'


def server_command(server, trace_path, labels=False, routes=False):
    """The server's command line, its environment and the start of the line it prints once
    it listens (the address is that line's last word). bench/http/server: -addr, -trace,
    "listening ADDR". caddy: `caddy respond` (admin endpoint off, a free port, its
    storage in a directory of its own), "Server address: ADDR"; it has no in-process
    tracer, so it runs without the runtime/trace mode (scripts/bench-http.sh --modes)."""
    if os.path.basename(os.path.realpath(server)) == "caddy":
        if trace_path:
            raise SystemExit("http bench: caddy has no in-process tracer: run it with --modes without runtime/trace")
        home = tempfile.mkdtemp(prefix="bench-http-caddy-")
        env = dict(os.environ, HOME=home, XDG_DATA_HOME=home, XDG_CONFIG_HOME=home)
        return [server, "respond", "--listen", "127.0.0.1:0", "--body", CADDY_BODY], env, "Server address: "
    return ([server, "-addr", "127.0.0.1:0"] + (["-trace", trace_path] if trace_path else []) +
            (["-routes"] if routes else []) + (["-labels"] if labels else []), None, "listening ")


def start_server(server, trace_path, labels=False, routes=False):
    cmd, env, ready = server_command(server, trace_path, labels, routes)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL if env else None, env=env, text=True)
    line = p.stdout.readline()
    if not line.startswith(ready):
        p.kill()
        raise SystemExit("http bench: server did not start: %r" % line)
    return p, line.split()[-1]


LABEL_READS_RE = re.compile(r"(\d+) pprof label logs; (\d+) label sets read \((\d+) unreadable, (\d+) no longer "
                            r"the set the record named: dropped, (\d+) cut\), (\d+) from the cache"
                            r"(?:; (\d+) read as their record came off the ring, ([\d.]+) ms after it)?")


def run_mode(a, server, mode, work, tag, closed=0):
    trace = os.path.join(work, "%s-%s.trace" % (tag, mode.replace("/", "_")))
    # --labels: every mode's server takes the four routes (bench/http/server/routes.go: three
    # wait inside the handler), so the labelled modes differ from the others by pprof.Do only.
    srv, addr = start_server(server, trace if mode == "runtime/trace" else None, server_labels(mode),
                             routes=a.labels)
    started = time.monotonic()
    gt = None
    if mode.startswith("gotraced"):
        # stdout: the daemon's log (spdlog), whose summary has the label reads.
        gt = subprocess.Popen([a.gotraced, "--quiet", "--verbose", "--pid", str(srv.pid), "--out", trace] + gotraced_args(mode),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    load = ["-closed", str(closed)] if closed else ["-rate", str(a.rate)]
    cl = subprocess.Popen([a.client, "-url", "http://%s/" % addr] + load + ["-warmup",
                           "%gs" % a.warmup, "-duration", "%gs" % a.seconds], stdout=subprocess.PIPE, text=True)
    time.sleep(a.warmup + 0.01)
    s0 = bu.proc_cpu_s(srv.pid)
    d0 = bu.proc_cpu_s(gt.pid) if gt else None
    b0 = bu.bpf_prog_stats(gt.pid) if gt else {}
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
    loadavg = os.getloadavg()[0]  # the machine's 1-minute load at the window's end (a shared VM)
    # Another process's syscall with this mode on (the recording still attached), after the
    # window: its CPU is in no count above.
    bystander = bu.getppid_ns(a.getppid) if a.getppid else None
    b1 = bu.bpf_prog_stats(gt.pid) if gt else {}
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
           "server_hwm_kb": srv_hwm, "loadavg": loadavg, "bystander_ns": bystander}
    if gt:
        # BPF runs and run time in the window, by source (kernel.bpf_stats_enabled is on
        # for the bench): uprobe programs run in the server's context, the tracepoint
        # programs for every process on the host (most of them return at the tgid test).
        for kind, typ in (("uprobe", bu.PROG_KPROBE), ("tp", bu.PROG_TRACING)):
            runs = ns = 0
            for pid_, v in b1.items():
                if v[0] != typ:
                    continue
                o = b0.get(pid_, (typ, 0, 0))
                runs += v[1] - o[1]
                ns += v[2] - o[2]
            res[kind + "_runs"] = runs
            res[kind + "_bpf_ns"] = ns
        gt.send_signal(signal.SIGINT)
        log, err = gt.communicate(timeout=60)
        summ = bu.parse_summary(err) or {}
        verb = bu.parse_verbose(err) or {}
        events = summ.get("events")
        # events in the window: the load is steady, so the recording's mean rate times it
        # (the writer's count here; the reader's below, once tracecheck has parsed the trace)
        win_events = events * window / summ["seconds"] if events and summ.get("seconds") else None
        res["rec_seconds"] = summ.get("seconds")
        res["written_window_events"] = win_events
        res.update({"daemon_cpu_s": d1 - d0 if d0 is not None and d1 is not None else None, "events": events,
                    "window_events": win_events, "lost": summ.get("lost"), "rss0_kb": rss0, "rss1_kb": rss1,
                    "anon_max_kb": anon_max, "ring_kb": ring, "hwm_kb": hwm, "start_ms": verb.get("start_ms"), "gotraced_exit": gt.returncode,
                    "repairs": verb.get("repairs"),
                    "repairs_per_m": verb["repairs"] * 1e6 / events if events and verb.get("repairs") is not None else None})
        # The labels reader's summary (session.cc): sets read, and dropped because the memory
        # no longer held the set the record named (issue 34: freed and reused before the read).
        lab = LABEL_READS_RE.search(log)
        if lab:  # flat numbers, as every other field: the medians take them per key
            for k, v in zip(("label_logs", "label_reads", "label_unreadable", "label_dropped", "label_cut", "label_hits",
                             "label_prefetched", "label_age_ms"), lab.groups()):
                if v is not None:
                    res[k] = float(v) if k == "label_age_ms" else int(v)
        if gt.returncode != 0 or not summ:
            sys.stderr.write(err)
            res["error"] = "gotraced exited %d" % gt.returncode
    srv.send_signal(signal.SIGTERM)
    srv.wait(timeout=30)
    lifetime = time.monotonic() - started
    if mode != "none" and not mode.startswith("none+"):
        n = bu.tracecheck_events(a.tracecheck, trace, validate=mode.startswith("gotraced"))
        res["trace_events"] = n
        if n is None:
            res["error"] = "%s: tracecheck failed" % trace
        elif mode == "runtime/trace":
            res["window_events"] = n * window / lifetime
        elif res.get("rec_seconds"):
            # Events as Go's reader shows them, not as the writer counts them: the two
            # formats say one thing in different numbers of events (go1.19's legacy format
            # writes a syscall that kept its P as one GoSysCall, which the reader turns into
            # GoSyscallBegin + GoSyscallEnd, as go1.22+ write it), so "per event" compares
            # Go versions only counted by the reader, as the runtime/trace mode is.
            res["window_events"] = n * window / res["rec_seconds"]
        if mode == "gotraced+labels":
            wrong = check_label_logs(a, tag, trace)
            if wrong:
                res["error"] = "%d labels logs name a set the server never made" % wrong
        if mode == "gotraced+labels" and not closed:
            print_by_route(a, tag, trace)
        os.unlink(trace)
    print_run(tag, res)
    return res


# The sets the labelled server makes (bench/http/server main.go -labels, routes.go's route
# table): route and shard, nothing else. A labels log naming anything else is a set read
# from memory that no longer held it (issue 34: 30 of 8,603 logs read the reply's words,
# `alpha=beta gamma=N`, before the daemon checked what BPF copied with each pointer).
ROUTES = ("/api/orders", "/api/search", "/api/static", "/api/health")
SERVER_SET = re.compile(r"^route=(%s) shard=(1[0-5]|[0-9])$" % "|".join(re.escape(r) for r in ROUTES))


def check_label_logs(a, tag, trace):
    """Every `gotraced: labels` log of a labelled run against the sets the server makes
    (or "", back to none): prints the logs per route and the wrong ones; returns how many
    were wrong (an error of the run: a wrong set must never be printed)."""
    p = subprocess.run([a.tracecheck, trace, "--events-json"], capture_output=True, text=True)
    if p.returncode != 0:
        print("  run %s labels logs: tracecheck failed" % tag)
        return 1
    per, wrong = {}, []
    for line in p.stdout.splitlines():
        if '"gotraced: labels"' not in line:
            continue
        e = json.loads(line)
        if e.get("kind") != "Log" or e.get("category") != "gotraced: labels":
            continue
        msg = e.get("message", "")
        m = SERVER_SET.match(msg)
        if msg and not m:
            wrong.append(msg)
        key = m.group(1) if m else ("(none)" if not msg else "(wrong)")
        per[key] = per.get(key, 0) + 1
    print("  run %s labels logs %d: %s; wrong sets %d%s" % (
        tag, sum(per.values()), ", ".join("%s %d" % kv for kv in sorted(per.items())), len(wrong),
        (" (%s)" % "; ".join(sorted(set(wrong))[:3])) if wrong else ""), flush=True)
    return len(wrong)


def print_by_route(a, tag, trace):
    """`gotraced report --by-label route` of a labelled run (issue 34: per-route figures):
    per route, the waits for a CPU (scheduling latency), the blocked time and the syscalls
    of the goroutines that had that route's labels when they began."""
    p = subprocess.run([a.gotraced, "report", "--by-label", "route", "--json", trace], capture_output=True, text=True)
    if p.returncode != 0:
        print("  run %s report --by-label route failed: %s" % (tag, p.stderr.strip()[:200]))
        return
    r = json.loads(p.stdout)
    rows = {}
    for sec, key in (("sched_latency", "sched"), ("blocking", "blocked"), ("syscalls", "syscalls")):
        for g in r.get(sec, {}).get("groups", []):
            rows.setdefault(g["group"], {})[key] = g["dist"]
    def d(x):
        return "-" if not x else "%d p50 %.0f us p99 %.0f us" % (x["count"], x["p50_ns"] / 1e3, x["p99_ns"] / 1e3)
    for grp in sorted(rows):
        v = rows[grp]
        print("  run %s by route %-18s sched %s; blocked %s; syscalls %s" %
              (tag, grp, d(v.get("sched")), d(v.get("blocked")), d(v.get("syscalls"))))


def print_run(tag, r):
    """One line per run, before the medians: every figure the tables summarize."""
    w = r["window_s"]
    cpu = r.get("server_cpu_s")
    line = "  run %s %s: %s req/s, server CPU %s ms/s" % (tag, r["mode"], bu.fmt(r["achieved"], "%.0f"),
                                                      bu.fmt(cpu and cpu / w * 1000, "%.0f"))
    if r["mode"].startswith("gotraced"):
        d, ev = r.get("daemon_cpu_s"), r.get("window_events")
        wr = r.get("written_window_events")
        line += ", daemon CPU %s ms/s, events/s %s (written %s), repairs %s (%s per M events)" % (
            bu.fmt(d and d / w * 1000, "%.0f"), bu.fmt(ev and ev / w, "%.0f"), bu.fmt(wr and wr / w, "%.0f"),
            bu.fmt(r.get("repairs"), "%d"), bu.fmt(r.get("repairs_per_m"), "%.1f"))
    if r.get("label_reads") or (r["mode"] == "gotraced+labels" and "label_reads" in r):
        n, dropped = r["label_reads"], r["label_dropped"]
        line += ", label sets read %d (%d dropped: %.1f%%, %d unreadable)" % (
            n, dropped, 100.0 * dropped / n if n else 0.0, r["label_unreadable"])
        if "label_age_ms" in r:
            line += ", %d at the ring %.1f ms after their record" % (r["label_prefetched"], r["label_age_ms"])
    if r.get("bystander_ns") is not None:
        line += ", bystander getppid %.0f ns" % r["bystander_ns"]
    if r.get("loadavg") is not None:
        line += ", load average %.1f" % r["loadavg"]
    print(line, flush=True)


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


def labels_delta(runs):
    """What the labels logs cost (issue 34: a goroutine start costs the same +-5% with them):
    each rep's gotraced+labels run against the same rep's gotraced:no-labels+labels run, as
    ratios of server CPU per request (the probes' cost is in the server) and daemon CPU."""
    if "gotraced+labels" not in runs or "gotraced:no-labels+labels" not in runs:
        return  # caddy: no labels of its own (scripts/bench-http.sh runs it with its default modes)
    on, off = runs["gotraced+labels"], runs["gotraced:no-labels+labels"]
    srv, dmn = [], []
    for a, b in zip(on, off):
        if None in (a.get("server_cpu_s"), b.get("server_cpu_s"), a.get("achieved"), b.get("achieved")):
            continue
        srv.append((a["server_cpu_s"] / a["achieved"]) / (b["server_cpu_s"] / b["achieved"]))
        if a.get("daemon_cpu_s") and b.get("daemon_cpu_s"):
            dmn.append(a["daemon_cpu_s"] / b["daemon_cpu_s"])
    def m(xs):
        return "-" if not xs else "%.3f (%.3f..%.3f; %s)" % (bu.median(xs), min(xs), max(xs),
                                                            " ".join("%.3f" % x for x in xs))
    print("  labels (gotraced vs --no-labels, server labelling every request; median, range and every rep): "
          "server CPU per request x%s; daemon CPU x%s" % (m(srv), m(dmn)))


def measure_trap_ns(a, failed):
    """One uprobe hit with an empty BPF program at an emulated site (entry+4), in the
    target's CPU time, measured here and now by gotraced-uprobe-cost: the trap every
    uprobe hit of gotraced pays before its program runs."""
    if not a.uprobe_cost or not a.uprobe_target:
        return None
    c = subprocess.run([a.uprobe_cost, a.uprobe_target, "--reps", "3", "--calls", "200000", "--slow-calls", "2000"],
                       capture_output=True, text=True, timeout=300)
    trap = bu.uprobe_hit_ns(c.stdout).get("after_check_empty")
    if trap:
        return trap["cpu_ns"]
    failed.append("gotraced-uprobe-cost: no after_check_empty figure (exit %d: %s)" % (c.returncode, c.stderr[-300:]))
    return None


def print_cost_by_source(label, a, modes, med, trap_ns):
    """Where a recorded event's cost goes (issue 14's table): events per request, then per
    emitted event the uprobe hits and their cost (trap, measured by gotraced-uprobe-cost,
    plus BPF run time), the tracepoint runs and their BPF run time (host-wide: these run
    for every process's syscalls and switches, the client's too), and the server CPU
    measured above the untraced run's."""
    base = med["none"]
    rows = []
    for m in modes:
        r = med[m]
        ev = r.get("window_events")
        req = (r.get("achieved") or a.rate) * r["window_s"]
        added = added_req = None
        if r.get("server_cpu_s") is not None and base.get("server_cpu_s") is not None and ev:
            added = (r["server_cpu_s"] / r["window_s"] - base["server_cpu_s"] / base["window_s"]) * r["window_s"] / ev * 1e6
            added_req = added * ev / req  # per request: the same work in every format
        row = [m, bu.fmt(ev and ev / req, "%.1f")]
        if m.startswith("gotraced") and ev:
            up, tp = r.get("uprobe_runs"), r.get("tp_runs")
            up_bpf = r.get("uprobe_bpf_ns")
            up_us = ((up_bpf or 0) + (up or 0) * trap_ns) / ev / 1000 if trap_ns is not None and up is not None else None
            tp_bpf = r.get("tp_bpf_ns")
            per = lambda x, scale=1: None if x is None else x / ev / scale  # noqa: E731
            row += [bu.fmt(per(up), "%.2f"), bu.fmt(per(up_bpf, 1000), "%.3f"), bu.fmt(up_us, "%.3f"),
                    bu.fmt(per(tp), "%.2f"), bu.fmt(per(tp_bpf, 1000), "%.3f")]
        else:
            row += ["-"] * 5
        row += [bu.fmt(added, "%.2f"), bu.fmt(added_req, "%.1f"), bu.fmt(r["p50_us"], "%.0f"), bu.fmt(r["p99_us"], "%.0f")]
        rows.append(row)
    bu.print_table(
        "Cost by source (%s), per emitted event; uprobe trap %s ns (gotraced-uprobe-cost, this run)" %
        (label, bu.fmt(trap_ns, "%d")),
        ["mode", "events/request", "uprobe hits/event", "uprobe BPF us/event", "uprobe us/event (trap+BPF)",
         "tracepoint runs/event (host)", "tracepoint BPF us/event (host)", "server CPU added us/event",
         "server CPU added us/request", "p50 us", "p99 us"], rows)


def server_syscalls_per_request(a, server):
    """The untraced server's syscalls per request at the bench's rate (perf stat over a
    window of its own, after the modes' runs: the counter slows every syscall of the host
    while it runs); None without perf."""
    srv, addr = start_server(server, None, routes=a.labels)
    seconds = max(1, int(round(a.seconds)))
    cl = subprocess.Popen([a.client, "-url", "http://%s/" % addr, "-rate", str(a.rate), "-warmup", "%gs" % a.warmup,
                           "-duration", "%gs" % (seconds + 1)], stdout=subprocess.PIPE, text=True)
    time.sleep(a.warmup + 0.01)
    rate = bu.syscall_rate(srv.pid, seconds)
    out, _ = cl.communicate()
    srv.send_signal(signal.SIGTERM)
    srv.wait(timeout=30)
    client = dict(kv.split("=") for kv in out.split()[1:]) if out.startswith("RESULT") else {}
    achieved = float(client.get("achieved", 0)) or a.rate
    return rate / achieved if rate is not None else None


def print_per_request(label, a, modes, runs, sys_per_req):
    """Per request and per syscall (issue 28 part 4), each rep against its own untraced
    run, median of the reps: the server's CPU per request and what the mode adds, per
    request and per syscall of the server; a bystander's getppid untraced -> with the mode
    on (what every other process's syscall pays); the daemon's CPU per second and per
    request."""
    def med(m, f):
        xs = []
        for i, r in enumerate(runs[m]):
            b = runs["none"][i] if i < len(runs["none"]) else None
            try:
                x = f(r, b)
            except (TypeError, ZeroDivisionError, KeyError):
                x = None
            if x is not None:
                xs.append(x)
        return bu.median(xs)
    cpu_req = lambda r: r["server_cpu_s"] / (r["achieved"] * r["window_s"]) * 1e6  # noqa: E731 (us)
    rows = []
    for m in modes:
        added = med(m, lambda r, b: cpu_req(r) - cpu_req(b))
        dmn = m.startswith("gotraced")
        rows.append([m, bu.fmt(med(m, lambda r, b: r["achieved"]), "%.0f"),
                     bu.fmt(med(m, lambda r, b: cpu_req(r)), "%.1f"),
                     bu.fmt(added, "%+.1f") if m != "none" else "-",
                     bu.fmt(added * 1000 / sys_per_req if added is not None and sys_per_req else None, "%+.0f")
                     if m != "none" else "-",
                     bu.fmt(med(m, lambda r, b: b["bystander_ns"]), "%.0f") + " -> " +
                     bu.fmt(med(m, lambda r, b: r["bystander_ns"]), "%.0f") if m != "none" else
                     bu.fmt(med(m, lambda r, b: r["bystander_ns"]), "%.0f"),
                     bu.fmt(med(m, lambda r, b: r["bystander_ns"] - b["bystander_ns"]), "%+.0f")
                     if m != "none" else "-",
                     bu.fmt(med(m, lambda r, b: r["daemon_cpu_s"] / r["window_s"] * 1000), "%.1f") if dmn else "-",
                     bu.fmt(med(m, lambda r, b: r["daemon_cpu_s"] / (r["achieved"] * r["window_s"]) * 1e6), "%.2f")
                     if dmn else "-"])
    bu.print_table(
        "Per request and per syscall (%s), median of %d reps, each against its rep's untraced run; the server "
        "makes %s syscalls per request untraced (perf stat)" % (label, len(runs["none"]), bu.fmt(sys_per_req, "%.1f")),
        ["mode", "req/s", "server CPU us/request", "added us/request", "added ns per server syscall",
         "bystander getppid ns (untraced -> this mode)", "added ns per other process's syscall",
         "daemon CPU ms/s", "daemon CPU us/request"], rows)


def print_max(label, a, modes, max_runs):
    """Maximum throughput (closed loop): requests/s served per mode, against untraced."""
    rows = []
    base = bu.median([r.get("achieved") for r in max_runs["none"]])
    for m in modes:
        rs = max_runs[m]
        ach = [r.get("achieved") for r in rs]
        rows.append([m, bu.fmt(bu.median(ach), "%.0f"), "%s..%s" % (bu.fmt(min(ach), "%.0f"), bu.fmt(max(ach), "%.0f")),
                     bu.ratio(bu.median(ach), base), bu.fmt(bu.median([r.get("p50_us") for r in rs]), "%.0f"),
                     bu.fmt(bu.median([r.get("p99_us") for r in rs]), "%.0f"),
                     bu.fmt(bu.median([r["server_cpu_s"] / r["window_s"] * 1000 for r in rs
                                       if r.get("server_cpu_s") is not None]), "%.0f")])
    bu.print_table("Maximum throughput (%s), %d keep-alive connections back to back, %gs window, median of %d" %
                   (label, a.closed, a.seconds, a.reps),
                   ["mode", "req/s", "range", "x none", "p50 us", "p99 us", "server CPU ms/s"], rows)


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
    ap.add_argument("--labels", action="store_true",
                    help="the server's four routes (-routes) in every mode, a pprof label set per request (-labels): "
                    "untraced, gotraced --no-labels and gotraced, and the labelled runs' report by route (issue 34)")
    ap.add_argument("--closed", type=int, default=0,
                    help="also the maximum throughput: this many keep-alive connections sending back to back, per mode")
    ap.add_argument("--uprobe-cost", help="gotraced-uprobe-cost: measures one uprobe trap here, for the cost by source")
    ap.add_argument("--uprobe-target", help="the fidelity target gotraced-uprobe-cost probes")
    ap.add_argument("--getppid", help="bench/host's gotraced-getppid-ns: another process's syscall after each window")
    ap.add_argument("--syscall-rate", action="store_true",
                    help="the untraced server's syscalls per request (perf stat), for the cost per syscall")
    a = ap.parse_args()
    modes = LEVEL_MODES if a.levels else KERNEL_VIEW_MODES if a.kernel_view else LABEL_MODES if a.labels else MODES
    if a.modes:
        modes = tuple(a.modes.split(","))
        if "none" not in modes:  # every figure is against the untraced run of the same rep
            modes = ("none",) + modes
        unknown = [m for m in modes if m not in LEVEL_MODES + KERNEL_VIEW_MODES + LABEL_MODES]
        if unknown:
            raise SystemExit("http bench: unknown mode(s) %s (known: %s)" % (", ".join(unknown),
                                                                         ", ".join(LEVEL_MODES + KERNEL_VIEW_MODES[-1:])))
    work = tempfile.mkdtemp(prefix="bench-http-")
    results = {}
    failed = []
    trap_ns = measure_trap_ns(a, failed)
    try:
        bu.bpf_stats_enable()  # the cost by source (run_mode reads it)
    except OSError as e:
        failed.append("no BPF program statistics (%s): the cost by source is not measured" % e)
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
        max_runs = {m: [] for m in modes}
        for rep in range(a.reps if a.closed else 0):
            for mode in modes:
                r = run_mode(a, server, mode, work, "%s-max-%d" % (label, rep), closed=a.closed)
                max_runs[mode].append(r)
                if "error" in r:
                    failed.append("%s %s (closed loop): %s" % (label, mode, r["error"]))
        if a.closed:
            results[label + " closed"] = max_runs
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
                         bu.fmt(r.get("lost"), "%d") if m.startswith("gotraced") else "-",
                         bu.fmt(r.get("repairs_per_m"), "%.1f") if m.startswith("gotraced") else "-"])
        bu.print_table(
            "HTTP server (%s), %g requests/s on loopback, %gs window after %gs warm-up, median of %d" %
            (label, a.rate, a.seconds, a.warmup, a.reps),
            ["mode", "req/s", "p50 us", "p99 us", "server CPU ms/s", "x none", "server+daemon CPU vs none (range)",
             "daemon CPU ms/s", "server peak RSS MB", "events/s", "tracer CPU us/event",
             "daemon peak RSS MB", "of it ring MB", "daemon heap MB (window)", "lost", "repairs per M events"], rows)
        g, t = med.get("gotraced", {}), rt
        if g:
            print("  gotraced daemon CPU per event: %s us (runtime/trace: %s us in the process; ratio %s)" %
                  (bu.fmt(g.get("tracer_us_per_event"), "%.3f"), bu.fmt(t.get("tracer_us_per_event"), "%.3f"),
                   bu.ratio(g.get("tracer_us_per_event"), t.get("tracer_us_per_event"))))
        print_cost_by_source(label, a, modes, med, trap_ns)
        sys_per_req = server_syscalls_per_request(a, server) if a.syscall_rate else None
        if a.syscall_rate and sys_per_req is None:
            failed.append("%s: no syscall count (perf stat raw_syscalls:sys_enter)" % label)
        print_per_request(label, a, modes, runs, sys_per_req)
        if a.closed:
            print_max(label, a, modes, max_runs)
        if a.kernel_view:
            kernel_view_delta(runs, a.rate)
        if a.labels:
            labels_delta(runs)
        if g.get("start_ms") and g["start_ms"] > a.warmup * 1000:
            print("  note: gotraced's start-up (%.0f ms) outlasted the warm-up: its window holds start-up CPU" %
                  g["start_ms"])
    bu.bpf_stats_restore()
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    if failed:
        print("FAIL: " + "; ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
