"""Host cost of `gotraced serve` (issue 28 part 0): what the processes it does NOT watch
pay, and what the daemon holds, as the number of watched processes grows. Called by
scripts/bench-host.sh.

Phase 1, per N in --counts (0 1 10 50 by default): N idle Go processes (bench/host/idle:
~10 goroutine syscalls a second each) watched by one serve at its default (level low,
CPU samples at 100 Hz, syscalls >= 1 ms). For each N, alternating with no serve at all:
a bystander's getppid (gotraced-getppid-ns, ns per call, median of --reps runs), and
for serve its CPU over --seconds once idle (--settle s after the last attach, and past
the standbys' loads: % of one core), RSS, the BPF programs its process holds, and the
kernel memory of its maps (fdinfo memlock, the rings included); and each of those three
per watched process beyond N=0's.

Phase 2 (--attach N, default 100; 0: off): N processes of one binary started at 10 a
second, each living 400 ms, under a running serve: serve's CPU over the phase, per
attach, and how many attaches took the loaded object of an exited process of the binary
(capture.h EnableObjectReuse; GOTRACED_OBJECT_REUSE=0 in the environment turns it off). Prints every run, then the tables."""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
import benchutil as bu  # noqa: E402


def bpf_fds(pid):
    """(programs, map memlock bytes) of the BPF objects process pid holds (fdinfo)."""
    progs, memlock = set(), 0
    seen_maps = set()
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return None, None
    for fd in fds:
        try:
            link = os.readlink("/proc/%d/fd/%s" % (pid, fd))
            if link not in ("anon_inode:bpf-prog", "anon_inode:bpf-map"):
                continue
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                kv = dict(l.split(":", 1) for l in f.read().splitlines() if ":" in l)
            if link == "anon_inode:bpf-prog":
                progs.add(int(kv["prog_id"]))
            elif int(kv["map_id"]) not in seen_maps:
                seen_maps.add(int(kv["map_id"]))
                memlock += int(kv.get("memlock", 0))
        except (OSError, KeyError, ValueError):
            continue
    return len(progs), memlock


def getppid_ns(tool, reps):
    runs = []
    for _ in range(reps):
        out = subprocess.run([tool, "1000000"], capture_output=True, text=True, check=True).stdout
        runs.append(float(out.strip()))
    return runs


def api(sock, path):
    out = subprocess.run(["curl", "-s", "--max-time", "10", "--unix-socket", sock, "http://gotraced" + path],
                         capture_output=True, text=True).stdout
    try:
        return json.loads(out)
    except ValueError:
        return {}


def recording(sock):
    return sum(1 for p in api(sock, "/processes").get("processes", []) if p.get("state") == "recording")


