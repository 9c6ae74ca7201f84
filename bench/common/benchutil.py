"""What the bench scripts (bench/*/\*.py, run by scripts/bench-*.sh) share: process CPU
and memory from /proc, medians, gotraced's summary and --verbose lines, tracecheck, and
the table printer. Standard library only."""
import atexit
import os
import re
import signal
import statistics
import subprocess
import sys

CLK_TCK = os.sysconf("SC_CLK_TCK")


def proc_cpu_s(pid):
    """User + system CPU seconds of process pid (all its threads), from /proc/PID/stat
    (fields 14 and 15, utime and stime, in clock ticks: proc(5)); None once it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            s = f.read()
    except OSError:
        return None
    fields = s[s.rindex(")") + 2:].split()  # comm may hold spaces: split after it
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def proc_status_kb(pid, key):
    """A kB field of /proc/PID/status (VmRSS, VmHWM ...); None if unreadable."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def bpf_map_rss_kb(pid):
    """Resident kB of the BPF maps process pid has mapped (/proc/PID/smaps, the mappings
    named anon_inode:bpf-map): the ring buffer, whose pages the kernel allocates when the
    map is created and user space maps twice (kernel/bpf/ringbuf.c), so it counts twice
    its size whatever the load."""
    total, in_map = 0, False
    try:
        with open("/proc/%d/smaps" % pid) as f:
            for line in f:
                first = line.split(None, 1)[0]
                if "-" in first and first[0] in "0123456789abcdef" and not first.endswith(":"):
                    in_map = line.rstrip().endswith("anon_inode:bpf-map")
                elif in_map and first == "Rss:":
                    total += int(line.split()[1])
    except OSError:
        return None
    return total


# BPF program types in /proc/PID/fdinfo (include/uapi/linux/bpf.h enum bpf_prog_type):
# uprobes are KPROBE programs; tp_btf tracepoints are TRACING.
PROG_KPROBE = 2
PROG_TRACING = 26


def bpf_prog_stats(pid):
    """{prog_id: (prog_type, run_cnt, run_time_ns)} of the BPF programs process pid holds,
    from /proc/PID/fdinfo (kernel/bpf/syscall.c bpf_prog_show_fdinfo; run_cnt and
    run_time_ns count only while kernel.bpf_stats_enabled=1). Cheap enough to poll."""
    out = {}
    try:
        fds = os.listdir("/proc/%d/fd" % pid)
    except OSError:
        return out
    for fd in fds:
        try:
            if os.readlink("/proc/%d/fd/%s" % (pid, fd)) != "anon_inode:bpf-prog":
                continue
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                kv = dict(l.split(":", 1) for l in f.read().splitlines() if ":" in l)
            out[int(kv["prog_id"])] = (int(kv["prog_type"]), int(kv.get("run_cnt", 0)),
                                       int(kv.get("run_time_ns", 0)))
        except (OSError, KeyError, ValueError):
            continue
    return out


BPF_STATS = "/proc/sys/kernel/bpf_stats_enabled"
_bpf_stats_prev = None


def bpf_stats_enable():
    """Switches the kernel's per-program run statistics on (kernel.bpf_stats_enabled: the
    run_cnt and run_time_ns that bpf_prog_stats reads) until bpf_stats_restore or exit,
    Ctrl-C and SIGTERM included: left on, their clock reads cost every BPF program on the
    machine ~68 ns per run (docs/probe-plan.md §7.1). Raises OSError when it cannot."""
    global _bpf_stats_prev
    with open(BPF_STATS) as f:
        prev = f.read().strip()
    if prev == "1":
        return
    with open(BPF_STATS, "w") as f:
        f.write("1")
    if _bpf_stats_prev is None:
        atexit.register(bpf_stats_restore)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    _bpf_stats_prev = prev


def bpf_stats_restore():
    """Puts kernel.bpf_stats_enabled back as bpf_stats_enable found it; quiet if it cannot."""
    global _bpf_stats_prev
    if _bpf_stats_prev is None:
        return
    try:
        with open(BPF_STATS, "w") as f:
            f.write(_bpf_stats_prev)
    except OSError:
        pass
    _bpf_stats_prev = None


