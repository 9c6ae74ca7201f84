#include "report/syscall_log.h"

#include <charconv>

#include "daemon/model/kernel_view.h"

namespace gotraced::report {
namespace {

bool ParseMs(std::string_view s, std::uint64_t *ns) {
  double v = 0;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || v < 0 || v > 1e12) return false;
  *ns = static_cast<std::uint64_t>(v * 1e6);
  return true;
}

}  // namespace

bool ParseSyscallLog(std::string_view msg, SyscallLog *out) {
  const auto c1 = msg.find(": ");
  if (c1 == std::string_view::npos) return false;
  const std::string_view what = msg.substr(0, c1);
  out->type = std::string(model::kKernelRegionPrefix) + "syscall " + FoldPeerPort(what);
  out->name = std::string(what.substr(0, what.find(' ')));
  const auto c2 = msg.find(": ", c1 + 2);
  if (c2 == std::string_view::npos) return false;
  const std::string_view head = msg.substr(c1 + 2, c2 - c1 - 2);  // "30.100 ms, 4096 bytes"
  ParseMs(head.substr(0, head.find(' ')), &out->total_ns);
  if (const auto b = head.find(", "); b != std::string_view::npos && head.ends_with(" bytes")) {
    const std::string_view n = head.substr(b + 2, head.size() - 6 - b - 2);
    std::uint64_t v = 0;
    if (std::from_chars(n.data(), n.data() + n.size(), v).ec == std::errc())
      out->bytes = v, out->has_bytes = true;
  }
  std::string_view rest = msg.substr(c2 + 2);
  while (!rest.empty()) {
    const auto comma = rest.find(", ");
    std::string_view part = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
    if (part.starts_with("then ")) part.remove_prefix(5);
    if (!part.ends_with(" ms")) continue;  // "<what> <number> ms"
    part.remove_suffix(3);
    const auto sp = part.rfind(' ');
    std::uint64_t ns = 0;
    if (sp == std::string_view::npos || !ParseMs(part.substr(sp + 1), &ns)) continue;
    out->parts[std::string(part.substr(0, sp))] += ns;
  }
  return true;
}

std::string FoldPeerPort(std::string_view type) {
  const auto colon = type.rfind(':');
  if (colon == std::string_view::npos || colon + 1 >= type.size()) return std::string(type);
  if (type.find("tcp ") == std::string_view::npos && type.find("udp ") == std::string_view::npos)
    return std::string(type);
  if (type.find(" listen ") != std::string_view::npos || type.find(" local ") != std::string_view::npos)
    return std::string(type);
  const std::string_view port = type.substr(colon + 1);
  unsigned v = 0;
  const auto r = std::from_chars(port.data(), port.data() + port.size(), v);
  if (r.ec != std::errc() || r.ptr != port.data() + port.size() || v < 32768 || v > 60999)
    return std::string(type);
  return std::string(type.substr(0, colon + 1)) + "*";
}

}  // namespace gotraced::report
