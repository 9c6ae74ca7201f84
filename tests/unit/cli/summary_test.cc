// The summary line tells the truth about lost output: which file(s) hold the trace and
// which generations they start from (cli/status_line.cc FormatSummary).
#include <gtest/gtest.h>

#include "cli/status_line.h"
#include "daemon/session/syscall_path.h"

namespace gotraced::cli {
namespace {

session::SessionStats FailedOutput() {
  session::SessionStats s;
  s.go_version = "go1.26.0";
  s.trace_format = "go1.26";
  s.output_error = "write /d/t.trace: No space left on device";
  s.generations_lost = 1;
  s.events_lost = 100;
  return s;
}

std::string Summary(const session::SessionStats &s) {
  return FormatSummary("/d/t.trace", 42, s, std::chrono::seconds(3));
}

TEST(SummaryTest, StoppedOutputKeepsTheGenerationsBefore) {
  auto s = FailedOutput();
  s.output_files = {{"/d/t.trace", 5, 1}};
  EXPECT_NE(Summary(s).find("OUTPUT FAILED, 1 generation(s) lost (100 events"), std::string::npos) << Summary(s);
  EXPECT_NE(Summary(s).find("the file keeps the 5 whole generation(s) before"), std::string::npos) << Summary(s);
}

// --on-write-error drop with the first generation lost: the file began anew with
// generation 2, so its generations are not "before" the failure.
TEST(SummaryTest, FileBegunAnewAfterAFailedFirstGenerationIsListed) {
  auto s = FailedOutput();
  s.output_files = {{"/d/t.trace", 13, 2}};
  const std::string line = Summary(s);
  EXPECT_EQ(line.find("before"), std::string::npos) << line;
  EXPECT_NE(line.find("the trace is in 1 file(s), each parseable on its own: /d/t.trace (13 generation(s) from 2)"),
            std::string::npos)
      << line;
}

TEST(SummaryTest, ContinuationFilesAreListed) {
  auto s = FailedOutput();
  s.output_files = {{"/d/t.trace", 3, 1}, {"/d/t.1.trace", 9, 5}};
  const std::string line = Summary(s);
  EXPECT_NE(line.find("the trace is in 2 file(s), each parseable on its own: /d/t.trace (3 generation(s) from 1) "
                      "/d/t.1.trace (9 generation(s) from 5)"),
            std::string::npos)
      << line;
}

TEST(SummaryTest, NoFileLeft) {
  auto s = FailedOutput();
  const std::string line = Summary(s);
  EXPECT_NE(line.find("no trace file is left"), std::string::npos) << line;
  EXPECT_NE(line.find("-> (no file)"), std::string::npos) << line;
}

}  // namespace
}  // namespace gotraced::cli

// Level low's syscall line names the path that ran (daemon/session/syscall_path.h), and
// why the tracepoints ran when sched_switch, the default, was asked.
namespace gotraced::session {
namespace {

SessionStats Low() {
  SessionStats s;
  s.level = "low";
  s.syscall_min_ns = 1'000'000;
  s.short_syscalls = 42;
  return s;
}

bool Has(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

TEST(SyscallSummaryTest, SchedSwitch) {
  auto s = Low();
  s.syscalls_by_switch = true;
  const std::string line = SyscallSummary(s);
  EXPECT_TRUE(Has(line, "level low: syscalls from sched_switch: only syscalls that kept their thread off CPU for "
                        "1 ms or longer")) << line;
  EXPECT_TRUE(Has(line, "42 shorter sleeps")) << line;
  EXPECT_TRUE(Has(line, "no program ran on any syscall")) << line;
}

TEST(SyscallSummaryTest, TracepointsAskedSayNoWhy) {
  const std::string line = SyscallSummary(Low());
  EXPECT_TRUE(Has(line, "level low: syscalls by the syscall tracepoints: only syscalls of 1 ms or longer are in "
                        "the trace; 42 shorter ones")) << line;
  EXPECT_TRUE(Has(line, "every syscall of the host ran a program")) << line;
}

TEST(SyscallSummaryTest, TracepointsInsteadOfSchedSwitchSayWhy) {
  auto s = Low();
  s.syscalls_switch_refused = "sched_switch cannot be used here: bpf_task_pt_regs helper (Linux 5.15+) is missing";
  const std::string line = SyscallSummary(s);
  EXPECT_TRUE(Has(line, "level low: syscalls by the syscall tracepoints (sched_switch cannot be used here: "
                        "bpf_task_pt_regs helper (Linux 5.15+) is missing): only syscalls of 1 ms")) << line;
  EXPECT_EQ(SyscallPath(s), "by the syscall tracepoints (" + s.syscalls_switch_refused + ")");
}

TEST(SyscallSummaryTest, NoThresholdClaimsNone) {
  auto s = Low();
  s.syscall_min_ns = 0;
  s.syscalls_switch_refused = "no threshold: sched_switch sees only the syscalls that leave the CPU";
  const std::string line = SyscallSummary(s);
  EXPECT_FALSE(Has(line, "only syscalls")) << line;
  EXPECT_TRUE(Has(line, "every goroutine syscall is in the trace")) << line;
  EXPECT_TRUE(Has(line, "(no threshold")) << line;
}

TEST(SyscallSummaryTest, Sampling) {
  auto s = Low();
  s.syscall_sample_period_ns = 250'000;
  s.syscall_sweeps = 7;
  EXPECT_EQ(SyscallSummary(s),
            "level low: syscalls by sampling the target's threads every 250 us (7 sweeps): no program ran on any "
            "syscall");
}

}  // namespace
}  // namespace gotraced::session
