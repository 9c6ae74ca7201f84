// One pass over a trace (trace_reader.h) feeding every section (section.h), then the
// findings (findings.cc).
#include <array>
#include <sstream>

#include "report/findings.h"
#include "report/report.h"
#include "report/section.h"
#include "report/trace_reader.h"

namespace gotraced::report {

Dist Dist::Of(const Histogram &h) {
  return {h.count(), h.sum(), h.Quantile(0.5), h.Quantile(0.9), h.Quantile(0.99), h.max()};
}

std::vector<GroupDist> GroupTable(const std::unordered_map<std::uint32_t, Histogram> &h,
                                  const GoroutineTable &gs, bool by_p99) {
  std::vector<GroupDist> v;
  for (auto &[id, hist] : h) v.push_back({gs.GroupName(id), 0, Dist::Of(hist)});
  std::sort(v.begin(), v.end(), [by_p99](const GroupDist &a, const GroupDist &b) {
    return by_p99 ? std::tie(a.dist.p99_ns, a.dist.total_ns) > std::tie(b.dist.p99_ns, b.dist.total_ns)
                  : a.dist.total_ns > b.dist.total_ns;
  });
  return v;
}

namespace {

class Builder final : public EventSink {
 public:
  explicit Builder(const ReportOptions &opt) : gs_(stacks_, opt), ctx_{stacks_, gs_, opt} {
    sections_.push_back(MakeSchedLatency(ctx_));
    sections_.push_back(MakeStwGc(ctx_));
    sections_.push_back(MakeBlocking(ctx_));
    sections_.push_back(MakeSyscalls(ctx_));
    sections_.push_back(MakeGoroutineGrowth(ctx_));
    sections_.push_back(MakeCpuSamples(ctx_));
    auto k = MakeKernelSide(ctx_);
    kernel_ = k.get();
    sections_.push_back(std::move(k));
    for (auto &sec : sections_)
      for (int kind = 0; kind < 32; ++kind) {
        if (sec->Kinds() & (std::uint32_t{1} << kind)) by_kind_[kind].push_back(sec.get());
        if (sec->KindsInAssist() & (std::uint32_t{1} << kind)) in_assist_[kind].push_back(sec.get());
      }
  }
  void On(const Event &e) override {
    end_ns_ = std::max(end_ns_, e.ns);
    // Sections see the goroutine as it was before the event: they all run before Apply
    // changes it, and see the table const, so they read it in place (no copy).
    static const GInfo kAbsent;
    GInfo *gi = e.g != 0 && e.kind != Kind::kCPUSample ? gs_.Find(e.g) : nullptr;
    const GInfo &before = gi ? *gi : kAbsent;
    for (Section *s : by_kind_[static_cast<int>(e.kind)]) s->On(e, before);
    if (before.in_assist) [[unlikely]]
      for (Section *s : in_assist_[static_cast<int>(e.kind)]) s->On(e, before);
    gs_.Apply(e, gi);
  }
  Report Finish(const ReadResult &rr, const ReportOptions &opt) {
    Report r;
    r.version = rr.version;
    if (opt.group_by == ReportOptions::GroupBy::kLabel) r.grouped_by = "label " + opt.label_key;
    r.error = rr.error;
    r.events = rr.events;
    r.generations = rr.generations;
    r.max_generation_bytes = rr.max_generation_bytes;
    r.duration_ns = std::max(rr.duration_ns, end_ns_);
    r.goroutines = gs_.seen();
    ctx_.end_ns = r.duration_ns;
    for (auto &s : sections_) s->Finish(r);
    r.syscalls.by_target = SyscallTargets(r.kernel);
    r.findings = RankFindings(r, *kernel_, opt);
    return r;
  }
  StackTable &stacks() { return stacks_; }

 private:
  StackTable stacks_;
  GoroutineTable gs_;
  Context ctx_;
  std::vector<std::unique_ptr<Section>> sections_;
  std::array<std::vector<Section *>, 32> by_kind_;    // the sections that want each Kind
  std::array<std::vector<Section *>, 32> in_assist_;  // ... of a goroutine in a mark assist
  KernelSideSection *kernel_ = nullptr;
  std::uint64_t end_ns_ = 0;
};

}  // namespace

Report BuildReport(std::istream &in, const ReportOptions &opt) {
  Builder b(opt);
  const ReadResult rr = ReadTrace(in, b.stacks(), b);
  return b.Finish(rr, opt);
}

Report BuildReport(std::span<const std::uint8_t> trace, const ReportOptions &opt) {
  std::istringstream in(std::string(reinterpret_cast<const char *>(trace.data()), trace.size()));
  return BuildReport(in, opt);
}

}  // namespace gotraced::report
