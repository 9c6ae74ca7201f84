// RuntimeSnapshot: the target runtime's goroutines, Ps and Ms read from its memory at
// attach (read-only), from which the model writes the first generation's GoStatus /
// ProcStatus events.
//
// Authority for what is read: runtime/runtime2.go (type g/m/p, allgs/allglen, allp,
// allm, gomaxprocs globals), runtime/proc.go (allgadd: allgs is append-only and allglen
// is stored after the append, so reading allglen then allgs[0:allglen] is safe; allm is a
// linked list via m.alllink, prepended in mcommoninit).
//
// Consistency with the record stream (the race): the snapshot is taken AFTER the probes
// are attached, so every transition that happens after a goroutine was read is also in
// the ring. Each entity carries read_ts_ns, the CLOCK_MONOTONIC time just before it was
// read. Rule for the model: for an entity, a record with ts < read_ts_ns is already
// reflected in the snapshot (skip it for state, it happened before); a record with
// ts >= read_ts_ns is applied on top. A record whose ts falls between the record's probe
// and the CAS it announces can straddle the read (probe fired, read happened, CAS after):
// then the snapshot shows the record's oldval although ts < read_ts_ns; the model applies
// such a record when snapshot.status == record.oldval (see docs/probe-plan.md §Snapshot).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "daemon/gobin/result.h"
#include "daemon/model/gc_pacer_state.h"

namespace gotraced::gobin {
struct RuntimeLayout;
}

namespace gotraced::procmem {

class ProcessMemory;

// Runtime addresses (load bias applied) of the globals the snapshot reads. From
// daemon/gobin/runtime_globals.h (works on stripped binaries too).
struct RuntimeGlobalAddrs {
  uint64_t allgs = 0;       // &runtime.allgs (a []*g slice header)
  uint64_t allglen = 0;     // &runtime.allglen (uintptr)
  uint64_t allp = 0;        // &runtime.allp ([]*p slice header)
  uint64_t allm = 0;        // &runtime.allm (*m, list via m.alllink)
  uint64_t gomaxprocs = 0;  // &runtime.gomaxprocs (int32)
  uint64_t sched = 0;       // &runtime.sched (schedt), optional (goidgen)
  uint64_t gc_controller = 0;  // &runtime.gcController (gcControllerState), optional (heapLive)
};

struct GoroutineState {
  uint64_t g = 0;           // address of the runtime.g
  uint64_t goid = 0;
  uint32_t status = 0;      // atomicstatus, raw (may carry _Gscan)
  uint8_t waitreason = 0;
  uint64_t m = 0;           // g.m (running/syscall/locked)
  int64_t m_id = -1;        // g.m->id
  uint64_t m_procid = 0;    // g.m->procid: the thread id
  uint64_t sched_pc = 0, sched_sp = 0, sched_bp = 0;
  uint64_t syscallsp = 0, syscallpc = 0, syscallbp = 0;  // syscallbp: 1.23+
  uint64_t startpc = 0, gopc = 0;
  uint64_t parent_goid = 0;  // 1.21+
  uint64_t lockedm = 0;
  // Frame-pointer walk of the goroutine's stack for waiting/runnable/syscall goroutines
  // (sched or syscall regs, exactly like gt_stack_tail: pcs[0] = sched.pc or syscallpc).
  // Empty for running goroutines (their stack is moving under us) and Dead ones.
  std::vector<uint64_t> stack;
  uint8_t stack_source = 0;  // enum gt_stack_source
  uint64_t read_ts_ns = 0;   // CLOCK_MONOTONIC just before this g was read
};

struct ProcState {
  uint64_t p = 0;
  int32_t id = -1;
  uint32_t status = 0;      // raw p.status
  uint64_t m = 0;           // p.m (0 when idle)
  int64_t m_id = -1;
  uint64_t m_procid = 0;
  uint32_t syscalltick = 0;
  uint64_t read_ts_ns = 0;
};

struct MState {
  uint64_t m = 0;
  int64_t id = -1;
  uint64_t procid = 0;      // thread id (0 for an M whose thread has not started yet)
  uint64_t curg = 0;
  uint64_t curg_goid = 0;
  uint64_t p = 0;
  int32_t p_id = -1;
  uint64_t oldp = 0;
  uint64_t lockedg = 0;
  uint64_t read_ts_ns = 0;
};

struct RuntimeSnapshot {
  uint64_t begin_ts_ns = 0;  // CLOCK_MONOTONIC when the snapshot started
  uint64_t end_ts_ns = 0;    // ... and ended
  int32_t gomaxprocs = 0;
  uint64_t goidgen = 0;      // sched.goidgen (0 when unknown)
  // gcController.heapLive (mgcpacer.go), read at heap_live_ts_ns (CLOCK_MONOTONIC just
  // before the read): it holds every (*gcControllerState).update whose probe fired before
  // that time. heap_live_known false: not read (global or field unknown, read failed).
  bool heap_live_known = false;
  uint64_t heap_live = 0;
  uint64_t heap_live_ts_ns = 0;
  // What (*gcControllerState).heapGoal reads (mgcpacer.go heapGoalInternal,
  // memoryLimitHeapGoal), from one read of gcController right after heapLive's:
  // daemon/model/heap_goal.h computes the goal. pacer_known false: the global or one of
  // the fields is unknown, or the read failed.
  bool pacer_known = false;
  model::GcPacerState pacer;
  std::vector<GoroutineState> goroutines;  // allgs[0:allglen], in allgs order (incl. Dead)
  std::vector<ProcState> procs;            // allp[0:len(allp)], index == id
  std::vector<MState> ms;                  // allm list order
  std::vector<std::string> warnings;       // entities that could not be read, with why
};

struct SnapshotOptions {
  bool stacks = true;        // walk stacks of non-running goroutines
  uint32_t max_frames = 128;
  size_t max_goroutines = 1 << 22;  // refuse absurd allglen (corrupt read)
};

// Reads the snapshot. Fails only when the globals cannot be read at all (wrong address,
// process gone, EPERM); per-entity problems are warnings.
gobin::Result<RuntimeSnapshot> TakeSnapshot(const ProcessMemory &mem, const gobin::RuntimeLayout &layout,
                                            const RuntimeGlobalAddrs &addrs, const SnapshotOptions &opts = {});

// Human-readable dump (capture-dump --snapshot).
std::string DescribeSnapshot(const RuntimeSnapshot &s);

}  // namespace gotraced::procmem