class Serve:
    def __init__(self, gotraced, work, exe):
        self.sock = os.path.join(work, "serve.sock")
        cfg = os.path.join(work, "serve.toml")
        with open(cfg, "w") as f:
            f.write('[flight]\nwindow_seconds = 10\nmemory_mb = 512\n[endpoint]\nsocket = "%s"\n[discovery]\nrescan_seconds = 1\n'
                    '[[watch]]\nexe = "%s"\n' % (self.sock, exe))
        self.log = open(os.path.join(work, "serve.log"), "w")
        self.p = subprocess.Popen([gotraced, "serve", "--config", cfg], stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(100):
            if os.path.exists(self.sock):
                break
            time.sleep(0.1)
        else:
            raise SystemExit("host bench: serve made no socket (see %s)" % self.log.name)

    def wait_recording(self, n, timeout=120):
        t0 = time.time()
        while time.time() - t0 < timeout:
            if recording(self.sock) >= n:
                return True
            time.sleep(0.5)
        return False

    def wait_standbys(self, settle):
        """At least `settle` s, then until 2 s pass with no standby loaded (at most 60 s)."""
        t0, last, seen = time.time(), time.time(), -1
        while time.time() - t0 < 60:
            with open(self.log.name) as f:
                n = sum(1 for l in f if "standby" in l)
            if n != seen:
                seen, last = n, time.time()
            if time.time() - t0 >= settle and time.time() - last >= 2:
                return
            time.sleep(0.5)

    def stop(self):
        self.p.terminate()
        self.p.wait(timeout=60)
        self.log.close()


def start_idle(exe, n, life=None):
    procs = []
    for _ in range(n):
        cmd = [exe] + (["-life", life] if life else [])
        procs.append(subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    return procs


def phase_counts(a, exe, work):
    """One serve per N (memory_mb = 512: issue 28's node of 50 watched processes)."""
    rows = []
    procs = []
    try:
        for n in a.counts:
            procs += start_idle(exe, n - len(procs))
            none = getppid_ns(a.getppid, a.reps)
            srv = Serve(a.gotraced, work, exe)
            try:
                if n and not srv.wait_recording(n):
                    raise SystemExit("host bench: serve records %d of %d processes after 120 s" % (recording(srv.sock), n))
                # Idle means past the standbys' loads: each recording's is made after 5 s
                # (service.cc kStandbyDelay), one load at a time, 60-300 ms of CPU each,
                # which a window right after the attach counted as the idle cost.
                srv.wait_standbys(a.settle)
                c0, t0 = bu.proc_cpu_s(srv.p.pid), time.time()
                watched = getppid_ns(a.getppid, a.reps)
                time.sleep(max(0.0, a.seconds - (time.time() - t0)))
                c1, t1 = bu.proc_cpu_s(srv.p.pid), time.time()
                progs, memlock = bpf_fds(srv.p.pid)
                rss = bu.proc_status_kb(srv.p.pid, "VmRSS")
            finally:
                srv.stop()
            none += getppid_ns(a.getppid, a.reps)  # and after: the machine's drift
            cpu = (c1 - c0) / (t1 - t0) * 100
            print("N=%-3d getppid ns: no serve %s | serve %s; serve CPU %.2f%% of a core, RSS %d MB, %d BPF "
                  "programs, map memlock %.1f MB" % (n, " ".join("%.0f" % x for x in none),
                                                     " ".join("%.0f" % x for x in watched), cpu, rss // 1024,
                                                     progs, memlock / 2**20), flush=True)
            rows.append({"n": n, "none": none, "serve": watched, "cpu": cpu, "rss_kb": rss, "progs": progs,
                         "memlock": memlock})
    finally:
        for p in procs:
            p.kill()
            p.wait()
    return rows


def phase_attach(a, exe, work):
    srv = Serve(a.gotraced, work, exe)
    started = []
    try:
        time.sleep(2)
        c0, t0 = bu.proc_cpu_s(srv.p.pid), time.time()
        for i in range(a.attach):
            started += start_idle(exe, 1, life="400ms")
            time.sleep(max(0.0, t0 + (i + 1) / 10.0 - time.time()))
        for p in started:
            p.wait()
        time.sleep(2)  # the last ones' detach
        c1, t1 = bu.proc_cpu_s(srv.p.pid), time.time()
        log = open(srv.log.name).read().splitlines()
        attached = sum(1 for l in log if "tracing pid" in l)
        reused = sum(1 for l in log if "tracing pid" in l and "reusing the loaded object" in l)
        failed = sum(1 for l in log if "cannot trace pid" in l)
    finally:
        srv.stop()
    cpu_ms = (c1 - c0) * 1000
    print("attach: %d processes started at 10/s (400 ms each), %d recorded (%d of them by reuse of an exited one's "
          "loaded object), %d gone before the attach: serve CPU %.0f ms over %.1f s (%.0f%% of a core), "
          "%.1f ms per process" % (
              a.attach, attached, reused, failed, cpu_ms, t1 - t0, cpu_ms / (t1 - t0) / 10, cpu_ms / max(1, a.attach)),
          flush=True)
    return {"started": a.attach, "recorded": attached, "reused": reused, "failed": failed, "cpu_ms": cpu_ms,
            "seconds": t1 - t0}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", required=True)
    ap.add_argument("--idle", required=True, help="the bench/host/idle binary")
    ap.add_argument("--counts", type=int, nargs="*", default=[0, 1, 10, 50])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=10)
    ap.add_argument("--settle", type=float, default=7,
                    help="seconds after every process is recorded before serve's CPU is measured (and the standbys' loads are over)")
    ap.add_argument("--attach", type=int, default=100)
    ap.add_argument("--json")
    ap.add_argument("--keep", action="store_true", help="keep the work directory (serve's logs)")
    a = ap.parse_args()
    a.gotraced = os.path.join(a.build, "cli", "gotraced")
    a.getppid = os.path.join(a.build, "bench", "host", "gotraced-getppid-ns")
    work = tempfile.mkdtemp(prefix="gotraced-host-bench.")
    try:
        exe = os.path.join(work, "idle")
        shutil.copy(a.idle, exe)
        rows = phase_counts(a, exe, work) if a.counts else []
        att = phase_attach(a, exe, work) if a.attach else None
    finally:
        if a.keep:
            print("kept " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    base1 = next((bu.median(r["serve"]) for r in rows if r["n"] == 1), None)
    base0 = next((r for r in rows if r["n"] == 0), None)

    def per_proc(r, key, scale, fmt):
        return fmt % ((r[key] - base0[key]) / scale / r["n"]) if base0 and r["n"] else "-"
    bu.print_table("Host cost of serve's default by watched processes (getppid: median ns per call of %d runs)" % a.reps,
                   ["watched", "getppid no serve", "getppid serve", "x no serve", "x N=1", "serve CPU %",
                    "RSS MB", "BPF progs", "maps MB", "CPU %/proc", "RSS MB/proc", "maps MB/proc"],
                   [[r["n"], bu.fmt(bu.median(r["none"]), "%.0f"), bu.fmt(bu.median(r["serve"]), "%.0f"),
                     bu.fmt(bu.median(r["serve"]) / bu.median(r["none"]), "%.2f"),
                     bu.fmt(bu.median(r["serve"]) / base1 if base1 else None, "%.2f"), "%.2f" % r["cpu"],
                     r["rss_kb"] // 1024, r["progs"], "%.1f" % (r["memlock"] / 2**20),
                     per_proc(r, "cpu", 1, "%.3f"), per_proc(r, "rss_kb", 1024, "%.2f"),
                     per_proc(r, "memlock", 2**20, "%.2f")] for r in rows])
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"counts": rows, "attach": att}, f, indent=1)


if __name__ == "__main__":
    main()
