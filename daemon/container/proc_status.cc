// NSpid from /proc/PID/status. See proc_status.h.
#include "daemon/container/proc_status.h"

#include <charconv>

namespace gotraced::container {

std::vector<pid_t> ParseNsPid(std::string_view text) {
  constexpr std::string_view kKey = "NSpid:";
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    std::string_view line = text.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl - at);
    at = nl == std::string_view::npos ? text.size() : nl + 1;
    if (line.substr(0, kKey.size()) != kKey) continue;
    std::vector<pid_t> out;
    line.remove_prefix(kKey.size());
    while (!line.empty()) {
      while (!line.empty() && (line[0] == ' ' || line[0] == '\t')) line.remove_prefix(1);
      if (line.empty()) break;
      pid_t v = 0;
      auto [p, ec] = std::from_chars(line.data(), line.data() + line.size(), v);
      if (ec != std::errc() || v <= 0 || (p != line.data() + line.size() && *p != ' ' && *p != '\t')) return {};
      out.push_back(v);
      line.remove_prefix(static_cast<std::size_t>(p - line.data()));
    }
    return out;
  }
  return {};
}

}  // namespace gotraced::container
