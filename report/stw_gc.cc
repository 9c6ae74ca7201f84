// Stop-the-world pauses and GC: each STW with its kind and length (STWBegin/STWEnd:
// runtime/proc.go stopTheWorldWithSema / startTheWorldWithSema; the runtime's
// /sched/pauses/total/gc:seconds, /gc/pauses:seconds before 1.22, times the GC's), GC
// cycles (GCBegin..GCEnd; /gc/cycles/total:gc-cycles counts the completed ones) and
// mark-assist time per goroutine group (GCMarkAssistBegin/End: runtime/mgcmark.go
// gcAssistAlloc).
#include <fmt/format.h>

#include <map>

#include "report/section.h"

namespace gotraced::report {
namespace {

class StwGcSection final : public Section {
 public:
  explicit StwGcSection(Context &c) : c_(c), longest_(c.opt.top * 2) {}
  std::uint32_t Kinds() const override {
    return Bit(Kind::kSTWBegin) | Bit(Kind::kSTWEnd) | Bit(Kind::kGCActive) | Bit(Kind::kGCBegin) |
           Bit(Kind::kGCEnd) | Bit(Kind::kMarkAssistBegin) | Bit(Kind::kMarkAssistEnd) |
           Bit(Kind::kHeapAlloc);
  }
  void On(const Event &e, const GInfo &before) override {
    switch (e.kind) {
      case Kind::kSTWBegin:
        stw_open_ = true;
        stw_start_ = e.ns;
        stw_kind_ = std::string(e.str.empty() ? "unknown" : e.str);
        break;
      case Kind::kSTWEnd: {
        if (!stw_open_) break;
        stw_open_ = false;
        const std::uint64_t d = e.ns - std::min(e.ns, stw_start_);
        all_.Add(d);
        kinds_[stw_kind_].Add(d);
        if (stw_kind_.starts_with("GC ")) gc_pauses_.Add(d);
        longest_.Add(d, Moment{.start_ns = stw_start_,
                               .dur_ns = d,
                               .what = fmt::format("stop-the-world \"{}\" {}", stw_kind_, Dur(d))});
        break;
      }
      case Kind::kGCActive:
      case Kind::kGCBegin:
        if (!gc_open_) gc_open_ = true, gc_start_ = e.ns, gc_seen_begin_ = e.kind == Kind::kGCBegin;
        break;
      case Kind::kGCEnd:
        if (gc_open_) {
          ++cycles_;
          const std::uint64_t d = e.ns - std::min(e.ns, gc_start_);
          if (gc_seen_begin_) gc_total_ += d, gc_max_ = std::max(gc_max_, d);
        }
        gc_open_ = false;
        break;
      case Kind::kMarkAssistBegin:
        if (e.g) assists_.try_emplace(e.g, e.ns);
        break;
      case Kind::kMarkAssistEnd:
        if (auto it = assists_.find(e.g); it != assists_.end()) {
          assist_[before.group].Add(e.ns - std::min(e.ns, it->second));
          assists_.erase(it);
        }
        break;
      case Kind::kHeapAlloc:
        heap_max_ = std::max(heap_max_, e.value);
        break;
      default:
        break;
    }
  }
  void Finish(Report &r) override {
    report::StwGc &s = r.stw;
    s.all = Dist::Of(all_);
    s.gc = Dist::Of(gc_pauses_);
    for (auto &[k, h] : kinds_) s.kinds.push_back({k, Dist::Of(h)});
    std::sort(s.kinds.begin(), s.kinds.end(),
              [](auto &a, auto &b) { return a.dist.total_ns > b.dist.total_ns; });
    s.longest = longest_.Sorted();
    s.gc_cycles = cycles_;
    s.gc_total_ns = gc_total_;
    s.gc_max_ns = gc_max_;
    s.heap_max = heap_max_;
    s.mark_assist = GroupTable(assist_.map(), c_.gs, false);
  }

 private:
  Context &c_;
  Histogram all_, gc_pauses_;
  std::map<std::string, Histogram> kinds_;
  TopN<Moment> longest_;
  bool stw_open_ = false, gc_open_ = false, gc_seen_begin_ = false;
  std::uint64_t stw_start_ = 0, gc_start_ = 0, cycles_ = 0, gc_total_ = 0, gc_max_ = 0, heap_max_ = 0;
  std::string stw_kind_;
  std::unordered_map<std::uint64_t, std::uint64_t> assists_;  // g -> since
  GroupHistograms assist_;
};

}  // namespace

std::unique_ptr<Section> MakeStwGc(Context &c) { return std::make_unique<StwGcSection>(c); }

}  // namespace gotraced::report
