// Which words tell that the memory at a g.labels pointer still holds the label set a
// record named (issue 34). BPF copies four words with every g.labels pointer it reads
// (proto/records.h struct gt_labels_id; bpf/gt_labels.bpf.h); the daemon reads the set a
// few ms later, by when a set the goroutine dropped may have been freed by a GC cycle and
// its memory reused by anything (the HTTP bench read a reply's []string{"alpha", "beta",
// "gamma", N} as `alpha=beta gamma=N`). So after reading the set the daemon reads the same
// words again (label_reader.h), and a set whose words changed is dropped, never printed.
// Which words belong to the set, per runtime/pprof's representation (label_set.h):
//   map, Go 1.19-1.23: g.labels -> *labelMap, an 8-byte object holding the *hmap: w[0]
//     (the word after it is the next object's, maybe on a page not touched yet). w[1]:
//     the first word of the first bucket (its tophash bytes: the buckets are an object of
//     their own, freed with the set and reusable while the hmap's memory is not; the HTTP
//     bench read such sets as `""="" ""=""` and `[cut: 2 labels]` before this word). w[2], w[3]: the hmap's words at 8 and 16, of which
//     hash0 (the upper half of the first: runtime/map.go hmap{count int; flags, B uint8;
//     noverflow uint16; hash0 uint32}) and buckets. hash0 is the map's random seed
//     (makemap: h.hash0 = uint32(rand())), so a map made again at the same address
//     differs there. flags is left out: ranging over the map (WithLabels copies its
//     parent's set, ForLabels) sets its iterator bits on a live set.
//   slice, Go 1.24+: g.labels -> labelMap{list []label}: w[0] the array, w[1] its len;
//     w[2], w[3]: the first two labels' value pointers (array + 16, array + 48; label is
//     {key, value string}), the second only when len >= 2 (past a one-label array it is
//     the next object's). A set and its array are written once (WithLabels builds new
//     ones), so these words hold while the set lives.
// What it cannot tell: for a slice, a set freed and built again at the very same
// addresses with the same first two values' strings (and another third label, or other
// bytes at those strings' addresses); for a map, the same address and a 1-in-2^32 seed.
#pragma once

#include <array>
#include <cstdint>

#include "daemon/procmem/label_set.h"

namespace gotraced::procmem {

using LabelIdWords = std::array<std::uint64_t, 4>;

// The offsets from w[0] of w[2] and w[3] (bpf_config.h labels_id_off).
std::array<std::int32_t, 2> LabelIdOffsets(LabelRepr repr);
// Bytes read at the pointer (bpf_config.h labels_id_head): what the first object holds of
// w[0], w[1] (a labelMap is 8 bytes on a map version, a slice header 24 on a slice one).
std::int32_t LabelIdHead(LabelRepr repr);

// A fingerprint of the words that belong to the set; never 0 (0: "not captured").
std::uint64_t LabelSetId(LabelRepr repr, const LabelIdWords &w);

// The same four words read from the target now, as BPF reads them (a span it cannot read
// leaves w[3] 0: it lies past the set then, and is not part of its identity); false
// when a read failed.
bool ReadLabelIdWords(const MemRead &read, std::uint64_t ptr, LabelRepr repr, LabelIdWords *w);

}  // namespace gotraced::procmem
