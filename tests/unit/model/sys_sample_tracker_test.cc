// SysSampleTracker: sweeps of the syscall sampler -> syscalls of at least min_ns, each
// begun at the first sweep that saw it and ended at the first that did not.
#include "daemon/model/sys_sample_tracker.h"

#include <gtest/gtest.h>

namespace gotraced::model {
namespace {

constexpr std::uint64_t kMs = 1'000'000;

gt_sys_sample_record Seen(std::uint64_t ts, std::uint32_t tid, std::uint64_t goid, std::int64_t nr = 0,
                          std::uint64_t nvcsw = 5) {
  gt_sys_sample_record r{};
  r.h.ts_ns = ts;
  r.h.tid = tid;
  r.h.kind = GT_REC_SYS_SAMPLE;
  r.g = 0x1000 + goid;
  r.goid = goid;
  r.nr = nr;
  r.arg0 = 7;
  r.nvcsw = nvcsw;
  r.gstatus = 3;
  r.state = 1;  // TASK_INTERRUPTIBLE
  return r;
}
gt_sys_sample_record SweepEnd(std::uint64_t ts) { return Seen(ts, 0, 0, -1, 0); }

TEST(SysSampleTracker, ALongSyscallEndsAtTheFirstSweepThatMissesIt) {
  SysSampleTracker t(1 * kMs, kMs / 4);
  std::vector<SampledSyscall> out;
  for (std::uint64_t i = 0; i < 6; i++) {  // seen at 10, 10.25, ... 11.25 ms
    t.Add(Seen(10 * kMs + i * kMs / 4, 42, 9), out);
    t.Add(SweepEnd(10 * kMs + i * kMs / 4 + 1000), out);
  }
  EXPECT_TRUE(out.empty());
  t.Add(SweepEnd(11 * kMs + kMs / 2), out);  // gone
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tid, 42u);
  EXPECT_EQ(out[0].goid, 9u);
  EXPECT_EQ(out[0].arg0, 7u);
  EXPECT_EQ(out[0].begin, 10 * kMs);
  EXPECT_EQ(out[0].end, 11 * kMs + kMs / 2);
  EXPECT_EQ(t.sweeps(), 7u);
}

TEST(SysSampleTracker, AShortOneIsCountedNotWritten) {
  SysSampleTracker t(1 * kMs, kMs / 4);
  std::vector<SampledSyscall> out;
  t.Add(Seen(10 * kMs, 42, 9), out);
  t.Add(SweepEnd(10 * kMs + 1000), out);
  t.Add(SweepEnd(10 * kMs + kMs / 4), out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(t.short_syscalls(), 1u);
}

TEST(SysSampleTracker, ANewSleepOrAnotherGoroutineIsANewSyscall) {
  SysSampleTracker t(1 * kMs, 2 * kMs);  // sweeps every 2 ms
  std::vector<SampledSyscall> out;
  t.Add(Seen(10 * kMs, 42, 9, 0, 5), out);
  t.Add(SweepEnd(10 * kMs + 1), out);
  t.Add(Seen(12 * kMs, 42, 9, 0, 6), out);  // the thread slept again: a second read
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].end, 12 * kMs);
  t.Add(SweepEnd(12 * kMs + 1), out);
  t.Add(Seen(14 * kMs, 42, 10, 0, 6), out);  // another goroutine on the same thread
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].begin, 12 * kMs);
  EXPECT_EQ(out[1].goid, 9u);
}

TEST(SysSampleTracker, ARunningThreadMayBeInAnotherSyscallEachSweep) {
  SysSampleTracker t(1 * kMs, kMs / 4);
  std::vector<SampledSyscall> out;
  for (std::uint64_t i = 0; i < 8; i++) {
    auto r = Seen(10 * kMs + i * kMs / 4, 42, 9);
    r.state = 0;  // TASK_RUNNING: reads that never block
    t.Add(r, out);
    t.Add(SweepEnd(10 * kMs + i * kMs / 4 + 1000), out);
  }
  t.Add(SweepEnd(12 * kMs), out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(t.short_syscalls(), 8u);
}

TEST(SysSampleTracker, ALateSweepProvesNoDuration) {
  SysSampleTracker t(1 * kMs, kMs / 4);
  std::vector<SampledSyscall> out;
  t.Add(Seen(10 * kMs, 42, 9), out);
  t.Add(SweepEnd(10 * kMs + 1000), out);
  t.Add(SweepEnd(15 * kMs), out);  // the sampler's thread waited 5 ms for a CPU
  EXPECT_TRUE(out.empty());
  t.Add(Seen(20 * kMs, 42, 9, 0, 6), out);
  t.Add(SweepEnd(20 * kMs + 1000), out);
  t.Add(Seen(21 * kMs, 42, 9, 0, 6), out);
  t.Add(SweepEnd(21 * kMs + 1000), out);
  t.Add(SweepEnd(30 * kMs), out);  // late again: the end is a period after the last sighting
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].begin, 20 * kMs);
  EXPECT_EQ(out[0].end, 21 * kMs + kMs / 4);
}

TEST(SysSampleTracker, AGoroutineOnAnotherThreadBeginsAfterItsLastSyscallEnds) {
  SysSampleTracker t(1 * kMs, kMs / 4);
  std::vector<SampledSyscall> out;
  for (std::uint64_t i = 0; i < 6; i++) {
    t.Add(Seen(10 * kMs + i * kMs / 4, 1, 9), out);
    t.Add(SweepEnd(10 * kMs + i * kMs / 4 + 1000), out);
  }
  // The next sweep finds goroutine 9 in a new syscall on thread 2, not on thread 1.
  for (std::uint64_t i = 0; i < 6; i++) {
    t.Add(Seen(11 * kMs + kMs / 2 + i * kMs / 4, 2, 9, 0, 9), out);
    t.Add(SweepEnd(11 * kMs + kMs / 2 + i * kMs / 4 + 1000), out);
  }
  t.Add(SweepEnd(13 * kMs), out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].tid, 1u);
  EXPECT_EQ(out[1].tid, 2u);
  EXPECT_LE(out[0].end, out[1].begin);  // the model's GoCreateSyscall needs it gone first
}

TEST(SysSampleTracker, ThreadsAreIndependent) {
  SysSampleTracker t(1 * kMs, 2 * kMs);  // sweeps every 2 ms
  std::vector<SampledSyscall> out;
  t.Add(Seen(10 * kMs, 1, 9), out);
  t.Add(Seen(10 * kMs + 10, 2, 11, 232), out);
  t.Add(SweepEnd(10 * kMs + 20), out);
  t.Add(Seen(12 * kMs, 2, 11, 232), out);  // thread 1 is gone from this sweep
  t.Add(SweepEnd(12 * kMs + 20), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tid, 1u);
  t.Add(SweepEnd(14 * kMs), out);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].tid, 2u);
  EXPECT_EQ(out[1].nr, 232);
  EXPECT_EQ(out[1].end - out[1].begin, 4 * kMs - 10);
}

}  // namespace
}  // namespace gotraced::model
