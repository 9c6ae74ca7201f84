// Syscalls in Go's own events: GoSyscallBegin to GoSyscallEnd / GoSyscallEndBlocked, by
// the call site of the syscall's stack (the frames outside runtime and syscall: what the
// program was doing, os.(*File).Read < main.load). What each syscall touched (a file, a
// socket, a pipe) is the kernel view's (kernel_side.cc), joined into Report::syscalls
// by the builder. Go <= 1.21 writes no end for a syscall that kept its P: those count
// 1 ns, as Go's own converter counts them (internal/trace/tracev1.go).
#include <fmt/format.h>

#include <map>

#include "report/section.h"

namespace gotraced::report {
namespace {

class SyscallsSection final : public Section {
 public:
  explicit SyscallsSection(Context &c) : c_(c) {}
  std::uint32_t Kinds() const override { return Bit(Kind::kSyscallEnd) | Bit(Kind::kSyscallEndBlocked); }
  void On(const Event &e, const GInfo &before) override {
    if (before.state != GState::kSyscall ||
        (e.kind != Kind::kSyscallEnd && e.kind != Kind::kSyscallEndBlocked))
      return;
    const std::uint64_t d = e.ns - std::min(e.ns, before.since_ns);
    all_.Add(d);
    // Stack ids are dense (StackTable): the stack's histogram by index, its call site named once.
    const std::uint32_t s = before.block_stack;
    if (s >= site_of_stack_.size()) site_of_stack_.resize(s + 1, nullptr);
    if (!site_of_stack_[s]) site_of_stack_[s] = &by_site_[c_.stacks.CallSite(s)];
    site_of_stack_[s]->Add(d);
    groups_[before.group].Add(d);  // its group when it entered (--by-label: the set it entered with)
  }
  void Finish(Report &r) override {
    r.syscalls.all = Dist::Of(all_);
    for (auto &[k, h] : by_site_) r.syscalls.by_call_site.push_back({k, Dist::Of(h)});
    std::sort(r.syscalls.by_call_site.begin(), r.syscalls.by_call_site.end(),
              [](auto &x, auto &y) { return x.dist.total_ns > y.dist.total_ns; });
    r.syscalls.groups = GroupTable(groups_.map(), c_.gs, false);
  }

 private:
  Context &c_;
  Histogram all_;
  std::map<std::string, Histogram> by_site_;  // node-based: the pointers below stay
  std::vector<Histogram *> site_of_stack_;
  GroupHistograms groups_;
};

}  // namespace

std::unique_ptr<Section> MakeSyscalls(Context &c) { return std::make_unique<SyscallsSection>(c); }

}  // namespace gotraced::report
