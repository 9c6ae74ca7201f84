// Reads a v2 trace back into generations, batches and events, driven by kEventSpecs.
// It checks the framing (header, batch lengths, event types valid for the version, id
// tables, v26 end markers), not the scheduling semantics — that is the Go parser's job
// (tests/tracecheck). Used by the unit tests and the debug dumper.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "encoder/event_table.h"
#include "encoder/trace_types.h"

namespace gotraced::encoder {

struct DecodedEvent {
  EventType type = EventType::kNone;
  std::uint64_t time = 0;  // absolute, trace ticks (base + deltas; CPU samples: as written)
  std::uint8_t nargs = 0;  // wire arguments after dt / time
  std::array<std::uint64_t, kMaxTimedEventArgs> args{};
  std::uint64_t arg(int i) const { return args[i]; }
};

enum class BatchKind { kEvents, kStrings, kStacks, kCPUSamples, kTiming };

struct DecodedBatch {
  std::uint64_t gen = 0;
  MId m = 0;
  std::uint64_t base_time = 0;
  std::size_t data_len = 0;
  BatchKind kind = BatchKind::kEvents;
  std::vector<DecodedEvent> events;  // kEvents only
};

struct DecodedFrame {
  std::uint64_t pc, func, file, line;
};

struct DecodedGeneration {
  std::uint64_t gen = 0;
  std::vector<DecodedBatch> batches;
  std::map<std::uint64_t, std::string> strings;
  std::map<std::uint64_t, std::vector<DecodedFrame>> stacks;
  std::vector<DecodedEvent> cpu_samples;
  int frequency_events = 0;
  std::uint64_t frequency = 0;
  int sync_events = 0;
  int clock_snapshots = 0;
  ClockSnapshot clock{};
  std::uint64_t clock_time = 0;
  bool end_marker = false;  // v26: followed by 0x34
};

struct DecodedTrace {
  Version version = Version::kGo126;
  std::vector<DecodedGeneration> generations;
  std::string error;  // "" if the whole input decoded
  bool ok() const { return error.empty(); }
};

DecodedTrace DecodeTrace(std::span<const std::uint8_t> bytes);

// The same framing one piece at a time, for readers that stream a file a generation at a
// time (report/v2_reader.cc) instead of holding all of it.
//
// Decodes the data of one batch (after its EventBatch header) into `g`: strings, stacks,
// CPU samples, timing; an event batch's events into `batch` only when `keep_events`
// (else the caller reads them later with DecodeNextEvent). "" or what is wrong.
std::string DecodeBatchData(Version v, std::span<const std::uint8_t> data, DecodedBatch &batch, DecodedGeneration &g,
                            bool keep_events = true);
// Decodes the event at the start of `d` (an event batch's data), advancing `d` and the
// batch's running time `t`. "" or what is wrong.
std::string DecodeNextEvent(Version v, std::span<const std::uint8_t> &d, std::uint64_t &t, DecodedEvent &e);

}  // namespace gotraced::encoder
