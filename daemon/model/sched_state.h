// The scheduler state as the trace reader will reconstruct it: the mirror of
// internal/trace/order.go's gStates / pStates / mStates. Every event the model emits is
// checked against this state and updates it exactly as order.go's advance functions
// do, so what the model writes is, by construction, what the parser can replay.
#pragma once

#include <cstdint>

#include "daemon/model/flat_map.h"
#include "daemon/model/record.h"
#include "encoder/trace_types.h"

namespace gotraced::model {

// order.go gState: status + sequence counter. The counter restarts at 0 on a status
// event or creation in a generation (order.go makeSeq(gen, 0)).
struct GoState {
  encoder::GoStatus status = encoder::GoStatus::kRunnable;
  ThreadId m = 0;            // kRunning / kSyscall: the M it is bound to
  std::uint64_t seq = 0;     // last sequence number used in `seq_gen`
  std::uint64_t seq_gen = 0; // generation of seq / of the last status (0 = never)
};

// order.go pState. kSyscallAbandoned is never stored (it is only a status argument).
struct ProcState {
  encoder::ProcStatus status = encoder::ProcStatus::kIdle;
  ThreadId m = 0;            // kRunning / kSyscall: the M it is bound to
  std::uint64_t seq = 0;
  std::uint64_t seq_gen = 0;
  // procresize destroyed it while idle: no generation restates it (the runtime's forEachP
  // knows only live Ps), but the reader keeps it as the Idle P it last saw (order.go never
  // forgets a pState). Kept so that a later record naming it (GOMAXPROCS grown again, its
  // ProcStart lost) restates Idle and starts it, never introduces it as Running.
  bool gone = false;
};

// order.go mState: what the M holds.
struct MState {
  ProcId p = kNoP;
  Goid g = kNoG;
  std::uint64_t last_ts = 0;  // last timestamp written to this M's batch
};

struct SchedState {
  FlatMap<Goid, GoState> gs;
  FlatMap<ProcId, ProcState> ps;
  FlatMap<ThreadId, MState> ms;
  std::int32_t gomaxprocs = 0;

  GoState *G(Goid g) {
    auto it = gs.find(g);
    return it == gs.end() ? nullptr : &it->second;
  }
  ProcState *P(ProcId p) {
    auto it = ps.find(p);
    return it == ps.end() ? nullptr : &it->second;
  }
  MState &M(ThreadId m) { return ms[m]; }
};

}  // namespace gotraced::model
