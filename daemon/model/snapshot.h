// model::Snapshot: the target's scheduler state read from its memory at attach time
// (procmem reads allgs/allp/allm; the session converts runtime statuses to trace
// statuses with the rule of runtime/tracestatus.go goStatusToTraceGoStatus, so this
// header knows no runtime constants).
//
// A snapshot is read while the target runs, so it is a hint, not the truth: the model
// uses it only for goroutines and Ps that no record mentions before the first
// generation ends (the equivalent of the runtime's traceAdvance sweep of untraced
// goroutines), and checks it against what the records already established.
#pragma once

#include <cstdint>
#include <vector>

#include "daemon/model/record.h"
#include "encoder/trace_types.h"

namespace gotraced::model {

struct SnapshotG {
  Goid goid = 0;
  encoder::GoStatus status = encoder::GoStatus::kWaiting;  // never kBad
  ThreadId m = 0;  // for kRunning / kSyscall: the thread it is on (0 = unknown)
};

struct SnapshotP {
  ProcId id = 0;
  encoder::ProcStatus status = encoder::ProcStatus::kIdle;  // kRunning / kIdle / kSyscall
  ThreadId m = 0;  // for kRunning / kSyscall
};

struct Snapshot {
  std::uint64_t ts = 0;  // CLOCK_MONOTONIC ns when the read finished
  std::int32_t gomaxprocs = 0;
  std::vector<SnapshotG> goroutines;  // live ones only (not _Gdead / _Gdeadextra)
  std::vector<SnapshotP> procs;       // allp[0:gomaxprocs]
};

}  // namespace gotraced::model
