#!/usr/bin/env python3
"""Writes a big go1.22+ trace from a real one for bench/report: the file's generations
again and again, renumbered and shifted in time after the last, until SIZE bytes.

    tile_trace.py IN OUT SIZE_MB

Batch framing (tracev2: EventBatch gen m time size, then size bytes; go1.26 ends each
generation with 0x34): only the batch headers' generation and base time change, so every
event keeps its bytes. CPU samples carry absolute times and are left as they are. Whether
Go's reader accepts the result is bench-report.sh's question (traceread), not this one's.
"""
import sys


def uvarint(b, i):
    x = s = 0
    while True:
        c = b[i]
        i += 1
        x |= (c & 0x7F) << s
        if c < 0x80:
            return x, i
        s += 7


def put(x):
    out = bytearray()
    while x >= 0x80:
        out.append((x & 0x7F) | 0x80)
        x >>= 7
    out.append(x)
    return bytes(out)


src, dst, size = sys.argv[1], sys.argv[2], int(sys.argv[3]) << 20
b = open(src, "rb").read()
head, body = b[:16], b[16:]
v26 = head.startswith(b"go 1.26")
# Parse once: (gen, m, time, data) per batch, and the 0x34 markers, in order.
items, i, tmin, tmax, gmax = [], 0, None, 0, 0
while i < len(body):
    t = body[i]
    if t == 0x34 and v26:
        items.append(None)
        i += 1
        continue
    if t != 1:
        raise SystemExit(f"byte {t} at {i + 16}: not a batch (experimental batches are not tiled)")
    gen, i = uvarint(body, i + 1)
    m, i = uvarint(body, i)
    tm, i = uvarint(body, i)
    n, i = uvarint(body, i)
    items.append((gen, m, tm, body[i:i + n]))
    i += n
    tmin = tm if tmin is None else min(tmin, tm)
    tmax, gmax = max(tmax, tm), max(gmax, gen)
span = tmax - tmin + 1_000_000
gmin = min(x[0] for x in items if x)
with open(dst, "wb") as f:
    f.write(head)
    written, copy = 16, 0
    while written < size:
        goff, toff = copy * (gmax - gmin + 1), copy * span
        for x in items:
            if x is None:
                f.write(b"\x34")
                written += 1
                continue
            gen, m, tm, data = x
            rec = b"\x01" + put(gen + goff) + put(m) + put(tm + toff) + put(len(data)) + data
            f.write(rec)
            written += len(rec)
        copy += 1
print(f"{dst}: {written >> 20} MiB, {copy} copies of {len(b) >> 10} KiB")
