// Goroutines: how many more lived at the end of the window than at its start (the
// runtime's /sched/goroutines:goroutines counts the same, its own goroutines left out:
// runtime/proc.go gcount, isSystemGoroutine), per group, and the longest blocked at the
// end (leak suspects): goroutines still waiting, grouped by where they wait.
#include <fmt/format.h>

#include <map>
#include <unordered_set>

#include "report/section.h"

namespace gotraced::report {
namespace {

class GrowthSection final : public Section {
 public:
  explicit GrowthSection(Context &c) : c_(c) {}
  std::uint32_t Kinds() const override {
    return Bit(Kind::kGoStatus) | Bit(Kind::kGoCreate) | Bit(Kind::kGoCreateBlocked) | Bit(Kind::kGoEnd);
  }
  void On(const Event &e, const GInfo &before) override {
    switch (e.kind) {
      case Kind::kGoStatus:
        // First seen by a status: it lived before the window (or began in a syscall on a
        // C thread). Its group is known only after Apply: counted at Finish.
        // A goroutine created in the window is Known from its GoCreate to its GoEnd (the
        // table adds it after the sections see the create and drops it after they see the
        // end), so Known alone tells; g 0 is never in the table, so it is tracked apart.
        if (!c_.gs.Known(e.g) && !(e.g == 0 && created_zero_)) at_start_.insert(e.g);
        break;
      case Kind::kGoCreate:
      case Kind::kGoCreateBlocked:
        ++created_n_;
        if (e.g == 0) created_zero_ = true;
        break;
      case Kind::kGoEnd:
        ++ended_;
        ended_groups_[before.group] += before.system ? 0 : 1;
        if (at_start_.erase(e.g)) ++ended_from_start_[before.group];
        if (e.g == 0) created_zero_ = false;
        break;
      default:
        break;
    }
  }
  void Finish(Report &r) override;

 private:
  Context &c_;
  model::FlatSet<std::uint64_t> at_start_;  // live only
  bool created_zero_ = false;               // a GoCreate of g 0 (a malformed trace) not ended
  std::uint64_t created_n_ = 0, ended_ = 0;
  std::unordered_map<std::uint32_t, std::uint64_t> ended_groups_, ended_from_start_;
};

void GrowthSection::Finish(Report &r) {
  Goroutines &out = r.goroutines_section;
  out.created = created_n_;
  out.ended = ended_;
  // Per group: live at the end, minus those that lived at the start (still live, or
  // ended in the window).
  std::map<std::uint32_t, std::int64_t> growth;
  std::map<std::uint32_t, std::uint64_t> at_end;
  std::uint64_t start_n = 0;
  for (auto &[g, gi] : c_.gs.Live()) {
    if (gi.system) continue;
    ++at_end[gi.group];
    ++out.at_end;
    ++growth[gi.group];
    if (at_start_.count(g)) --growth[gi.group], ++start_n;
  }
  for (auto &[grp, n] : ended_from_start_) {
    if (c_.gs.GroupName(grp).starts_with("runtime.") && c_.gs.GroupName(grp) != "runtime.main") continue;
    growth[grp] -= static_cast<std::int64_t>(n);
    start_n += n;
  }
  out.at_start = start_n;
  out.growth = static_cast<std::int64_t>(out.at_end) - static_cast<std::int64_t>(out.at_start);
  for (auto &[grp, n] : growth)
    if (n != 0) out.groups.push_back({c_.gs.GroupName(grp), n, at_end[grp]});
  std::sort(out.groups.begin(), out.groups.end(), [](auto &a, auto &b) { return a.growth > b.growth; });
  // Leak suspects: still waiting at the end, one row per (group, reason, call site).
  std::map<std::tuple<std::uint32_t, std::uint32_t, std::uint32_t>, Goroutines::Suspect> places;
  for (auto &[g, gi] : c_.gs.Live()) {
    if (gi.state != GState::kWaiting || gi.system) continue;
    auto &s = places[{gi.group, gi.block_reason, gi.block_stack}];
    const std::uint64_t blocked = c_.end_ns - std::min(c_.end_ns, gi.since_ns);
    ++s.same;
    // The longest blocked names the row; among equals the highest id, whatever the order
    // Live() iterates in.
    if (s.same == 1 || blocked > s.blocked_ns || (blocked == s.blocked_ns && g > s.g)) {
      s.g = g;
      s.blocked_ns = blocked;
      s.blocked_since_ns = gi.since_ns;
      s.group = c_.gs.GroupName(gi.group);
      s.reason = c_.gs.ReasonName(gi.block_reason);
    }
  }
  for (auto &[k, s] : places) {
    const auto &fr = c_.stacks.Frames(std::get<2>(k));
    for (std::size_t i = 0; i < fr.size() && i < 8; ++i) s.stack += (i ? " < " : "") + c_.stacks.Func(fr[i]);
    out.leak_suspects.push_back(s);
  }
  std::sort(out.leak_suspects.begin(), out.leak_suspects.end(),
            [](auto &a, auto &b) { return a.blocked_ns * a.same > b.blocked_ns * b.same; });
  if (out.leak_suspects.size() > c_.opt.top * 2) out.leak_suspects.resize(c_.opt.top * 2);
}

}  // namespace

std::unique_ptr<Section> MakeGoroutineGrowth(Context &c) { return std::make_unique<GrowthSection>(c); }

}  // namespace gotraced::report
