// Per-M batches: 64 KiB split, base timestamps and deltas, one M's order, tick division.
#include <gtest/gtest.h>

#include "encoder/section_buffer.h"
#include "encoder/trace_decoder.h"
#include "encoder/trace_writer.h"

namespace gotraced::encoder {
namespace {

std::vector<const DecodedBatch *> BatchesOf(const DecodedGeneration &g, MId m) {
  std::vector<const DecodedBatch *> out;
  for (const auto &b : g.batches)
    if (b.kind == BatchKind::kEvents && b.m == m) out.push_back(&b);
  return out;
}

TEST(WriterBatches, SplitsAt64KiBAndKeepsOrder) {
  MemorySink sink;
  WriterOptions o;
  o.tick_divisor = 1;
  TraceWriter w(sink, o);
  // HeapAlloc with large values: ~1 + 1 + 9 bytes per event, so ~6000 events per batch.
  const int n = 50'000;
  std::uint64_t t = 1000;
  for (int i = 0; i < n; ++i) {
    ASSERT_EQ(w.HeapAlloc(7, t, (1ULL << 60) + i), EmitStatus::kOk);
    t += 1 + (i % 3);
    if (i % 5 == 0) {
      ASSERT_EQ(w.HeapGoal(9, t, i), EmitStatus::kOk);  // a second M interleaved
    }
  }
  w.Close();
  DecodedTrace tr = DecodeTrace(sink.bytes());
  ASSERT_TRUE(tr.ok()) << tr.error;
  ASSERT_EQ(tr.generations.size(), 1u);
  auto batches = BatchesOf(tr.generations[0], 7);
  ASSERT_GT(batches.size(), 5u);
  std::uint64_t i = 0, expect_t = 1000, prev_end = 0;
  for (std::size_t b = 0; b < batches.size(); ++b) {
    EXPECT_LE(batches[b]->data_len, kMaxBatchData);
    // Cut only when the next event might not fit (at most 51 bytes left unused).
    if (b + 1 < batches.size()) {
      EXPECT_GT(batches[b]->data_len, kMaxBatchData - 51);
    }
    EXPECT_GE(batches[b]->base_time, prev_end);
    for (const auto &e : batches[b]->events) {
      ASSERT_EQ(e.type, EventType::kHeapAlloc);
      EXPECT_EQ(e.args[0], (1ULL << 60) + i);
      EXPECT_EQ(e.time, expect_t);  // base + deltas reproduce the input times
      expect_t += 1 + (i % 3);
      ++i;
      prev_end = e.time;
    }
  }
  EXPECT_EQ(i, static_cast<std::uint64_t>(n));
  EXPECT_EQ(BatchesOf(tr.generations[0], 9).size(), 1u);
  EXPECT_EQ(w.stats().events, static_cast<std::uint64_t>(n + n / 5));
}

TEST(WriterBatches, FirstEventDeltaIsFromBatchBase) {
  MemorySink sink;
  TraceWriter w(sink);  // divisor 64
  w.HeapAlloc(3, 64 * 1000, 1);
  w.HeapAlloc(3, 64 * 1005 + 63, 2);  // 1005.98 ticks -> 1005
  w.Close();
  DecodedTrace tr = DecodeTrace(sink.bytes());
  ASSERT_TRUE(tr.ok()) << tr.error;
  auto b = BatchesOf(tr.generations[0], 3);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0]->base_time, 1000u);
  EXPECT_EQ(b[0]->events[0].time, 1000u);
  EXPECT_EQ(b[0]->events[1].time, 1005u);
}

TEST(WriterBatches, NonPowerOfTwoDivisorAndFrequency) {
  MemorySink sink;
  WriterOptions o;
  o.tick_divisor = 3;
  TraceWriter w(sink, o);
  w.HeapAlloc(3, 300, 1);
  w.HeapAlloc(3, 302, 1);
  w.Close();
  DecodedTrace tr = DecodeTrace(sink.bytes());
  ASSERT_TRUE(tr.ok()) << tr.error;
  EXPECT_EQ(tr.generations[0].frequency, 333'333'333u);
  auto b = BatchesOf(tr.generations[0], 3);
  EXPECT_EQ(b[0]->events[0].time, 100u);
  EXPECT_EQ(b[0]->events[1].time, 100u);
}

TEST(WriterBatches, BackwardsTimeIsClampedPerM) {
  MemorySink sink;
  WriterOptions o;
  o.tick_divisor = 1;
  TraceWriter w(sink, o);
  w.HeapAlloc(3, 500, 1);
  w.HeapAlloc(3, 400, 2);  // earlier than its predecessor on M 3: written at 500
  w.HeapAlloc(4, 450, 3);  // another M has its own floor
  w.Close();
  EXPECT_EQ(w.stats().clamped_timestamps, 1u);
  DecodedTrace tr = DecodeTrace(sink.bytes());
  ASSERT_TRUE(tr.ok()) << tr.error;
  EXPECT_EQ(BatchesOf(tr.generations[0], 3)[0]->events[1].time, 500u);
  EXPECT_EQ(BatchesOf(tr.generations[0], 4)[0]->events[0].time, 450u);
}

TEST(WriterBatches, EachGenerationHasItsOwnBatches) {
  MemorySink sink;
  TraceWriter w(sink);
  EXPECT_EQ(w.buffered_bytes(), 0u);
  w.HeapAlloc(3, 64'000, 1);
  EXPECT_EQ(w.buffered_bytes(), 3u);  // type, dt, value: one byte each
  w.EndGeneration();
  EXPECT_EQ(w.buffered_bytes(), 0u);
  w.HeapAlloc(3, 128'000, 2);
  w.Close();
  DecodedTrace tr = DecodeTrace(sink.bytes());
  ASSERT_TRUE(tr.ok()) << tr.error;
  ASSERT_EQ(tr.generations.size(), 2u);
  for (std::size_t g = 0; g < 2; ++g) {
    auto b = BatchesOf(tr.generations[g], 3);
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b[0]->gen, g + 1);
    ASSERT_EQ(b[0]->events.size(), 1u);
    EXPECT_EQ(b[0]->events[0].args[0], g + 1);
  }
}

TEST(WriterBatches, CPUSamplesGoToTheirOwnSection) {
  MemorySink sink;
  WriterOptions o;
  o.tick_divisor = 1;
  TraceWriter w(sink, o);
  Frame f[] = {{0x401000, "main.work", "/src/main.go", 12}};
  StackId s = w.InternStack(f);
  for (int i = 0; i < 10'000; ++i) ASSERT_EQ(w.CPUSample(1000 + i, 5, i % 4, 17, s), EmitStatus::kOk);
  EXPECT_EQ(w.CPUSample(1, 5, kNoProc, kNoGoroutine, StackId{99}), EmitStatus::kBadStackId);
  w.Close();
  DecodedTrace tr = DecodeTrace(sink.bytes());
  ASSERT_TRUE(tr.ok()) << tr.error;
  const auto &g = tr.generations[0];
  ASSERT_EQ(g.cpu_samples.size(), 10'000u);
  EXPECT_EQ(g.cpu_samples[9'999].time, 10'999u);  // absolute times
  EXPECT_EQ(g.cpu_samples[3].args[1], 3u);        // p
  EXPECT_EQ(g.cpu_samples[3].args[3], s.value);  // stack
  int sample_batches = 0;
  for (const auto &b : g.batches) sample_batches += b.kind == BatchKind::kCPUSamples;
  EXPECT_GT(sample_batches, 1);  // 10k samples > 64 KiB
}

}  // namespace
}  // namespace gotraced::encoder
