#!/usr/bin/env python3
"""Judges one guest of the kernel matrix from what boot-guest.sh left in its log dir.

    judge_guest.py LOGDIR TRACECHECK [BOOT_RC]

BOOT_RC: boot-guest.sh's exit status (124: qemu killed at its timeout; 125: the guest
was not booted for want of time).

Reads LOGDIR/console.log (ttyS0) and LOGDIR/data.log (ttyS1, see guest-init.sh), unpacks
the files the guest sent into LOGDIR/files/, runs Go's parser (tracecheck) on the two
traces and scans the console and the guest's dmesg for kernel oopses. Writes
LOGDIR/result.json: {"uname", "preempt", "cells": {CHECK: {"ok", "text", "why"}},
"selftest": the selftest's output, "selftest_json": its --json report
or null, "oops": [lines], "oops_block": the first oops with
the 30 lines after it} with CHECK in CHECKS. A cell's text
is what the table shows ("ok", "FAIL", "-" for a check that had nothing to look at);
"why" is the one-line reason for anything but "ok".
"""
import base64
import json
import os
import re
import subprocess
import sys

CHECKS = ["boot", "selftest", "launch", "attach", "parse launch", "parse attach", "go1.24/1.25", "low", "preempt",
          "no-oops"]

# What counts as a kernel oops (issue 11/12): matched case-sensitively, so the console's
# "loops_per_jiffy" is not an "Oops".
OOPS = re.compile(r"BUG:|Oops|panic|Call Trace|general protection")
# Lines that name those words without being an oops: the kernel command line (panic=-1)
# and our own markers; a step's output is prefixed "[step] " and judged by its exit status.
NOT_KERNEL = re.compile(r"^(@@GTM|\[(selftest|selftest-json|launch|launch-go1\.2[45]|attach|low|privstack|stackguard|pinned)\] )|[Cc]ommand line: ")


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace").replace("\r", "")
    except FileNotFoundError:
        return ""


def unpack(data, outdir):
    """The files between @@GTM-BEGIN NAME BYTES and @@GTM-END NAME -> {NAME: path}."""
    os.makedirs(outdir, exist_ok=True)
    files, name, size, chunks = {}, None, 0, []
    for line in data.split("\n"):
        if line.startswith("@@GTM-BEGIN "):
            parts = line.split()
            name, size, chunks = parts[1], int(parts[2]) if len(parts) > 2 else -1, []
        elif line.startswith("@@GTM-END ") and name:
            try:
                blob = base64.b64decode("".join(chunks))
            except ValueError:
                blob = None
            if blob is not None and (size < 0 or len(blob) == size):
                path = os.path.join(outdir, os.path.basename(name))
                with open(path, "wb") as f:
                    f.write(blob)
                files[name] = path
            name = None
        elif name:
            chunks.append(line.strip())
    return files


def markers(text):
    """'@@GTM KEY REST' lines -> {KEY: REST} (the last one wins)."""
    m = {}
    for line in text.split("\n"):
        if line.startswith("@@GTM "):
            key, _, rest = line[6:].partition(" ")
            m[key] = rest.strip()
        i = line.find("@@GTM step ")  # a step's marker may follow kernel text on a line
        if i > 0:
            key, _, rest = line[i + 6:].partition(" ")
            m.setdefault(key, rest.strip())
    return m


def steps(text):
    """'@@GTM step NAME rc=N secs=S ...' / 'step NAME not-run: ...' -> {NAME: dict}."""
    out = {}
    for line in text.split("\n"):
        mt = re.search(r"@@GTM step (\S+) rc=(\d+) secs=([\d.]+)(?: timeout=(\d+)s)?( timedout)?",
                       line)
        if mt:
            out[mt.group(1)] = {"rc": int(mt.group(2)), "secs": float(mt.group(3)),
                                "timeout": int(mt.group(4) or 0), "timedout": bool(mt.group(5))}
            continue
        mt = re.search(r"@@GTM step (\S+) not-run: (.*)", line)
        if mt:
            out[mt.group(1)] = {"rc": None, "why": mt.group(2)}
    return out


def begun(text):
    return set(re.findall(r"@@GTM step-begin (\S+)", text))


