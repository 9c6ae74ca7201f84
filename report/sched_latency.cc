// Scheduling latency: how long a goroutine was runnable before it ran (x/exp/trace's
// Runnable -> Running; the runtime's /sched/latencies:seconds measures the same span,
// sampled, in runtime/proc.go casgstatus). Counted from the event that made it runnable
// (create, unblock, preemption, yield, a syscall that lost its P) to its GoStart; a
// goroutine runnable when the trace began has no known start and is not counted.
#include <fmt/format.h>

#include "report/section.h"

namespace gotraced::report {
namespace {

class SchedLatencySection final : public Section {
 public:
  explicit SchedLatencySection(Context &c) : c_(c), worst_(c.opt.top * 2) {}
  std::uint32_t Kinds() const override { return Bit(Kind::kGoStart); }
  void On(const Event &e, const GInfo &before) override {
    if (e.kind != Kind::kGoStart || before.state != GState::kRunnable || !before.runnable_known) return;
    const std::uint64_t d = e.ns >= before.since_ns ? e.ns - before.since_ns : 0;
    all_.Add(d);
    groups_[before.group].Add(d);
    worst_.Add(d, Wait{before.since_ns, d, e.g, before.group});  // named at Finish: no text per event
  }
  void Finish(Report &r) override {
    r.sched.all = Dist::Of(all_);
    r.sched.groups = GroupTable(groups_.map(), c_.gs, true);
    for (const Wait &w : worst_.Sorted())
      r.sched.worst.push_back(Moment{.start_ns = w.start,
                                     .dur_ns = w.dur,
                                     .g = w.g,
                                     .what = fmt::format("g{} ({}) runnable {} before it ran", w.g,
                                                         c_.gs.GroupName(w.group), Dur(w.dur))});
  }

 private:
  Context &c_;
  Histogram all_;
  GroupHistograms groups_;
  struct Wait {
    std::uint64_t start, dur, g;
    std::uint32_t group;
  };
  TopN<Wait> worst_;
};

}  // namespace

std::unique_ptr<Section> MakeSchedLatency(Context &c) { return std::make_unique<SchedLatencySection>(c); }

}  // namespace gotraced::report
