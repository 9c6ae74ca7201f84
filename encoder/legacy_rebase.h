// A legacy (pre-1.22) trace that starts at generation k > 1: what a flight-recorder dump
// or a live stream that joins late hands out. The v2 format is built for it (each
// generation restates every goroutine and P); the legacy one is not, so the writer keeps,
// for each generation, a LegacyRestart (legacy_writer.h), and this rewrites the
// generations k..n into a file that opens with k's prelude:
//   * GCStart's sequence starts at 0 again (order.go: GC seq from 0, counted in the file);
//   * GoSysExit's goroutine sequence numbers are shifted to what the prelude gave the
//     goroutine (order.go checks them against GoCreate = 1, GoWaiting = 2, ...);
//   * the first GCDone / STWDone / GCSweepDone of what was in progress at k's start are
//     dropped (parser.go: "bogus GC end", "bogus STW end", "bogus sweeping end").
// Batches are re-encoded (a dropped event's delta moves to the next); strings, stacks
// and timestamps stay as written.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "encoder/legacy_restart.h"

namespace gotraced::encoder {

// LegacyRestart, owned (as a sink keeps it).
struct StoredLegacyRestart {
  std::vector<std::uint8_t> prelude;
  std::uint64_t gc_base = 0;
  bool gc_active = false;
  bool stw_active = false;
  std::vector<std::int64_t> sweeping;
  std::map<GId, std::uint64_t> seq_offsets;
  static StoredLegacyRestart From(const LegacyRestart &r);
};

// Rewrites generations k, k+1, ... one at a time, in order (a live stream), after the
// header and prelude().
class LegacyRebaser {
 public:
  explicit LegacyRebaser(StoredLegacyRestart restart);
  std::span<const std::uint8_t> prelude() const { return r_.prelude; }
  // One generation's bytes as they must follow the previous ones. False (and *error)
  // when they are not LegacyTraceWriter's.
  bool Rewrite(std::span<const std::uint8_t> generation, std::vector<std::uint8_t> &out, std::string *error = nullptr);

 private:
  StoredLegacyRestart r_;
  bool gc_end_pending_, stw_end_pending_;
  std::vector<std::int64_t> sweep_end_pending_;
};

// header + restart.prelude + generations, rewritten as above. On a decoding failure
// (bytes not from LegacyTraceWriter) returns empty and says why in *error.
std::vector<std::uint8_t> LegacyTraceFrom(std::span<const std::uint8_t> header, const StoredLegacyRestart &restart,
                                          std::span<const std::span<const std::uint8_t>> generations,
                                          std::string *error = nullptr);

}  // namespace gotraced::encoder
