#!/usr/bin/env python3
"""Memory soak (issue 30): the daemon's RSS over a long full-detail recording of the HTTP
bench server (bench/http/server) driven at a fixed rate with a new connection per
request (bench/http/client -new-conn: the server creates a goroutine per connection, so
goroutines, fds and peer addresses come and go all the time). Called by
scripts/bench-soak.sh and, short, by tests/suites/54-memory-soak.sh.

  soak.py --gotraced G --client C --server LABEL=PATH [--server ...] [--serve]
          [--seconds S] [--rate R] [--sample S] [--probe S] [--window S] [--warm S] [--bound-mb M]
          [--tracecheck T] [--json FILE]

Per server: `gotraced --pid` (each target's own trace format: the go1.19 server writes
"go 1.19 trace", the go1.21 one "go 1.21 trace", a go1.22+ one the v2 format) or, with
--serve, `gotraced serve` watching that executable at level full (a flight window, the
always-on path). Every --probe s (1): the daemon's VmRSS, its heap (RssAnon) and the BPF
maps' resident pages (the ring buffer: mapped pages, not the daemon's own memory); a line
with the least and most of each every --sample s. Growth = the floor (least sample) of
VmRSS less the BPF maps (and, with --serve, less the flight window's bytes that
/processes reports: bounded by window_mb, following the event rate) over the last
--window s (30) minus its floor over the first
--window s after --warm s: what is held for a moment (a generation being encoded, a
drain's records) swings one sample by 2-5 MB, a leak raises the floor (the median's
growth is printed beside it). Exits non-zero when a growth exceeds
--bound-mb, the daemon died or exited non-zero, the client saw errors, or (with
--tracecheck) the recording does not parse, or the server answered no request (client
errors, e.g. requests timed out on a loaded machine, are printed, not judged).
"""
import argparse
import json
import re
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import benchutil as bu  # noqa: E402


def start_server(path):
    p = subprocess.Popen([path, "-addr", "127.0.0.1:0"], stdout=subprocess.PIPE, text=True)
    line = p.stdout.readline()
    if not line.startswith("listening "):
        p.kill()
        raise SystemExit("soak: server did not start: %r" % line)
    return p, line.split()[1]


def serve_config(work, exe):
    sock = os.path.join(work, "gotraced.sock")
    conf = os.path.join(work, "gotraced.toml")
    with open(conf, "w") as f:
        f.write('[flight]\nwindow_seconds = 10\nwindow_mb = 16\nmemory_mb = 256\ngeneration_ms = 1000\n'
                '[endpoint]\nsocket = "%s"\n[discovery]\nrescan_seconds = 2\n'
                '[[watch]]\nexe = "%s"\nlevel = "full"\n' % (sock, exe))
    return conf, sock


def rss_sample(pid):
    rss = bu.proc_status_kb(pid, "VmRSS")
    anon = bu.proc_status_kb(pid, "RssAnon")
    maps = bu.bpf_map_rss_kb(pid)
    if rss is None or anon is None or maps is None:
        return None
    return {"rss_kb": rss, "anon_kb": anon, "bpf_kb": maps}


def own_kb(s):
    """What the daemon holds of its own: RSS less the BPF maps and, under serve, less the
    flight window's bytes (generations kept for a dump, bounded by window_mb and following
    the event rate, not the recording's age)."""
    return s["rss_kb"] - s["bpf_kb"] - s.get("window_kb", 0)


def window_kb(sock, pid):
    """The bytes serve holds in pid's flight window, from /processes (0 if not listed)."""
    m = re.search(r'"window":\{[^}]*"bytes":(\d+)', serve_state(sock, pid))
    return int(m.group(1)) / 1024 if m else 0


def serve_state(sock, pid):
    """The line /processes gives for pid ("" if none)."""
    q = subprocess.run(["curl", "-s", "--max-time", "10", "--unix-socket", sock, "http://gotraced/processes"],
                       capture_output=True, text=True)
    line = [x for x in q.stdout.splitlines() if '"pid":%d,' % pid in x]
    return line[-1] if line else ""


