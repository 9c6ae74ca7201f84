// Varints: unsigned LEB128 as runtime/tracebuf.go writes and encoding/binary.Uvarint reads.
#include <gtest/gtest.h>

#include <vector>

#include "encoder/varint.h"

namespace gotraced::encoder {
namespace {

std::vector<std::uint8_t> Encode(std::uint64_t v) {
  std::uint8_t buf[kMaxVarintLen];
  return {buf, PutVarint(buf, v)};
}

TEST(Varint, SmallValuesAreOneByte) {
  EXPECT_EQ(Encode(0), (std::vector<std::uint8_t>{0x00}));
  EXPECT_EQ(Encode(1), (std::vector<std::uint8_t>{0x01}));
  EXPECT_EQ(Encode(127), (std::vector<std::uint8_t>{0x7f}));
  EXPECT_EQ(Encode(128), (std::vector<std::uint8_t>{0x80, 0x01}));
  EXPECT_EQ(Encode(300), (std::vector<std::uint8_t>{0xac, 0x02}));
}

TEST(Varint, MaxIsTenBytesEndingInOne) {
  // 2^64-1, the trace's "none" value (docs/go-trace-format.md §2.1).
  EXPECT_EQ(Encode(~std::uint64_t{0}),
            (std::vector<std::uint8_t>{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}));
  EXPECT_EQ(VarintLen(~std::uint64_t{0}), kMaxVarintLen);
  EXPECT_EQ(VarintLen(1ULL << 63), 10u);
  EXPECT_EQ(VarintLen((1ULL << 63) - 1), 9u);
}

TEST(Varint, RoundTripsAcrossEveryLength) {
  for (int bits = 0; bits <= 64; ++bits) {
    std::uint64_t v = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
    for (std::uint64_t x : {v, v + 1}) {
      auto enc = Encode(x);
      EXPECT_EQ(enc.size(), VarintLen(x));
      std::span<const std::uint8_t> in(enc);
      auto got = ReadVarint(in);
      ASSERT_TRUE(got.has_value()) << x;
      EXPECT_EQ(*got, x);
      EXPECT_TRUE(in.empty());
    }
  }
}

TEST(Varint, ReaderRejectsOverflowAndTruncation) {
  // A 10th byte above 1 overflows 64 bits; 11 bytes are too long (binary.Uvarint).
  std::vector<std::uint8_t> overflow{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
  std::span<const std::uint8_t> a(overflow);
  EXPECT_FALSE(ReadVarint(a).has_value());
  std::vector<std::uint8_t> eleven(10, 0x80);
  eleven.push_back(0x00);
  std::span<const std::uint8_t> b(eleven);
  EXPECT_FALSE(ReadVarint(b).has_value());
  std::vector<std::uint8_t> cut{0x80, 0x80};
  std::span<const std::uint8_t> c(cut);
  EXPECT_FALSE(ReadVarint(c).has_value());
}

TEST(Varint, NonMinimalEncodingIsAccepted) {
  // The runtime pads batch lengths to a fixed width; readers accept it.
  std::vector<std::uint8_t> padded{0x85, 0x80, 0x80, 0x00};
  std::span<const std::uint8_t> in(padded);
  auto v = ReadVarint(in);
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(*v, 5u);
}

}  // namespace
}  // namespace gotraced::encoder
