// The summary line tells the truth about lost output: which file(s) hold the trace and
// which generations they start from (cli/status_line.cc FormatSummary).
#include <gtest/gtest.h>

#include "cli/status_line.h"

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
