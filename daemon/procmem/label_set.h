// A goroutine's pprof label set, read from the target's memory at the pointer the runtime
// keeps in g.labels, and its text for the trace ("k=v k2=v2", keys sorted). The layout of
// what g.labels points to is runtime/pprof's, per Go version (src/runtime/pprof/label.go,
// runtime.go SetGoroutineLabels: `runtime_setProfLabel(unsafe.Pointer(ctxLabels))` with
// ctxLabels a *labelMap):
//   Go 1.19 .. 1.23  type labelMap map[string]string: g.labels -> *hmap (runtime/map.go:
//                    hmap{count int; flags, B uint8; noverflow uint16; hash0 uint32;
//                    buckets, oldbuckets unsafe.Pointer; ...}, buckets of 8 string keys and
//                    8 string values: tophash [8]uint8, keys, elems, overflow *bmap)
//   Go 1.24 ..       type labelMap struct{ LabelSet }, LabelSet{list []label} (1.26+:
//                    label.Set{List []label.Label}, internal/runtime/pprof/label): g.labels
//                    -> a slice header of {key, value string} pairs, sorted by key
//                    (mergeLabelSets keeps them sorted).
// Both are built once (WithLabels makes a new one) and never written again, so one read is
// the set for as long as the pointer holds it. Bounded (label_text.h): at most kMaxLabels
// labels kept, each key and value at most kMaxStringBytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "daemon/procmem/label_text.h"

namespace gotraced::procmem {

enum class LabelRepr { kMap, kSlice };
// runtime/pprof's representation in Go 1.<minor> (above).
LabelRepr LabelReprFor(int go_minor);

// Reads n bytes at a target address; false when it cannot.
using MemRead = std::function<bool(std::uint64_t addr, void *dst, std::size_t n)>;

// The set at g.labels == ptr (ptr != 0). false: unreadable (the set is left partial).
bool ReadLabelSet(const MemRead &read, std::uint64_t ptr, LabelRepr repr, LabelSet *out);

}  // namespace gotraced::procmem
