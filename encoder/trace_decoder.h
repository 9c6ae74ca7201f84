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

// The same decoding for a reader's hot loop (report/v2_reader.cc: one call per event of
// the file): no std::string on success, inlined. False if the event is invalid or
// truncated, leaving `d` and `t` as they were: DecodeNextEvent on the same bytes then
// says what is wrong, so the error path costs nothing while every event is good.
namespace detail {
// Per event type: the wire arguments after dt of a caller-timed event, -1 if the type may
// not appear in an event batch; and the first version that has it.
struct TimedShape {
  std::int8_t args = -1;
  Version min_version = Version::kGo122;
};
inline constexpr auto kTimedShapes = [] {
  std::array<TimedShape, 256> a{};
  for (int i = 0; i < kNumEventTypes; ++i) {
    const auto t = static_cast<EventType>(i);
    if (SpecOf(t).exists && IsCallerTimedEvent(t))
      a[i] = {static_cast<std::int8_t>(SpecOf(t).nargs - 1), SpecOf(t).min_version};
  }
  return a;
}();
// ReadVarint's rules (varint.h) on raw pointers: at most 10 bytes, no 64-bit overflow.
inline bool FastVarint(const std::uint8_t *&p, const std::uint8_t *end, std::uint64_t &v) {
  if (p < end && *p < 0x80) {
    v = *p++;
    return true;
  }
  v = 0;
  for (int i = 0; i < 10 && p + i < end; ++i) {
    const std::uint8_t b = p[i];
    if (i == 9 && b > 1) return false;
    v |= static_cast<std::uint64_t>(b & 0x7f) << (7 * i);
    if (b < 0x80) {
      p += i + 1;
      return true;
    }
  }
  return false;
}
}  // namespace detail

inline bool TryDecodeNextEvent(Version v, std::span<const std::uint8_t> &d, std::uint64_t &t, DecodedEvent &e) {
  if (d.empty()) return false;
  const detail::TimedShape shape = detail::kTimedShapes[d[0]];
  if (shape.args < 0 || static_cast<int>(v) < static_cast<int>(shape.min_version)) return false;
  const std::uint8_t *p = d.data() + 1, *end = d.data() + d.size();
  std::uint64_t dt;
  if (!detail::FastVarint(p, end, dt)) return false;
  for (int i = 0; i < shape.args; ++i)
    if (!detail::FastVarint(p, end, e.args[i])) return false;
  e.type = static_cast<EventType>(d[0]);
  e.nargs = static_cast<std::uint8_t>(shape.args);
  t += dt;
  e.time = t;
  d = d.subspan(static_cast<std::size_t>(p - d.data()));
  return true;
}

}  // namespace gotraced::encoder
