// The legacy writer's memory stays flat however long it writes (issue 30): an ended
// goroutine is forgotten, and the string table is bounded by design (legacy_tables.h).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "encoder/legacy_decoder.h"
#include "encoder/legacy_tables.h"
#include "encoder/legacy_writer.h"
#include "encoder/sink.h"

namespace gotraced::encoder {
namespace {

constexpr MId kM1 = 101, kM2 = 102;
constexpr PId kP0 = 0, kP1 = 1;
constexpr GId kG1 = 1;

// A sink that keeps nothing: 100k goroutines' bytes are not what is measured.
struct CountingSink final : Sink {
  std::size_t bytes = 0;
  void WriteHeader(std::span<const std::uint8_t> h) override { bytes += h.size(); }
  void WriteGeneration(std::uint64_t, std::span<const std::uint8_t> g) override { bytes += g.size(); }
  void Close() override {}
};

// 100k goroutines, each created by G1 on P0, run on M2's P1 and ended there, with a
// generation every 1,000 (as the model cuts them): the writer keeps state for the
// goroutines alive, not for every one it saw.
TEST(LegacyFootprint, EndedGoroutinesAreForgotten) {
  for (Version v : kLegacyVersions) {
    CountingSink sink;
    LegacyTraceWriter w(sink, {.version = v, .tick_divisor = 1, .gomaxprocs = 2});
    std::uint64_t t = 1000;
    ASSERT_EQ(w.ProcStatusEvent(kM1, t, kP0, ProcStatus::kRunning), EmitStatus::kOk);
    ASSERT_EQ(w.GoStatusEvent(kM1, t, kG1, kM1, GoStatus::kRunning), EmitStatus::kOk);
    ASSERT_EQ(w.ProcStatusEvent(kM2, t, kP1, ProcStatus::kRunning), EmitStatus::kOk);
    std::size_t most = 0;
    for (GId g = 2; g < 100'002; ++g) {
      ASSERT_EQ(w.GoCreate(kM1, t += 10, g, kNoStack, kNoStack), EmitStatus::kOk);
      ASSERT_EQ(w.GoStart(kM2, t += 10, g, 0), EmitStatus::kOk);
      ASSERT_EQ(w.GoBlock(kM2, t += 10, "chan receive", kNoStack), EmitStatus::kOk);
      ASSERT_EQ(w.GoUnblock(kM1, t += 10, g, 0, kNoStack), EmitStatus::kOk);
      ASSERT_EQ(w.GoStart(kM2, t += 10, g, 0), EmitStatus::kOk);
      ASSERT_EQ(w.GoDestroy(kM2, t += 10), EmitStatus::kOk);
      // A stale event about the goroutine just ended (a lost record's repair): refused,
      // and what the look-up made is forgotten at the generation's end.
      if (g % 100 == 0) {
        EXPECT_EQ(w.GoUnblock(kM1, t += 10, g, 0, kNoStack), EmitStatus::kBadState);
      }
      if (g % 1000 == 0) w.EndGeneration();
      most = std::max(most, w.goroutines_tracked());
    }
    w.Close();
    EXPECT_EQ(w.stats().dropped, 1000u);
    // G1, and at most the 10 stale look-ups of one generation plus gs[0]-style entries.
    EXPECT_LE(most, 16u) << static_cast<int>(v);
    EXPECT_LE(w.goroutines_tracked(), 2u) << static_cast<int>(v);
    EXPECT_GT(sink.bytes, 100'000u);
  }
}

// Goroutines still alive, and one ended for the reader only (EvGoStop: blocked forever),
// are kept; a file built that way still reads back.
TEST(LegacyFootprint, LiveAndForeverBlockedGoroutinesStay) {
  MemorySink sink;
  LegacyTraceWriter w(sink, {.version = Version::kGo121, .tick_divisor = 1, .gomaxprocs = 2});
  std::uint64_t t = 1000;
  w.ProcStatusEvent(kM1, t, kP0, ProcStatus::kRunning);
  w.GoStatusEvent(kM1, t, kG1, kM1, GoStatus::kRunning);
  w.ProcStatusEvent(kM2, t, kP1, ProcStatus::kRunning);
  for (GId g = 2; g < 12; ++g) ASSERT_EQ(w.GoCreate(kM1, t += 10, g, kNoStack, kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.GoStart(kM2, t += 10, 2, 0), EmitStatus::kOk);
  ASSERT_EQ(w.GoBlock(kM2, t += 10, "forever", kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.GoStart(kM2, t += 10, 3, 0), EmitStatus::kOk);
  ASSERT_EQ(w.GoDestroy(kM2, t += 10), EmitStatus::kOk);
  w.EndGeneration();
  // G1, G2 (forever), G4..G11 (runnable).
  EXPECT_EQ(w.goroutines_tracked(), 10u);
  // The forever-blocked one is still recognised: its later events are left out.
  EXPECT_EQ(w.GoUnblock(kM1, t += 10, 2, 0, kNoStack), EmitStatus::kOk);
  w.Close();
  auto d = legacy::DecodeLegacy(sink.bytes());
  EXPECT_TRUE(d.ok()) << d.error;
}

// The string table grows with distinct strings up to its bound, then writes the overflow
// string for new ones; strings defined before keep their ids.
TEST(LegacyFootprint, StringTableIsBounded) {
  legacy::Tables tables;
  const std::uint64_t first = tables.String("kernel: syscall read pipe");
  for (std::uint64_t i = 0; i < legacy::kMaxStrings + 100; ++i) tables.String("region " + std::to_string(i));
  EXPECT_EQ(tables.strings_defined(), legacy::kMaxStrings + 1);  // the bound, and the overflow string
  EXPECT_EQ(tables.strings_over_bound(), 101u);
  const std::uint64_t over = tables.String("one more");
  EXPECT_EQ(tables.Text(over), legacy::kOverflowString);
  EXPECT_EQ(tables.String("yet another"), over);
  EXPECT_EQ(tables.String("kernel: syscall read pipe"), first);
  EXPECT_EQ(tables.String("region 7"), tables.String("region 7"));
  EXPECT_EQ(tables.strings_defined(), legacy::kMaxStrings + 1);
}

TEST(LegacyFootprint, StringBytesAreBounded) {
  legacy::Tables tables;
  const std::string big(1000, 'x');  // traceString keeps 1024 bytes at most
  std::uint64_t i = 0;
  while (tables.strings_over_bound() == 0) tables.String(std::to_string(i++) + big);
  EXPECT_LE(tables.all_strings().size(), legacy::kMaxStringBytes + 64 * 1024);
  EXPECT_LT(i, legacy::kMaxStrings);
  EXPECT_EQ(tables.Text(tables.String("later" + big)), legacy::kOverflowString);
}

}  // namespace
}  // namespace gotraced::encoder
