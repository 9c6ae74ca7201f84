// A burst's storage is given back once the burst is over (issue 30): RecordQueue's ring
// and StackPool's free vectors shrink at the generation's end when they sat idle.
#include <gtest/gtest.h>

#include <vector>

#include "daemon/model/record_queue.h"
#include "daemon/model/stack_pool.h"

namespace gotraced::model {
namespace {

Record At(std::uint64_t ts) {
  Record r;
  r.ts = ts;
  return r;
}

TEST(RecordQueueShed, ABurstsStorageIsGivenBackOnceTheQueueIsQuiet) {
  RecordQueue q;
  for (std::uint64_t i = 0; i < 5000; ++i) q.push_back(At(i));  // a burst: 8192 slots
  for (int i = 0; i < 5000; ++i) q.drop_front();
  ASSERT_EQ(q.capacity(), 8192u);
  q.ShedIdleCapacity();  // the burst was in this period: kept
  EXPECT_EQ(q.capacity(), 8192u);
  for (std::uint64_t i = 0; i < 10; ++i) q.push_back(At(i));  // a quiet period: at most 10
  for (int i = 0; i < 7; ++i) q.drop_front();
  q.ShedIdleCapacity();
  EXPECT_EQ(q.capacity(), 32u);  // twice the quiet period's peak, a power of two
  ASSERT_EQ(q.size(), 3u);       // what it held is kept, in order
  EXPECT_EQ(q.front().ts, 7u);
  EXPECT_EQ(q.back().ts, 9u);
}

TEST(RecordQueueShed, ABusyQueueKeepsItsStorage) {
  RecordQueue q;
  for (int period = 0; period < 3; ++period) {
    for (std::uint64_t i = 0; i < 1000; ++i) q.push_back(At(i));
    for (int i = 0; i < 1000; ++i) q.drop_front();
    q.ShedIdleCapacity();
    EXPECT_EQ(q.capacity(), 1024u) << "period " << period;
  }
}

TEST(StackPoolShed, VectorsIdleForAWholePeriodAreFreed) {
  StackPool pool;
  const std::vector<std::uint64_t> pcs{1, 2, 3};
  std::vector<std::vector<std::uint64_t>> out;
  for (int i = 0; i < 1000; ++i) out.push_back(pool.Take(pcs));  // a burst
  for (auto &v : out) pool.Give(std::move(v));
  out.clear();
  ASSERT_EQ(pool.kept(), 1000u);
  pool.ShedIdle();  // all 1000 were in use this period: kept
  EXPECT_EQ(pool.kept(), 1000u);
  for (int i = 0; i < 10; ++i) out.push_back(pool.Take(pcs));  // a quiet period: 10 used
  for (auto &v : out) pool.Give(std::move(v));
  pool.ShedIdle();  // 990 never left the pool
  EXPECT_EQ(pool.kept(), 10u);
  pool.ShedIdle();  // and the 10 sat idle since
  EXPECT_EQ(pool.kept(), 0u);
}

}  // namespace
}  // namespace gotraced::model
