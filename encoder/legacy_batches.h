// Per-P event batches of the legacy (pre-1.22) format: the runtime writes each event
// into the buffer of the P it runs on (or the global buffer without one) and flushes a
// buffer as [EvBatch][P][ticks] followed by its events, each timestamp a delta from the
// previous event of the batch (runtime/trace.go traceFlush, traceEventLocked). The
// parser concatenates the batches of each P in file order and merges the Ps
// (internal/trace/order.go order1007); so a P's batches must keep its event order, and
// nothing else about where a batch sits in the file matters.
#pragma once

#include <cstdint>
#include <climits>
#include <map>
#include <span>
#include <string_view>

#include "encoder/byte_buffer.h"
#include "encoder/legacy_event_table.h"

namespace gotraced::encoder::legacy {

// CPU samples go to a batch of their own, as the runtime's (traceReadCPU flushes them to
// a separate buffer): Go 1.22+'s reader skips CPU samples while it reads a batch
// (internal/trace/internal/tracev1 loadBatch), so a sample's delta would shift the later
// events of a shared batch for it and not for Go 1.19's parser. Written with P -1.
inline constexpr std::int64_t kCpuSampleBatch = INT64_MIN;

class Batches {
 public:
  // Appends one timed event to P `p`'s batch (kGlobalProc: the batch without a P).
  // `args` are the event's arguments after the timestamp, the stack id last when the
  // spec has one; `data` is UserLog's trailing value. `ticks` must not go back within
  // a P (the writer's clock never does).
  void Add(std::int64_t p, std::uint64_t ticks, Ev type, std::span<const std::uint64_t> args,
           std::string_view data = {});
  // Where P `p`'s batch stands: Truncate(p, Tell(p)) takes back every event added to it
  // since (the writer turns a GoStartLocal into a GoStartLabel that way). A flush ends
  // what a mark can take back.
  struct Mark {
    std::size_t size = 0;
    std::uint64_t first_ticks = 0, last_ticks = 0, events = 0;
  };
  Mark Tell(std::int64_t p);
  void Truncate(std::int64_t p, const Mark &m);
  // Appends every non-empty batch to `out` and starts new, empty ones.
  void FlushTo(ByteBuffer &out);
  bool empty() const;
  std::size_t bytes() const;
  std::uint64_t events() const { return events_; }

 private:
  struct Batch {
    ByteBuffer buf;
    std::uint64_t first_ticks = 0, last_ticks = 0;
  };
  std::map<std::int64_t, Batch> batches_;
  std::uint64_t events_ = 0;
};

}  // namespace gotraced::encoder::legacy
