// Blocking: how long goroutines waited (Waiting -> Runnable, GoBlock to GoUnblock) by
// reason (goroutine_table.h BlockClass: channel, select, mutex, RWMutex, Cond, network,
// sleep ...) and by the call site that blocked (the top frames outside the runtime), so
// a contended mutex shows as the code that takes it; time in syscalls is the "syscall"
// reason. The runtime's /sync/mutex/wait/total:seconds is the mutex and RWMutex rows'.
#include <fmt/format.h>

#include <deque>
#include <map>

#include "report/section.h"

namespace gotraced::report {
namespace {

struct Acc {
  std::uint64_t worst = 0, worst_g = 0, worst_start = 0;  // before h: on the line of its sums
  Histogram h;
  void Add(std::uint64_t d, std::uint64_t g, std::uint64_t start) {
    h.Add(d);
    if (d >= worst) worst = d, worst_g = g, worst_start = start;
  }
  void Merge(const Acc &o) {
    h.Merge(o.h);
    if (o.worst >= worst) worst = o.worst, worst_g = o.worst_g, worst_start = o.worst_start;
  }
};

class BlockingSection final : public Section {
 public:
  explicit BlockingSection(Context &c) : c_(c) {}
  std::uint32_t Kinds() const override {
    return Bit(Kind::kGoUnblock) | Bit(Kind::kGoStart) | Bit(Kind::kSyscallEnd) |
           Bit(Kind::kSyscallEndBlocked);
  }
  void On(const Event &e, const GInfo &before) override {
    const bool waited =
        before.state == GState::kWaiting && (e.kind == Kind::kGoUnblock || e.kind == Kind::kGoStart);
    const bool syscall = before.state == GState::kSyscall &&
                         (e.kind == Kind::kSyscallEnd || e.kind == Kind::kSyscallEndBlocked);
    if ((!waited && !syscall) || before.system) return;  // the runtime's own waits are not the program's
    const std::uint64_t d = e.ns - std::min(e.ns, before.since_ns);
    // Keyed by ids while reading (reason, stack); named and merged by call site at Finish.
    const std::uint64_t reason = syscall ? kSyscallId : before.block_reason;
    const std::uint64_t key = (reason << 32) | before.block_stack;
    Acc *const *acc = index_.get(key);
    if (!acc) acc = &index_.emplace(key, &accs_[SiteOf(key)].second).first->second;
    (*acc)->Add(d, e.g, before.since_ns);
    groups_[before.group].Add(d);  // its group when it blocked (--by-label: the set it blocked with)
  }
  void Finish(Report &r) override {
    std::map<std::string, Acc> reasons;
    std::map<std::pair<std::string, std::string>, Acc> sites;
    for (auto &[key, a] : accs_) {
      reasons[key.first].Merge(a);
      sites[key].Merge(a);
    }
    auto row = [](std::string reason, std::string site, const Acc &a) {
      return report::Blocking::Row{std::move(reason), std::move(site), Dist::Of(a.h), a.worst_g,
                                   a.worst_start};
    };
    for (auto &[k, a] : reasons) r.blocking.reasons.push_back(row(k, "", a));
    for (auto &[k, a] : sites) r.blocking.call_sites.push_back(row(k.first, k.second, a));
    auto bigger = [](const auto &x, const auto &y) { return x.dist.total_ns > y.dist.total_ns; };
    std::sort(r.blocking.reasons.begin(), r.blocking.reasons.end(), bigger);
    std::sort(r.blocking.call_sites.begin(), r.blocking.call_sites.end(), bigger);
    r.blocking.groups = GroupTable(groups_.map(), c_.gs, false);
  }

 private:
  static constexpr std::uint64_t kSyscallId = 0xffffffff;
  Context &c_;
  // (reason id << 32 | stack) -> the accumulator of its (reason, call site), named once
  // per key: a server blocks at thousands of stacks but a few dozen call sites, so the
  // 3.9 KB histograms an event touches stay in cache.
  std::uint32_t SiteOf(std::uint64_t key) {
    const std::uint64_t rid = key >> 32;
    std::pair<std::string, std::string> name{
        rid == kSyscallId ? "syscall" : c_.gs.ReasonName(static_cast<std::uint32_t>(rid)),
        c_.stacks.CallSite(static_cast<std::uint32_t>(key & 0xffffffff))};
    auto [it, added] = site_ids_.try_emplace(name, static_cast<std::uint32_t>(accs_.size()));
    if (added) accs_.emplace_back(std::move(name), Acc{});
    return it->second;
  }
  // The accumulator itself, not its number: one indirection less per event (a deque's
  // elements stay where they are as it grows).
  model::FlatMap<std::uint64_t, Acc *> index_;
  std::map<std::pair<std::string, std::string>, std::uint32_t> site_ids_;
  std::deque<std::pair<std::pair<std::string, std::string>, Acc>> accs_;  // (reason, call site)
  GroupHistograms groups_;
};

}  // namespace

std::unique_ptr<Section> MakeBlocking(Context &c) { return std::make_unique<BlockingSection>(c); }

}  // namespace gotraced::report
