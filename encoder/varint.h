// Unsigned LEB128 varints, the only integer encoding of the trace format
// (runtime/tracebuf.go traceBuf.varint; internal/trace/batch.go readUvarint).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace gotraced::encoder {

// A uint64 takes at most 10 bytes (the 10th carries one bit).
inline constexpr std::size_t kMaxVarintLen = 10;

// Writes v at p (which must have kMaxVarintLen bytes of room); returns the end.
inline std::uint8_t *PutVarint(std::uint8_t *p, std::uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<std::uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<std::uint8_t>(v);
  return p;
}

constexpr std::size_t VarintLen(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

// Reads a varint from the front of `in`, advancing it. nullopt if truncated or longer
// than 10 bytes / overflowing 64 bits (encoding/binary.Uvarint's rules, which the Go
// parser uses). Non-minimal encodings are accepted, as the parser accepts them.
inline std::optional<std::uint64_t> ReadVarint(std::span<const std::uint8_t> &in) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < in.size() && i < kMaxVarintLen; ++i) {
    std::uint8_t b = in[i];
    if (i == kMaxVarintLen - 1 && b > 1) return std::nullopt;
    v |= static_cast<std::uint64_t>(b & 0x7f) << (7 * i);
    if (b < 0x80) {
      in = in.subspan(i + 1);
      return v;
    }
  }
  return std::nullopt;
}

}  // namespace gotraced::encoder
