// Goroutines whose end was lost (issue 30): after a loss the model gives up, at a
// generation's end, the goroutines it holds off every M that the target no longer has
// (model.h GoroutinesOffM / ForgetGone). The model's and the legacy writer's tables
// shrink, a live one and one on an M are kept, later records of a forgotten one are
// dropped as stale, and the trace is still accepted by Go's parser in each format.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "encoder/legacy_writer.h"
#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

using encoder::Version;

// G1 on M1/P0 creates G2..G(1+n); each runs on M2/P1 and blocks; none ends (their ends
// are "lost"). Then G(2+n) runs on M2 and stays there.
std::uint64_t Scenario(Model &m, Goid n) {
  std::uint64_t t = 100;
  m.Push(RProcStart(t, 1, 0));
  m.Push(RGoCreate(t += 10, 1, 0, kNoG, 1));
  m.Push(RGoStart(t += 10, 1, 0, 1));
  m.Push(RProcStart(t += 10, 2, 1));
  for (Goid g = 2; g < 2 + n; ++g) {
    m.Push(RGoCreate(t += 10, 1, 0, 1, g));
    m.Push(RGoStart(t += 10, 2, 1, g));
    m.Push(RGoBlock(t += 10, 2, 1, g, "chan receive"));
  }
  m.Push(RGoCreate(t += 10, 1, 0, 1, 2 + n));
  m.Push(RGoStart(t += 10, 2, 1, 2 + n));
  m.CutGeneration(t += 10);
  return t;
}

void RunGone(Version v, const char *name) {
  encoder::MemorySink sink;
  encoder::LegacyTraceWriter *legacy = nullptr;
  std::unique_ptr<encoder::EventWriter> w = MakeWriter(sink, v, &legacy);
  TableSymbolizer sym;
  Model m(*w, &sym);
  constexpr Goid kN = 1000;
  std::uint64_t t = Scenario(m, kN);
  std::vector<Goid> candidates = m.GoroutinesOffM();
  // The blocked ones; not G1 (on M1) nor the running one (on M2).
  ASSERT_EQ(candidates.size(), std::size_t{kN});
  const std::size_t tracked_before = legacy ? legacy->goroutines_tracked() : 0;
  // The target still has the even ones (and G1 and the running one, not candidates).
  std::vector<Goid> live = {1, 2 + kN};
  for (Goid g = 2; g < 2 + kN; g += 2) live.push_back(g);
  std::sort(live.begin(), live.end());
  EXPECT_EQ(m.ForgetGone(candidates, live), std::size_t{kN / 2});
  EXPECT_EQ(m.stats().goroutines_gone, std::uint64_t{kN / 2});
  EXPECT_EQ(m.footprint().goroutines, std::size_t{kN / 2 + 2});
  if (legacy) {
    EXPECT_EQ(legacy->goroutines_tracked(), tracked_before - kN / 2);
  }
  // Again: nothing more to forget.
  EXPECT_EQ(m.ForgetGone(candidates, live), 0u);
  // A stale record of a forgotten goroutine is dropped; a kept one runs and ends.
  m.Push(RGoUnblock(t += 10, 1, 0, 1, 3));
  m.Push(RGoUnblock(t += 10, 1, 0, 1, 4));
  m.Push(RGoEnd(t += 10, 2, 1, 2 + kN));
  m.Push(RGoStart(t += 10, 2, 1, 4));
  m.Push(RGoEnd(t += 10, 2, 1, 4));
  m.CutGeneration(t += 10);
  m.Finish(t + 10);
  w->Close();
  EXPECT_EQ(m.stats().inconsistencies, 0u) << m.last_repair();
  EXPECT_EQ(m.stats().writer_dropped, 0u) << w->last_error();
  EXPECT_EQ(m.footprint().goroutines, std::size_t{kN / 2});  // G1 and the evens but G4
  const CheckResult res = RunTracecheck(sink.bytes(), name);
  EXPECT_ACCEPTED(res);
}

TEST(ModelGone, LostEndsAreGivenUpGo126) { RunGone(Version::kGo126, "gone-go126"); }
TEST(ModelGone, LostEndsAreGivenUpGo121) { RunGone(Version::kGo121, "gone-go121"); }
TEST(ModelGone, LostEndsAreGivenUpGo119) { RunGone(Version::kGo119, "gone-go119"); }

}  // namespace
}  // namespace gotraced::model::testing