def wait_recording(daemon, server_pid, trace, sock, seconds=180):
    """Until the daemon records the target: --pid, its first generation is in the file
    (written 1 s after its first record);
    serve, /processes says "recording". Attaching may take long on a loaded machine: the
    load and the clock start only then, so the warm-up is the recording's."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if daemon.poll() is not None:
            return False
        if sock:
            if '"state":"recording"' in serve_state(sock, server_pid):
                return True
        elif os.path.exists(trace) and os.path.getsize(trace) > 0:
            return True
        time.sleep(0.5)
    return False


def run_one(a, label, server, work):
    if a.serve:
        # serve watches an executable path: a copy of the server's own in the work dir, so
        # that no other process of the build's binary (a test, a bench) is watched too and
        # its window counted in the daemon's RSS.
        own = os.path.join(work, "server-%s" % label)
        shutil.copy2(server, own)
        server = own
    srv, addr = start_server(server)
    trace = os.path.join(work, "%s.trace" % label)
    log = open(os.path.join(work, "%s.log" % label), "w+")
    sock = None
    if a.serve:
        conf, sock = serve_config(work, server)
        gt = subprocess.Popen([a.gotraced, "serve", "--config", conf], stdout=log, stderr=subprocess.STDOUT)
    else:
        gt = subprocess.Popen([a.gotraced, "--quiet", "--pid", str(srv.pid), "--out", trace],
                              stdout=subprocess.DEVNULL, stderr=log)
    t_start = time.monotonic()
    # A few requests meanwhile: an idle target writes no record, so no generation ends.
    primer = subprocess.Popen([a.client, "-url", "http://%s/" % addr, "-new-conn", "-rate", "20", "-duration", "300s"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    recording = wait_recording(gt, srv.pid, trace, sock)
    primer.kill()
    primer.wait()
    if not recording:
        srv.kill()
        gt.kill()
        raise SystemExit("soak: gotraced did not start recording %s" % server)
    print("  %-8s recording after %.1f s" % (label, time.monotonic() - t_start), flush=True)
    # -conns: no cap on concurrent connections (the client's default of 64 throttled a
    # traced server on a loaded machine to ~230 requests/s, the rest timing out).
    load = ["-closed", str(a.closed)] if a.closed else ["-conns", "4096", "-rate", str(a.rate)]
    cl = subprocess.Popen([a.client, "-url", "http://%s/" % addr, "-new-conn"] + load + ["-duration", "%gs" % a.seconds],
                          stdout=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    series = []  # one sample every a.probe s; a line printed every a.sample s
    dead = None
    while True:
        time.sleep(max(0.0, (len(series) + 1) * a.probe - (time.monotonic() - t0)))
        t = time.monotonic() - t0
        s = rss_sample(gt.pid) if gt.poll() is None else None
        if s is None:
            dead = "gotraced exited (%s) at %.0f s" % (gt.returncode, t)
            break
        s["t"] = round(t, 1)
        if a.serve:
            s["window_kb"] = window_kb(sock, srv.pid)
        series.append(s)
        last = [x for x in series if x["t"] > t - a.sample + a.probe / 2]
        if len(series) % max(1, round(a.sample / a.probe)) == 0:
            own = [own_kb(x) / 1024 for x in last]
            heap = [x["anon_kb"] / 1024 for x in last]
            print("  %-8s t=%4ds RSS %7.1f MB  less BPF maps%s %6.1f..%6.1f MB  heap %6.1f..%6.1f MB  BPF maps %6.1f MB%s" %
                  (label, round(t), s["rss_kb"] / 1024, " and window" if a.serve else "", min(own), max(own),
                   min(heap), max(heap), s["bpf_kb"] / 1024,
                   "  window %.1f MB" % (s["window_kb"] / 1024) if a.serve else ""), flush=True)
        if t >= a.seconds - 0.5:
            break
    if a.serve:
        # What the daemon says of the target: attached, at which level, how much held.
        print("  serve: %s" % (serve_state(sock, srv.pid)[:400] or "target not listed"), flush=True)
    try:
        out, _ = cl.communicate(timeout=120)
    except subprocess.TimeoutExpired:  # a starved open-loop client still sending: no figures
        cl.kill()
        out, _ = cl.communicate()
        out = ""
    client = dict(kv.split("=") for kv in out.split()[1:]) if out.startswith("RESULT") else {}
    if gt.poll() is None:
        gt.send_signal(signal.SIGINT)
        try:
            gt.wait(timeout=120)
        except subprocess.TimeoutExpired:
            gt.kill()
            dead = dead or "gotraced did not stop within 120 s"
    srv.send_signal(signal.SIGTERM)
    srv.wait(timeout=30)
    log.seek(0)
    err = log.read()
    res = {"label": label, "serve": a.serve, "seconds": a.seconds, "rate": a.rate, "series": series,
           "achieved": float(client.get("achieved", 0)), "errors": int(client.get("errors", -1)),
           "gotraced_exit": gt.returncode, "error": dead}
    if not a.serve:
        summ = bu.parse_summary(err) or {}
        res["events"], res["lost"] = summ.get("events"), summ.get("lost")
        if gt.returncode != 0 and not dead:
            res["error"] = "gotraced exited %d: %s" % (gt.returncode, err[-400:])
        if a.tracecheck and not res["error"]:
            if bu.tracecheck_events(a.tracecheck, trace) is None:
                res["error"] = "%s does not parse (tracecheck)" % trace
        res["trace_mb"] = os.path.getsize(trace) / 1e6 if os.path.exists(trace) else None
        if os.path.exists(trace):
            os.unlink(trace)
    growth(res, a.warm, a.window)
    return res


def growth(res, warm, window):
    """Growth after the warm-up, for RSS less the BPF maps and for the heap alone (MB): the
    floor (least sample) of the last `window` s minus the floor of the first `window` s
    after `warm`. What the daemon holds for a moment (a generation being encoded, a drain's
    records) swings a single sample by 2-5 MB with when it is taken; a leak raises the
    floor. The median of the same windows is given beside it."""
    after = [s for s in res["series"] if s["t"] >= warm]
    if len(after) < 2:
        res["growth_mb"] = res["heap_growth_mb"] = res["median_growth_mb"] = None
        return
    # A run shorter than two windows after the warm-up (bench-soak --smoke: 8 s) splits
    # what it has in halves.
    window = min(window, (after[-1]["t"] - after[0]["t"]) / 2)
    res["window_s"] = window
    first = [s for s in after if s["t"] < after[0]["t"] + window]
    last = [s for s in after if s["t"] > after[-1]["t"] - window]

    def own(xs):
        return [own_kb(s) / 1024 for s in xs]

    def heap(xs):
        return [s["anon_kb"] / 1024 for s in xs]

    res["growth_mb"] = min(own(last)) - min(own(first))
    res["heap_growth_mb"] = min(heap(last)) - min(heap(first))
    res["median_growth_mb"] = statistics.median(own(last)) - statistics.median(own(first))
    res["warm_rss_mb"] = min(own(first))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gotraced", required=True)
    ap.add_argument("--client", required=True)
    ap.add_argument("--server", action="append", required=True, help="LABEL=PATH")
    ap.add_argument("--serve", action="store_true", help="gotraced serve at level full instead of --pid")
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--rate", type=float, default=2000)
    ap.add_argument("--closed", type=int, default=0,
                    help="closed loop: N connections at a time, each request on a new one (--rate ignored): the "
                         "server's live goroutines stay ~N whatever the machine's load")
    ap.add_argument("--sample", type=float, default=10, help="a line every this many seconds")
    ap.add_argument("--probe", type=float, default=1, help="RSS read every this many seconds")
    ap.add_argument("--window", type=float, default=30,
                    help="growth: the RSS floor of the last WINDOW s minus that of the first WINDOW s after --warm")
    ap.add_argument("--warm", type=float, default=60)
    ap.add_argument("--bound-mb", type=float, default=2)
    ap.add_argument("--tracecheck")
    ap.add_argument("--json")
    a = ap.parse_args()
    results, failed = [], []
    with tempfile.TemporaryDirectory(prefix="gotraced-soak.") as work:
        for spec in a.server:
            label, path = spec.split("=", 1)
            load = "%d connections back to back" % a.closed if a.closed else "%g requests/s" % a.rate
            print("soak %s: %s at %s (new connection each), %g s, RSS every %g s" %
                  (label, "serve level full" if a.serve else "gotraced --pid", load, a.seconds, a.sample), flush=True)
            r = run_one(a, label, path, work)
            results.append(r)
            print("soak %s: RSS less BPF maps %s MB (floor of %g..%g s), growth of the floor to the last %g s %s MB "
                  "(heap %s MB; of the median %s MB); %s events, %s lost, %.0f requests/s, %d client errors%s" %
                  (label, bu.fmt(r.get("warm_rss_mb")), a.warm, a.warm + r.get("window_s", a.window),
                   r.get("window_s", a.window),
                   bu.fmt(r["growth_mb"], "%.2f"), bu.fmt(r["heap_growth_mb"], "%.2f"),
                   bu.fmt(r.get("median_growth_mb"), "%.2f"), r.get("events", "-"), r.get("lost", "-"), r["achieved"],
                   r["errors"], ", trace %.0f MB" % r["trace_mb"] if r.get("trace_mb") else ""), flush=True)
            if r["error"]:
                failed.append("%s: %s" % (label, r["error"]))
            elif r["growth_mb"] is None:
                failed.append("%s: too few samples after the warm-up" % label)
            elif r["growth_mb"] > a.bound_mb:
                failed.append("%s: RSS grew %.2f MB after %g s (bound %g MB)" % (label, r["growth_mb"], a.warm,
                                                                                 a.bound_mb))
            # A loaded machine's server may not keep up (the client's requests time out
            # after 5 s): said, not failed; a server that served nothing is a broken run.
            if r["achieved"] <= 0 and r["errors"] >= 0:
                failed.append("%s: the server answered no request (%d client errors)" % (label, r["errors"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    for f in failed:
        print("FAIL: " + f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
