// What a legacy (pre-1.22) trace needs to start at a generation after the first: the
// writer (legacy_writer.h) hands one LegacyRestart per generation to a LegacyRestartSink;
// legacy_rebase.h turns it and the generations from there on into a file of their own.
// Its own header so that sinks (sink.h's FileSink, the flight recorder) can take it
// without the writer.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "encoder/trace_types.h"

namespace gotraced::encoder {

// What a trace that starts at a generation after the first needs besides that
// generation's bytes: the prelude (the state of every goroutine and P at its start, as
// creations), the number of GCStart events before it (a trace starting there numbers
// its GCs from 0: order.go's GC sequence), and what was in progress at its start, whose
// ends such a trace must not contain (parser.go postProcessTrace: "bogus GC end",
// "bogus STW end", "bogus sweeping end"). See legacy_rebase.h.
struct LegacyRestart {
  std::span<const std::uint8_t> prelude;
  std::uint64_t gc_base = 0;
  bool gc_active = false;
  bool stw_active = false;
  std::vector<std::int64_t> sweeping;  // Ps sweeping at the start
  // Per live goroutine: its sequence number in the whole trace minus the one the prelude
  // gives it (GoSysExit carries it; legacy_rebase.h).
  std::vector<std::pair<GId, std::uint64_t>> seq_offsets;
};

// Receives a LegacyRestart before every generation after the first. A sink that keeps a
// window of generations (the flight recorder) stores them to build a dump; a file needs
// one only to go on in a continuation file (FileSink, WriteErrorPolicy::kDrop).
class LegacyRestartSink {
 public:
  virtual ~LegacyRestartSink() = default;
  virtual void WriteLegacyPrelude(std::uint64_t gen, const LegacyRestart &restart) = 0;
};

}  // namespace gotraced::encoder
