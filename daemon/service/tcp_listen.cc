// TCP listening socket. See tcp_listen.h.
#include "daemon/service/tcp_listen.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

namespace gotraced::service {

bool SplitHostPort(const std::string &address, std::string *host, int *port) {
  std::size_t colon = address.rfind(':');
  if (colon == std::string::npos) return false;
  std::string h = address.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  else if (h.find(':') != std::string::npos) return false;  // a v6 address needs brackets
  const std::string p = address.substr(colon + 1);
  int v = -1;
  auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), v);
  if (p.empty() || ec != std::errc() || end != p.data() + p.size() || v < 0 || v > 65535) return false;
  *host = h;
  *port = v;
  return true;
}

int ListenTcp(const std::string &address, int *port, std::string *error) {
  std::string host;
  int want = 0;
  if (!SplitHostPort(address, &host, &want)) {
    *error = fmt::format("\"{}\" is not HOST:PORT", address);
    return -1;
  }
  sockaddr_storage ss{};
  socklen_t len = 0;
  auto *v4 = reinterpret_cast<sockaddr_in *>(&ss);
  auto *v6 = reinterpret_cast<sockaddr_in6 *>(&ss);
  if (host.empty() || host == "0.0.0.0" || inet_pton(AF_INET, host.c_str(), &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons(static_cast<std::uint16_t>(want));
    if (host.empty()) v4->sin_addr.s_addr = htonl(INADDR_ANY);
    len = sizeof *v4;
  } else if (inet_pton(AF_INET6, host.c_str(), &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons(static_cast<std::uint16_t>(want));
    len = sizeof *v6;
  } else {
    *error = fmt::format("\"{}\": not a numeric address", host);
    return -1;
  }
  int fd = ::socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    *error = fmt::format("socket: {}", std::strerror(errno));
    return -1;
  }
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(fd, reinterpret_cast<sockaddr *>(&ss), len) != 0 || ::listen(fd, 64) != 0) {
    *error = fmt::format("listen on {}: {}", address, std::strerror(errno));
    ::close(fd);
    return -1;
  }
  sockaddr_storage got{};
  socklen_t got_len = sizeof got;
  ::getsockname(fd, reinterpret_cast<sockaddr *>(&got), &got_len);
  *port = ntohs(got.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6 *>(&got)->sin6_port
                                          : reinterpret_cast<sockaddr_in *>(&got)->sin_port);
  return fd;
}

}  // namespace gotraced::service
