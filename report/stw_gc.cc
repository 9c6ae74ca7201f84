// Stop-the-world pauses and GC: each STW with its kind and length (STWBegin/STWEnd:
// runtime/proc.go stopTheWorldWithSema / startTheWorldWithSema; the runtime's
// /sched/pauses/total/gc:seconds, /gc/pauses:seconds before 1.22, times the GC's), GC
// cycles (GCBegin..GCEnd; /gc/cycles/total:gc-cycles counts the completed ones) and
// mark-assist time per goroutine group: the time a goroutine ran between its
// GCMarkAssistBegin (or Active) and End (runtime/mgcmark.go gcAssistAlloc), what the
// runtime counts as /cpu/classes/gc/mark/assist:cpu-seconds. The range itself also holds
// the assist's parks in gcParkAssist (blocking's "GC mark assist wait" reason) and its
// waits for a P after them (scheduling latency): on a loaded machine those are most of
// it (bench/report/gentrace, 256 MB: ranges 32.6 s, the runtime's assist CPU 0.9 ms), so
// the range is given apart (StwGc::mark_assist_range_ns), not as the assists' cost.
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
  // An assist makes no syscall (it runs on the system stack): these are all the ways in
  // and out of running for it.
  std::uint32_t KindsInAssist() const override {
    return Bit(Kind::kGoStart) | Bit(Kind::kGoStop) | Bit(Kind::kGoBlock) | Bit(Kind::kGoEnd);
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
        // Begin is written by the assisting goroutine (running); Active, at a
        // generation's start or its first event in one, by whoever saw it in an assist.
        if (e.g) assists_.try_emplace(e.g, Assist{.begin_ns = e.ns, .run_since_ns = e.ns,
                                                  .running = before.state == GState::kRunning ||
                                                             before.state == GState::kUndetermined});
        break;
      case Kind::kMarkAssistEnd:
        if (auto it = assists_.find(e.g); it != assists_.end()) {
          Assist &a = it->second;
          if (a.running) a.run_ns += e.ns - std::min(e.ns, a.run_since_ns);
          assist_[before.group].Add(a.run_ns);
          range_ns_ += e.ns - std::min(e.ns, a.begin_ns);
          assists_.erase(it);
        }
        break;
      case Kind::kGoStart:
      case Kind::kGoStop:
      case Kind::kGoBlock:
      case Kind::kGoEnd:
        RunState(e);
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
    s.mark_assist_range_ns = range_ns_;
  }

 private:
  struct Assist {
    std::uint64_t begin_ns, run_since_ns, run_ns = 0;
    bool running;
  };
  // An assisting goroutine starts or stops running.
  void RunState(const Event &e) {
    auto it = assists_.find(e.g);
    if (it == assists_.end()) return;
    Assist &a = it->second;
    if (e.kind == Kind::kGoStart) {
      if (!a.running) a.running = true, a.run_since_ns = e.ns;
      return;
    }
    if (a.running) a.run_ns += e.ns - std::min(e.ns, a.run_since_ns), a.running = false;
    if (e.kind == Kind::kGoEnd) assists_.erase(it);  // ended inside an assist: not a whole one
  }

  Context &c_;
  Histogram all_, gc_pauses_;
  std::map<std::string, Histogram> kinds_;
  TopN<Moment> longest_;
  bool stw_open_ = false, gc_open_ = false, gc_seen_begin_ = false;
  std::uint64_t stw_start_ = 0, gc_start_ = 0, cycles_ = 0, gc_total_ = 0, gc_max_ = 0, heap_max_ = 0;
  std::string stw_kind_;
  std::unordered_map<std::uint64_t, Assist> assists_;  // the goroutines in an assist
  GroupHistograms assist_;                             // the time they ran in it
  std::uint64_t range_ns_ = 0;                         // Begin..End, whatever the goroutine did
};

}  // namespace

std::unique_ptr<Section> MakeStwGc(Context &c) { return std::make_unique<StwGcSection>(c); }

}  // namespace gotraced::report
