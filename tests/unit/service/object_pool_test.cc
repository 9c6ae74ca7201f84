// capture/object_pool.h: which loaded objects serve keeps for the next process of an
// executable, and which one that process takes (the policy, without BPF).
#include "daemon/capture/object_pool.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace gotraced::capture {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::seconds;

TEST(ObjectPool, TheNextProcessOfTheSameKeyTakesTheNewestOneOnce) {
  ObjectPool<int> pool({.per_key = 2, .total = 8, .max_bytes = 100, .idle = seconds(10)});
  const auto t0 = Clock::now();
  EXPECT_TRUE(pool.Put("svc", 1, 1, t0).empty());
  EXPECT_TRUE(pool.Put("svc", 2, 1, t0 + seconds(1)).empty());
  std::vector<int> expired;
  EXPECT_EQ(pool.Take("other", t0 + seconds(2), &expired), std::nullopt);  // another executable
  EXPECT_EQ(pool.Take("svc", t0 + seconds(2), &expired), 2);
  EXPECT_EQ(pool.Take("svc", t0 + seconds(2), &expired), 1);
  EXPECT_EQ(pool.Take("svc", t0 + seconds(2), &expired), std::nullopt);  // each is taken once
  EXPECT_TRUE(expired.empty());
  EXPECT_EQ(pool.size(), 0u);
}

TEST(ObjectPool, PerKeyLimitGivesBackTheOldestOfThatKey) {
  ObjectPool<int> pool({.per_key = 2, .total = 8, .max_bytes = 100, .idle = seconds(10)});
  const auto t0 = Clock::now();
  pool.Put("a", 1, 1, t0);
  pool.Put("b", 10, 1, t0);
  pool.Put("a", 2, 1, t0);
  EXPECT_EQ(pool.Put("a", 3, 1, t0), std::vector<int>{1});
  EXPECT_EQ(pool.size(), 3u);
}

TEST(ObjectPool, TotalLimitGivesBackTheOldestOfAll) {
  ObjectPool<int> pool({.per_key = 2, .total = 3, .max_bytes = 100, .idle = seconds(10)});
  const auto t0 = Clock::now();
  pool.Put("a", 1, 1, t0);
  pool.Put("b", 2, 1, t0);
  pool.Put("c", 3, 1, t0);
  EXPECT_EQ(pool.Put("d", 4, 1, t0), std::vector<int>{1});
  std::vector<int> expired;
  EXPECT_EQ(pool.Take("a", t0, &expired), std::nullopt);
  EXPECT_EQ(pool.TakeOldest(), 2);  // a slot wanted elsewhere
  EXPECT_EQ(pool.size(), 2u);
}

TEST(ObjectPool, ByteLimitGivesBackTheOldestOfAll) {
  ObjectPool<int> pool({.per_key = 2, .total = 8, .max_bytes = 10, .idle = seconds(10)});
  const auto t0 = Clock::now();
  pool.Put("a", 1, 4, t0);
  pool.Put("b", 2, 4, t0);
  EXPECT_EQ(pool.Put("c", 3, 4, t0), std::vector<int>{1});
  EXPECT_EQ(pool.bytes(), 8u);
  EXPECT_EQ(pool.Put("d", 4, 11, t0), (std::vector<int>{2, 3, 4}));  // alone over the limit: not kept
  EXPECT_EQ(pool.size(), 0u);
}

TEST(ObjectPool, IdleObjectsAreGivenBackAndNeverTaken) {
  ObjectPool<int> pool({.per_key = 2, .total = 8, .max_bytes = 100, .idle = seconds(10)});
  const auto t0 = Clock::now();
  pool.Put("a", 1, 1, t0);
  pool.Put("a", 2, 1, t0 + seconds(5));
  EXPECT_TRUE(pool.Expire(t0 + seconds(9)).empty());
  EXPECT_EQ(pool.Expire(t0 + seconds(10)), std::vector<int>{1});
  std::vector<int> expired;
  EXPECT_EQ(pool.Take("a", t0 + seconds(16), &expired), std::nullopt);  // 2 waited 11 s
  EXPECT_EQ(expired, std::vector<int>{2});
}

TEST(ObjectPool, ZeroLimitsKeepNothing) {
  ObjectPool<int> pool({.per_key = 0, .total = 8, .max_bytes = 100, .idle = seconds(10)});
  EXPECT_EQ(pool.Put("a", 1, 1, Clock::now()), std::vector<int>{1});
  EXPECT_EQ(pool.size(), 0u);
}

}  // namespace
}  // namespace gotraced::capture
