// Unix-socket HTTP server. See endpoint.h.
#include "daemon/service/endpoint.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "daemon/service/tcp_listen.h"

namespace gotraced::service {

// ---- ResponseWriter ------------------------------------------------------------------

bool ResponseWriter::Send(std::string_view data) {
  if (failed_) return false;
  while (!data.empty()) {
    ssize_t n = ::send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      failed_ = true;  // EPIPE, ECONNRESET, or the send timeout (EAGAIN)
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool ResponseWriter::Reply(int status, std::string_view content_type, std::string_view body,
                           const std::vector<std::pair<std::string, std::string>> &extra) {
  if (started_) return false;
  started_ = true;
  status_ = status;
  std::string head = http::ResponseHead(status, content_type, static_cast<long long>(body.size()), extra);
  body_bytes_ += body.size();
  return Send(head) && Send(body);
}

bool ResponseWriter::Begin(int status, std::string_view content_type,
                           const std::vector<std::pair<std::string, std::string>> &extra) {
  if (started_) return false;
  started_ = true;
  chunked_ = true;
  status_ = status;
  return Send(http::ResponseHead(status, content_type, -1, extra));
}

bool ResponseWriter::Chunk(std::span<const std::uint8_t> data) {
  if (!chunked_ || data.empty()) return !failed_;
  body_bytes_ += data.size();
  return Send(http::ChunkHeader(data.size())) &&
         Send(std::string_view(reinterpret_cast<const char *>(data.data()), data.size())) && Send(http::kChunkTrailer);
}

bool ResponseWriter::End() {
  if (!chunked_) return !failed_;
  chunked_ = false;
  return Send(http::kLastChunk);
}

bool ResponseWriter::Cancelled() const {
  if (failed_ || stopping_.load()) return true;
  pollfd p{fd_, POLLIN | POLLRDHUP, 0};
  if (::poll(&p, 1, 0) <= 0) return false;
  if (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) return true;
  if (p.revents & POLLIN) {
    // Pipelined bytes are ignored (one request per connection); EOF means gone.
    char c;
    ssize_t n = ::recv(fd_, &c, 1, MSG_PEEK | MSG_DONTWAIT);
    return n == 0;
  }
  return false;
}

// ---- Endpoint -------------------------------------------------------------------------

Endpoint::Endpoint(Options options, Handler handler, Logger logger)
    : options_(std::move(options)), handler_(std::move(handler)), logger_(std::move(logger)) {}

Endpoint::~Endpoint() { Stop(); }

namespace {

bool FillAddr(const std::string &path, sockaddr_un *addr) {
  std::memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  if (path.empty() || path.size() >= sizeof addr->sun_path) return false;
  std::memcpy(addr->sun_path, path.c_str(), path.size() + 1);
  return true;
}

void SetTimeout(int fd, int opt, int ms) {
  timeval tv{ms / 1000, (ms % 1000) * 1000};
  setsockopt(fd, SOL_SOCKET, opt, &tv, sizeof tv);
}

}  // namespace

bool Endpoint::Start(std::string *error) {
  auto fail = [&](std::string msg) {
    if (error) *error = std::move(msg);
    if (listen_fd_ >= 0) ::close(listen_fd_);
    listen_fd_ = -1;
    return false;
  };
  if (!options_.tcp_address.empty()) {
    std::string err;
    listen_fd_ = ListenTcp(options_.tcp_address, &tcp_port_, &err);
    if (listen_fd_ < 0) return fail(err);
  } else if (std::string err; !ListenUnix(&err)) {
    return fail(err);
  }
  if (::pipe2(wake_pipe_, O_CLOEXEC | O_NONBLOCK) != 0) return fail(fmt::format("pipe: {}", std::strerror(errno)));
  stopping_ = false;
  accept_thread_ = std::thread([this] { AcceptLoop(); });
  return true;
}

bool Endpoint::ListenUnix(std::string *error) {
  auto fail = [&](std::string msg) {
    *error = std::move(msg);
    return false;
  };
  sockaddr_un addr;
  if (!FillAddr(options_.path, &addr)) return fail(fmt::format("socket path \"{}\" is empty or too long", options_.path));
  std::error_code ec;
  std::filesystem::path parent = std::filesystem::path(options_.path).parent_path();
  if (!parent.empty() && !std::filesystem::exists(parent, ec)) {
    std::filesystem::create_directories(parent, ec);
    if (ec) return fail(fmt::format("creating {}: {}", parent.string(), ec.message()));
  }
  struct stat st {};
  if (::lstat(options_.path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) return fail(fmt::format("{} exists and is not a socket", options_.path));
    int probe = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    bool live = probe >= 0 && ::connect(probe, reinterpret_cast<sockaddr *>(&addr), sizeof addr) == 0;
    if (probe >= 0) ::close(probe);
    if (live) return fail(fmt::format("another server is listening on {} (is gotraced serve already running?)", options_.path));
    ::unlink(options_.path.c_str());  // stale: left by a daemon that did not exit cleanly
  }
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) return fail(fmt::format("socket: {}", std::strerror(errno)));
  if (::bind(listen_fd_, reinterpret_cast<sockaddr *>(&addr), sizeof addr) != 0)
    return fail(fmt::format("bind {}: {}", options_.path, std::strerror(errno)));
  // Owner and mode before listen(): until then nobody can connect.
  if ((options_.owner != geteuid() || options_.group != getegid()) &&
      ::chown(options_.path.c_str(), options_.owner, options_.group) != 0)
    return fail(fmt::format("chown {} to {}:{}: {}", options_.path, options_.owner, options_.group, std::strerror(errno)));
  if (::chmod(options_.path.c_str(), options_.mode) != 0)
    return fail(fmt::format("chmod {} {:o}: {}", options_.path, options_.mode, std::strerror(errno)));
  if (::listen(listen_fd_, 64) != 0) return fail(fmt::format("listen {}: {}", options_.path, std::strerror(errno)));
  return true;
}

void Endpoint::Stop() {
  if (listen_fd_ < 0) return;
  stopping_ = true;
  char c = 1;
  (void)!::write(wake_pipe_[1], &c, 1);
  if (accept_thread_.joinable()) accept_thread_.join();
  ::close(listen_fd_);
  listen_fd_ = -1;
  ::close(wake_pipe_[0]);
  ::close(wake_pipe_[1]);
  wake_pipe_[0] = wake_pipe_[1] = -1;
  // Connection threads notice stopping_ within ~100 ms (streams poll it); plain replies
  // finish at once. Wait for all: they use this object.
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock, [&] { return active_.load() == 0; });
  lock.unlock();
  if (options_.tcp_address.empty()) ::unlink(options_.path.c_str());
}

void Endpoint::AcceptLoop() {
  while (!stopping_) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_pipe_[0], POLLIN, 0}};
    int n = ::poll(fds, 2, 1000);
    if (n < 0 && errno != EINTR) break;
    if (stopping_) break;
    if (n <= 0 || !(fds[0].revents & POLLIN)) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    if (active_.load() >= options_.max_connections) {
      std::string busy = http::ResponseHead(503, "text/plain", 5) + "busy\n";
      SetTimeout(fd, SO_SNDTIMEO, 1000);
      (void)!::send(fd, busy.data(), busy.size(), MSG_NOSIGNAL);
      ::close(fd);
      Count(503);
      continue;
    }
    active_++;
    std::thread([this, fd] {
      Serve(fd);
      ::close(fd);
      std::lock_guard<std::mutex> lock(mu_);
      active_--;
      idle_cv_.notify_all();
    }).detach();
  }
}

