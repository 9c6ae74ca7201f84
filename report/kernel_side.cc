// The kernel's side: the "kernel: ..." user regions and "kernel: syscall" logs gotraced's
// kernel view writes (daemon/model/kernel_view.h, docs/kernel-view.md), summed per cause
// and per goroutine group; syscall regions named by what they touched, with a peer's
// ephemeral port folded ("read tcp 10.0.0.1:*": one line for all the connections of one
// peer, not one per port). Also answers, for a window, what the kernel did to the
// target's threads meanwhile (throttled, preempted): the findings' join.
#include <fmt/format.h>

#include <map>

#include "daemon/model/kernel_view.h"
#include "report/section.h"
#include "report/syscall_log.h"

namespace gotraced::report {
namespace {

struct Acc {
  std::uint64_t total = 0, count = 0, max = 0;
  void Add(std::uint64_t d) {
    total += d;
    ++count;
    max = std::max(max, d);
  }
  void Merge(const Acc &o) {
    total += o.total;
    count += o.count;
    max = std::max(max, o.max);
  }
};

// The goroutines named per cause and group (biggest first; a server's thousands would
// drown the rest of --json).
constexpr std::size_t kGoroutinesPerCause = 10;

// At most this many intervals are kept for the join (24 B each): past it, the join says less.
constexpr std::size_t kMaxIntervals = 4'000'000;

class KernelSideImpl final : public KernelSideSection {
 public:
  explicit KernelSideImpl(Context &c) : c_(c) {}
  std::uint32_t Kinds() const override {
    return Bit(Kind::kRegionBegin) | Bit(Kind::kRegionEnd) | Bit(Kind::kLog) | Bit(Kind::kSyscallEnd) |
           Bit(Kind::kSyscallEndBlocked) | Bit(Kind::kGoEnd);
  }
  void On(const Event &e, const GInfo &before) override;
  void Finish(Report &r) override;
  std::string During(std::uint64_t start, std::uint64_t end) const override;

