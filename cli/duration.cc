#include "cli/duration.h"

#include <cctype>
#include <cstdlib>
#include <string>

namespace gotraced::cli {

std::optional<std::chrono::nanoseconds> ParseDuration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::string s(text);
  // A bare number means seconds.
  char *end = nullptr;
  double bare = std::strtod(s.c_str(), &end);
  if (end && *end == '\0') {
    if (bare < 0) return std::nullopt;
    return std::chrono::nanoseconds(static_cast<long long>(bare * 1e9));
  }
  double total = 0;
  size_t i = 0;
  bool any = false;
  while (i < s.size()) {
    size_t j = i;
    while (j < s.size() && (std::isdigit(static_cast<unsigned char>(s[j])) || s[j] == '.')) j++;
    if (j == i) return std::nullopt;
    double v = std::strtod(s.substr(i, j - i).c_str(), nullptr);
    size_t k = j;
    while (k < s.size() && std::isalpha(static_cast<unsigned char>(s[k]))) k++;
    std::string unit = s.substr(j, k - j);
    double scale;
    if (unit == "ns") scale = 1;
    else if (unit == "us" || unit == "µs") scale = 1e3;
    else if (unit == "ms") scale = 1e6;
    else if (unit == "s") scale = 1e9;
    else if (unit == "m") scale = 60e9;
    else if (unit == "h") scale = 3600e9;
    else return std::nullopt;
    total += v * scale;
    any = true;
    i = k;
  }
  if (!any) return std::nullopt;
  return std::chrono::nanoseconds(static_cast<long long>(total));
}

}  // namespace gotraced::cli
