#!/usr/bin/env python3
"""text_check.py PID BINARY: is the code of process PID what BINARY's file holds?

A uprobe is a breakpoint (int3, 0xcc) the kernel writes into the traced process's copy
of the page (kernel/events/uprobes.c: install_breakpoint); removing the uprobe writes
the original instruction back. So once every uprobe is gone, the executable segments
of the process read through /proc/PID/mem equal the file's bytes, and while a uprobe is
attached they differ at its address. BINARY is the file the process was started from
(a copy of it when the file on disk was replaced). Prints one line; exit 0 when equal,
1 when not, 2 when it cannot tell.
"""
import os
import struct
import sys


def exec_segments(path):
    with open(path, "rb") as f:
        ident = f.read(64)
        if ident[:4] != b"\x7fELF" or ident[4] != 2:
            raise SystemExit(f"{path}: not a 64-bit ELF file")
        e_type = struct.unpack_from("<H", ident, 16)[0]
        phoff = struct.unpack_from("<Q", ident, 32)[0]
        phentsize, phnum = struct.unpack_from("<HH", ident, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
        segs = []
        for i in range(phnum):
            p_type, p_flags, p_offset, p_vaddr, _, p_filesz, _, _ = struct.unpack_from("<IIQQQQQQ", table, i * phentsize)
            if p_type == 1 and p_flags & 1:  # PT_LOAD, PF_X
                f.seek(p_offset)
                segs.append((p_offset, p_vaddr, f.read(p_filesz)))
        return e_type, segs


def load_bias(pid, e_type, seg_offset, seg_vaddr):
    if e_type != 3:  # ET_EXEC: at its link address
        return 0
    exe = os.readlink(f"/proc/{pid}/exe")
    page = seg_offset & ~0xFFF
    with open(f"/proc/{pid}/maps") as m:
        for line in m:
            parts = line.split(maxsplit=5)
            if len(parts) == 6 and parts[5].strip() == exe and int(parts[2], 16) == page:
                return int(parts[0].split("-")[0], 16) - (seg_vaddr & ~0xFFF)
    raise SystemExit(f"pid {pid}: no mapping of {exe} at file offset {page:#x}")


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[0])
        return 2
    pid, binary = int(sys.argv[1]), sys.argv[2]
    e_type, segs = exec_segments(binary)
    diffs, first, total = 0, None, 0
    try:
        mem = open(f"/proc/{pid}/mem", "rb")
    except OSError as e:
        print(f"cannot read pid {pid}'s memory: {e}")
        return 2
    with mem:
        for off, vaddr, want in segs:
            addr = vaddr + load_bias(pid, e_type, off, vaddr)
            mem.seek(addr)
            got = mem.read(len(want))
            total += len(want)
            if len(got) != len(want):
                print(f"short read of pid {pid}'s text at {addr:#x}")
                return 2
            if got != want:
                for i in range(len(want)):
                    if got[i] != want[i]:
                        diffs += 1
                        if first is None:
                            first = (addr + i, got[i])
    if diffs:
        print(f"{diffs} of {total} text bytes differ from the file (first at {first[0]:#x}: {first[1]:#04x})")
        return 1
    print(f"text unchanged ({total} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
