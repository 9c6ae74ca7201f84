// FlatMap / FlatSet (daemon/model/flat_map.h) against std::unordered_map on random
// operation sequences, plus the guarantees the model relies on: references stay valid
// across inserts of other keys, erase(it) during iteration visits every other entry once.
#include "daemon/model/flat_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace gotraced::model {
namespace {

TEST(FlatMap, MatchesUnorderedMapOnRandomOperations) {
  std::mt19937_64 rng(42);
  FlatMap<std::uint64_t, std::uint64_t> m;
  std::unordered_map<std::uint64_t, std::uint64_t> ref;
  for (int step = 0; step < 200000; ++step) {
    // Few distinct keys: many collisions, erase-then-reinsert, probe runs that wrap.
    const std::uint64_t k = rng() % 700 * 4096;
    switch (rng() % 4) {
      case 0:
      case 1: m[k] += step; ref[k] += step; break;
      case 2: EXPECT_EQ(m.erase(k), ref.erase(k)); break;
      case 3: {
        auto it = m.find(k);
        auto rit = ref.find(k);
        ASSERT_EQ(it == m.end(), rit == ref.end()) << k;
        if (rit != ref.end()) {
          EXPECT_EQ(it->second, rit->second);
        }
        break;
      }
    }
    ASSERT_EQ(m.size(), ref.size());
  }
  std::map<std::uint64_t, std::uint64_t> seen;
  for (auto &[k, v] : m) seen[k] = v;
  const std::map<std::uint64_t, std::uint64_t> want(ref.begin(), ref.end());
  EXPECT_EQ(seen, want);
}

TEST(FlatMap, ReferencesSurviveInsertsOfOtherKeys) {
  FlatMap<std::uint32_t, std::vector<int>> m;
  std::vector<int> &first = m[7];
  first.push_back(1);
  for (std::uint32_t k = 100; k < 20000; ++k) m[k].push_back(int(k));  // grows the index many times
  EXPECT_EQ(&first, &m[7]);
  EXPECT_EQ(first, std::vector<int>{1});
}

TEST(FlatMap, EraseWhileIteratingVisitsEveryEntryOnce) {
  FlatMap<std::int64_t, int> m;
  for (int i = 0; i < 1000; ++i) m[i] = i;
  std::unordered_set<std::int64_t> visited;
  for (auto it = m.begin(); it != m.end();) {
    EXPECT_TRUE(visited.insert(it->first).second);
    if (it->first % 3 == 0) it = m.erase(it);
    else ++it;
  }
  EXPECT_EQ(visited.size(), 1000u);
  EXPECT_EQ(m.size(), 666u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(m.count(i), i % 3 == 0 ? 0u : 1u) << i;
}

TEST(FlatMap, ErasedSlotsAreReused) {
  FlatMap<std::uint64_t, int> m;
  for (int round = 0; round < 100; ++round) {
    for (std::uint64_t g = 0; g < 50; ++g) m[round * 1000 + g] = 1;
    for (std::uint64_t g = 0; g < 50; ++g) m.erase(round * 1000 + g);
  }
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.begin(), m.end());
}

TEST(FlatSet, MatchesUnorderedSet) {
  std::mt19937_64 rng(7);
  FlatSet<std::uint64_t> s;
  std::unordered_set<std::uint64_t> ref;
  for (int step = 0; step < 100000; ++step) {
    const std::uint64_t k = rng() % 300;
    if (rng() % 2) EXPECT_EQ(s.insert(k).second, ref.insert(k).second);
    else EXPECT_EQ(s.erase(k), ref.erase(k));
    ASSERT_EQ(s.size(), ref.size());
  }
  for (std::uint64_t k = 0; k < 300; ++k) EXPECT_EQ(s.count(k), ref.count(k));
  // Keys 0 and ~0 are ordinary keys (kNoG, kUnknownG).
  EXPECT_TRUE(s.insert(0).second || s.count(0));
  EXPECT_TRUE(s.insert(~std::uint64_t{0}).second);
  EXPECT_EQ(s.count(~std::uint64_t{0}), 1u);
}

}  // namespace
}  // namespace gotraced::model
