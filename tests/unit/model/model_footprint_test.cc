// The model's memory stays flat however long a recording runs (issue 30): 100k
// goroutines created, run, blocked, unblocked, in syscalls and regions, and ended,
// through the model into each kind of writer; every per-goroutine table ends as small
// as it began, and the legacy writer keeps no state for the ended ones either.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>

#include "encoder/legacy_writer.h"
#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

using encoder::Version;

struct DiscardSink final : encoder::Sink {
  std::size_t bytes = 0;
  void WriteHeader(std::span<const std::uint8_t> h) override { bytes += h.size(); }
  void WriteGeneration(std::uint64_t, std::span<const std::uint8_t> g) override { bytes += g.size(); }
};

std::size_t Largest(const ModelFootprint &f) {
  return std::max({f.goroutines, f.pending_creates, f.unresolved_creates, f.user_regions, f.kernel_open,
                   f.kernel_syscalls, f.kernel_resume, f.gc_labelled, f.gc_assist, f.gc_stw_stale});
}

void RunChurn(Version v) {
  DiscardSink sink;
  encoder::LegacyTraceWriter *legacy = nullptr;
  std::unique_ptr<encoder::EventWriter> w = MakeWriter(sink, v, &legacy);
  TableSymbolizer sym;
  Model m(*w, &sym);
  std::uint64_t t = 100;
  m.Push(RProcStart(t, 1, 0));
  m.Push(RGoCreate(t += 10, 1, 0, kNoG, 1));
  m.Push(RGoStart(t += 10, 1, 0, 1));
  m.Push(RProcStart(t += 10, 2, 1));
  std::size_t most = 0, most_writer = 0;
  constexpr Goid kGoroutines = 100'000;
  for (Goid g = 2; g < 2 + kGoroutines; ++g) {
    // G1 on M1/P0 creates g; M2/P1 runs it: a region (every 10th left open at its end),
    // a syscall, a block, G1's unblock, and its end.
    m.Push(RGoCreate(t += 10, 1, 0, 1, g));
    m.Push(RGoStart(t += 10, 2, 1, g));
    m.Push(RUser(RecordKind::kUserRegionBegin, t += 10, 2, 1, g, 0, "handle"));
    m.Push(RSyscall(t += 10, 2, 1, g));
    m.Push(RSyscallEnd(t += 10, 2, 1, g));
    if (g % 10 != 0) m.Push(RUser(RecordKind::kUserRegionEnd, t += 10, 2, 1, g, 0, "handle"));
    m.Push(RGoBlock(t += 10, 2, 1, g, "chan receive"));
    m.Push(RGoUnblock(t += 10, 1, 0, 1, g));
    m.Push(RGoStart(t += 10, 2, 1, g));
    m.Push(RGoEnd(t += 10, 2, 1, g));
    if (g % 1000 == 0) {
      m.CutGeneration(t);  // a generation per 1,000 goroutines, as a busy server's
      most = std::max(most, Largest(m.footprint()));
      if (legacy) most_writer = std::max(most_writer, legacy->goroutines_tracked());
    }
  }
  m.Finish(t + 10);
  w->Close();
  const ModelStats s = m.stats();
  EXPECT_EQ(s.goroutines_ended, kGoroutines);
  EXPECT_EQ(s.inconsistencies, 0u) << m.last_repair();
  EXPECT_EQ(s.writer_dropped, 0u) << w->last_error();
  const ModelFootprint f = m.footprint();
  EXPECT_EQ(f.goroutines, 1u);  // G1
  EXPECT_EQ(f.user_regions, 0u);
  EXPECT_EQ(f.pending_creates, 0u);
  EXPECT_LE(f.ended, std::size_t{1} << 14);  // NoteEnded's bound
  EXPECT_LE(f.threads, 2u);
  EXPECT_LE(f.procs, 2u);
  EXPECT_LE(most, 4u);
  if (legacy) {
    EXPECT_LE(most_writer, 4u);
    EXPECT_LE(legacy->goroutines_tracked(), 2u);
  }
  EXPECT_GT(sink.bytes, std::size_t{kGoroutines});
}

TEST(ModelFootprint, EndedGoroutinesAreForgottenGo126) { RunChurn(Version::kGo126); }
TEST(ModelFootprint, EndedGoroutinesAreForgottenGo121) { RunChurn(Version::kGo121); }
TEST(ModelFootprint, EndedGoroutinesAreForgottenGo119) { RunChurn(Version::kGo119); }

}  // namespace
}  // namespace gotraced::model::testing
