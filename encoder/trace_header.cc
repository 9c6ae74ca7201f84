#include "encoder/trace_header.h"

#include <cstdio>
#include <cstring>

namespace gotraced::encoder {

std::array<std::uint8_t, kHeaderLen> MakeHeader(Version v) {
  std::array<std::uint8_t, kHeaderLen> h{};
  char text[kHeaderLen + 1];
  std::snprintf(text, sizeof text, "go 1.%d trace", static_cast<int>(v));
  std::memcpy(h.data(), text, std::strlen(text));
  return h;
}

std::optional<Version> ParseHeader(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < kHeaderLen) return std::nullopt;
  for (Version v : kAllVersions) {
    auto h = MakeHeader(v);
    if (std::memcmp(h.data(), bytes.data(), kHeaderLen) == 0) return v;
  }
  return std::nullopt;
}

}  // namespace gotraced::encoder