 private:
  struct Key {
    std::uint64_t g;
    std::uint32_t group;
    std::uint32_t type;  // types_: ids, not strings, so a lookup compares integers
    auto operator<=>(const Key &) const = default;
  };
  struct Interval {
    std::uint64_t start, end;
    std::uint32_t type;
  };
  std::uint32_t TypeId(std::string_view t) {
    if (auto it = type_ids_.find(t); it != type_ids_.end()) return it->second;
    const auto id = static_cast<std::uint32_t>(types_.size());
    types_.emplace_back(t);
    syscall_region_.push_back(types_.back().starts_with(model::kKernelSyscallLog));
    type_ids_.emplace(types_.back(), id);
    return id;
  }
  // A region event's type: its kernel cause's type id (peer port folded), or kNotKernel;
  // worked out once per string (Event::str_id), not per event.
  static constexpr std::uint32_t kNotKernel = ~std::uint32_t{0}, kUnknown = kNotKernel - 1;
  std::uint32_t RegionType(const Event &e) {
    if (e.str_id >= region_type_.size()) region_type_.resize(e.str_id + 1, kUnknown);
    std::uint32_t &t = region_type_[e.str_id];
    if (t == kUnknown) t = model::IsKernelRegion(e.str) ? TypeId(FoldPeerPort(e.str)) : kNotKernel;
    return t;
  }
  struct SvHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  Context &c_;
  model::FlatMap<std::uint64_t, std::vector<std::pair<std::uint32_t, std::uint64_t>>>
      open_;  // g -> open regions (type, start)
  model::FlatMap<std::uint64_t, std::pair<std::uint32_t, std::uint64_t>> last_end_;  // g -> type, when
  std::map<Key, Acc> per_g_;
  model::FlatSet<std::uint64_t> with_per_g_;  // the goroutines (g != 0) with keys in per_g_
  std::map<Key, std::map<std::string, std::uint64_t>> parts_;
  std::map<Key, std::pair<std::uint64_t, std::uint64_t>> bytes_;  // bytes, calls
  std::map<std::uint32_t, std::string> syscall_of_;               // region type -> syscall name
  std::vector<Interval> intervals_;
  std::vector<std::string> types_;
  std::vector<bool> syscall_region_;  // per type: a "kernel: syscall ..." one
  std::unordered_map<std::string, std::uint32_t, SvHash, std::equal_to<>> type_ids_;
  std::vector<std::uint32_t> region_type_;  // str_id -> RegionType
  std::uint64_t regions_ = 0;
  model::FlatMap<std::uint64_t, std::pair<std::uint32_t, Acc>> go_syscall_;  // g -> group, Go's syscall time
  std::map<Key, std::vector<report::KernelSide::Cause::PerG>>
      ended_top_;                                                 // (0, group, type) -> ended goroutines
  std::unordered_map<std::uint32_t, std::uint64_t> ended_count_;  // group -> folded goroutines
  void Fold(std::uint64_t g);
  void Remember(const Key &key, report::KernelSide::Cause::PerG pg);
};

void KernelSideImpl::On(const Event &e, const GInfo &before) {
  if (e.g == 0) return;
  if (e.kind == Kind::kRegionBegin || e.kind == Kind::kRegionEnd) {
    const std::uint32_t type = RegionType(e);
    if (type == kNotKernel) return;
    if (e.kind == Kind::kRegionBegin) {
      ++regions_;
      open_[e.g].emplace_back(type, e.ns);
      return;
    }
    auto &open = open_[e.g];
    for (std::size_t k = open.size(); k > 0; --k) {
      if (open[k - 1].first != type) continue;
      const std::uint64_t start = std::min(open[k - 1].second, e.ns);
      per_g_[{e.g, before.group, type}].Add(e.ns - start);
      with_per_g_.insert(e.g);
      if (intervals_.size() < kMaxIntervals && !syscall_region_[type]) intervals_.push_back({start, e.ns, type});
      open.erase(open.begin() + static_cast<std::ptrdiff_t>(k - 1));
      last_end_[e.g] = {type, e.ns};
      break;
    }
    if (open.empty()) open_.erase(e.g);
  } else if (e.kind == Kind::kLog && e.str == model::kKernelSyscallLog) {
    SyscallLog l;
    if (!ParseSyscallLog(e.str2, &l)) return;
    const std::uint32_t type = TypeId(l.type);
    const Key key{e.g, before.group, type};
    auto &dst = parts_[key];
    for (auto &[k, v] : l.parts) dst[k] += v;
    // A log with no region just before it (the model writes the region's end, then the
    // log): a legacy-format syscall that lost its P (model_kernel_syscall.cc), counted
    // from the log, to the goroutine's return to a P as a region would be.
    if (auto le = last_end_.find(e.g); le == last_end_.end() || le->second.first != type) {
      const auto wait = l.parts.find("waiting for a P");
      per_g_[key].Add(l.total_ns + (wait == l.parts.end() ? 0 : wait->second));
      with_per_g_.insert(e.g);
      ++regions_;
    }
    last_end_.erase(e.g);
    if (l.has_bytes) {
      auto &b = bytes_[key];
      b.first += l.bytes;
      ++b.second;
      syscall_of_[type] = l.name;
    }
  } else if ((e.kind == Kind::kSyscallEnd || e.kind == Kind::kSyscallEndBlocked) &&
             before.state == GState::kSyscall) {
    auto &[group, acc] = go_syscall_[e.g];  // per g here, keyed as the others at Finish (no string per event)
    group = before.group;
    acc.Add(e.ns - std::min(e.ns, before.since_ns));
  } else if (e.kind == Kind::kGoEnd) {
    open_.erase(e.g);
    last_end_.erase(e.g);
    Fold(e.g);
  }
}

// An ended goroutine's sums move into its group's (g 0 in the keys, never a real
// goroutine: internal/trace/base.go NoGoroutine), naming it among the biggest only: a
// long trace of short goroutines costs memory per group, not per goroutine.
void KernelSideImpl::Fold(std::uint64_t g) {
  bool had = false;
  std::uint32_t had_group = 0;
  if (auto it = go_syscall_.find(g); it != go_syscall_.end()) {
    auto &[group, acc] = it->second;
    Key key{0, group, TypeId(kGoSyscallCause)};
    per_g_[key].Merge(acc);
    Remember(key, {g, acc.total, acc.count});
    had = true, had_group = group;
    go_syscall_.erase(it);
  }
  // Most goroutines end with no kernel region of their own: no ordered-map search for
  // them (that search per goroutine end was ~3% of a server trace's report, perf).
  const bool has_per_g = with_per_g_.erase(g) != 0;
  for (auto it = has_per_g ? per_g_.lower_bound(Key{g, 0, 0}) : per_g_.end(); it != per_g_.end() && it->first.g == g;) {
    Key to{0, it->first.group, it->first.type};
    per_g_[to].Merge(it->second);
    Remember(to, {g, it->second.total, it->second.count});
    had = true, had_group = it->first.group;
    if (auto pp = parts_.find(it->first); pp != parts_.end()) {
      for (auto &[k, v] : pp->second) parts_[to][k] += v;
      parts_.erase(pp);
    }
    if (auto pb = bytes_.find(it->first); pb != bytes_.end()) {
      auto &b = bytes_[to];
      b.first += pb->second.first, b.second += pb->second.second;
      bytes_.erase(pb);
    }
    it = per_g_.erase(it);
  }
  if (had) ++ended_count_[had_group];
}

void KernelSideImpl::Remember(const Key &key, report::KernelSide::Cause::PerG pg) {
  auto &v = ended_top_[key];
  v.push_back(pg);
  if (v.size() >= 2 * kGoroutinesPerCause) {
    std::sort(v.begin(), v.end(), [](auto &a, auto &b) { return a.total_ns > b.total_ns; });
    v.resize(kGoroutinesPerCause);
  }
}

void KernelSideImpl::Finish(Report &r) {
  report::KernelSide &out = r.kernel;
  out.regions = regions_;
  std::map<std::uint32_t, report::KernelSide::Group> groups;
  std::map<std::uint32_t, std::map<std::string, report::KernelSide::Cause>> gcauses;
  std::map<std::string, report::KernelSide::Cause> totals;
  std::map<std::uint32_t, std::unordered_map<std::uint64_t, bool>> members;
  auto add = [](report::KernelSide::Cause &c, const std::string &type, const Acc &a) {
    c.type = type;
    c.total_ns += a.total;
    c.count += a.count;
    c.max_ns = std::max(c.max_ns, a.max);
  };
  for (auto &[key, acc] : per_g_) {
    const std::string &type = types_[key.type];
    report::KernelSide::Cause &c = gcauses[key.group][type];
    add(c, type, acc);
    if (key.g != 0) c.goroutines.push_back({key.g, acc.total, acc.count});
    if (auto et = ended_top_.find(key); et != ended_top_.end())
      c.goroutines.insert(c.goroutines.end(), et->second.begin(), et->second.end());
    add(totals[type], type, acc);
    if (auto pp = parts_.find(key); pp != parts_.end())
      for (auto &[k, v] : pp->second) c.breakdown[k] += v, totals[type].breakdown[k] += v;
    if (auto pb = bytes_.find(key); pb != bytes_.end()) {
      c.bytes += pb->second.first, c.calls_with_bytes += pb->second.second;
      totals[type].bytes += pb->second.first, totals[type].calls_with_bytes += pb->second.second;
      auto &sb = groups[key.group].syscall_bytes[syscall_of_[key.type]];
      sb.first += pb->second.first, sb.second += pb->second.second;
    }
    if (type != kGoSyscallCause) groups[key.group].total_ns += acc.total;
    if (key.g != 0) members[key.group][key.g] = true;
  }
  for (auto &[g, ga] : go_syscall_) {
    const std::string type(kGoSyscallCause);
    report::KernelSide::Cause &c = gcauses[ga.first][type];
    add(c, type, ga.second);
    c.goroutines.push_back({g, ga.second.total, ga.second.count});
    add(totals[type], type, ga.second);
    members[ga.first][g] = true;
    groups[ga.first];
  }
  auto bigger = [](const auto &a, const auto &b) { return a.total_ns > b.total_ns; };
  for (auto &[gid, grp] : groups) {
    grp.function = c_.gs.GroupName(gid);
    grp.goroutines = members[gid].size() + ended_count_[gid];
    for (auto &[type, c] : gcauses[gid]) {
      std::sort(c.goroutines.begin(), c.goroutines.end(), bigger);
      if (c.goroutines.size() > kGoroutinesPerCause) c.goroutines.resize(kGoroutinesPerCause);
      grp.causes.push_back(std::move(c));
    }
    std::sort(grp.causes.begin(), grp.causes.end(), bigger);
    if (!grp.causes.empty()) out.groups.push_back(std::move(grp));
  }
  std::sort(out.groups.begin(), out.groups.end(), bigger);
  for (auto &[type, c] : totals) out.totals.push_back(std::move(c));
  std::sort(out.totals.begin(), out.totals.end(), bigger);
  std::sort(intervals_.begin(), intervals_.end(), [](auto &a, auto &b) { return a.start < b.start; });
}

// What the kernel did to the target's threads during [start, end]: the kernel regions
// (throttled, preempted, off-CPU ...) that overlap it, summed by cause.
std::string KernelSideImpl::During(std::uint64_t start, std::uint64_t end) const {
  if (intervals_.empty() || end <= start) return {};
  std::map<std::string, std::uint64_t> by;
  // intervals_ is sorted by start; a region longer than the window may begin before it.
  for (const Interval &iv : intervals_) {
    if (iv.start >= end) break;
    if (iv.end <= start) continue;
    by[types_[iv.type]] += std::min(iv.end, end) - std::max(iv.start, start);
  }
  std::vector<std::pair<std::uint64_t, std::string>> v;
  for (auto &[t, ns] : by)
    // Causes of at least 5% of the window; throttling whatever its share (it is never the
    // program's doing).
    if (ns * 20 >= end - start || t == model::kKernelThrottled)
      v.emplace_back(ns, t.substr(model::kKernelRegionPrefix.size()));
  std::sort(v.rbegin(), v.rend());
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < 3; ++i)
    s += fmt::format("{}{} {}", i ? ", " : "", v[i].second, Dur(v[i].first));
  return s.empty() ? s : "meanwhile the kernel: " + s + " (threads' time, summed)";
}

}  // namespace

std::unique_ptr<KernelSideSection> MakeKernelSide(Context &c) { return std::make_unique<KernelSideImpl>(c); }

}  // namespace gotraced::report
