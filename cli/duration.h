#pragma once
#include <chrono>
#include <optional>
#include <string_view>

namespace gotraced::cli {

// Parses a Go-style duration: "10s", "500ms", "1m30s", "2h", "1.5s"; a bare number is
// seconds. nullopt on malformed input or a negative value.
std::optional<std::chrono::nanoseconds> ParseDuration(std::string_view text);

}  // namespace gotraced::cli
