// The 16-byte file header: "go 1.NN trace" padded with NULs
// (runtime/trace.go traceHeader / internal/trace/version/version.go WriteHeader).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>

#include "encoder/trace_types.h"

namespace gotraced::encoder {

inline constexpr std::size_t kHeaderLen = 16;

std::array<std::uint8_t, kHeaderLen> MakeHeader(Version v);
// The version named by a header, if it is one of the v2 versions this encoder writes.
std::optional<Version> ParseHeader(std::span<const std::uint8_t> bytes);

}  // namespace gotraced::encoder
