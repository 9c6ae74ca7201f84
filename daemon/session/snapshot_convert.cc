#include "daemon/session/snapshot_convert.h"

#include <string_view>
#include <unordered_map>

namespace gotraced::session {
namespace {

std::int64_t Const(const gobin::RuntimeLayout &l, std::string_view name, std::int64_t dflt) {
  auto v = l.Constant(name);
  return v ? *v : dflt;
}

// waitReason.isWaitingForSuspendG (runtime2.go): a goroutine parked only so the GC or the
// tracer can look at it is really running; the tracer reports it as GoRunning.
bool WaitingForSuspendG(std::string_view reason) {
  return reason == "stopping the world" || reason == "GC mark termination" || reason == "garbage collection" ||
         reason == "garbage collection scan" || reason == "trace goroutine status" || reason == "trace proc status" ||
         reason == "page trace flush" || reason == "GC assist marking" || reason == "GC worker (active)" ||
         reason == "flushing proc caches";
}

}  // namespace

model::Snapshot ConvertSnapshot(const procmem::RuntimeSnapshot &s, const gobin::RuntimeLayout &layout) {
  using encoder::GoStatus;
  using encoder::ProcStatus;
  model::Snapshot out;
  out.ts = s.end_ts_ns;
  out.gomaxprocs = s.gomaxprocs;
  const std::int64_t grunnable = Const(layout, "_Grunnable", 1), grunning = Const(layout, "_Grunning", 2),
                     gsyscall = Const(layout, "_Gsyscall", 3), gwaiting = Const(layout, "_Gwaiting", 4),
                     gcopystack = Const(layout, "_Gcopystack", 8), gpreempted = Const(layout, "_Gpreempted", 9),
                     gleaked = Const(layout, "_Gleaked", -100), gscan = Const(layout, "_Gscan", 0x1000);
  std::unordered_map<std::uint64_t, bool> m_in_syscall;  // m address -> its curg is in a syscall
  for (const procmem::GoroutineState &g : s.goroutines) {
    const std::int64_t st = static_cast<std::int64_t>(g.status) & ~gscan;
    model::SnapshotG sg;
    sg.goid = g.goid;
    sg.m = g.m_procid;
    if (st == grunnable) {
      sg.status = GoStatus::kRunnable;
    } else if (st == grunning || st == gcopystack) {
      sg.status = GoStatus::kRunning;
    } else if (st == gsyscall) {
      sg.status = GoStatus::kSyscall;
      if (g.m) m_in_syscall[g.m] = true;
    } else if (st == gwaiting || st == gpreempted || st == gleaked) {
      sg.status = WaitingForSuspendG(layout.WaitReasonString(g.waitreason)) && st == gwaiting ? GoStatus::kRunning
                                                                                                : GoStatus::kWaiting;
    } else {
      continue;  // _Gidle, _Gdead, _Gdeadextra: not a goroutine of the trace
    }
    if (sg.status != GoStatus::kRunning && sg.status != GoStatus::kSyscall) sg.m = 0;
    if (sg.goid != 0) out.goroutines.push_back(sg);
  }
  const std::int64_t pidle = Const(layout, "_Pidle", 0), prunning = Const(layout, "_Prunning", 1),
                     psyscall = Const(layout, "_Psyscall", 2), pgcstop = Const(layout, "_Pgcstop", 3);
  for (const procmem::ProcState &p : s.procs) {
    if (p.id < 0 || (s.gomaxprocs > 0 && p.id >= s.gomaxprocs)) continue;
    model::SnapshotP sp;
    sp.id = p.id;
    const std::int64_t st = p.status;
    if (st == prunning) {
      // writeProcStatusForP: a running P whose M's goroutine is in a syscall is ProcSyscall
      // (Go 1.26 has no _Psyscall any more).
      sp.status = m_in_syscall.count(p.m) ? ProcStatus::kSyscall : ProcStatus::kRunning;
      sp.m = p.m_procid;
    } else if (st == psyscall && layout.Constant("_Psyscall")) {
      sp.status = ProcStatus::kSyscall;
      // <= 1.25: a _Psyscall P is unwired from its M (p.m == 0); find the M by oldp.
      for (const procmem::MState &m : s.ms)
        if (m.oldp == p.p) sp.m = m.procid;
      if (sp.m == 0) sp.status = ProcStatus::kIdle;
    } else if (st == pidle || st == pgcstop) {
      sp.status = ProcStatus::kIdle;
    } else {
      continue;  // _Pdead
    }
    out.procs.push_back(sp);
  }
  return out;
}

}  // namespace gotraced::session
