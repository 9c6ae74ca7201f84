// See client.h.
#include "daemon/service/client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "daemon/service/http.h"

namespace gotraced::service {

ClientResult UnixGet(const std::string &socket_path, const std::string &target,
                     const std::function<bool(std::string_view)> &on_body, int timeout_ms) {
  ClientResult res;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (socket_path.empty() || socket_path.size() >= sizeof addr.sun_path) {
    res.error = "socket path too long: " + socket_path;
    return res;
  }
  std::memcpy(addr.sun_path, socket_path.c_str(), socket_path.size() + 1);
  int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    res.error = std::string("socket: ") + std::strerror(errno);
    return res;
  }
  if (::connect(fd, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0) {
    res.error = "cannot connect to " + socket_path + ": " + std::strerror(errno) + " (is gotraced serve running?)";
    ::close(fd);
    return res;
  }
  const std::string req = "GET " + target + " HTTP/1.1\r\nHost: gotraced\r\nUser-Agent: gotraced\r\nConnection: close\r\n\r\n";
  for (std::size_t off = 0; off < req.size();) {
    ssize_t n = ::send(fd, req.data() + off, req.size() - off, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      res.error = std::string("sending the request: ") + std::strerror(errno);
      ::close(fd);
      return res;
    }
    off += static_cast<std::size_t>(n);
  }
  http::ResponseParser parser;
  bool sink_failed = false;
  auto body = [&](std::string_view b) {
    if (parser.status() == 200 && on_body) {
      if (!sink_failed && !on_body(b)) sink_failed = true;
    } else if (res.body.size() < (std::size_t{64} << 20)) {
      res.body.append(b);
    }
  };
  char buf[64 * 1024];
  while (parser.state() != http::ResponseParser::State::kDone && parser.state() != http::ResponseParser::State::kError &&
         !sink_failed) {
    pollfd p{fd, POLLIN, 0};
    int pr = ::poll(&p, 1, timeout_ms);
    if (pr == 0) {
      res.error = "timed out waiting for the server";
      ::close(fd);
      return res;
    }
    if (pr < 0) {
      if (errno == EINTR) continue;
      res.error = std::string("poll: ") + std::strerror(errno);
      break;
    }
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      res.error = std::string("reading the response: ") + std::strerror(errno);
      break;
    }
    if (n == 0) {
      parser.Eof();
      break;
    }
    parser.Feed(std::string_view(buf, static_cast<std::size_t>(n)), body);
  }
  ::close(fd);
  res.status = parser.status();
  if (sink_failed) {
    res.error = "writing the output failed";
    return res;
  }
  if (parser.state() == http::ResponseParser::State::kError) {
    res.error = parser.error();
    return res;
  }
  if (parser.state() != http::ResponseParser::State::kDone) {
    if (res.error.empty()) res.error = "incomplete response";
    return res;
  }
  res.ok = true;
  return res;
}

}  // namespace gotraced::service
