// Label sets as runtime/pprof lays them out (procmem/label_set.h), built in this test's
// memory and read through a MemRead over it: a sorted slice (Go 1.24+) and a
// map[string]string (Go 1.19-1.23, runtime/map.go buckets), and their text.
#include "daemon/procmem/label_set.h"

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

namespace gotraced::procmem {
namespace {

struct GoStr {
  std::uint64_t ptr, len;
};

// Strings kept alive at stable addresses.
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

std::string Text(std::uint64_t ptr, LabelRepr repr) {
  LabelSet s;
  EXPECT_TRUE(ReadLabelSet(kSelf, ptr, repr, &s));
  return LabelText(s);
}

TEST(LabelSet, SliceOfGo124) {
  Arena a;
  std::vector<GoStr> kv = {a.Str("route"), a.Str("/api/orders"), a.Str("tenant"), a.Str("42")};
  std::array<std::uint64_t, 3> hdr = {reinterpret_cast<std::uint64_t>(kv.data()), 2, 2};
  EXPECT_EQ(Text(reinterpret_cast<std::uint64_t>(hdr.data()), LabelRepr::kSlice), "route=/api/orders tenant=42");
  EXPECT_EQ(LabelReprFor(24), LabelRepr::kSlice);
  EXPECT_EQ(LabelReprFor(23), LabelRepr::kMap);
}

struct Bucket {
  std::array<std::uint8_t, 8> tophash{};
  GoStr keys[8]{};
  GoStr elems[8]{};
  std::uint64_t overflow = 0;
};
struct Hmap {
  std::int64_t count;
  std::uint8_t flags, B;
  std::uint16_t noverflow;
  std::uint32_t hash0;
  std::uint64_t buckets, oldbuckets;
};

TEST(LabelSet, MapOfGo119WithOverflowAndGrow) {
  Arena a;
  // Two new buckets (B=1), one with an overflow bucket; an old bucket (same-size grow
  // not set: oldB = 0) not yet evacuated holding one more entry, and empty slots.
  std::vector<Bucket> nb(2), ov(1), ob(1);
  nb[0].tophash[0] = 9;
  nb[0].keys[0] = a.Str("b");
  nb[0].elems[0] = a.Str("2");
  nb[0].tophash[3] = 1;  // emptyOne
  nb[0].overflow = reinterpret_cast<std::uint64_t>(ov.data());
  ov[0].tophash[5] = 200;
  ov[0].keys[5] = a.Str("a");
  ov[0].elems[5] = a.Str("");
  nb[1].tophash[7] = 5;
  nb[1].keys[7] = a.Str("c d");
  nb[1].elems[7] = a.Str("x\xff");
  ob[0].tophash[0] = 7;
  ob[0].keys[0] = a.Str("z");
  ob[0].elems[0] = a.Str("last");
  Hmap h{4, 0, 1, 0, 0, reinterpret_cast<std::uint64_t>(nb.data()), reinterpret_cast<std::uint64_t>(ob.data())};
  std::uint64_t m = reinterpret_cast<std::uint64_t>(&h);
  EXPECT_EQ(Text(reinterpret_cast<std::uint64_t>(&m), LabelRepr::kMap), "a=\"\" b=2 \"c d\"=\"x\\xff\" z=last");
  // Once the old bucket is evacuated its entries are not read again.
  ob[0].tophash[0] = 2;  // evacuatedX
  h.count = 3;
  EXPECT_EQ(Text(reinterpret_cast<std::uint64_t>(&m), LabelRepr::kMap), "a=\"\" b=2 \"c d\"=\"x\\xff\"");
  std::uint64_t nil = 0;
  EXPECT_EQ(Text(reinterpret_cast<std::uint64_t>(&nil), LabelRepr::kMap), "");
}

TEST(LabelSet, BoundsCutAndSaySo) {
  Arena a;
  std::vector<GoStr> kv;
  for (int i = 0; i < 100; i++) {
    kv.push_back(a.Str("k" + std::to_string(100 + i)));
    kv.push_back(a.Str("v"));
  }
  std::array<std::uint64_t, 3> hdr = {reinterpret_cast<std::uint64_t>(kv.data()), 100, 100};
  std::string t = Text(reinterpret_cast<std::uint64_t>(hdr.data()), LabelRepr::kSlice);
  EXPECT_TRUE(t.starts_with("k100=v k101=v")) << t;
  EXPECT_TRUE(t.ends_with(" [cut: 100 labels]")) << t;
  EXPECT_LE(t.size(), kMaxTextBytes);
  // A 1 KB value: shortened to kMaxStringBytes, and said.
  std::vector<GoStr> one = {a.Str("big"), a.Str(std::string(1024, 'x'))};
  hdr = {reinterpret_cast<std::uint64_t>(one.data()), 1, 1};
  t = Text(reinterpret_cast<std::uint64_t>(hdr.data()), LabelRepr::kSlice);
  EXPECT_EQ(t, "big=" + std::string(kMaxStringBytes, 'x') + " [cut: 1 labels]");
  // Unreadable: false.
  LabelSet s;
  std::array<std::uint64_t, 3> bad = {0, 2, 2};
  EXPECT_FALSE(ReadLabelSet(kSelf, reinterpret_cast<std::uint64_t>(bad.data()), LabelRepr::kSlice, &s));
}

TEST(LabelText, ParsesBackWhatItWrites) {
  LabelSet s;
  s.labels = {{"tenant", "4 2"}, {"route", "/a=b"}, {"e", ""}, {"u", "\xc3\xbc"}, {"q", "\"\\\n\x01\xfe"}};
  s.total = 5;
  std::string t = LabelText(s);
  EXPECT_EQ(t, "e=\"\" q=\"\\\"\\\\\\n\\x01\\xfe\" route=\"/a=b\" tenant=\"4 2\" u=\xc3\xbc");
  std::vector<std::pair<std::string, std::string>> back;
  ASSERT_TRUE(ParseLabelText(t, &back));
  std::sort(s.labels.begin(), s.labels.end());
  EXPECT_EQ(back, s.labels);
  ASSERT_TRUE(ParseLabelText("a=1 [cut: 100 labels]", &back));
  EXPECT_EQ(back.size(), 1u);
  EXPECT_FALSE(ParseLabelText("a=1 junk", &back));
  EXPECT_FALSE(ParseLabelText("a=\"open", &back));
  EXPECT_TRUE(ParseLabelText("", &back));
  EXPECT_TRUE(back.empty());
}

}  // namespace
}  // namespace gotraced::procmem
