// The model's sparse mode (capture level "low", daemon/model/model_sparse.cc): syscalls,
// GC/STW and GOMAXPROCS records with no scheduling record around them become pieces Go's
// parser accepts, with no repair and nothing kept alive between them.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

using encoder::Version;

// The goroutine transition count `name` ("NotExist->Syscall") in tracecheck's JSON
// (transitions.goroutine), -1 when absent.
long Transitions(const CheckResult &r, const std::string &name) {
  const std::size_t g = r.json.find("\"goroutine\"");
  if (g == std::string::npos) return -1;
  const std::size_t at = r.json.find("\"" + name + "\"", g);
  const std::size_t close = r.json.find('}', g);
  if (at == std::string::npos || at > close) return -1;
  return std::strtol(r.json.c_str() + r.json.find(':', at) + 1, nullptr, 10);
}

TEST(ModelSparse, SyscallsGcStwAndProcsArePiecesTheParserAccepts) {
  Harness h(Version::kGo126, /*sparse=*/true);
  h.PushAll({
      RSyscall(100, 1, 0, 5),
      RSyscall(150, 2, kNoP, 6),  // Go <= 1.25: no P in a syscall
      RSyscallEnd(200, 1, 0, 5),
      RGc(RecordKind::kSTWBegin, 210, 1, 0, 7, 0, "GC mark termination"),
      RGc(RecordKind::kGCEnd, 220, 1, 0, 7),  // a cycle that began before the capture: GCActive
      RGc(RecordKind::kSTWEnd, 230, 1, 0, 7),
      RSyscall(250, 1, 0, 5),  // goroutine 5 again: created again
      RSyscallEnd(260, 1, 0, 5),
      // M 2 runs Go code, so goroutine 6's syscall is over: its exit (300, after this in
      // the M's order) was lost; the piece ends here and the late exit is dropped.
      RProcsChange(270, 2, 1, 8, 4),
      RSyscallEnd(300, 2, kNoP, 6),
      RProcsChange(310, 2, 1, 8, 4),
      RGc(RecordKind::kHeapGoal, 320, 3, 1, 9, 4 << 20),
  });
  CheckResult res = h.Finish("sparse");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(Transitions(res, "NotExist->Syscall"), 3);
  EXPECT_EQ(Transitions(res, "Syscall->NotExist"), 3);
  EXPECT_EQ(res.Int("syscalls"), 0);  // no GoSyscallBegin: goroutines are created in the syscall
  EXPECT_EQ(res.Int("ranges", "stop-the-world (GC mark termination)"), 1);
  EXPECT_EQ(res.Int("block_reasons", "chan receive"), 0);
  ModelStats s = h.model.stats();
  EXPECT_EQ(s.inconsistencies, 0u) << h.model.last_repair();
  EXPECT_EQ(s.writer_dropped, 0u);
  EXPECT_EQ(s.goroutines_live, 0u);  // nothing kept between pieces
  EXPECT_EQ(s.syscalls, 3u);
  EXPECT_EQ(s.sparse_observations, 4u);  // the STW (GC end inside it), two procs changes, heap goal
  EXPECT_EQ(s.records_discarded, 1u);    // the exit that came after its thread ran Go code
}

TEST(ModelSparse, SyscallSpanningACutBeginsAtTheCut) {
  Harness h(Version::kGo126, /*sparse=*/true);
  h.PushAll({RSyscall(100, 1, 0, 5), RSyscallEnd(120, 1, 0, 5)});
  h.model.CutGeneration(400);
  // One record per syscall (ProbePlan::syscall_pair): the entry arrives with the exit.
  h.PushAll({RSyscall(350, 2, 0, 6), RSyscallEnd(450, 2, 0, 6)});
  CheckResult res = h.Finish("sparse-cut");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(Transitions(res, "NotExist->Syscall"), 2);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u);
}

}  // namespace
}  // namespace gotraced::model::testing
