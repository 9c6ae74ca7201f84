// FdTargets (fd_targets.h): readlink(2) of /proc/PID/fd/N, and for sockets the line of
// /proc/PID/net/* with the socket's inode (proc(5): "local_address rem_address st ...
// inode", addresses as hex IP:port in the kernel's byte order).
#include "daemon/session/fd_targets.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

namespace gotraced::session {
namespace {

// "0100007F:1F90" (IPv4) or 32 hex digits + ":port" (IPv6), as /proc/net/tcp prints them.
std::string HexAddr(const std::string &s) {
  const auto colon = s.find(':');
  if (colon == std::string::npos) return s;
  const unsigned port = static_cast<unsigned>(std::stoul(s.substr(colon + 1), nullptr, 16));
  const std::string ip = s.substr(0, colon);
  char buf[INET6_ADDRSTRLEN] = {};
  if (ip.size() == 8) {
    in_addr a{};
    a.s_addr = static_cast<std::uint32_t>(std::stoul(ip, nullptr, 16));  // host order = as the kernel wrote it
    inet_ntop(AF_INET, &a, buf, sizeof(buf));
    return fmt::format("{}:{}", buf, port);
  }
  if (ip.size() == 32) {
    in6_addr a{};
    for (int w = 0; w < 4; ++w) {
      const std::uint32_t v = static_cast<std::uint32_t>(std::stoul(ip.substr(8 * w, 8), nullptr, 16));
      std::memcpy(&a.s6_addr[4 * w], &v, 4);
    }
    inet_ntop(AF_INET6, &a, buf, sizeof(buf));
    return fmt::format("[{}]:{}", buf, port);
  }
  return s;
}

}  // namespace

std::string LinkName(const std::string &link) {
  if (link.rfind("pipe:", 0) == 0) return "pipe";
  if (link.rfind("anon_inode:", 0) == 0) {
    std::string k = link.substr(11);
    if (!k.empty() && k.front() == '[') k = k.substr(1, k.size() - 2);
    return k;
  }
  return link;
}

std::string SocketName(const std::string &net_dir, const std::string &inode) {
  for (const char *proto : {"tcp", "tcp6", "udp", "udp6"}) {
    std::ifstream in(net_dir + "/" + proto);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream f(line);
      std::vector<std::string> col;
      for (std::string w; f >> w;) col.push_back(w);
      if (col.size() < 10 || col[9] != inode) continue;
      const std::string kind = proto[0] == 't' ? "tcp" : "udp";
      // st 0A = TCP_LISTEN (include/net/tcp_states.h): no peer, name the local port.
      if (kind == "tcp" && col[3] == "0A") return fmt::format("tcp listen {}", HexAddr(col[1]));
      return fmt::format("{} {}", kind, HexAddr(col[2]));
    }
  }
  std::ifstream in(net_dir + "/unix");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::vector<std::string> col;
    for (std::string w; f >> w;) col.push_back(w);
    if (col.size() >= 7 && col[6] == inode) return col.size() >= 8 ? "unix " + col[7] : "unix";
  }
  return "socket";
}

std::string FdTargets::Name(std::int64_t fd) {
  auto it = cache_.find(fd);
  if (it != cache_.end()) return it->second;
  std::string n = Resolve(fd);
  // A failed look-up (the fd closed before the model saw its syscall) is not kept: the
  // number may name the next file opened (the runtime's own opens and closes, at start-up
  // for one, are not goroutine syscalls, so no close tells us).
  if (n.rfind("fd ", 0) != 0) cache_.emplace(fd, n);
  return n;
}

std::string FdTargets::Resolve(std::int64_t fd) {
  ++resolved_;
  char buf[4096];
  const std::string p = fmt::format("/proc/{}/fd/{}", pid_, fd);
  const ssize_t n = readlink(p.c_str(), buf, sizeof(buf) - 1);
  if (n <= 0) {  // closed meanwhile, or not ours to read
    spdlog::debug("kernel view: {}: {}", p, std::strerror(errno));
    return fmt::format("fd {}", fd);
  }
  const std::string link(buf, static_cast<std::size_t>(n));
  if (link.rfind("socket:[", 0) == 0)
    return SocketName(fmt::format("/proc/{}/net", pid_), link.substr(8, link.size() - 9));
  return LinkName(link);
}

}  // namespace gotraced::session
