// FdTargets (fd_targets.h): readlink(2) of /proc/PID/fd/N, and for sockets a duplicate of
// the fd (pidfd_getfd) asked for its family, type and addresses, or where that is refused
// the line of /proc/PID/net/* with the socket's inode (proc(5): "local_address rem_address
// st ... inode", addresses as hex IP:port in the kernel's byte order).
#include "daemon/session/fd_targets.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
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

// "127.0.0.1:80", "[::1]:80", a unix socket's path ("@name" for the abstract namespace, as
// /proc/net/unix prints it), or "" for an unnamed one.
std::string SockaddrName(const sockaddr_storage &ss, socklen_t len) {
  char buf[INET6_ADDRSTRLEN] = {};
  switch (ss.ss_family) {
    case AF_INET: {
      const auto &a = reinterpret_cast<const sockaddr_in &>(ss);
      inet_ntop(AF_INET, &a.sin_addr, buf, sizeof(buf));
      return fmt::format("{}:{}", buf, ntohs(a.sin_port));
    }
    case AF_INET6: {
      const auto &a = reinterpret_cast<const sockaddr_in6 &>(ss);
      inet_ntop(AF_INET6, &a.sin6_addr, buf, sizeof(buf));
      return fmt::format("[{}]:{}", buf, ntohs(a.sin6_port));
    }
    case AF_UNIX: {
      const auto &a = reinterpret_cast<const sockaddr_un &>(ss);
      const std::size_t off = offsetof(sockaddr_un, sun_path);
      if (len <= off) return {};
      std::size_t n = std::min<std::size_t>(len - off, sizeof(a.sun_path));
      if (a.sun_path[0] == '\0') return n > 1 ? "@" + std::string(a.sun_path + 1, n - 1) : std::string();
      return std::string(a.sun_path, strnlen(a.sun_path, n));
    }
    default:
      return {};
  }
}

// The port of an AF_INET / AF_INET6 address (0 for others) and the address without it.
unsigned PortOf(const sockaddr_storage &ss) {
  if (ss.ss_family == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in &>(ss).sin_port);
  if (ss.ss_family == AF_INET6) return ntohs(reinterpret_cast<const sockaddr_in6 &>(ss).sin6_port);
  return 0;
}
std::string HostOf(const std::string &addr) {  // "127.0.0.1:80" -> "127.0.0.1", "[::1]:80" -> "[::1]"
  const auto colon = addr.rfind(':');
  return colon == std::string::npos ? addr : addr.substr(0, colon);
}
// An accepted connection's name: the client's host and our (the listener's) port.
std::string AcceptedName(const std::string &peer, unsigned own_port) {
  return fmt::format("tcp from {} to :{}", HostOf(peer), own_port);
}

int IntOption(int fd, int opt) {
  int v = 0;
  socklen_t len = sizeof(v);
  return getsockopt(fd, SOL_SOCKET, opt, &v, &len) == 0 ? v : -1;
}

}  // namespace

std::optional<std::string> SocketNameOfFd(int fd, std::unordered_set<unsigned> *listen_ports) {
  const int domain = IntOption(fd, SO_DOMAIN);
  if (domain < 0) return std::nullopt;  // ENOTSOCK
  sockaddr_storage ss{};
  socklen_t len = sizeof(ss);
  const bool has_peer = getpeername(fd, reinterpret_cast<sockaddr *>(&ss), &len) == 0;
  sockaddr_storage own{};
  socklen_t own_len = sizeof(own);
  const bool has_own = getsockname(fd, reinterpret_cast<sockaddr *>(&own), &own_len) == 0;
  if (domain == AF_UNIX) {
    // The bound path: an accepted connection has its listener's; a client has none, so its
    // peer's.
    std::string path = has_own ? SockaddrName(own, own_len) : std::string();
    if (path.empty() && has_peer) path = SockaddrName(ss, len);
    return path.empty() ? std::string("unix") : "unix " + path;
  }
  if (domain != AF_INET && domain != AF_INET6) return std::string("socket");
  const int type = IntOption(fd, SO_TYPE);
  const char *kind = type == SOCK_STREAM ? "tcp" : type == SOCK_DGRAM ? "udp" : nullptr;
  if (kind == nullptr) return std::string("socket");
  if (type == SOCK_STREAM && IntOption(fd, SO_ACCEPTCONN) == 1 && has_own) {
    if (listen_ports) listen_ports->insert(PortOf(own));
    return fmt::format("tcp listen {}", SockaddrName(own, own_len));
  }
  if (type == SOCK_STREAM && has_peer && has_own && listen_ports && listen_ports->count(PortOf(own)))
    return AcceptedName(SockaddrName(ss, len), PortOf(own));
  if (has_peer) return fmt::format("{} {}", kind, SockaddrName(ss, len));
  // Not connected (a udp socket used with sendto, a tcp socket before connect): its own
  // address, said so.
  return has_own ? fmt::format("{} local {}", kind, SockaddrName(own, own_len)) : std::string(kind);
}

