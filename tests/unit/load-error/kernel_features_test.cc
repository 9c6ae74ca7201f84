// What level low's syscalls from sched_switch need of the kernel (kernel_features.h
// SysSwitchMissing): a missing one sends the capture to the syscall tracepoints with its
// name; one that could not be probed does not (the load says).
#include "daemon/capture/kernel_features.h"

#include <gtest/gtest.h>

#include "daemon/probes/privileges.h"

namespace gotraced::capture {
namespace {

using State = KernelFeature::State;

std::vector<KernelFeature> Features(State tp_btf, State storage, State pt_regs, State loop) {
  auto f = [](const char *id, const char *name, const char *since, State s) {
    KernelFeature k;
    k.id = id;
    k.name = name;
    k.since = since;
    k.state = s;
    return k;
  };
  return {f("tp_btf", "BTF tracepoint programs", "5.5", tp_btf), f("task_storage", "task storage map", "5.11", storage),
          f("task_pt_regs", "bpf_task_pt_regs helper", "5.15", pt_regs), f("bpf_loop", "bpf_loop helper", "5.17", loop)};
}

TEST(SysSwitchMissing, NothingMissingIsEmpty) {
  EXPECT_EQ(SysSwitchMissing(Features(State::kPresent, State::kPresent, State::kPresent, State::kMissing)), "");
  // Not probed (no privilege): counted as there, the load says otherwise.
  EXPECT_EQ(SysSwitchMissing(Features(State::kUnknown, State::kUnknown, State::kUnknown, State::kPresent)), "");
}

TEST(SysSwitchMissing, NamesTheMissingHelperWithItsVersion) {
  EXPECT_EQ(SysSwitchMissing(Features(State::kPresent, State::kPresent, State::kMissing, State::kPresent)),
            "bpf_task_pt_regs helper (Linux 5.15+) is missing");
  // What every recording needs is not the fallback's business: without it nothing loads.
  EXPECT_EQ(SysSwitchMissing(Features(State::kMissing, State::kMissing, State::kPresent, State::kPresent)), "");
}

// The oldest kernel supported (6.1) has it (5.15+): so does this machine's; and the probe
// is only that helper's, not ProbeKernelFeatures' ~50 ms.
TEST(SysSwitchMissing, ThisKernelHasWhatItNeeds) {
  if (!probes::CurrentPrivileges().can_load()) GTEST_SKIP() << "needs the privilege to load BPF programs";
  EXPECT_EQ(SysSwitchMissingHere(), "");
  const auto one = ProbeKernelFeatures({"task_pt_regs"});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].state, State::kPresent) << one[0].detail;
}

}  // namespace
}  // namespace gotraced::capture
