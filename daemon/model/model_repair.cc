// Lazy statuses and repairs: bringing the trace state to what a record requires.
//
// Two different things happen here:
//   * Lazy statuses (not repairs): the first time a resource is touched in a generation
//     it gets a status implied by the event, exactly as the runtime's
//     traceLocker.eventWriter(goStatus, procStatus) and emitUnblockStatus do
//     (runtime/traceevent.go, traceruntime.go).
//   * Repairs: the record contradicts the state (a transition was lost or not probed).
//     Synthesized events move the state to the record's precondition; every repair is
//     counted (stats.inconsistencies, stats.repair_events) and described in last_repair().
//     A goroutine removed from its M without a record is shown blocked with the reason
//     kRepairReason, so repairs stay visible in the trace.
#include <fmt/format.h>

#include "daemon/model/model.h"

namespace gotraced::model {

using encoder::GoStatus;
using encoder::ProcStatus;
using encoder::kNoThread;

namespace {
constexpr std::string_view kRepairReason = "gotraced: transition not captured";
bool Bound(GoStatus s) { return s == GoStatus::kRunning || s == GoStatus::kSyscall; }
bool Bound(ProcStatus s) { return s == ProcStatus::kRunning || s == ProcStatus::kSyscall; }
}  // namespace

bool Model::FirstGeneration() const { return w_.generation() == first_gen_; }

void Model::Repair(const Record &r, std::string_view what) {
  ++stats_.inconsistencies;
  last_repair_ = fmt::format("{} on M {} at {}: {}", RecordKindName(r.kind), r.m, r.ts, what);
  if (opt_.on_repair) opt_.on_repair(last_repair_);
}

void Model::EnsureStatusP(ThreadId batch, std::uint64_t ts, ProcId p, ProcStatus s) {
  ProcState *ps = st_.P(p);
  if (ps == nullptr) {
    EmitProcStatus(batch, ts, p, s);
    return;
  }
  if (ps->seq_gen == w_.generation()) return;
  EmitProcStatus(Bound(ps->status) ? ps->m : batch, ts, p, ps->status);
}

void Model::EnsureStatusG(ThreadId batch, std::uint64_t ts, Goid g, ThreadId gm, GoStatus s) {
  GoState *gs = st_.G(g);
  if (gs == nullptr) {
    EmitGoStatus(batch, ts, g, gm, s);
    return;
  }
  if (gs->seq_gen == w_.generation()) return;
  if (Bound(gs->status))
    EmitGoStatus(gs->m, ts, g, gs->m, gs->status);
  else
    EmitGoStatus(batch, ts, g, kNoThread, gs->status);
}

// Removes the goroutine the M holds. Invariant kept by every path: an M with a Running
// goroutine holds a P, so GoBlock is always possible here.
void Model::DetachG(const Record &r, ThreadId m) {
  MState &ms = st_.M(m);
  GoState *gs = st_.G(ms.g);
  if (gs == nullptr) {
    ms.g = kNoG;
    return;
  }
  EnsureStatusG(m, r.ts, ms.g, m, gs->status);
  ++stats_.repair_events;
  if (gs->status == GoStatus::kSyscall) {
    // GoSyscallEndBlocked only applies once the M's P is out of the syscall state.
    ProcState *ps = st_.P(ms.p);
    if (ps != nullptr && ps->status == ProcStatus::kSyscall) EmitProcStop(m, r.ts);
    EmitGoSyscallEndBlocked(m, r.ts);
    return;
  }
  EmitGoStopExec(m, r.ts, RecordKind::kGoBlock, kRepairReason, encoder::kNoStack);
}

// Leaves P p idle and bound to no M (other than `except`, which the caller handles).
void Model::FreeProc(const Record &r, ProcId p, ThreadId except) {
  ProcState *ps = st_.P(p);
  if (ps == nullptr || ps->status == ProcStatus::kIdle) return;
  EnsureStatusP(r.m, r.ts, p, ps->status);
  ++stats_.repair_events;
  if (ps->status == ProcStatus::kSyscall || ps->status == ProcStatus::kSyscallAbandoned) {
    EmitProcSteal(r.m, r.ts, p, ps->m);
    return;
  }
  // Running on another M: stop it there, after taking away a running goroutine.
  const ThreadId owner = ps->m;
  if (owner == except) return;
  MState &om = st_.M(owner);
  if (om.g != kNoG) {
    GoState *og = st_.G(om.g);
    if (og != nullptr && og->status == GoStatus::kRunning) DetachG(r, owner);
  }
  EmitProcStop(owner, r.ts);
}

bool Model::EnsureProc(const Record &r, ProcId p) {
  MState &ms = st_.M(r.m);
  if (p < 0) {
    if (ms.p == kNoP) return false;
    p = ms.p;
  }
  if (ms.p == p) {
    EnsureStatusP(r.m, r.ts, p, ProcStatus::kRunning);
    ProcState *ps = st_.P(p);
    if (ps->status == ProcStatus::kSyscall) {
      // The record runs user code on this P, so the syscall is over.
      Repair(r, fmt::format("P {} still in a syscall", p));
      ++stats_.repair_events;
      GoState *gs = st_.G(ms.g);
      if (gs != nullptr && gs->status == GoStatus::kSyscall) {
        EmitGoSyscallEnd(r.m, r.ts);
      } else {
        EmitProcStop(r.m, r.ts);
        EmitProcStart(r.m, r.ts, p);
      }
    }
    return true;
  }
  if (ms.p != kNoP) {
    Repair(r, fmt::format("M holds P {}, record says P {}", ms.p, p));
    GoState *gs = st_.G(ms.g);
    if (gs != nullptr && gs->status == GoStatus::kRunning) DetachG(r, r.m);
    ++stats_.repair_events;
    EmitProcStop(r.m, r.ts);
  }
  ProcState *ps = st_.P(p);
  if (ps == nullptr) {
    // First mention of this P: its status is implied (eventWriter(_, ProcRunning)). New Ps
    // may be introduced by status in any generation (order.go advanceProcStatus).
    if (ms.g != kNoG && st_.G(ms.g) != nullptr && st_.G(ms.g)->status == GoStatus::kSyscall) {
      // The M's goroutine is in a syscall: bind the P as idle and start it instead.
      EmitProcStatus(kNoThread, r.ts, p, ProcStatus::kIdle);
      EmitProcStart(r.m, r.ts, p);
    } else {
      EmitProcStatus(r.m, r.ts, p, ProcStatus::kRunning);
    }
    return true;
  }
  EnsureStatusP(r.m, r.ts, p, ps->status);
  if (ps->status != ProcStatus::kIdle) {
    Repair(r, fmt::format("P {} held by M {}", p, ps->m));
    FreeProc(r, p, r.m);
  } else {
    Repair(r, fmt::format("P {} idle, record runs on it", p));
  }
  ++stats_.repair_events;
  EmitProcStart(r.m, r.ts, p);
  return true;
}

bool Model::IntroduceG(const Record &r, Goid g, GoStatus want) {
  if (FirstGeneration()) {
    // order.go advanceGoStatus accepts an unknown goroutine in the first generation.
    ThreadId gm = Bound(want) ? r.m : kNoThread;
    EmitGoStatus(Bound(want) ? r.m : kNoThread, r.ts, g, gm, want);
    return true;
  }
  // Later generations may not introduce goroutines by status ("found goroutine status for
  // new goroutine after the first generation"): create it from this M, which needs a P
  // and no goroutine other than a running one (order.go advanceGoCreate).
  MState &ms = st_.M(r.m);
  if (ms.p == kNoP) return false;
  const ProcState *ps = st_.P(ms.p);
  if (ps == nullptr || ps->status != ProcStatus::kRunning) return false;
  if (ms.g != kNoG) {
    const GoState *cur = st_.G(ms.g);
    if (cur != nullptr && cur->status != GoStatus::kRunning) return false;
  }
  const bool blocked = want == GoStatus::kWaiting;
  if (blocked && w_.version() < encoder::Version::kGo123) return false;
  if (want == GoStatus::kSyscall) return false;
  Repair(r, fmt::format("goroutine {} unknown after the first generation: synthesized GoCreate", g));
  ++stats_.repair_events;
  ++stats_.goroutines_synthesized;
  EmitGoCreate(r.m, r.ts, g, blocked, encoder::kNoStack, encoder::kNoStack);
  if (want == GoStatus::kRunning) {
    if (ms.g != kNoG) DetachG(r, r.m);
    EmitGoStart(r.m, r.ts, g);
  }
  return true;
}

bool Model::MakeRunnable(const Record &r, Goid g) {
  GoState *gs = st_.G(g);
  if (gs == nullptr) return IntroduceG(r, g, GoStatus::kRunnable);
  EnsureStatusG(r.m, r.ts, g, r.m, gs->status);
  if (gs->status == GoStatus::kRunnable) return true;
  ++stats_.repair_events;
  if (Bound(gs->status)) {
    Repair(r, fmt::format("goroutine {} still on M {}", g, gs->m));
    DetachG(r, gs->m);
    gs = st_.G(g);
    if (gs->status == GoStatus::kRunnable) return true;
  } else {
    Repair(r, fmt::format("goroutine {} waiting, not runnable", g));
  }
  EmitGoUnblock(r.m, r.ts, g, encoder::kNoStack);
  return true;
}

bool Model::EnsureRunning(const Record &r, Goid g) {
  MState &ms = st_.M(r.m);
  if (g == kUnknownG) g = ms.g;
  if (g == kNoG || g == kUnknownG) return false;
  if (ms.g == g) {
    GoState *gs = st_.G(g);
    EnsureStatusG(r.m, r.ts, g, r.m, gs->status);
    if (gs->status == GoStatus::kRunning) return true;
    // In a syscall on this M, but the record runs user code: the syscall ended.
    Repair(r, fmt::format("goroutine {} still in a syscall", g));
    ++stats_.repair_events;
    ProcState *ps = st_.P(ms.p);
    if (ps != nullptr && ps->status == ProcStatus::kSyscall) {
      EmitGoSyscallEnd(r.m, r.ts);
    } else {
      EmitGoSyscallEndBlocked(r.m, r.ts);
      EmitGoStart(r.m, r.ts, g);
    }
    return true;
  }
  if (ms.g != kNoG) {
    Repair(r, fmt::format("M runs goroutine {}, record says {}", ms.g, g));
    DetachG(r, r.m);
  }
  if (st_.G(g) == nullptr && FirstGeneration()) {
    // Lazy status: eventWriter(GoRunning, ...) on the goroutine's own M.
    EmitGoStatus(r.m, r.ts, g, r.m, GoStatus::kRunning);
    return true;
  }
  if (st_.G(g) == nullptr) return IntroduceG(r, g, GoStatus::kRunning);
  if (!MakeRunnable(r, g)) return false;
  if (st_.G(g)->status == GoStatus::kRunning) return true;
  Repair(r, fmt::format("goroutine {} not started on this M", g));
  ++stats_.repair_events;
  EmitGoStart(r.m, r.ts, g);
  return true;
}

}  // namespace gotraced::model