def getppid_ns(tool, calls=300000):
    """ns of CPU per getppid in a process no one watches (bench/host/getppid_ns.c,
    gotraced-getppid-ns): what another process's syscall costs while gotraced runs (issue
    28: a program on a syscall tracepoint puts every syscall of the host on the kernel's
    slow path). Run it between measured windows: its own CPU is in none of them."""
    out = subprocess.run([tool, str(calls)], capture_output=True, text=True, check=True).stdout
    return float(out.strip())


def syscall_rate(pid, seconds=3):
    """Process pid's syscalls per second, by perf stat on raw_syscalls:sys_enter for
    `seconds`; None without perf. Not inside a measured window: that counter makes every
    syscall of the host slower while it runs."""
    try:
        r = subprocess.run(["perf", "stat", "-x,", "-e", "raw_syscalls:sys_enter", "-p", str(pid), "--", "sleep",
                            str(seconds)], capture_output=True, text=True, timeout=seconds + 30)
        return float(r.stderr.strip().splitlines()[-1].split(",")[0]) / seconds
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return None


def uprobe_hit_ns(text):
    """gotraced-uprobe-cost's last lines ("uprobe_hit_ns MODE WALL CPU") as
    {mode: {"wall_ns": .., "cpu_ns": ..}}."""
    return {m.group(1): {"wall_ns": int(m.group(2)), "cpu_ns": int(m.group(3))}
            for m in re.finditer(r"uprobe_hit_ns (\S+) (-?\d+) (-?\d+)", text)}


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


# gotraced's summary line (cli/status_line.cc FormatSummary) and --verbose line
# (cli/record_command.cc).
SUMMARY_RE = re.compile(r"gotraced: pid (\d+) \(([^)]*)\) ([0-9.]+)s -> .*?: (\d+) events")
LOST_RE = re.compile(r"LOST (\d+) records")
VERBOSE_RE = re.compile(
    r"start-up ([0-9.]+) ms \(binary analysis ([0-9.]+), BPF load and verification ([0-9.]+) for (\d+) programs, "
    r"attach ([0-9.]+) for (\d+) uprobes, snapshot ([0-9.]+), self-check ([0-9.]+)\); stop ([0-9.]+) ms"
    r" \(detach ([0-9.]+)")
VERBOSE_KEYS = ("start_ms", "plan_ms", "load_ms", "programs", "attach_ms", "uprobes", "snapshot_ms",
                "self_check_ms", "stop_ms", "detach_ms")
# The same line's count of records that contradicted the model's state (repaired).
REPAIRS_RE = re.compile(r"(\d+) model repairs")


def parse_summary(text):
    """{'seconds', 'events', 'lost'} from gotraced's stderr, or None without a summary."""
    m = SUMMARY_RE.search(text)
    if not m:
        return None
    lost = LOST_RE.search(text)
    return {"seconds": float(m.group(3)), "events": int(m.group(4)), "lost": int(lost.group(1)) if lost else 0}


def parse_verbose(text):
    """The --verbose breakdown as a dict of VERBOSE_KEYS (ms, counts) and "repairs", or None."""
    m = VERBOSE_RE.search(text)
    if not m:
        return None
    out = {k: float(v) for k, v in zip(VERBOSE_KEYS, m.groups())}
    r = REPAIRS_RE.search(text)
    if r:
        out["repairs"] = int(r.group(1))
    return out


def tracecheck_events(tracecheck, path, validate=True):
    """Events in a trace file as tests/tracecheck parses it (Go's own internal/trace
    reader, golang.org/x/exp/trace) with its semantic checks, or with the parser alone
    (validate=False: for the runtime's own files, e.g. go1.19's, whose syscall events the
    checks refuse); None when the file does not parse."""
    r = subprocess.run([tracecheck, path] + ([] if validate else ["--no-validate"]), capture_output=True, text=True)
    if r.returncode != 0:
        return None
    m = re.search(r'"events": (\d+)', r.stdout)
    return int(m.group(1)) if m else None


def ratio(a, b):
    """a / b as "1.23x"; "-" when either is missing or b is not positive (a CPU delta
    below the clock tick)."""
    return "%.2fx" % (a / b) if a is not None and b is not None and b > 1e-9 else "-"


def fmt(v, spec="%.1f"):
    return "-" if v is None else spec % v


def print_table(title, header, rows):
    """A plain aligned table: header is a list of column names, rows lists of strings."""
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    print("\n== " + title)
    for r in [header] + rows:
        print("  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    sys.stdout.flush()
