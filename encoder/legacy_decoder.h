// Reads the legacy (pre-1.22) format back into batches and events, driven by the legacy
// event table (legacy_event_table.h): the framing of parser.go readTrace (header, event
// byte, inline or length-prefixed arguments, EvString, EvStack, UserLog's value) and the
// per-batch timestamps, not the scheduling semantics (that is Go's parser's job). Used by
// the unit tests and by legacy_rebase.cc, which rewrites a run of generations into a
// trace that starts with them.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "encoder/legacy_event_table.h"
#include "encoder/trace_types.h"

namespace gotraced::encoder::legacy {

struct DecodedEvent {
  Ev type = Ev::kNone;
  std::int64_t p = kGlobalProc;     // the batch's P
  bool cpu_batch = false;           // in a batch that holds only CPU samples
  std::uint64_t ticks = 0;          // absolute: the batch's ticks plus the deltas
  std::vector<std::uint64_t> args;  // after the timestamp, the stack id last if any
  std::string data;                 // UserLog's value
};

struct DecodedTrace {
  Version version = Version::kGo121;
  std::vector<DecodedEvent> events;  // in file order
  std::map<std::uint64_t, std::string> strings;
  std::map<std::uint64_t, std::size_t> stacks;  // id -> number of frames
  std::map<std::uint64_t, std::vector<std::uint64_t>> stack_funcs;  // id -> func string ids, innermost first
  std::vector<std::uint8_t> table_bytes;         // every EvString / EvStack entry, verbatim
  std::uint64_t frequency = 0;
  int frequency_events = 0;
  std::string error;  // "" if everything decoded
  bool ok() const { return error.empty(); }
};

// `bytes` is a whole file (header first) or, with `header` false, a run of generations
// (what LegacyTraceWriter hands a sink after the header, or a prelude).
DecodedTrace DecodeLegacy(std::span<const std::uint8_t> bytes, bool header = true);

}  // namespace gotraced::encoder::legacy
