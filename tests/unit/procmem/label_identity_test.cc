// The identity of a label set (procmem/label_identity.h) and the reader that checks it
// (label_reader.h): sets built in this test's memory in runtime/pprof's layouts, the
// words BPF would copy (bpf/gt_labels.bpf.h) taken by hand, then the set's memory reused
// as the HTTP bench's reply reused it.
#include "daemon/procmem/label_identity.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "daemon/procmem/label_reader.h"

namespace gotraced::procmem {
namespace {

struct GoStr {
  std::uint64_t ptr, len;
};

struct Arena {
  std::deque<std::string> strs;
  GoStr Str(std::string s) {
    strs.push_back(std::move(s));
    return {reinterpret_cast<std::uint64_t>(strs.back().data()), strs.back().size()};
  }
};

const MemRead kSelf = [](std::uint64_t a, void *d, std::size_t n) {
  if (a == 0) return false;
  std::memcpy(d, reinterpret_cast<const void *>(a), n);
  return true;
};

std::uint64_t Word(std::uint64_t addr) {
  std::uint64_t v;
  std::memcpy(&v, reinterpret_cast<const void *>(addr), 8);
  return v;
}

// What bpf/gt_labels.bpf.h copies: two words at ptr, two at the offsets from the first.
LabelIdWords AsBpf(std::uint64_t ptr, LabelRepr repr) {
  const auto off = LabelIdOffsets(repr);
  LabelIdWords w{Word(ptr), LabelIdHead(repr) == 16 ? Word(ptr + 8) : 0, 0, 0};
  if (w[0] != 0) {
    w[2] = Word(w[0] + off[0]);
    w[3] = Word(w[0] + off[1]);
    if (repr == LabelRepr::kMap && w[3] != 0) w[1] = Word(w[3]);  // the first bucket's tophash
  }
  return w;
}

std::uint64_t Addr(const void *p) { return reinterpret_cast<std::uint64_t>(p); }

// Go 1.24+: the header and the array of {key, value} pairs. The array's memory reused by a
// []string of four (the bench reply's words) changes the first value's pointer: a
// different identity. The word past a one-label array (the next object's) is not part of it.
TEST(LabelIdentity, SliceReusedIsAnotherSet) {
  Arena a;
  // Room for 4 strings after the set's 2 labels (the "next object" of a one-label array).
  std::vector<GoStr> kv = {a.Str("route"), a.Str("/api/orders"), a.Str("shard"), a.Str("3"),
                           a.Str("n1"), a.Str("n2"), a.Str("n3"), a.Str("n4")};
  std::array<std::uint64_t, 3> hdr = {Addr(kv.data()), 2, 2};
  const std::uint64_t ptr = Addr(hdr.data());
  const std::uint64_t id = LabelSetId(LabelRepr::kSlice, AsBpf(ptr, LabelRepr::kSlice));
  LabelIdWords now;
  ASSERT_TRUE(ReadLabelIdWords(kSelf, ptr, LabelRepr::kSlice, &now));
  EXPECT_EQ(now, AsBpf(ptr, LabelRepr::kSlice));
  EXPECT_EQ(LabelSetId(LabelRepr::kSlice, now), id);
  EXPECT_NE(id, 0u);
  // Another value of the second label at the same addresses: a different identity.
  kv[3] = a.Str("7");
  ASSERT_TRUE(ReadLabelIdWords(kSelf, ptr, LabelRepr::kSlice, &now));
  EXPECT_NE(LabelSetId(LabelRepr::kSlice, now), id);
  kv[3] = a.Str("3");
  // The array reused by []string{"alpha", "beta", "gamma", "7"}: read as alpha=beta gamma=7.
  const std::vector<GoStr> words = {a.Str("alpha"), a.Str("beta"), a.Str("gamma"), a.Str("7")};
  std::memcpy(kv.data(), words.data(), 4 * sizeof(GoStr));
  ASSERT_TRUE(ReadLabelIdWords(kSelf, ptr, LabelRepr::kSlice, &now));
  EXPECT_NE(LabelSetId(LabelRepr::kSlice, now), id);
  // A one-label set: what lies past its array may change, the set is the same.
  std::vector<GoStr> one = {a.Str("route"), a.Str("/a"), a.Str("next"), a.Str("object")};
  std::array<std::uint64_t, 3> h1 = {Addr(one.data()), 1, 1};
  const std::uint64_t id1 = LabelSetId(LabelRepr::kSlice, AsBpf(Addr(h1.data()), LabelRepr::kSlice));
  one[3] = a.Str("changed");
  ASSERT_TRUE(ReadLabelIdWords(kSelf, Addr(h1.data()), LabelRepr::kSlice, &now));
  EXPECT_EQ(LabelSetId(LabelRepr::kSlice, now), id1);
}

struct Hmap {
  std::int64_t count;
  std::uint8_t flags, B;
  std::uint16_t noverflow;
  std::uint32_t hash0;
  std::uint64_t buckets, oldbuckets;
};

// Go 1.19-1.23: *labelMap -> *hmap. A map made again at the same address has another
// hash0 (makemap's random seed): another identity. Ranging over a live set sets its
// iterator flags: the same identity. The word after the 8-byte labelMap is not part of it.
TEST(LabelIdentity, MapSeedTellsSetsApart) {
  std::array<std::uint64_t, 2> buckets{};
  Hmap h{2, 0, 0, 0, 0x9e3779b9u, Addr(buckets.data()), 0};
  std::array<std::uint64_t, 2> lm = {Addr(&h), 0x1234};  // labelMap, then the next object
  const std::uint64_t ptr = Addr(lm.data());
  const std::uint64_t id = LabelSetId(LabelRepr::kMap, AsBpf(ptr, LabelRepr::kMap));
  LabelIdWords now;
  h.flags = 0x3;  // iterator | oldIterator
  lm[1] = 0x5678;
  ASSERT_TRUE(ReadLabelIdWords(kSelf, ptr, LabelRepr::kMap, &now));
  EXPECT_EQ(LabelSetId(LabelRepr::kMap, now), id);
  EXPECT_EQ(now, AsBpf(ptr, LabelRepr::kMap));
  // The buckets reused by anything else while the hmap's memory is not (the HTTP bench
  // read such a set as `""="" ""=""`): another identity.
  buckets[0] = 0x0505050505050505ull;
  ASSERT_TRUE(ReadLabelIdWords(kSelf, ptr, LabelRepr::kMap, &now));
  EXPECT_NE(LabelSetId(LabelRepr::kMap, now), id);
  buckets[0] = 0;
  h.hash0 = 0x12345678u;
  ASSERT_TRUE(ReadLabelIdWords(kSelf, ptr, LabelRepr::kMap, &now));
  EXPECT_NE(LabelSetId(LabelRepr::kMap, now), id);
}

// The reader over this process's memory: the set the record named is read and cached; the
// same pointer with the memory reused since (the record's identity no longer matches) is
// dropped and counted once; a new record naming what is there now reads it.
TEST(LabelReader, DropsASetFreedAndReusedSinceTheRecord) {
  Arena a;
  std::vector<GoStr> kv = {a.Str("route"), a.Str("/api/orders"), a.Str("shard"), a.Str("3")};
  std::array<std::uint64_t, 3> hdr = {Addr(kv.data()), 2, 2};
  const std::uint64_t ptr = Addr(hdr.data());
  const std::uint64_t id = LabelSetId(LabelRepr::kSlice, AsBpf(ptr, LabelRepr::kSlice));
  LabelReader r(getpid(), 26);
  auto t = r.Text(ptr, id);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, "route=/api/orders shard=3");
  t = r.Text(ptr, id);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(r.stats().hits, 1u);
  // Freed and reused by the reply's words before the daemon read it (a cache entry of the
  // old set must not answer either).
  const std::vector<GoStr> words = {a.Str("alpha"), a.Str("beta"), a.Str("gamma"), a.Str("7")};
  std::memcpy(kv.data(), words.data(), 4 * sizeof(GoStr));
  r.Forget();
  EXPECT_FALSE(r.Text(ptr, id).has_value());
  EXPECT_EQ(r.stats().stale, 1u);
  // A record made after the reuse names what is there now.
  const std::uint64_t id2 = LabelSetId(LabelRepr::kSlice, AsBpf(ptr, LabelRepr::kSlice));
  t = r.Text(ptr, id2);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, "alpha=beta gamma=7");
  // The new set does not answer for the old identity, which stays dropped (its answer is
  // kept: not read and counted again).
  EXPECT_FALSE(r.Text(ptr, id).has_value());
  EXPECT_EQ(r.stats().stale, 1u);
  // Unchecked (level low's state samples read the pointer a moment before): what is there.
  EXPECT_EQ(r.TextNow(ptr), "alpha=beta gamma=7");
}

}  // namespace
}  // namespace gotraced::procmem
