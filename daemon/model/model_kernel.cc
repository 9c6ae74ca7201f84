// The kernel view (kernel_view.h, docs/kernel-view.md): an off-CPU interval of the thread
// of an M whose goroutine is running becomes a user region on that goroutine, from the
// switch-out to the switch-in (for a sleep: to the wake-up, then a run-queue region to the
// switch-in). The region events are the ones runtime/trace's StartRegion/End would write
// (model_user.cc: trace_userRegion, an event of the running goroutine in its M's batch,
// task 0 = the background task), so internal/trace/order.go's rules hold:
//   * advanceUserRegionBegin/End validate userGoReqs (M, P and G: the M holds a P and runs
//     the goroutine): placed only for a goroutine the model has Running on the M, whose
//     P is Running on it. In a syscall (GoSyscall) the goroutine is not Running: no
//     region; after a ProcSteal the M has no P at all.
//   * gState.endRegion wants the innermost open region: the kernel region is pushed on
//     the same stack as user regions (UserModelState::regions). Nothing of the goroutine
//     runs while its thread is off CPU, so nothing else can open in between; were the
//     end lost, the next user region end closes it (model_user.cc repairs it).
// Timestamps: while the thread is off CPU its M writes nothing, so the region's begin at
// the switch-out and a wake-up instant between the two records both come after the M's
// last event (Ts keeps the M's batch non-decreasing regardless).
#include "daemon/model/kernel_view.h"
#include "daemon/model/model.h"

namespace gotraced::model {

using encoder::GoStatus;
using encoder::ProcStatus;

void Model::OnKernel(const Record &r) {
  auto mi = st_.ms.find(r.m);
  const MState *ms = mi == st_.ms.end() ? nullptr : &mi->second;
  auto placeable = [&](Goid g) {
    if (ms == nullptr || g == kNoG || g == kUnknownG || ms->g != g || ms->p < 0) return false;
    const GoState *gs = st_.G(g);
    const ProcState *ps = st_.P(ms->p);
    return gs && gs->status == GoStatus::kRunning && gs->m == r.m && ps && ps->status == ProcStatus::kRunning &&
           ps->m == r.m;
  };
  auto begin = [&](Goid g, std::uint64_t ts, std::string_view type) {
    user_.regions[g].emplace_back(0, std::string(type));
    Count(w_.UserRegionBegin(r.m, Ts(r.m, ts), 0, type, encoder::kNoStack));
    ++stats_.kernel_regions;
  };
  // Ends the innermost region of g if it is `type`; false when it is not there any more.
  auto end = [&](Goid g, std::uint64_t ts, std::string_view type) {
    auto it = user_.regions.find(g);
    if (it == user_.regions.end() || it->second.empty() || it->second.back().first != 0 ||
        it->second.back().second != type)
      return false;
    it->second.pop_back();
    Count(w_.UserRegionEnd(r.m, Ts(r.m, ts), 0, type, encoder::kNoStack));
    return true;
  };

  if (r.kind == RecordKind::kKernelOff) {
    // A previous interval still open (its ON record lost): close it where it is.
    if (auto o = kernel_.open.find(r.m); o != kernel_.open.end()) {
      if (placeable(o->second.g)) end(o->second.g, r.ts, o->second.type);
      kernel_.open.erase(o);
    }
    const Goid g = ms ? ms->g : kNoG;
    if (!placeable(g)) {
      // In a goroutine syscall: part of that syscall's account (model_kernel_syscall.cc).
      if (kernel_.sys.count(r.m) != 0) {
        kernel_.sys_off[r.m] = {g, r.reason, r.ts};
        return;
      }
      ++stats_.kernel_unplaced;  // none the model knows runs here
      return;
    }
    begin(g, r.ts, r.reason);
    kernel_.open[r.m] = {g, r.reason, r.ts};
    return;
  }
  // kKernelOn
  if (auto so = kernel_.sys_off.find(r.m); so != kernel_.sys_off.end()) {
    const KernelModelState::Open off = so->second;
    kernel_.sys_off.erase(so);
    if (off.off_ts == r.value) KernelSyscallOffCpu(r.m, off.type, off.off_ts, r.ts, r.value2);
    return;
  }
  auto o = kernel_.open.find(r.m);
  if (o == kernel_.open.end() || o->second.off_ts != r.value) {
    ++kernel_.unmatched_on;
    return;
  }
  const KernelModelState::Open open = o->second;
  kernel_.open.erase(o);
  if (!placeable(open.g)) {
    ++kernel_.moved;  // left open: the goroutine's next region end closes it
    return;
  }
  const std::uint64_t wake = r.value2;
  if (KernelCauseSleeps(open.type) && wake > open.off_ts && wake < r.ts) {
    if (!end(open.g, wake, open.type)) return;
    begin(open.g, wake, kKernelRunQueue);
    end(open.g, r.ts, kKernelRunQueue);
    return;
  }
  end(open.g, r.ts, open.type);
}

}  // namespace gotraced::model
