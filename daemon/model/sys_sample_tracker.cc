#include "daemon/model/sys_sample_tracker.h"

#include <algorithm>

namespace gotraced::model {

void SysSampleTracker::Finish(std::uint32_t tid, const Open &o, std::uint64_t end, std::vector<SampledSyscall> &out) {
  end = std::min(end, o.last + period_ns_);
  if (end < o.first || end - o.first < min_ns_ || o.last - o.first + period_ns_ < min_ns_) {
    ++short_;
    return;
  }
  out.push_back({tid, o.goid, o.nr, o.arg0, o.first, end});
}

void SysSampleTracker::Add(const gt_sys_sample_record &r, std::vector<SampledSyscall> &out) {
  const std::uint64_t ts = r.h.ts_ns;
  if (sweep_begin_ == 0) sweep_begin_ = ts;
  if (r.h.tid == 0) {
    // The end of a sweep: a thread it did not list has left its syscall since the last.
    // It ended before the sweep reached that thread: at the sweep's start at the latest
    // (so no later syscall of the same goroutine, seen on another thread in this sweep,
    // begins before it ends).
    for (auto it = open_.begin(); it != open_.end();) {
      if (it->second.sweep != sweep_) {
        Finish(it->first, it->second, sweep_begin_, out);
        it = open_.erase(it);
      } else {
        ++it;
      }
    }
    ++sweep_;
    sweep_begin_ = 0;
    return;
  }
  auto it = open_.find(r.h.tid);
  if (it != open_.end()) {
    Open &o = it->second;
    // A thread running in both sweeps may have made two syscalls without sleeping in
    // between (a busy connection's reads): the same one only while it sleeps.
    if (o.g == r.g && o.nr == r.nr && o.nvcsw == r.nvcsw && o.sleeping && r.state != 0 && o.sweep + 1 >= sweep_) {
      o.sweep = sweep_;  // still the same one
      o.last = ts;
      return;
    }
    Finish(r.h.tid, o, ts, out);
    open_.erase(it);
  }
  Open o;
  o.g = r.g;
  o.goid = r.goid;
  o.nvcsw = r.nvcsw;
  o.arg0 = r.arg0;
  o.nr = r.nr;
  o.first = o.last = ts;
  o.sweep = sweep_;
  o.sleeping = r.state != 0;
  open_[r.h.tid] = o;
}

}  // namespace gotraced::model
