// One function per record kind, in the shape of internal/trace/order.go's advance*
// functions: establish the event's context (lazy statuses, repairs), emit it, and let the
// emit primitive update the state. The runtime call each one stands for is named; the
// status the runtime would write lazily comes from its eventWriter(goStatus, procStatus)
// arguments in runtime/traceruntime.go (Go 1.22-1.27 agree on all of them).
#include <fmt/format.h>

#include "daemon/model/model.h"

namespace gotraced::model {

using encoder::GoStatus;
using encoder::ProcStatus;
using encoder::kNoThread;

namespace {
bool Valid(Goid g) { return g != kNoG && g != kUnknownG; }
}  // namespace

// traceLocker.Gomaxprocs (procresize): eventWriter(GoRunning, ProcRunning), stack(1).
// The event needs M, P and G (order.go advanceAnnotation); procresize during schedinit
// runs before any goroutine, and is recorded only as the new GOMAXPROCS.
void Model::OnProcsChange(const Record &r) {
  st_.gomaxprocs = static_cast<std::int32_t>(r.value);
  const Goid g = r.g == kUnknownG ? st_.M(r.m).g : r.g;
  if (!Valid(g) || !EnsureProc(r, r.p) || !EnsureRunning(r, g)) {
    ++stats_.records_discarded;
    return;
  }
  encoder::StackId stack = stacks_.Build(r.stack, r.stack_skip, g == 1);
  Count(w_.ProcsChange(r.m, Ts(r.m, r.ts), r.value, stack));
}

// traceLocker.ProcStart (acquirep, wirep paths): eventWriter(GoSyscall, ProcIdle); the M
// may hold a goroutine that is leaving a syscall. order.go advanceProcStart.
void Model::OnProcStart(const Record &r) {
  const ProcId p = r.target_p;
  if (p < 0) {
    ++stats_.records_discarded;
    return;
  }
  MState &ms = st_.M(r.m);
  if (ms.p == p) {
    ProcState *ps = st_.P(p);
    if (ps != nullptr && ps->status == ProcStatus::kSyscall) {
      // Go 1.26 exitsyscall re-takes its own P with ProcSteal+ProcStart; the steal is missing.
      Repair(r, fmt::format("P {} still in a syscall on this M", p));
      ++stats_.repair_events;
      EnsureStatusP(r.m, r.ts, p, ps->status);
      EmitProcSteal(r.m, r.ts, p, r.m);
    } else {
      ++stats_.records_discarded;  // already running here
      return;
    }
  } else if (ms.p != kNoP) {
    Repair(r, fmt::format("M still holds P {}", ms.p));
    GoState *cur = st_.G(ms.g);
    if (cur != nullptr && cur->status == GoStatus::kRunning) DetachG(r, r.m);
    ++stats_.repair_events;
    EmitProcStop(r.m, r.ts);
  }
  ProcState *ps = st_.P(p);
  if (ps == nullptr) {
    EmitProcStatus(r.m, r.ts, p, ProcStatus::kIdle);
  } else {
    EnsureStatusP(r.m, r.ts, p, ps->status);
    if (ps->status != ProcStatus::kIdle) {
      Repair(r, fmt::format("P {} still held by M {}", p, ps->m));
      FreeProc(r, p, r.m);
    }
  }
  EmitProcStart(r.m, r.ts, p);
}

// traceLocker.ProcStop (releasep, entersyscallblock's handoff, STW): eventWriter(GoSyscall,
// ProcRunning). order.go advanceProcStop. A goroutine still running on the M lost a
// transition: it is taken off first (an M never keeps a running G without a P).
void Model::OnProcStop(const Record &r) {
  MState &ms = st_.M(r.m);
  if (ms.p == kNoP) {
    if (r.p >= 0 && st_.P(r.p) == nullptr) {
      EmitProcStatus(r.m, r.ts, r.p, ProcStatus::kRunning);  // lazy status
    } else {
      ++stats_.records_discarded;
      return;
    }
  } else {
    EnsureStatusP(r.m, r.ts, ms.p, ProcStatus::kRunning);
  }
  GoState *cur = st_.G(ms.g);
  if (cur != nullptr && cur->status == GoStatus::kRunning) {
    Repair(r, fmt::format("goroutine {} still running at ProcStop", ms.g));
    DetachG(r, r.m);
  }
  EmitProcStop(r.m, r.ts);
}

// traceLocker.ProcSteal (sysmon retake, STW, Go 1.26 exitsyscall self-steal). A P first
// seen here gets ProcStatus(SyscallAbandoned), as the runtime writes it. order.go
// advanceProcSteal.
void Model::OnProcSteal(const Record &r) {
  const ProcId p = r.target_p;
  if (p < 0) {
    ++stats_.records_discarded;
    return;
  }
  ProcState *ps = st_.P(p);
  if (ps == nullptr) {
    EmitProcStatus(r.m, r.ts, p, ProcStatus::kSyscallAbandoned);
    EmitProcSteal(r.m, r.ts, p, r.victim_m);
    return;
  }
  EnsureStatusP(r.m, r.ts, p, ps->status);
  switch (ps->status) {
    case ProcStatus::kSyscall:
    case ProcStatus::kSyscallAbandoned:
      // victim_m 0: the record does not know the M (Go <= 1.25 retake, a P regained from
      // another M's syscall): the model's is the one.
      if (ps->status == ProcStatus::kSyscall && r.victim_m != 0 && ps->m != r.victim_m)
        Repair(r, fmt::format("P {} in a syscall on M {}, not on M {}", p, ps->m, r.victim_m));
      KernelProcSteal(ps->m, r.ts);  // model_kernel_syscall.cc
      EmitProcSteal(r.m, r.ts, p, ps->m);
      return;
    case ProcStatus::kRunning:
      // The victim's GoSyscallBegin is missing: stop the P on its M instead.
      Repair(r, fmt::format("P {} running on M {}, not in a syscall", p, ps->m));
      FreeProc(r, p, kNoThread);
      return;
    default:
      ++stats_.records_discarded;  // already idle
      return;
  }
}

// traceLocker.GoCreate (newproc1): eventWriter(GoRunning, ProcRunning); new stack = the
// start PC (startPCForTrace), stack = tl.stack(2) from the creator. order.go
// advanceGoCreate: the M needs a P; a current goroutine, if any, must be running.
void Model::OnGoCreate(const Record &r) {
  if (!EnsureProc(r, r.p)) {
    ++stats_.records_discarded;
    return;
  }
  const Goid creator = r.g;
  if (Valid(creator)) {
    if (!EnsureRunning(r, creator)) {
      ++stats_.records_discarded;
      return;
    }
  } else {
    MState &ms = st_.M(r.m);
    GoState *cur = st_.G(ms.g);
    if (cur != nullptr && cur->status != GoStatus::kRunning) {
      Repair(r, fmt::format("creator M holds non-running goroutine {}", ms.g));
      DetachG(r, r.m);
    }
  }
  if (st_.G(r.target_g) != nullptr || !Valid(r.target_g)) {
    Repair(r, fmt::format("goroutine {} already exists", r.target_g));
    ++stats_.records_discarded;
    return;
  }
  const bool blocked = r.flag && w_.version() >= encoder::Version::kGo123;
  encoder::StackId new_stack = stacks_.StartStack(r.value);
  encoder::StackId stack = stacks_.Build(r.stack, r.stack_skip, creator == 1);
  EmitGoCreate(r.m, r.ts, r.target_g, blocked, new_stack, stack);
}

// traceLocker.GoStart (execute): eventWriter(GoRunnable, ProcRunning). order.go
// advanceGoStart: the M needs a P and no goroutine; the goroutine must be runnable.
void Model::OnGoStart(const Record &r) {
  const Goid g = r.target_g;
  if (!Valid(g) || !EnsureProc(r, r.p)) {
    ++stats_.records_discarded;
    return;
  }
  MState &ms = st_.M(r.m);
  if (ms.g == g) {
    GoState *gs = st_.G(g);
    if (gs != nullptr && gs->status == GoStatus::kRunning) {
      ++stats_.records_discarded;  // duplicate
      return;
    }
  }
  if (ms.g != kNoG) {
    Repair(r, fmt::format("M still runs goroutine {}", ms.g));
    DetachG(r, r.m);
  }
  if (st_.G(g) == nullptr && FirstGeneration()) {
    EmitGoStatus(r.m, r.ts, g, r.m, GoStatus::kRunnable);  // lazy status, in this M's batch
  } else if (!MakeRunnable(r, g)) {
    ++stats_.records_discarded;
    return;
  }
  EmitGoStart(r.m, r.ts, g);
  RunningLabels(r, g);  // model_labels.cc
}

// traceLocker.GoEnd (goexit1) / GoStop (goschedImpl, goyield_m: GoSched, GoPreempt) /
// GoPark (park_m, preemptPark): eventWriter(GoRunning, ProcRunning). order.go
// advanceGoStopExec: needs M, P and a running goroutine.
void Model::OnGoStopExec(const Record &r) {
  const Goid g = r.g == kUnknownG ? st_.M(r.m).g : r.g;
  if (!Valid(g) || !EnsureProc(r, r.p) || !EnsureRunning(r, g)) {
    ++stats_.records_discarded;
    return;
  }
  encoder::StackId stack = encoder::kNoStack;
  if (r.kind != RecordKind::kGoEnd) stack = stacks_.Build(r.stack, r.stack_skip, g == 1);
  std::string_view reason = r.reason;
  // The decoder names every GoBlock's reason; an empty one is Go <= 1.21's generic
  // block (traceEvGoBlock, gobin/legacy_block_reasons.h), which Go's parser reads as "".
  if (reason.empty() && r.kind != RecordKind::kGoBlock) reason = "unspecified";
  if (r.kind == RecordKind::kGoBlock) ++stats_.blocks;
  if (r.kind == RecordKind::kGoStop) ++stats_.stops;
  if (r.kind != RecordKind::kGoEnd) RunningLabels(r, g);  // the set it ran with until now
  EmitGoStopExec(r.m, r.ts, r.kind, reason, stack);
}

// traceLocker.GoUnpark (ready, injectglist, ...): emitUnblockStatus writes GoStatus(Waiting)
// for a goroutine not yet seen in the generation; then eventWriter(GoRunning, ProcRunning)
// for the unblocker's own P and G. order.go advanceGoUnblock: no context needed.
void Model::OnGoUnblock(const Record &r) {
  const Goid g = r.target_g;
  if (!Valid(g)) {
    ++stats_.records_discarded;
    return;
  }
  // The unblocker's own resources, when first seen (lazy statuses only, no repairs: the
  // event itself needs no context).
  MState &ms = st_.M(r.m);
  if (FirstGeneration() && r.p >= 0 && ms.p == kNoP && st_.P(r.p) == nullptr)
    EmitProcStatus(r.m, r.ts, r.p, ProcStatus::kRunning);
  if (FirstGeneration() && Valid(r.g) && r.g != g && ms.g == kNoG && ms.p != kNoP && st_.G(r.g) == nullptr)
    EmitGoStatus(r.m, r.ts, r.g, r.m, GoStatus::kRunning);

  const bool known = st_.G(g) != nullptr;
  if (!EnsureKnownTarget(r, g)) {
    ++stats_.records_discarded;
    return;
  }
  if (known) {
    GoState *gs = st_.G(g);
    if (gs->status == GoStatus::kRunnable) {
      Repair(r, fmt::format("goroutine {} already runnable", g));
      ++stats_.records_discarded;
      return;
    }
    if (gs->status == GoStatus::kRunning || gs->status == GoStatus::kSyscall) {
      Repair(r, fmt::format("goroutine {} still on M {}", g, gs->m));
      DetachG(r, gs->m);
      if (st_.G(g)->status != GoStatus::kWaiting) {
        ++stats_.records_discarded;
        return;
      }
    }
  }
  const Goid unblocker = Valid(r.g) ? r.g : ms.g;
  encoder::StackId stack = stacks_.Build(r.stack, r.stack_skip, unblocker == 1);
  EmitGoUnblock(r.m, r.ts, g, stack);
}

// traceLocker.GoSysCall (reentersyscall, entersyscallblock): eventWriter(GoRunning,
// ProcRunning), P sequence number, stack(1). order.go advanceGoSyscallBegin.
void Model::OnGoSyscallBegin(const Record &r) {
  const Goid g = r.g == kUnknownG ? st_.M(r.m).g : r.g;
  if (Valid(g) && r.p < 0 && st_.M(r.m).p == kNoP && FirstGeneration() && st_.G(g) == nullptr) {
    // A syscall of a goroutine no record mentioned yet, on an M with no P: one made inside
    // an entersyscallblock from before the attach (it hands its P off first; os/signal's
    // notetsleepg), its futex restarted or its signal handler's rt_sigreturn (seen:
    // level-switch.sh, the SIGUSR1 delivered to that thread). The runtime's trace begins
    // with that goroutine in a syscall on this M: say so, as its first-generation status.
    EmitGoStatus(r.m, r.ts, g, r.m, GoStatus::kSyscall);
    return;
  }
  if (!Valid(g) || !EnsureProc(r, r.p) || !EnsureRunning(r, g)) {
    ++stats_.records_discarded;
    return;
  }
  encoder::StackId stack = stacks_.Build(r.stack, r.stack_skip, g == 1);
  ++stats_.syscalls;
  const bool gave_p_up = r.p == kNoP && st_.M(r.m).p != kNoP;
  EmitGoSyscallBegin(r.m, r.ts, stack);
  if (gave_p_up) {
    // The probe saw no P on an M that held one: the goroutine gave it up between its
    // GoSysCall and the syscall. Go 1.26 reentersyscall while a stop-the-world waits:
    // entersyscallHandleGCWait sets the P _Pgcstop, clears m.p and writes trace.ProcStop
    // (proc.go), which nothing probes; the sys_enter tracepoint then reads m.p == 0. The
    // runtime's order: GoSyscallBegin, ProcStop (seen 3-8 times per 10 s --pid recording
    // of the HTTP bench, each a "P never left the syscall" repair at the exit).
    EmitProcStop(r.m, r.ts);
  }
  KernelSyscallBegin(r, st_.M(r.m).last_ts);  // model_kernel_syscall.cc
}

// First-generation statuses for a goroutine seen first while in a syscall on this M.
// Returns the goroutine (kNoG if none can be established).
static Goid SyscallSubject(const Record &r, const SchedState &st) {
  if (Valid(r.g)) return r.g;
  auto it = st.ms.find(r.m);
  return it == st.ms.end() ? kNoG : it->second.g;
}

// traceLocker.GoSysExit(false) (exitsyscall fast path): eventWriter(GoSyscall,
// ProcSyscall). order.go advanceGoSyscallEnd: the goroutine and the M's P are in a syscall.
void Model::OnGoSyscallEnd(const Record &r) {
  const Goid g = SyscallSubject(r, st_);
  if (!Valid(g)) {
    ++stats_.records_discarded;
    return;
  }
  MState &ms = st_.M(r.m);
  if (FirstGeneration() && ms.g == kNoG && st_.G(g) == nullptr) {
    if (r.p >= 0 && ms.p == kNoP && st_.P(r.p) == nullptr) EmitProcStatus(r.m, r.ts, r.p, ProcStatus::kSyscall);
    EmitGoStatus(r.m, r.ts, g, r.m, GoStatus::kSyscall);
  }
  GoState *gs = st_.G(g);
  if (ms.g != g || gs == nullptr || gs->status != GoStatus::kSyscall) {
    // The GoSyscallBegin is missing: leave the goroutine running here, as after the exit.
    Repair(r, fmt::format("goroutine {} not in a syscall on this M", g));
    if (!EnsureProc(r, r.p) || !EnsureRunning(r, g)) ++stats_.records_discarded;
    return;
  }
  EnsureStatusG(r.m, r.ts, g, r.m, GoStatus::kSyscall);
  ProcState *ps = st_.P(ms.p);
  if (ps == nullptr || ps->status != ProcStatus::kSyscall || (r.p >= 0 && r.p != ms.p)) {
    // The P was lost meanwhile (or is another one): what the runtime writes for a lost P.
    Repair(r, "fast syscall exit after the P was lost");
    ++stats_.repair_events;
    if (ps != nullptr && ps->status == ProcStatus::kSyscall) EmitProcStop(r.m, r.ts);
    EmitGoSyscallEndBlocked(r.m, r.ts);
    if (!EnsureProc(r, r.p) || !EnsureRunning(r, g)) ++stats_.records_discarded;
    return;
  }
  EnsureStatusP(r.m, r.ts, ms.p, ProcStatus::kSyscall);
  KernelSyscallEnd(r, false);  // model_kernel_syscall.cc
  EmitGoSyscallEnd(r.m, r.ts);
}

// traceLocker.GoSysExit(true) (exitsyscall after losing the P; Go 1.26 exitsyscallNoP):
// eventWriter(GoSyscall, ProcRunning). order.go advanceGoSyscallEndBlocked: applies once
// the M's P (if any) is out of the syscall state.
void Model::OnGoSyscallEndBlocked(const Record &r) {
  const Goid g = SyscallSubject(r, st_);
  if (!Valid(g)) {
    ++stats_.records_discarded;
    return;
  }
  MState &ms = st_.M(r.m);
  if (FirstGeneration() && ms.g == kNoG && st_.G(g) == nullptr) EmitGoStatus(r.m, r.ts, g, r.m, GoStatus::kSyscall);
  GoState *gs = st_.G(g);
  if (ms.g != g || gs == nullptr || gs->status != GoStatus::kSyscall) {
    Repair(r, fmt::format("goroutine {} not in a syscall on this M", g));
    ++stats_.records_discarded;
    return;
  }
  EnsureStatusG(r.m, r.ts, g, r.m, GoStatus::kSyscall);
  if (ms.p != kNoP) {
    ProcState *ps = st_.P(ms.p);
    EnsureStatusP(r.m, r.ts, ms.p, ps ? ps->status : ProcStatus::kRunning);
    ps = st_.P(ms.p);
    if (ps != nullptr && ps->status == ProcStatus::kSyscall) {
      // Nobody took the P (the steal was not captured): the M gives it up itself.
      Repair(r, fmt::format("P {} never left the syscall", ms.p));
      ++stats_.repair_events;
      EmitProcStop(r.m, r.ts);
    }
  }
  KernelSyscallEnd(r, true);  // model_kernel_syscall.cc
  EmitGoSyscallEndBlocked(r.m, r.ts);
}

// traceLocker.GoCreateSyscall (needm on an extra M, cgo callback): raw event, no status.
// order.go advanceGoCreateSyscall: the M must have no goroutine.
void Model::OnGoCreateSyscall(const Record &r) {
  const Goid g = r.target_g;
  if (!Valid(g) || st_.G(g) != nullptr) {
    ++stats_.records_discarded;
    return;
  }
  MState &ms = st_.M(r.m);
  if (ms.g != kNoG) {
    Repair(r, fmt::format("M still holds goroutine {}", ms.g));
    DetachG(r, r.m);
  }
  Count(w_.GoCreateSyscall(r.m, Ts(r.m, r.ts), g));
  GoState &gs = st_.gs[g];
  gs.status = GoStatus::kSyscall;
  gs.m = r.m;
  gs.seq = 0;
  gs.seq_gen = w_.generation();
  ms.g = g;
  ++stats_.goroutines_created;
}

// traceLocker.GoDestroySyscall (dropm): status Syscall for an unseen goroutine, then the
// raw event. order.go advanceGoDestroySyscall: a P still on the M becomes
// SyscallAbandoned and leaves the M.
void Model::OnGoDestroySyscall(const Record &r) {
  MState &ms = st_.M(r.m);
  const Goid g = SyscallSubject(r, st_);
  if (!Valid(g)) {
    ++stats_.records_discarded;
    return;
  }
  if (FirstGeneration() && ms.g == kNoG && st_.G(g) == nullptr) EmitGoStatus(r.m, r.ts, g, r.m, GoStatus::kSyscall);
  GoState *gs = st_.G(g);
  if (ms.g != g || gs == nullptr || gs->status != GoStatus::kSyscall) {
    Repair(r, fmt::format("goroutine {} not in a syscall on this M", g));
    ++stats_.records_discarded;
    return;
  }
  EnsureStatusG(r.m, r.ts, g, r.m, GoStatus::kSyscall);
  if (ms.p != kNoP) {
    ProcState *ps = st_.P(ms.p);
    if (ps != nullptr && ps->status != ProcStatus::kSyscall) {
      Repair(r, fmt::format("P {} not in a syscall at GoDestroySyscall", ms.p));
      ++stats_.repair_events;
      EmitProcStop(r.m, r.ts);
    }
  }
  Count(w_.GoDestroySyscall(r.m, Ts(r.m, r.ts)));
  // Not NoteEnded: an extra M's goroutine comes back with the same id the next time a C
  // thread borrows that M (runtime/proc.go needm: casgstatus(_Gdeadextra, _Gsyscall)).
  st_.gs.erase(g);
  ++stats_.goroutines_ended;
  ms.g = kNoG;
  if (ms.p != kNoP) {
    if (ProcState *ps = st_.P(ms.p)) {
      ps->status = ProcStatus::kSyscallAbandoned;
      ps->m = 0;
    }
    ms.p = kNoP;
  }
}

// traceLocker.GoSwitch (coroutine switch, Go 1.23+): emitUnblockStatus for the next
// goroutine, eventWriter(GoRunning, ProcRunning). order.go advanceGoSwitch. For go1.22
// output (no GoSwitch event) the switch is written as GoBlock + GoUnblock + GoStart.
void Model::OnGoSwitch(const Record &r) {
  const Goid cur = r.g == kUnknownG ? st_.M(r.m).g : r.g;
  const Goid next = r.target_g;
  if (!Valid(cur) || !Valid(next) || cur == next || !EnsureProc(r, r.p) || !EnsureRunning(r, cur)) {
    ++stats_.records_discarded;
    return;
  }
  if (!EnsureKnownTarget(r, next)) {
    ++stats_.records_discarded;
    return;
  }
  GoState *ns = st_.G(next);
  if (w_.version() >= encoder::Version::kGo123 && ns->status == GoStatus::kWaiting) {
    EmitGoSwitch(r.m, r.ts, next, r.flag);
    return;
  }
  if (w_.version() >= encoder::Version::kGo123) Repair(r, fmt::format("switch target {} not waiting", next));
  EmitGoStopExec(r.m, r.ts, r.flag ? RecordKind::kGoEnd : RecordKind::kGoBlock, "coroutine", encoder::kNoStack);
  if (st_.G(next)->status == GoStatus::kWaiting) {
    EmitGoUnblock(r.m, r.ts, next, encoder::kNoStack);
  } else if (!MakeRunnable(r, next)) {
    ++stats_.records_discarded;
    return;
  }
  if (st_.G(next)->status == GoStatus::kRunnable) EmitGoStart(r.m, r.ts, next);
}

// The goroutine an event makes runnable or running from another goroutine (GoUnblock's
// target, GoSwitch's next) must be known to the parser before the event: this
// generation's status if we track it, else a Waiting status in the first generation
// (order.go accepts unknown goroutines there) or an introduction after it. False when it
// cannot be introduced.
bool Model::EnsureKnownTarget(const Record &r, Goid g) {
  if (GoState *gs = st_.G(g)) {
    EnsureStatusG(r.m, r.ts, g, kNoThread, gs->status);
    return true;
  }
  if (FirstGeneration()) {
    EmitGoStatus(r.m, r.ts, g, kNoThread, GoStatus::kWaiting);
    return true;
  }
  return IntroduceG(r, g, GoStatus::kWaiting);
}

}  // namespace gotraced::model