def preempt_mode(m):
    dbg = m.get("preempt-debugfs", "")
    mt = re.search(r"\((\w+)\)", dbg)
    if mt:
        return mt.group(1)
    mt = re.search(r"Dynamic Preempt: (\w+)", m.get("preempt-dmesg", ""))
    if mt:
        return mt.group(1)
    v = m.get("uname-v", "")
    for word, mode in (("PREEMPT_RT", "rt"), ("PREEMPT_LAZY", "lazy"), ("PREEMPT ", "full")):
        if word in v + " ":
            return mode
    return "?" if not v else "none/voluntary (not dynamic)"


def last_error(path, limit=400):
    """The line of a step's log that says why it failed: gotraced's [error] line, else
    the last non-empty line."""
    text = read(path)
    lines = [l for l in text.split("\n") if l.strip()]
    for l in lines:
        if "[error]" in l or "[critical]" in l:
            return re.sub(r"^\[[^]]*\] \[(error|critical)\] ", "", l)[:limit]
    return (lines[-1][:limit] if lines else "(no output)")


def verifier_words(path, n=4):
    """The verifier's last lines as gotraced quotes them (indented after 'last words:')."""
    text = read(path)
    i = text.find("last words:")
    if i < 0:
        return []
    quoted = [re.sub(r"\s+", " ", l.strip()) for l in text[i:].split("\n")[1:]
              if l.startswith("    ")]
    return quoted[-n:]


