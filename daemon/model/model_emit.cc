// Emit primitives: each writes one trace event and updates SchedState exactly as the
// trace reader's ordering does for that event (internal/trace/order.go, named per
// function). Callers establish the preconditions; these only keep the books.
#include <algorithm>

#include "daemon/model/model.h"

namespace gotraced::model {

using encoder::GoStatus;
using encoder::ProcStatus;
using encoder::kNoThread;

std::uint64_t Model::Ts(ThreadId m, std::uint64_t ts) {
  MState &ms = st_.M(m);
  ms.last_ts = std::max(ms.last_ts, ts);
  return ms.last_ts;
}

void Model::Count(encoder::EmitStatus s) {
  if (s == encoder::EmitStatus::kOk)
    ++stats_.events;
  else
    ++stats_.writer_dropped;
}

// order.go advanceProcStatus: sets the status, resets the sequence counter, and binds a
// Running/Syscall P to the batch's M.
void Model::EmitProcStatus(ThreadId batch, std::uint64_t ts, ProcId p, ProcStatus s) {
  Count(w_.ProcStatusEvent(batch, Ts(batch, ts), static_cast<encoder::PId>(p), s));
  ProcState &ps = st_.ps[p];
  ps.status = s;
  ps.seq = 0;
  ps.seq_gen = w_.generation();
  ps.gone = false;
  if (s == ProcStatus::kRunning || s == ProcStatus::kSyscall) {
    ps.m = batch;
    st_.M(batch).p = p;
  }
}

// order.go advanceGoStatus.
void Model::EmitGoStatus(ThreadId batch, std::uint64_t ts, Goid g, ThreadId gm, GoStatus s) {
  Count(w_.GoStatusEvent(batch, Ts(batch, ts), g, gm, s));
  GoState &gs = st_.gs[g];
  gs.status = s;
  gs.seq = 0;
  gs.seq_gen = w_.generation();
  if (s == GoStatus::kRunning || s == GoStatus::kSyscall) {
    gs.m = gm;
    st_.M(gm).g = g;
  } else {
    gs.m = 0;
  }
}

// order.go advanceProcStart.
void Model::EmitProcStart(ThreadId m, std::uint64_t ts, ProcId p) {
  ProcState &ps = st_.ps[p];
  Count(w_.ProcStart(m, Ts(m, ts), static_cast<encoder::PId>(p), ++ps.seq));
  ps.status = ProcStatus::kRunning;
  ps.m = m;
  st_.M(m).p = p;
}

// order.go advanceProcStop.
void Model::EmitProcStop(ThreadId m, std::uint64_t ts) {
  MState &ms = st_.M(m);
  Count(w_.ProcStop(m, Ts(m, ts)));
  if (ProcState *ps = st_.P(ms.p)) {
    ps->status = ProcStatus::kIdle;
    ps->m = 0;
  }
  ms.p = kNoP;
}

// order.go advanceProcSteal.
void Model::EmitProcSteal(ThreadId m, std::uint64_t ts, ProcId p, ThreadId victim) {
  ProcState &ps = st_.ps[p];
  const bool abandoned = ps.status == ProcStatus::kSyscallAbandoned;
  Count(w_.ProcSteal(m, Ts(m, ts), static_cast<encoder::PId>(p), ++ps.seq, abandoned ? kNoThread : victim));
  if (!abandoned) {
    MState &vm = st_.M(victim);
    if (vm.p == p) vm.p = kNoP;
  }
  ps.status = ProcStatus::kIdle;
  ps.m = 0;
}

// order.go advanceGoCreate.
void Model::EmitGoCreate(ThreadId m, std::uint64_t ts, Goid g, bool blocked, encoder::StackId new_stack,
                         encoder::StackId stack) {
  const std::uint64_t t = Ts(m, ts);
  Count(blocked ? w_.GoCreateBlocked(m, t, g, new_stack, stack) : w_.GoCreate(m, t, g, new_stack, stack));
  GoState &gs = st_.gs[g];
  gs.status = blocked ? GoStatus::kWaiting : GoStatus::kRunnable;
  gs.m = 0;
  gs.seq = 0;
  gs.seq_gen = w_.generation();
  ++stats_.goroutines_created;
}

// order.go advanceGoStart.
void Model::EmitGoStart(ThreadId m, std::uint64_t ts, Goid g) {
  GoState &gs = st_.gs[g];
  Count(w_.GoStart(m, Ts(m, ts), g, ++gs.seq));
  gs.status = GoStatus::kRunning;
  gs.m = m;
  st_.M(m).g = g;
  // The end of a region of a syscall that lost its P (model_kernel_syscall.cc), at
  // whichever GoStart runs the goroutine again (repairs' too).
  KernelGoStart(m, g);
}

// order.go advanceGoStopExec (GoDestroy, GoStop, GoBlock).
void Model::EmitGoStopExec(ThreadId m, std::uint64_t ts, RecordKind kind, std::string_view reason,
                           encoder::StackId stack) {
  MState &ms = st_.M(m);
  const std::uint64_t t = Ts(m, ts);
  const Goid g = ms.g;
  switch (kind) {
    case RecordKind::kGoEnd:
      // order.go advanceGoStopExec refuses a goroutine that exits inside a range. An
      // assist whose end we did not see (its closing casgstatus never came) ends here.
      if (gc_.assist.erase(g)) {
        ++stats_.repair_events;
        Count(w_.GCMarkAssistEnd(m, t));
      }
      Count(w_.GoDestroy(m, t));
      ForgetEnded(g);
      ++stats_.goroutines_ended;
      break;
    case RecordKind::kGoStop:
      Count(w_.GoStop(m, t, reason, stack));
      st_.gs[g].status = GoStatus::kRunnable;
      st_.gs[g].m = 0;
      break;
    default:
      Count(w_.GoBlock(m, t, reason, stack));
      st_.gs[g].status = GoStatus::kWaiting;
      st_.gs[g].m = 0;
      break;
  }
  ms.g = kNoG;
}

// order.go advanceGoUnblock.
void Model::EmitGoUnblock(ThreadId m, std::uint64_t ts, Goid g, encoder::StackId stack) {
  GoState &gs = st_.gs[g];
  Count(w_.GoUnblock(m, Ts(m, ts), g, ++gs.seq, stack));
  gs.status = GoStatus::kRunnable;
}

// order.go advanceGoSyscallBegin: the G and its P both enter the syscall state; the P's
// sequence number orders a later ProcSteal after this event.
void Model::EmitGoSyscallBegin(ThreadId m, std::uint64_t ts, encoder::StackId stack) {
  MState &ms = st_.M(m);
  ProcState &ps = st_.ps[ms.p];
  Count(w_.GoSyscallBegin(m, Ts(m, ts), ++ps.seq, stack));
  ps.status = ProcStatus::kSyscall;
  st_.gs[ms.g].status = GoStatus::kSyscall;
}

// order.go advanceGoSyscallEnd.
void Model::EmitGoSyscallEnd(ThreadId m, std::uint64_t ts) {
  MState &ms = st_.M(m);
  Count(w_.GoSyscallEnd(m, Ts(m, ts)));
  st_.ps[ms.p].status = ProcStatus::kRunning;
  st_.gs[ms.g].status = GoStatus::kRunning;
}

// order.go advanceGoSyscallEndBlocked: the G becomes runnable and leaves the M.
void Model::EmitGoSyscallEndBlocked(ThreadId m, std::uint64_t ts) {
  MState &ms = st_.M(m);
  Count(w_.GoSyscallEndBlocked(m, Ts(m, ts)));
  GoState &gs = st_.gs[ms.g];
  gs.status = GoStatus::kRunnable;
  gs.m = 0;
  ms.g = kNoG;
}

}  // namespace gotraced::model

namespace gotraced::model {

// order.go advanceGoSwitch: the current goroutine blocks (or is destroyed) and `next`,
// which must be waiting, runs on this M.
void Model::EmitGoSwitch(ThreadId m, std::uint64_t ts, Goid next, bool destroy) {
  MState &ms = st_.M(m);
  const std::uint64_t seq = ++st_.gs[next].seq;
  const std::uint64_t t = Ts(m, ts);
  Count(destroy ? w_.GoSwitchDestroy(m, t, next, seq) : w_.GoSwitch(m, t, next, seq));
  if (destroy) {
    ForgetEnded(ms.g);
    ++stats_.goroutines_ended;
  } else {
    GoState &cur = st_.gs[ms.g];
    cur.status = encoder::GoStatus::kWaiting;
    cur.m = 0;
  }
  GoState &n2 = st_.gs[next];
  n2.status = encoder::GoStatus::kRunning;
  n2.m = m;
  ms.g = next;
}

}  // namespace gotraced::model