void Endpoint::Count(int status) {
  std::lock_guard<std::mutex> lock(mu_);
  responses_[status]++;
}

std::map<int, std::uint64_t> Endpoint::responses() const {
  std::lock_guard<std::mutex> lock(mu_);
  return responses_;
}

void Endpoint::Serve(int fd) {
  Peer peer;
  ucred cred{};
  socklen_t len = sizeof cred;
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
    peer.pid = cred.pid;
    peer.uid = cred.uid;
    peer.gid = cred.gid;
  }
  SetTimeout(fd, SO_SNDTIMEO, options_.write_timeout_ms);
  ResponseWriter w(fd, stopping_);

  auto reject = [&](int status, const std::string &why, const std::string &what) {
    w.Reply(status, "text/plain; charset=utf-8", why + "\n");
    Count(status);
    if (logger_) logger_(status, peer, what, why);
  };

  // Read the request head, bounded in size and time.
  std::string buf;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.read_timeout_ms);
  std::size_t head_end = 0;
  while (!(head_end = http::FindHeadEnd(buf))) {
    if (buf.size() > http::kMaxHeadBytes) return reject(431, "request head too large", "");
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0 || stopping_) return reject(408, "timed out reading the request", "");
    pollfd p{fd, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 200)));
    if (n < 0 && errno != EINTR) return;
    if (n <= 0) continue;
    char chunk[4096];
    ssize_t r = ::recv(fd, chunk, sizeof chunk, 0);
    if (r == 0) {
      if (!buf.empty()) return reject(400, "connection closed in the middle of the request", "");
      return;  // connected and left: nothing to answer
    }
    if (r < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return;
    }
    buf.append(chunk, static_cast<std::size_t>(r));
  }

  http::Request req;
  http::ParseError perr;
  if (!http::ParseRequestHead(std::string_view(buf).substr(0, head_end), &req, &perr))
    return reject(perr.status, perr.reason, "");
  const std::string what = req.method + " " + req.target;
  if (req.method != "GET") return reject(405, "only GET is supported", what);

  try {
    handler_(req, peer, w);
  } catch (const std::exception &e) {
    if (!w.started()) w.Reply(500, "text/plain; charset=utf-8", std::string("internal error: ") + e.what() + "\n");
    if (logger_) logger_(500, peer, what, e.what());
  }
  if (!w.started()) w.Reply(500, "text/plain; charset=utf-8", "no response\n");
  Count(w.status());
  if (logger_) logger_(w.status(), peer, what, w.failed() ? "client went away" : "");
}

}  // namespace gotraced::service