FdTargets::FdTargets(pid_t pid) : pid_(pid) {
#ifdef SYS_pidfd_open
  pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd_ < 0) spdlog::debug("kernel view: pidfd_open({}): {}: sockets named from /proc/{}/net", pid, std::strerror(errno), pid);
#endif
}

FdTargets::~FdTargets() {
  if (pidfd_ >= 0) close(pidfd_);
}

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
  // A tcp connection whose local port a listener of the same file has is an accepted one
  // (named as SocketNameOfFd names it): the whole file is read for its listeners.
  std::unordered_set<unsigned> listen_ports;
  std::string found_local, found_peer;
  auto port = [](const std::string &hex) {
    const auto colon = hex.rfind(':');
    return colon == std::string::npos ? 0u : static_cast<unsigned>(std::stoul(hex.substr(colon + 1), nullptr, 16));
  };
  for (const char *proto : {"tcp", "tcp6", "udp", "udp6"}) {
    std::ifstream in(net_dir + "/" + proto);
    std::string line;
    std::getline(in, line);  // header
    const bool tcp = proto[0] == 't';
    while (std::getline(in, line)) {
      std::istringstream f(line);
      std::vector<std::string> col;
      for (std::string w; f >> w;) col.push_back(w);
      if (col.size() < 10) continue;
      // st 0A = TCP_LISTEN (include/net/tcp_states.h): no peer, name the local port.
      if (tcp && col[3] == "0A") listen_ports.insert(port(col[1]));
      if (col[9] != inode) continue;
      if (tcp && col[3] == "0A") return fmt::format("tcp listen {}", HexAddr(col[1]));
      if (!tcp) return fmt::format("udp {}", HexAddr(col[2]));
      found_local = col[1];
      found_peer = col[2];
    }
    if (!found_peer.empty() && proto == std::string_view("tcp6")) break;
  }
  if (!found_peer.empty()) {
    const unsigned own = port(found_local);
    return listen_ports.count(own) ? AcceptedName(HexAddr(found_peer), own) : "tcp " + HexAddr(found_peer);
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
  if (link.rfind("socket:[", 0) != 0) return LinkName(link);
#ifdef SYS_pidfd_getfd
  if (pidfd_ >= 0) {
    // The duplicate shares the target's open file description; closing it right after
    // drops only our reference (a socket the target closed meanwhile ends with it).
    const int dup = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd_, static_cast<int>(fd), 0));
    if (dup >= 0) {
      std::optional<std::string> name = SocketNameOfFd(dup, &listen_ports_);
      close(dup);
      return name.value_or("socket");
    }
    if (errno == EBADF) return fmt::format("fd {}", fd);  // closed since the readlink
    spdlog::debug("kernel view: pidfd_getfd({}, {}): {}: sockets named from /proc/{}/net", pid_, fd,
                  std::strerror(errno), pid_);
    close(pidfd_);
    pidfd_ = -1;
  }
#endif
  ++from_proc_net_;
  return SocketName(fmt::format("/proc/{}/net", pid_), link.substr(8, link.size() - 9));
}

}  // namespace gotraced::session
