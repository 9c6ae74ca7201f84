// Per-version framing: header bytes, timing batch (lone Frequency vs Sync batch),
// EndOfGeneration markers, generation numbering, streaming to the sink.
#include <gtest/gtest.h>

#include <cstring>

#include "encoder/trace_decoder.h"
#include "encoder/trace_writer.h"
#include "encoder/varint.h"
#include "tests/unit/common/test_dir.h"

namespace gotraced::encoder {
namespace {

WriterOptions Opts(Version v) {
  WriterOptions o;
  o.version = v;
  o.wall_minus_mono_ns = 1'700'000'000'000'000'000;
  return o;
}

// One running goroutine on M 1 / P 0, enough to make a generation non-empty.
void SomeEvents(TraceWriter &w, std::uint64_t t) {
  w.ProcStatusEvent(1, t, 0, ProcStatus::kRunning);
  w.GoStatusEvent(1, t + 64, 1, 1, GoStatus::kRunning);
  w.HeapAlloc(1, t + 128, 4096);
}

TEST(WriterFraming, HeaderBytesPerVersion) {
  for (Version v : kAllVersions) {
    MemorySink sink;
    TraceWriter w(sink, Opts(v));
    w.Close();
    ASSERT_GE(sink.bytes().size(), 16u);
    char want[17] = {};
    std::snprintf(want, sizeof want, "go 1.%d trace", static_cast<int>(v));
    EXPECT_EQ(std::memcmp(sink.bytes().data(), want, 16), 0) << static_cast<int>(v);
    EXPECT_EQ(sink.bytes()[13], 0);
    EXPECT_EQ(sink.bytes()[15], 0);
    EXPECT_TRUE(sink.closed());
  }
}

TEST(WriterFraming, TimingBatchPerVersion) {
  for (Version v : kAllVersions) {
    MemorySink sink;
    TraceWriter w(sink, Opts(v));
    SomeEvents(w, 1'000'000);
    w.Close();
    DecodedTrace t = DecodeTrace(sink.bytes());
    ASSERT_TRUE(t.ok()) << t.error;
    ASSERT_EQ(t.generations.size(), 1u);
    const auto &g = t.generations[0];
    EXPECT_EQ(g.frequency_events, 1);
    EXPECT_EQ(g.frequency, 15'625'000u);  // runtime/tracetime.go: 1e9 / 64
    const DecodedBatch &timing = g.batches.front();
    EXPECT_EQ(timing.kind, BatchKind::kTiming);
    EXPECT_EQ(timing.m, kNoThread);
    // The first data byte after the header tells the kind: Sync (50) from 1.25, a lone
    // Frequency (8) before (internal/trace/batch.go isSyncBatch).
    std::size_t data_at = 16 + 1 + VarintLen(timing.gen) + VarintLen(timing.m) + VarintLen(timing.base_time) +
                          VarintLen(timing.data_len);
    std::uint8_t first = sink.bytes()[data_at];
    if (v >= Version::kGo125) {
      EXPECT_EQ(first, 50);
      EXPECT_EQ(g.sync_events, 1);
      EXPECT_EQ(g.clock_snapshots, 1);
      EXPECT_EQ(g.clock.mono_ns, 1'000'000u);  // earliest event
      EXPECT_EQ(g.clock_time, 1'000'000u / 64);
      EXPECT_EQ(g.clock.wall_sec, 1'700'000'000u);
      EXPECT_EQ(g.clock.wall_nsec, 1'000'000u);
    } else {
      EXPECT_EQ(first, 8);
      EXPECT_EQ(timing.data_len, 1 + VarintLen(15'625'000));
      EXPECT_EQ(g.clock_snapshots, 0);
    }
  }
}

TEST(WriterFraming, EndOfGenerationOnlyInGo126AfterEveryGeneration) {
  for (Version v : kAllVersions) {
    MemorySink sink;
    TraceWriter w(sink, Opts(v));
    for (int i = 0; i < 3; ++i) {
      SomeEvents(w, 1'000'000 * (i + 1));
      w.EndGeneration();
    }
    w.Close();  // nothing new since the last EndGeneration: no extra generation
    DecodedTrace t = DecodeTrace(sink.bytes());
    ASSERT_TRUE(t.ok()) << t.error;
    ASSERT_EQ(t.generations.size(), 3u);
    ASSERT_EQ(sink.generation_offsets().size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) {
      EXPECT_EQ(t.generations[i].gen, i + 1);
      EXPECT_EQ(t.generations[i].end_marker, v == Version::kGo126);
      // The byte before the next generation (or the end) is the marker in 1.26.
      std::size_t end = i + 1 < 3 ? sink.generation_offsets()[i + 1] : sink.bytes().size();
      if (v == Version::kGo126) {
        EXPECT_EQ(sink.bytes()[end - 1], 0x34);
      }
    }
  }
}

TEST(WriterFraming, EveryFlushLeavesACompleteFile) {
  MemorySink sink;
  TraceWriter w(sink, Opts(Version::kGo126));
  for (int i = 0; i < 4; ++i) {
    SomeEvents(w, 1'000'000 * (i + 1));
    w.Flush();
    DecodedTrace t = DecodeTrace(sink.bytes());
    ASSERT_TRUE(t.ok()) << t.error;
    EXPECT_EQ(t.generations.size(), static_cast<std::size_t>(i + 1));
  }
  EXPECT_EQ(w.stats().generations, 4u);
  EXPECT_EQ(w.generation(), 5u);
}

TEST(WriterFraming, EmptyTraceIsOneGeneration) {
  // A v<=25 file needs a frequency event; even an unused writer writes one generation.
  for (Version v : kAllVersions) {
    MemorySink sink;
    TraceWriter w(sink, Opts(v));
    w.Close();
    DecodedTrace t = DecodeTrace(sink.bytes());
    ASSERT_TRUE(t.ok()) << t.error;
    EXPECT_EQ(t.generations.size(), 1u);
  }
}

TEST(WriterFraming, FirstGenerationOption) {
  MemorySink sink;
  WriterOptions o = Opts(Version::kGo125);
  o.first_generation = 41;
  TraceWriter w(sink, o);
  SomeEvents(w, 5'000);
  w.EndGeneration();
  SomeEvents(w, 9'000);
  w.Close();
  DecodedTrace t = DecodeTrace(sink.bytes());
  ASSERT_TRUE(t.ok()) << t.error;
  ASSERT_EQ(t.generations.size(), 2u);
  EXPECT_EQ(t.generations[0].gen, 41u);
  EXPECT_EQ(t.generations[1].gen, 42u);
  for (const auto &b : t.generations[1].batches) EXPECT_EQ(b.gen, 42u);
}

TEST(WriterFraming, ClockSnapshotsIncreaseAcrossGenerations) {
  MemorySink sink;
  TraceWriter w(sink, Opts(Version::kGo126));
  SomeEvents(w, 10'000);
  w.EndGeneration();
  w.EndGeneration();  // empty generation: still a later clock than the previous one
  w.SetClockSnapshot({5'000'000, 1'800'000'000, 7});
  SomeEvents(w, 20'000);
  w.Close();
  DecodedTrace t = DecodeTrace(sink.bytes());
  ASSERT_TRUE(t.ok()) << t.error;
  ASSERT_EQ(t.generations.size(), 3u);
  for (std::size_t i = 1; i < 3; ++i) {
    EXPECT_GT(t.generations[i].clock.mono_ns, t.generations[i - 1].clock.mono_ns);
    EXPECT_GT(t.generations[i].clock_time, t.generations[i - 1].clock_time);
    EXPECT_GT(t.generations[i].clock.wall_sec * 1'000'000'000 + t.generations[i].clock.wall_nsec,
              t.generations[i - 1].clock.wall_sec * 1'000'000'000 + t.generations[i - 1].clock.wall_nsec);
  }
  EXPECT_EQ(t.generations[2].clock.mono_ns, 5'000'000u);
  EXPECT_EQ(t.generations[2].clock.wall_sec, 1'800'000'000u);
  EXPECT_EQ(t.generations[2].clock.wall_nsec, 7u);
}

TEST(WriterFraming, FileSinkWritesTheSameBytes) {
  testutil::TestDir dir;  // not a fixed path: ctest runs other cases at the same time
  std::string path = dir.File("framing.trace");
  MemorySink mem;
  {
    FileSink file(path);
    TraceWriter a(mem, Opts(Version::kGo125)), b(file, Opts(Version::kGo125));
    SomeEvents(a, 1'000);
    SomeEvents(b, 1'000);
    a.Close();
    b.Close();
    EXPECT_EQ(file.error(), "");
  }
  std::FILE *f = std::fopen(path.c_str(), "rb");
  ASSERT_NE(f, nullptr);
  std::vector<std::uint8_t> got(mem.bytes().size() + 10);
  got.resize(std::fread(got.data(), 1, got.size(), f));
  std::fclose(f);
  EXPECT_EQ(got, mem.bytes());
}

}  // namespace
}  // namespace gotraced::encoder
