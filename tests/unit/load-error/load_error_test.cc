#include "daemon/capture/load_error.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>

namespace gotraced::capture {
namespace {

LoadContext Context() {
  LoadContext c;
  c.what = "loading the BPF programs";
  c.versions = "gotraced 0.1.0 (git abc), kernel 6.18.0, target go1.26.1";
  c.other_hint = " (run `gotraced selftest`)";
  return c;
}

// The log tail of the refusal we met (6382d21): the verifier's reason, then its summary.
std::vector<std::string> NegativeR2Tail() {
  return {"123: (bf) r1 = r10", "124: (85) call bpf_probe_read_user#112",
          "R2 min value is negative, either use unsigned or 'var &= const'",
          "processed 4521 insns (limit 1000000) max_states_per_insn 4 total_states 301 peak_states 120 mark_read 7"};
}

bool Has(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

TEST(LoadError, WithoutCapabilitiesPermissionIsTheAnswer) {
  for (int err : {EPERM, EACCES}) {
    LoadFailure f;
    f.err = err;
    f.privileged = false;
    std::string m = ExplainLoadFailure(f, Context());
    EXPECT_EQ(m, std::string("loading the BPF programs was refused (") + std::strerror(err) +
                     "): run as root, or with CAP_BPF + CAP_PERFMON");
  }
}

TEST(LoadError, WithoutCapabilitiesALogDoesNotHideThePermissionAdvice) {
  LoadFailure f;
  f.err = EACCES;
  f.program = "gt_casgstatus";
  f.log_tail = NegativeR2Tail();
  std::string m = ExplainLoadFailure(f, Context());
  EXPECT_TRUE(Has(m, "run as root")) << m;
  EXPECT_FALSE(Has(m, "verifier")) << m;
}

TEST(LoadError, VerifierRefusalNamesProgramReasonAndWhatToDo) {
  LoadFailure f;
  f.err = EACCES;
  f.privileged = true;
  f.program = "gt_casgstatus";
  f.log_tail = NegativeR2Tail();
  std::string m = ExplainLoadFailure(f, Context());
  EXPECT_FALSE(Has(m, "run as root")) << m;
  EXPECT_TRUE(Has(m, "verifier refused program gt_casgstatus (Permission denied)")) << m;
  EXPECT_TRUE(Has(m, "\n    R2 min value is negative, either use unsigned or 'var &= const'\n")) << m;
  EXPECT_TRUE(Has(m, "\n    123: (bf) r1 = r10\n")) << m;
  EXPECT_TRUE(Has(m, "gotraced bug")) << m;
  EXPECT_TRUE(Has(m, "gotraced 0.1.0 (git abc), kernel 6.18.0, target go1.26.1")) << m;
}

TEST(LoadError, VerifierRefusalWhateverTheErrno) {
  // "too large" is E2BIG, unknown helpers EINVAL: still the verifier, still a bug.
  LoadFailure f;
  f.err = E2BIG;
  f.privileged = true;
  f.program = "gt_call";
  f.log_tail = {"BPF program is too large. Processed 1000001 insn",
                "processed 1000001 insns (limit 1000000) max_states_per_insn 28 total_states 33927"};
  std::string m = ExplainLoadFailure(f, Context());
  EXPECT_TRUE(Has(m, "verifier refused program gt_call (Argument list too long)")) << m;
  EXPECT_TRUE(Has(m, "\n    BPF program is too large. Processed 1000001 insn\n")) << m;
  EXPECT_FALSE(Has(m, "selftest")) << m;
}

TEST(LoadError, VerifierLogWithoutProgramName) {
  LoadFailure f;
  f.err = EINVAL;
  f.privileged = true;
  f.log_tail = {"unknown func bpf_get_current_pid_tgid#14"};
  std::string m = ExplainLoadFailure(f, Context());
  EXPECT_TRUE(Has(m, "verifier refused one of the programs (Invalid argument)")) << m;
}

TEST(LoadError, PrivilegedRefusalWithoutLogIsAPolicy) {
  LoadFailure f;
  f.err = EPERM;
  f.privileged = true;
  std::string m = ExplainLoadFailure(f, Context());
  EXPECT_FALSE(Has(m, "run as root")) << m;
  EXPECT_TRUE(Has(m, "although this process has CAP_SYS_ADMIN or CAP_BPF + CAP_PERFMON")) << m;
  EXPECT_TRUE(Has(m, "security policy")) << m;
  f.program = "gt_sched_switch";
  EXPECT_TRUE(Has(ExplainLoadFailure(f, Context()), "(program gt_sched_switch)"));
}

TEST(LoadError, OtherErrorsKeepTheHint) {
  LoadFailure f;
  f.err = ENOENT;
  f.privileged = true;
  EXPECT_EQ(ExplainLoadFailure(f, Context()),
            std::string("loading the BPF programs failed: ") + std::strerror(ENOENT) + " (run `gotraced selftest`)");
  f.program = "gt_exec";
  std::string m = ExplainLoadFailure(f, Context());
  EXPECT_TRUE(Has(m, "the kernel refused program gt_exec")) << m;
  EXPECT_TRUE(Has(m, "no verifier log (run `gotraced selftest`)")) << m;
  EXPECT_TRUE(Has(m, "target go1.26.1")) << m;
}

// An old kernel: the missing features are the answer, not a verifier bug to report
// (bullseye's 5.10 failed creating a task-storage map; issue 11).
TEST(LoadError, MissingKernelFeaturesAreNamedNotReportedAsABug) {
  LoadFailure f;
  f.err = EINVAL;
  f.privileged = true;
  f.log_tail = NegativeR2Tail();
  f.missing_features = {"task storage map (BPF_MAP_TYPE_TASK_STORAGE) (Linux 5.11+) is missing: upgrade",
                        "bpf_loop helper (stack walks) (Linux 5.17+) is missing: upgrade"};
  std::string m = ExplainLoadFailure(f, Context());
  EXPECT_TRUE(Has(m, "this kernel lacks what gotraced needs:\n  - task storage map")) << m;
  EXPECT_TRUE(Has(m, "\n  - bpf_loop helper (stack walks) (Linux 5.17+) is missing")) << m;
  EXPECT_TRUE(Has(m, "gotraced supports Linux 6.1 and newer")) << m;
  EXPECT_FALSE(Has(m, "gotraced bug")) << m;
  // Without the capabilities the features were not probed: permission stays the answer.
  f.privileged = false;
  f.err = EPERM;
  EXPECT_TRUE(Has(ExplainLoadFailure(f, Context()), "run as root")) << ExplainLoadFailure(f, Context());
}

TEST(LoadError, ReportVersionsNamesAllThree) {
  std::string v = ReportVersions("go1.27.3");
  EXPECT_EQ(v.rfind("gotraced ", 0), 0u) << v;
  EXPECT_TRUE(Has(v, ", kernel ")) << v;
  EXPECT_FALSE(Has(v, "kernel unknown")) << v;
  EXPECT_TRUE(Has(v, ", target go1.27.3")) << v;
  EXPECT_FALSE(Has(ReportVersions(""), "target")) << ReportVersions("");
}

}  // namespace
}  // namespace gotraced::capture
