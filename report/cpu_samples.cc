// CPU: where the trace's CPU samples (CPUSample events: runtime/cpuprof.go writes the
// profiler's samples into the trace when the CPU profiler runs alongside it; gotraced's
// --cpu-samples) landed, by innermost function and by goroutine group.
#include <map>

#include "report/section.h"

namespace gotraced::report {
namespace {

class CpuSection final : public Section {
 public:
  explicit CpuSection(Context &c) : c_(c) {}
  std::uint32_t Kinds() const override { return Bit(Kind::kCPUSample); }
  void On(const Event &e, const GInfo &) override {
    if (e.kind != Kind::kCPUSample) return;
    ++samples_;
    const auto &fr = c_.stacks.Frames(e.stack);
    ++funcs_[fr.empty() ? std::string("?") : c_.stacks.Func(fr.front())];
    std::string group = "(no goroutine)";
    if (e.g != 0) {
      auto it = c_.gs.Live().find(e.g);
      group = it == c_.gs.Live().end() ? "?" : c_.gs.GroupName(it->second.group);
    }
    ++groups_[group];
  }
  void Finish(Report &r) override {
    r.cpu.samples = samples_;
    auto rows = [](const std::map<std::string, std::uint64_t> &m) {
      std::vector<Cpu::Row> v;
      for (auto &[k, n] : m) v.push_back({k, n});
      std::sort(v.begin(), v.end(), [](auto &a, auto &b) { return a.samples > b.samples; });
      return v;
    };
    r.cpu.functions = rows(funcs_);
    r.cpu.groups = rows(groups_);
  }

 private:
  Context &c_;
  std::uint64_t samples_ = 0;
  std::map<std::string, std::uint64_t> funcs_, groups_;
};

}  // namespace

std::unique_ptr<Section> MakeCpuSamples(Context &c) { return std::make_unique<CpuSection>(c); }

}  // namespace gotraced::report