def tracecheck(tool, path):
    r = subprocess.run([tool, path], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        err = (r.stderr.strip().split("\n") or ["?"])[0]
        return False, f"tracecheck rejects it: {err[:300]}"
    try:
        d = json.loads(r.stdout)
        return True, (f"{d.get('events')} events, {d.get('creates')} goroutines created, "
                      f"{d.get('syscalls')} syscalls, {d.get('generations')} generations")
    except ValueError:
        return True, "accepted"


def main():
    logdir, tool = sys.argv[1], sys.argv[2]
    boot_rc = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    console = read(os.path.join(logdir, "console.log"))
    data = read(os.path.join(logdir, "data.log"))
    files = unpack(data, os.path.join(logdir, "files"))
    m = markers(data + "\n" + console)
    st = steps(data + "\n" + console)
    started = begun(data + "\n" + console)
    done = "done" in m
    cells = {}

    def cell(check, ok, why="", text=None):
        cells[check] = {"ok": ok, "text": text or ("ok" if ok else "FAIL"), "why": why}

    # How the guest ended, to explain steps that never reported.
    if boot_rc == 125:
        ended = "not booted: the guests before used up the matrix's time budget"
    elif boot_rc == 124:
        killed = [l for l in read(os.path.join(logdir, "qemu.log")).split("\n")
                  if l.startswith("boot-guest: killed")]
        ended = "the host killed the guest" + (
            ": " + killed[-1].split(": ", 2)[-1] if killed else "")
    elif not done:
        ended = "the guest stopped before /init finished (panic? see console.log)"
    else:
        ended = ""

    if "init-start" in m:
        cell("boot", True, text=f"ok {float(m['init-start'].split('=')[-1]):.0f}s")
    else:
        tail = [l for l in console.split("\n") if l.strip()][-3:]
        cell("boot", False, f"/init never started ({ended or 'qemu exited'}); console ends: "
             + " | ".join(tail)[:400])

    def judge_step(check, name, log):
        s = st.get(name)
        logpath = files.get(log, "")
        if s is None:
            if name in started:
                cell(check, False, f"{name} started but never reported: {ended}")
            elif "init-start" in m:
                cell(check, False, f"{name} never ran: {ended}")
            else:
                cell(check, False, "no boot", text="-")
            return False
        if s["rc"] is None:
            cell(check, False, "not run: " + s["why"], text="FAIL")
            return False
        if s["rc"] == 0:
            cell(check, True, text=f"ok {s['secs']:.0f}s")
            return True
        if s.get("timedout"):
            why = f"killed at its {s['timeout']}s timeout (exit {s['rc']})"
            if "BPF verifier refused" not in read(logpath):
                why += "; last output: " + last_error(logpath, 250) if logpath else ""
        else:
            why = f"exit {s['rc']} after {s['secs']:.0f}s: {last_error(logpath) if logpath else '(log not received)'}"
        words = verifier_words(logpath) if logpath else []
        if words:
            why += " || verifier: " + " / ".join(words)
        cell(check, False, why)
        return False

    if judge_step("selftest", "selftest", "selftest.log"):
        js = st.get("selftest-json")
        if js and ((js["rc"] is None and "budget" in js.get("why", "")) or js.get("timedout")):
            # The guest runs it last, for its figures only (the plain run, which did the
            # same work, passed): out of the guest's time is a note, not a failure.
            cells["selftest"]["detail"] = "selftest --json: " + (
                "not run: " + js["why"] if js["rc"] is None else
                f"killed at its {js['timeout']}s timeout (what was left of the guest's budget)")
        elif js:
            # Otherwise it counts: the selftest cell is ok only when both runs are.
            text = cells["selftest"]["text"]
            if judge_step("selftest", "selftest-json", "selftest-json.log"):
                cells["selftest"]["text"] = text
    for mode in ("launch", "attach"):
        ran = judge_step(mode, mode, f"{mode}.log")
        # gotraced's own account of the recording (session summary), for the details.
        mt = re.search(r"(\d+) inconsistencies repaired, (\d+) records lost",
                       read(files.get(f"{mode}.log", "/nonexistent")))
        if ran and mt:
            cells[mode]["detail"] = f"{mt.group(2)} records lost, {mt.group(1)} inconsistencies repaired"
        trace = files.get(f"{mode}.trace")
        if trace and os.path.getsize(trace) > 0:
            ok, why = tracecheck(tool, trace)
            cell(f"parse {mode}", ok, "" if ok else why)
            if ok:
                cells[f"parse {mode}"]["detail"] = why
        elif ran:
            cell(f"parse {mode}", False, f"{mode} succeeded but its trace did not reach the host")
        else:
            cell(f"parse {mode}", False, f"no trace ({mode} failed)", text="-")

    # Go 1.24 and 1.25 (issue 29): a launch recording of the target built by each; both
    # traces parse. One cell for the two.
    why, detail = [], []
    for v in (("1.24", "1.25") if "newgo" not in m else ()):
        name = f"launch-go{v}"
        if not judge_step("go1.24/1.25", name, f"{name}.log"):
            why.append(f"go{v}: " + cells["go1.24/1.25"]["why"])
            continue
        trace = files.get(f"{name}.trace")
        ok, w = tracecheck(tool, trace) if trace and os.path.getsize(trace) > 0 else (
            False, "its trace did not reach the host")
        (detail if ok else why).append(f"go{v}: {w}")
    cell("go1.24/1.25", not why, "; ".join(why), text="-" if "newgo" in m else None)
    if not why:
        cells["go1.24/1.25"]["detail"] = "; ".join(detail) or m.get("newgo", "")

    # Level low (docs/probe-plan.md §10): its own programs (sys_enter notes the time,
    # sys_exit reads the g) load, attach and record every syscall of the target
    # (--syscall-min 0), and the trace parses.
    if judge_step("low", "low", "low.log"):
        llog = read(files.get("low.log", "/nonexistent"))
        src = re.search(r"level low: .*NOT scheduling", llog)
        trace = files.get("low.trace")
        ok, w = tracecheck(tool, trace) if trace and os.path.getsize(trace) > 0 else (False, "its trace did not reach the host")
        sysc = re.search(r"blocks, (\d+) syscalls", llog)  # the summary's (pieces, not GoSyscallBegin)
        if not src:
            cell("low", False, "its summary does not say what a low trace holds")
        elif not ok:
            cell("low", False, "low trace: " + w)
        elif not sysc or int(sysc.group(1)) == 0:
            cell("low", False, f"the low recording wrote no syscall ({w})")
        else:
            cells["low"]["detail"] = f"{sysc.group(1)} syscalls: {w}"

    # Preemption: the reproducer's task-storage program never clobbered (its big-stack
    # program's count is the kernel bug's evidence, reported), and the pinned recording
    # ran, parses, and shows no M on another thread (no record built from another hit).
    why = []
    detail = []
    if judge_step("preempt", "privstack", "privstack.log"):
        for l in read(files.get("privstack.log", "/nonexistent")).split("\n"):
            rm = re.search(r"privstack_repro: (big_stack|task_scratch) .*: (\d+) hits, (\d+) clobbered", l)
            if rm:
                detail.append(f"{rm.group(1)} {rm.group(3)}/{rm.group(2)} clobbered")
    else:
        why.append("privstack_repro: " + cells["preempt"]["why"])
    if judge_step("preempt", "stackguard", "stackguard.log"):
        for l in read(files.get("stackguard.log", "/nonexistent")).split("\n"):
            rm = re.search(r"stack_guard: big_stack \(128-byte frame\) on the private stack: (\w+)", l)
            if rm:
                detail.append(f"128-byte frame on the JIT's private stack: {rm.group(1)}")
    else:
        why.append("stack_guard_tests: " + cells["preempt"]["why"])
    pinned_ok = judge_step("preempt", "pinned", "pinned.log")
    if pinned_ok:
        plog = read(files.get("pinned.log", "/nonexistent"))
        mm = re.search(r"(\d+) records with an M on another thread", plog)
        if not mm:
            why.append("pinned recording: no M-thread count in its --verbose line")
        elif int(mm.group(1)) != 0:
            why.append(f"pinned recording: {mm.group(1)} records with an M on another thread")
        else:
            detail.append("pinned: 0 records with an M on another thread")
        trace = files.get("pinned.trace")
        if trace and os.path.getsize(trace) > 0:
            ok, w = tracecheck(tool, trace)
            if not ok:
                why.append("pinned trace: " + w)
        else:
            why.append("pinned trace did not reach the host")
    else:
        why.append("pinned recording: " + cells["preempt"]["why"])
    cell("preempt", not why, "; ".join(why))
    if detail:
        cells["preempt"]["detail"] = ", ".join(detail)

    # Oopses: the console's kernel lines and the dmesg the guest sent (it has what a
    # console line may have interleaved with a step's output).
    oops = []
    for text in (console, read(files.get("dmesg.txt", "/nonexistent"))):
        for line in text.split("\n"):
            if OOPS.search(line) and not NOT_KERNEL.search(line):
                s = line.strip()
                core = re.sub(r"^\[\s*[\d.]+\]\s*", "", s)
                if core not in [re.sub(r"^\[\s*[\d.]+\]\s*", "", o) for o in oops]:
                    oops.append(s)
    block = []
    for text in (read(files.get("dmesg.txt", "/nonexistent")), console):
        lines = text.split("\n")
        first = next((i for i, l in enumerate(lines)
                      if OOPS.search(l) and not NOT_KERNEL.search(l)), None)
        if first is not None:
            block = [l.rstrip() for l in lines[first:first + 40]
                     if not NOT_KERNEL.search(l)][:30]
            break
    if oops:
        cell("no-oops", False, f"{len(oops)} oops lines, first: {oops[0][:200]}")
    elif "init-start" not in m:
        cell("no-oops", False, "no boot", text="-")
    else:
        cell("no-oops", True)

    selftest_out = read(files.get("selftest.log", "/nonexistent"))
    selftest_json = None
    for l in read(files.get("selftest-json.log", "/nonexistent")).split("\n"):
        if l.startswith("{"):  # the report; stderr's lines are in the same log
            try:
                selftest_json = json.loads(l)
            except ValueError:
                pass
    result = {
        "uname": m.get("uname-r", "?"),
        "uname_v": m.get("uname-v", ""),
        "preempt": preempt_mode(m) if "init-start" in m else "?",
        "preempt_raw": m.get("preempt-debugfs", "") + " / " + m.get("preempt-dmesg", ""),
        "selftest_args": m.get("selftest-args", ""),
        "selftest": selftest_out,
        "selftest_json": selftest_json,
        "cells": cells,
        "oops": oops,
        "oops_block": block,
        "done": done,
    }
    with open(os.path.join(logdir, "result.json"), "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
