// What a target's file descriptor is, for the kernel view's syscall regions ("kernel:
// syscall read /var/lib/x.db", docs/kernel-view.md): read from /proc once per fd and kept
// until the model sees the fd closed (model::FdNamer). Names: a path; "pipe", "eventfd",
// "epoll", "timerfd" ... for anonymous inodes; "tcp 10.0.0.2:5432" / "udp ..." (the peer,
// or "tcp listen :8080") and "unix /run/x.sock" for sockets, from /proc/PID/net/*.
// A connection the target accepted is "tcp from 10.0.0.9 to :8080": its own port is a
// listener's, and the client's port is left out. That port is a new one per connection,
// so with it a server would get a region type, and a string in the trace's table, per
// connection (the legacy formats keep every string for the file's life: issue 30); what
// is given up is telling one connection of a client host from another by name.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "daemon/model/kernel_view.h"

namespace gotraced::session {

class FdTargets final : public model::FdNamer {
 public:
  explicit FdTargets(pid_t pid);
  ~FdTargets() override;
  FdTargets(const FdTargets &) = delete;
  FdTargets &operator=(const FdTargets &) = delete;
  std::string Name(std::int64_t fd) override;
  void Forget(std::int64_t fd) override { cache_.erase(fd); }
  std::uint64_t resolved() const { return resolved_; }  // /proc look-ups made
  std::uint64_t from_proc_net() const { return from_proc_net_; }  // sockets named by /proc/PID/net

 private:
  std::string Resolve(std::int64_t fd);
  pid_t pid_;
  int pidfd_ = -1;  // -1: pidfd_open refused; sockets are named from /proc/PID/net
  std::unordered_map<std::int64_t, std::string> cache_;
  // Ports of the target's listening sockets named so far (accept4's first argument is
  // the listener, named before any read of the connection it returns): an accepted
  // connection has its listener's port as its own. At most 65,536.
  std::unordered_set<unsigned> listen_ports_;
  std::uint64_t resolved_ = 0;
  std::uint64_t from_proc_net_ = 0;
};

// A socket of this process named as FdTargets names it ("tcp 127.0.0.1:80", "tcp listen
// 0.0.0.0:8080", "udp 10.0.0.1:53", "unix /run/x.sock", "socket" for other families);
// nullopt when `fd` is not a socket (exposed for tests). `listen_ports` (may be null):
// a listener's port is added to it, and a tcp connection whose own port is in it is
// named as accepted ("tcp from 127.0.0.1 to :8080").
std::optional<std::string> SocketNameOfFd(int fd, std::unordered_set<unsigned> *listen_ports = nullptr);

// "socket:[123]" -> the peer as /proc/PID/net/{tcp,tcp6,udp,udp6,unix} say (exposed for
// tests: `net_dir` is /proc/PID/net).
std::string SocketName(const std::string &net_dir, const std::string &inode);
// The anonymous inode or pipe kind of a readlink of /proc/PID/fd/N, or the path itself.
std::string LinkName(const std::string &link);

}  // namespace gotraced::session
