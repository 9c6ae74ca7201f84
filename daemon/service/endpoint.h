// Endpoint: the HTTP/1.1 server on a Unix socket (http.h for the protocol subset).
//
// One thread accepts; each connection gets its own thread (at most max_connections at a
// time, beyond that 503), reads one request head with a timeout, learns the peer's
// credentials with SO_PEERCRED, and calls the handler, which answers through a
// ResponseWriter (a whole body, or a chunked stream for traces). Malformed requests are
// answered 4xx here, before the handler; nothing a client sends can take the daemon down.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "daemon/service/http.h"

namespace gotraced::service {

struct Peer {
  pid_t pid = 0;
  uid_t uid = static_cast<uid_t>(-1);
  gid_t gid = static_cast<gid_t>(-1);
};

class ResponseWriter {
 public:
  ResponseWriter(int fd, const std::atomic<bool> &stopping) : fd_(fd), stopping_(stopping) {}

  // A complete response with Content-Length.
  bool Reply(int status, std::string_view content_type, std::string_view body,
             const std::vector<std::pair<std::string, std::string>> &extra = {});
  // A chunked response: Begin once, Chunk for each piece, End.
  bool Begin(int status, std::string_view content_type, const std::vector<std::pair<std::string, std::string>> &extra = {});
  bool Chunk(std::span<const std::uint8_t> data);
  bool End();

  // The client went away or the server is stopping: a long stream should give up.
  bool Cancelled() const;
  bool started() const { return started_; }
  bool failed() const { return failed_; }
  int status() const { return status_; }
  std::uint64_t body_bytes() const { return body_bytes_; }

 private:
  bool Send(std::string_view data);
  int fd_;
  const std::atomic<bool> &stopping_;
  bool started_ = false;
  bool failed_ = false;
  bool chunked_ = false;
  int status_ = 0;
  std::uint64_t body_bytes_ = 0;
};

class Endpoint {
 public:
  struct Options {
    std::string path;
    uid_t owner = 0;
    gid_t group = 0;
    mode_t mode = 0666;
    int max_connections = 32;
    int read_timeout_ms = 5000;
    int write_timeout_ms = 30000;
    // Listen on TCP at this HOST:PORT instead of the Unix socket `path` (tcp_listen.h):
    // peers then have no credentials (uid -1), which the handler must know.
    std::string tcp_address;
  };
  using Handler = std::function<void(const http::Request &, const Peer &, ResponseWriter &)>;
  // Called after every request: status, peer, request line ("" if unparsed), detail.
  using Logger = std::function<void(int status, const Peer &, const std::string &what, const std::string &detail)>;

  Endpoint(Options options, Handler handler, Logger logger);
  ~Endpoint();
  Endpoint(const Endpoint &) = delete;
  Endpoint &operator=(const Endpoint &) = delete;

  // Creates the socket (removing a stale one, refusing one a live server answers on),
  // sets owner and mode, and starts accepting.
  bool Start(std::string *error);
  // Stops accepting, cancels streams, waits for connection threads (bounded), removes
  // the socket file.
  void Stop();

  const std::string &path() const { return options_.path; }
  int tcp_port() const { return tcp_port_; }  // the bound port of a TCP endpoint
  // Responses sent, by status code.
  std::map<int, std::uint64_t> responses() const;
  int active_connections() const { return active_.load(); }

 private:
  bool ListenUnix(std::string *error);  // binds and listens on options_.path (listen_fd_)
  void AcceptLoop();
  void Serve(int fd);
  void Count(int status);

  Options options_;
  Handler handler_;
  Logger logger_;
  int listen_fd_ = -1;
  int tcp_port_ = 0;
  int wake_pipe_[2] = {-1, -1};
  std::thread accept_thread_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> active_{0};
  mutable std::mutex mu_;
  std::condition_variable idle_cv_;
  std::map<int, std::uint64_t> responses_;
};

}  // namespace gotraced::service
