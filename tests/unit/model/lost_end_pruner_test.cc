// session/lost_end_pruner.h: one round per loss, across generations; the candidates are
// judged only at a generation's end after the read of the live goroutines, and a failed
// or partial read decides nothing.
#include "daemon/session/lost_end_pruner.h"

#include <gtest/gtest.h>

#include <vector>

#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

using session::LostEndPruner;

// G1 on M1/P0 creates G2..G11, each runs on M2/P1 and blocks (their ends never come).
std::uint64_t TenBlocked(Harness &h) {
  std::uint64_t t = 100;
  h.Push(RProcStart(t, 1, 0));
  h.Push(RGoCreate(t += 10, 1, 0, kNoG, 1));
  h.Push(RGoStart(t += 10, 1, 0, 1));
  h.Push(RProcStart(t += 10, 2, 1));
  for (Goid g = 2; g < 12; ++g) {
    h.Push(RGoCreate(t += 10, 1, 0, 1, g));
    h.Push(RGoStart(t += 10, 2, 1, g));
    h.Push(RGoBlock(t += 10, 2, 1, g));
  }
  h.model.CutGeneration(t += 10);
  return t;
}

struct Fake {
  std::uint64_t now = 0;
  int reads = 0;
  bool ok = true;
  std::vector<std::uint64_t> live;
  LostEndPruner Pruner() {
    return LostEndPruner(
        [this](std::vector<std::uint64_t> &out) {
          ++reads;
          out = live;
          return ok;
        },
        [this] { return now; });
  }
};

TEST(LostEndPruner, OneRoundPerLossJudgedAfterTheRead) {
  Harness h;
  TenBlocked(h);
  Fake f;
  f.live = {1, 11, 5};  // unsorted, as the reader appends them
  LostEndPruner p = f.Pruner();
  EXPECT_EQ(p.AfterCut(h.model, 1'000), 0u);
  EXPECT_EQ(f.reads, 0);  // no loss, no read
  p.NoteLoss();
  f.now = 5'000;
  EXPECT_EQ(p.AfterCut(h.model, 2'000), 0u);  // candidates taken, live read until 5,000
  EXPECT_EQ(f.reads, 1);
  EXPECT_EQ(p.AfterCut(h.model, 5'000), 0u);  // records before the read's end may still be queued
  EXPECT_EQ(h.model.footprint().goroutines, 11u);
  EXPECT_EQ(p.AfterCut(h.model, 100'005'000), 8u);  // 100 ms on: G2..G11 but G5 and G11
  EXPECT_EQ(h.model.footprint().goroutines, 3u);
  EXPECT_EQ(p.rounds(), 1u);
  EXPECT_EQ(f.reads, 1);  // no second round without a second loss
  EXPECT_EQ(p.AfterCut(h.model, 900'000'000), 0u);
  EXPECT_EQ(f.reads, 1);
  EXPECT_ACCEPTED(h.Finish("lost-end-pruner"));
}

TEST(LostEndPruner, AFailedReadDecidesNothing) {
  Harness h;
  TenBlocked(h);
  Fake f;
  f.ok = false;
  LostEndPruner p = f.Pruner();
  p.NoteLoss();
  f.now = 5'000;
  EXPECT_EQ(p.AfterCut(h.model, 2'000), 0u);
  EXPECT_EQ(p.AfterCut(h.model, 900'000'000), 0u);
  EXPECT_EQ(p.failed_reads(), 1u);
  EXPECT_EQ(h.model.footprint().goroutines, 11u);
}

}  // namespace
}  // namespace gotraced::model::testing
