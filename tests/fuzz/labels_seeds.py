#!/usr/bin/env python3
"""Seeds for tests/fuzz/labels_fuzz.cc: memory images holding a pprof label set in each of
runtime/pprof's layouts (daemon/procmem/label_set.h), in the fuzzer's input format: byte 0
bit 0 = layout (0 map, 1 slice), bytes 1..4 = offset of g.labels' target, the image (the
whole input) mapped at 0x1000.

  labels_seeds.py DIR
"""
import os
import struct
import sys

BASE = 0x1000


class Image:
    def __init__(self, slice_layout):
        self.b = bytearray(8)  # header: layout byte, labels offset, padding to 8
        self.b[0] = 1 if slice_layout else 0

    def addr(self, off):
        return BASE + off

    def alloc(self, n):
        off = len(self.b)
        self.b += bytes(n)
        return off

    def put(self, off, data):
        self.b[off:off + len(data)] = data

    def string(self, s):
        off = self.alloc(len(s))
        self.put(off, s)
        return struct.pack("<QQ", self.addr(off), len(s))

    def point_labels_at(self, off):
        struct.pack_into("<I", self.b, 1, off)


def slice_seed(pairs):
    """Go 1.24+: g.labels -> {list []label}: slice header, then {key, value string} pairs."""
    im = Image(True)
    hdr = im.alloc(24)
    kv = im.alloc(32 * len(pairs))
    for i, (k, v) in enumerate(sorted(pairs)):
        im.put(kv + 32 * i, im.string(k) + im.string(v))
    im.put(hdr, struct.pack("<QQQ", im.addr(kv), len(pairs), len(pairs)))
    im.point_labels_at(hdr)
    return bytes(im.b)


def map_seed(pairs, B=0, grow=False, count=None):
    """Go 1.19-1.23: g.labels -> *hmap of map[string]string; buckets of 8 (runtime/map.go),
    entries spread over 2^B buckets; `grow`: the last entries in oldbuckets."""
    im = Image(False)
    lm = im.alloc(8)
    h = im.alloc(48)
    nb = 1 << B
    buckets = im.alloc(272 * nb)
    old = im.alloc(272 * max(1, nb // 2)) if grow else 0
    slots = {}
    for i, (k, v) in enumerate(pairs):
        base = old if grow and i == len(pairs) - 1 else buckets
        bi = i % nb if base == buckets else 0
        j = slots.get((base, bi), 0)
        slots[(base, bi)] = j + 1
        b = base + 272 * bi
        im.put(b + j, bytes([5 + i % 200]))
        im.put(b + 8 + 16 * j, im.string(k))
        im.put(b + 8 + 128 + 16 * j, im.string(v))
    im.put(lm, struct.pack("<Q", im.addr(h)))
    n = len(pairs) if count is None else count
    im.put(h, struct.pack("<qBBHIQQ", n, 0, B, 0, 0, im.addr(buckets), im.addr(old) if grow else 0))
    im.point_labels_at(lm)
    return bytes(im.b)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    two = [(b"route", b"/api/orders"), (b"tenant", b"42")]
    odd = [(b"", b"empty key"), (b"bytes", b"\xff\xfe"), (b"quote", b'a "b" = c'), (b"long", b"x" * 300)]
    many = [(b"k%03d" % i, b"v%d" % i) for i in range(70)]
    seeds = {
        "slice-two": slice_seed(two), "slice-odd": slice_seed(odd), "slice-many": slice_seed(many),
        "map-two": map_seed(two), "map-odd": map_seed(odd, B=1), "map-grow": map_seed(two + odd, B=1, grow=True),
        "map-many": map_seed(many[:20], B=2),
        # A count no set has (memory being freed): the cut tail's digits must fit the bound
        # (labels_fuzz's first finding: 1005 bytes of text).
        "map-huge-count": map_seed(odd + [(b"pad", b"p" * 250)] * 3, B=1, count=2**48),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
