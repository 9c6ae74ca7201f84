// A trace turned back into encoder calls: every generation's events per M (in file
// order), its string and stack tables and CPU samples. Replaying a runtime-written
// trace through TraceWriter measures the encoder on the runtime's own event mix and
// gives a byte-for-byte comparable output (same events, same ticks).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "encoder/trace_decoder.h"
#include "encoder/trace_writer.h"

namespace gotraced::bench {

struct ReplayEvent {
  encoder::EventType type;
  std::uint8_t nargs;
  encoder::MId m;
  std::uint64_t ts_ns;
  std::uint64_t args[encoder::kMaxTimedEventArgs - 1];
};

struct ReplayStack {
  std::vector<std::uint64_t> pcs;
  std::vector<encoder::Frame> frames;  // views into ReplayGeneration::strings
};

struct ReplayGeneration {
  std::vector<ReplayEvent> events;
  std::vector<ReplayEvent> cpu_samples;  // args: m, p, g, stack
  // Indexed by the source trace's ids (dense from 1; [0] unused), so a per-event
  // lookup costs the benchmark nothing next to the encoder.
  std::vector<std::string> strings;
  std::vector<ReplayStack> stacks;
};

struct Replay {
  encoder::Version version = encoder::Version::kGo126;
  std::vector<ReplayGeneration> generations;
  std::uint64_t events = 0;  // timed events + CPU samples
};

// Builds a replay from a decoded trace whose clock is ticks of `tick_ns` nanoseconds.
Replay MakeReplay(const encoder::DecodedTrace &trace, std::uint64_t tick_ns);

// Writes the replay through `w`. With intern_per_event, every string argument is
// passed as text and every stack as its pc list (InternStackPcs), as a live recorder
// would; otherwise the tables are interned once per generation and events carry ids.
// Each replayed generation ends with EndGeneration; the writer is left open so a
// benchmark can replay again into the same (warm) writer. Returns the number of events
// whose emit failed (0 expected).
std::uint64_t RunReplay(const Replay &r, encoder::TraceWriter &w, bool intern_per_event);

// A made-up mix (ping-pong goroutines, syscalls, heap metrics) for when no trace file
// is given.
Replay SyntheticReplay(std::uint64_t events);

}  // namespace gotraced::bench
