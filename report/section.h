// One area of the report (report.h): it sees every event with the state its goroutine
// was in before it (goroutine_table.h), then fills its part of the Report. Each area is
// its own file; report_builder.cc runs them side by side in one pass.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "daemon/model/flat_map.h"
#include "report/goroutine_table.h"
#include "report/histogram.h"
#include "report/report.h"
#include "report/stack_table.h"
#include "report/trace_event.h"

namespace gotraced::report {

struct Context {
  const StackTable &stacks;
  const GoroutineTable &gs;
  const ReportOptions &opt;
  std::uint64_t end_ns = 0;  // the last event's time, set before Finish
};

class Section {
 public:
  virtual ~Section() = default;
  // `before`: the goroutine e.g is about, as it was before e (Apply comes after).
  virtual void On(const Event &e, const GInfo &before) = 0;
  virtual void Finish(Report &r) = 0;
  // The event kinds On wants (a bit per Kind): the builder calls it for those only.
  virtual std::uint32_t Kinds() const { return ~std::uint32_t{0}; }
  // The kinds On wants besides, for a goroutine inside a GC mark assist only
  // (GInfo::in_assist): a test of a flag per event, not a call for every GoStart.
  virtual std::uint32_t KindsInAssist() const { return 0; }
};

constexpr std::uint32_t Bit(Kind k) { return std::uint32_t{1} << static_cast<int>(k); }

std::unique_ptr<Section> MakeSchedLatency(Context &c);
std::unique_ptr<Section> MakeStwGc(Context &c);
std::unique_ptr<Section> MakeBlocking(Context &c);
std::unique_ptr<Section> MakeSyscalls(Context &c);
std::unique_ptr<Section> MakeGoroutineGrowth(Context &c);
std::unique_ptr<Section> MakeCpuSamples(Context &c);

// The kernel's side also answers, for a window, what the kernel did to the target's
// threads meanwhile (the findings' join).
class KernelSideSection : public Section {
 public:
  virtual std::string During(std::uint64_t start_ns, std::uint64_t end_ns) const = 0;
};
std::unique_ptr<KernelSideSection> MakeKernelSide(Context &c);

// Keeps the n biggest items by `size` (a bounded min-heap), for the "worst moments" lists.
template <typename T>
class TopN {
 public:
  explicit TopN(std::size_t n) : n_(n) {}
  void Add(std::uint64_t size, T item) {
    if (items_.size() < n_) {
      items_.emplace_back(size, std::move(item));
      std::push_heap(items_.begin(), items_.end(), Cmp);
    } else if (n_ && size > items_.front().first) {
      std::pop_heap(items_.begin(), items_.end(), Cmp);
      items_.back() = {size, std::move(item)};
      std::push_heap(items_.begin(), items_.end(), Cmp);
    }
  }
  std::vector<T> Sorted() const {
    auto v = items_;
    std::sort(v.begin(), v.end(), [](const auto &a, const auto &b) { return a.first > b.first; });
    std::vector<T> out;
    for (auto &[s, t] : v) out.push_back(t);
    return out;
  }

 private:
  static bool Cmp(const std::pair<std::uint64_t, T> &a, const std::pair<std::uint64_t, T> &b) {
    return a.first > b.first;
  }
  std::size_t n_;
  std::vector<std::pair<std::uint64_t, T>> items_;
};

// Per-group histograms, keyed by group id, with an array in front of the map (group ids
// are dense: GoroutineTable::GroupName) so an event finds its group's histogram without a
// hash; the map keeps the order GroupTable has always iterated in.
class GroupHistograms {
 public:
  Histogram &operator[](std::uint32_t group) {
    if (group < fast_.size() && fast_[group]) return *fast_[group];
    Histogram &h = map_[group];  // node-based: the address stays
    if (group >= fast_.size()) fast_.resize(group + 1, nullptr);
    fast_[group] = &h;
    return h;
  }
  const std::unordered_map<std::uint32_t, Histogram> &map() const { return map_; }

 private:
  std::unordered_map<std::uint32_t, Histogram> map_;
  std::vector<Histogram *> fast_;
};

// Per-group histograms, sorted for a table.
std::vector<GroupDist> GroupTable(const std::unordered_map<std::uint32_t, Histogram> &h,
                                  const GoroutineTable &gs, bool by_p99);

}  // namespace gotraced::report
