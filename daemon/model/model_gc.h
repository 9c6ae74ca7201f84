// The GC part of the model's state: what internal/trace/order.go keeps about GC cycles
// (gcSeq, gcState) and the goroutine-bound STW range it checks (gState.rangeState), so
// model_gc.cc only writes GC events the reader accepts.
#pragma once

#include <cstdint>
#include <optional>

#include "daemon/model/flat_map.h"
#include "daemon/model/record.h"

namespace gotraced::model {

struct GcModelState {
  // Next GC sequence number: runtime/trace.go StartTrace sets trace.seqGC = 1 and every
  // GCActive/GCBegin/GCEnd takes the next one (traceruntime.go); order.go wants each GC
  // event's seq to be the previous one + 1 (advanceGCBegin/GCEnd/GCActive).
  std::uint64_t next_seq = 1;
  bool running = false;  // between GCBegin (or GCActive) and GCEnd
  bool any = false;      // a GC event was written: GCActive may open the first generation only
  Goid stw_g = kNoG;     // goroutine holding an open STW range (STWBegin written, no STWEnd)
  std::uint64_t stw_ts = 0;  // when that range began (record time)
  // Goroutines whose STW range is still open in the trace though a later STWBegin of
  // another goroutine showed it over (worldsema admits one stop at a time: its STWEnd was
  // lost or dropped). order.go keeps a range per goroutine (gState.beginRange), so the
  // next STWBegin of such a goroutine must end the old range first.
  FlatSet<Goid> stw_stale;
  FlatSet<Goid> assist;  // goroutines with an open GCMarkAssist range
  FlatSet<ProcId> sweep; // Ps with an open GCSweep range (order.go pState ranges)
  // The trace's first HeapGoal, not yet written (Model::SetInitialHeapGoal).
  std::optional<std::uint64_t> initial_goal;
  // Worker goroutine -> (generation, sequence number) of the run it was labelled in: the
  // runtime writes one GoLabel per GoStart of a mark worker.
  FlatMap<Goid, std::pair<std::uint64_t, std::uint64_t>> labelled;
};

}  // namespace gotraced::model
