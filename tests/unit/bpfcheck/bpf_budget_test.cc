// The verifier budget of issue 11 for every BPF program gotraced can load, on this
// kernel, loaded as `gotraced selftest` loads them (each on its own, the gotrace config
// filled from a probe plan):
//   * processed instructions <= 25% of the verifier's 1,000,000 limit,
//   * the deepest call chain's stack <= 384 of the 512 bytes (frames rounded as Linux
//     6.1 rounds them: capture/prog_stack.h),
//   * uprobe programs: every subprog's own stack < 64 bytes (BPF_PRIV_STACK_MIN_SIZE:
//     from Linux 6.13 the x86 JIT puts a bigger frame on a per-CPU private stack, which a
//     preempted uprobe program shares with the next one on its CPU; docs/preemption.md).
// Configs: the selftest's built-in target and the probe plan of each Go toolchain's
// gofmt found on this machine (a Go binary of that version).
//
// Needs root (or CAP_BPF + CAP_PERFMON): without it each test skips and says so. A kernel
// that lacks a feature gotraced needs fails the test, naming it.
#include <unistd.h>

#include <cstdlib>

#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "daemon/bpfcheck/bpf_selftest.h"
#include "daemon/bpfcheck/selftest_target.h"
#include "daemon/capture/kernel_features.h"
#include "daemon/capture/prog_stack.h"
#include "daemon/capture/verifier_stats.h"
#include "daemon/probes/privileges.h"
#include "tests/unit/common/go_toolchain.h"

namespace gotraced::bpfcheck {
namespace {

constexpr uint64_t kInsnBudget = capture::kVerifierInsnLimit / 4;  // 25%
constexpr uint32_t kStackBudget = 384;

struct Config {
  std::string name;     // test name suffix
  std::string version;  // the Go release whose gofmt is the target; "" = built-in target
};

void PrintTo(const Config &c, std::ostream *os) { *os << c.name; }

std::vector<Config> Configs() {
  return {{"builtin", ""},      {"go1_19", "go1.19"}, {"go1_21", "go1.21"}, {"go1_22", "go1.22"},
          {"go1_23", "go1.23"}, {"go1_24", "go1.24"}, {"go1_25", "go1.25"}, {"go1_26", "go1.26"},
          {"go1_27", "go1.27"}};
}

std::string Depths(const std::vector<uint32_t> &d) {
  std::string s;
  for (size_t i = 0; i < d.size(); i++) s += (i ? "+" : "") + std::to_string(d[i]);
  return s;
}

// Why BPF programs cannot be checked here at all ("" when they can).
std::string CannotLoad() {
  if (!probes::CurrentPrivileges().can_load())
    return "this process may not load BPF programs (needs root, or CAP_BPF + CAP_PERFMON): run the test as root";
  return {};
}

class Budget : public ::testing::TestWithParam<Config> {};

TEST_P(Budget, EveryProgramWithinTheVerifierBudget) {
  if (std::string why = CannotLoad(); !why.empty()) GTEST_SKIP() << why;
  // A kernel without what gotraced needs is a failure here, not a skip: the budget is a
  // property of the supported kernels, and this one claims to be one.
  const auto missing = capture::MissingFeatures(capture::ProbeKernelFeatures());
  for (const auto &m : missing) ADD_FAILURE() << "kernel feature: " << m;
  if (!missing.empty()) return;

  const Config &c = GetParam();
  std::string binary;  // that release's gofmt, found as go_for finds its go (testutil::GoRoot)
  if (!c.version.empty()) {
    const std::string root = testutil::GoRoot(c.version);
    binary = root + "/bin/gofmt";
    if (root.empty() || access(binary.c_str(), R_OK) != 0)
      GTEST_SKIP() << c.version << " is not installed (scripts/install-deps.sh installs that Go toolchain)";
  }
  auto target = binary.empty() ? BuiltinTarget() : TargetFromBinary(binary);
  ASSERT_TRUE(target) << target.error();

  const std::vector<ProgramCheck> programs = CheckAllPrograms(&target->plan);
  ASSERT_FALSE(programs.empty());
  std::printf("config %s\n", target->description.c_str());
  for (const ProgramCheck &p : programs) {
    const auto &st = p.stats;
    const std::string who = fmt::format("{}/{} (SEC(\"{}\"), config {})", p.object, p.name, p.section, c.name);
    std::printf("  %-34s %-8s insns %9s  stack %s = %u combined%s\n", (p.object + "/" + p.name).c_str(),
                p.loaded ? "ok" : "REFUSED",
                st.processed_insns ? std::to_string(*st.processed_insns).c_str() : "-",
                Depths(st.subprog_depths).c_str(), p.combined_stack, p.combined_from_call_graph ? "" : " (bound)");
    EXPECT_TRUE(p.loaded) << who << " was not loaded: " << p.error;
    if (!st.processed_insns) {
      ADD_FAILURE() << who << ": the verifier's log has no 'processed N insns' line";
    } else {
      EXPECT_LE(*st.processed_insns, kInsnBudget)
          << who << ": processed " << *st.processed_insns << " insns = " << fmt::format("{:.1f}", st.PercentOfLimit())
          << "% of the verifier's " << capture::kVerifierInsnLimit << " limit (budget 25% = " << kInsnBudget << ")";
    }
    if (st.subprog_depths.empty()) {
      ADD_FAILURE() << who << ": the verifier's log has no 'stack depth' line";
      continue;
    }
    EXPECT_LE(p.combined_stack, kStackBudget)
        << who << ": combined stack " << p.combined_stack << " bytes (subprogs " << Depths(st.subprog_depths)
        << (p.combined_from_call_graph ? ", deepest call chain" : ", all frames summed: the call graph was unknown")
        << ", frames rounded to 32 as Linux 6.1 does) over the budget of " << kStackBudget << " of "
        << capture::kMaxBpfStack;
    if (p.IsUprobe()) {
      for (size_t i = 0; i < st.subprog_depths.size(); i++) {
        const std::string fn = i < p.subprog_names.size() && !p.subprog_names[i].empty()
                                   ? p.subprog_names[i]
                                   : fmt::format("subprog #{}", i);
        EXPECT_LT(st.subprog_depths[i], capture::kPrivStackMinSize)
            << who << ": " << fn << " has " << st.subprog_depths[i] << " bytes of its own stack (subprogs "
            << Depths(st.subprog_depths) << "); a uprobe program's functions must stay under "
            << capture::kPrivStackMinSize
            << " bytes, or the x86 JIT of Linux >= 6.13 runs them on the per-CPU private stack that a preempted "
               "uprobe program shares (docs/preemption.md)";
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, Budget, ::testing::ValuesIn(Configs()),
                         [](const ::testing::TestParamInfo<Config> &i) { return i.param.name; });

}  // namespace
}  // namespace gotraced::bpfcheck
