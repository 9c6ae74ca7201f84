// session::FdTargets names this process's own fds as it names a target's: sockets from a
// pidfd_getfd duplicate, the rest from /proc/PID/fd; and the /proc/PID/net fallback names
// the same sockets the same way.
#include "daemon/session/fd_targets.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <unordered_set>

#include "tests/unit/common/test_dir.h"

namespace gotraced::session {
namespace {

// A listening tcp socket on 127.0.0.1 and a connected client of it; fds closed at the end.
struct TcpPair {
  int listener = -1, client = -1, accepted = -1;
  unsigned port = 0;
  TcpPair() {
    listener = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listener, reinterpret_cast<sockaddr *>(&a), sizeof(a));
    listen(listener, 4);
    socklen_t len = sizeof(a);
    getsockname(listener, reinterpret_cast<sockaddr *>(&a), &len);
    port = ntohs(a.sin_port);
    client = socket(AF_INET, SOCK_STREAM, 0);
    connect(client, reinterpret_cast<sockaddr *>(&a), sizeof(a));
    accepted = accept(listener, nullptr, nullptr);
  }
  ~TcpPair() {
    for (int fd : {listener, client, accepted})
      if (fd >= 0) close(fd);
  }
};

TEST(FdTargets, NamesTcpSocketsByPeerAndListeners) {
  TcpPair t;
  ASSERT_GE(t.accepted, 0);
  FdTargets fds(getpid());
  EXPECT_EQ(fds.Name(t.listener), "tcp listen 127.0.0.1:" + std::to_string(t.port));
  EXPECT_EQ(fds.Name(t.client), "tcp 127.0.0.1:" + std::to_string(t.port));
  // Accepted by a listener named before (accept4's argument): the client's port, a new
  // one per connection, is left out (issue 30: one string per connection otherwise).
  EXPECT_EQ(fds.Name(t.accepted), "tcp from 127.0.0.1 to :" + std::to_string(t.port));
  EXPECT_EQ(fds.from_proc_net(), 0u) << "pidfd_getfd was refused on this kernel";
}

TEST(FdTargets, AcceptedConnectionOfAnUnnamedListenerKeepsThePeer) {
  TcpPair t;
  ASSERT_GE(t.accepted, 0);
  FdTargets fds(getpid());
  EXPECT_EQ(fds.Name(t.accepted).rfind("tcp 127.0.0.1:", 0), 0u) << fds.Name(t.accepted);
}

// Many connections accepted by one listener: one name, not one per connection.
TEST(FdTargets, AcceptedConnectionsShareOneName) {
  TcpPair t;
  ASSERT_GE(t.accepted, 0);
  FdTargets fds(getpid());
  fds.Name(t.listener);
  const std::string want = "tcp from 127.0.0.1 to :" + std::to_string(t.port);
  for (int i = 0; i < 20; ++i) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons(static_cast<std::uint16_t>(t.port));
    const int c = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_EQ(connect(c, reinterpret_cast<sockaddr *>(&a), sizeof(a)), 0);
    const int s = accept(t.listener, nullptr, nullptr);
    ASSERT_GE(s, 0);
    EXPECT_EQ(fds.Name(s), want);
    fds.Forget(s);
    close(s);
    close(c);
  }
}

TEST(FdTargets, ProcNetFallbackNamesTheSameSockets) {
  TcpPair t;
  ASSERT_GE(t.accepted, 0);
  auto inode = [](int fd) {
    char buf[64] = {};
    const std::string p = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t n = readlink(p.c_str(), buf, sizeof(buf) - 1);
    std::string l(buf, n > 0 ? static_cast<std::size_t>(n) : 0);
    return l.substr(8, l.size() - 9);  // socket:[N]
  };
  EXPECT_EQ(SocketName("/proc/self/net", inode(t.listener)), *SocketNameOfFd(t.listener));
  EXPECT_EQ(SocketName("/proc/self/net", inode(t.client)), *SocketNameOfFd(t.client));
  std::unordered_set<unsigned> listen_ports;
  SocketNameOfFd(t.listener, &listen_ports);
  EXPECT_EQ(SocketName("/proc/self/net", inode(t.accepted)), *SocketNameOfFd(t.accepted, &listen_ports));
  EXPECT_EQ(SocketName("/proc/self/net", inode(t.accepted)), "tcp from 127.0.0.1 to :" + std::to_string(t.port));
}

TEST(FdTargets, NamesUnixSocketsByPathAndOtherFdsByLink) {
  testutil::TestDir dir;
  const std::string path = dir.File("fd.sock");
  int l = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof(a.sun_path) - 1);
  ASSERT_EQ(bind(l, reinterpret_cast<sockaddr *>(&a), sizeof(a)), 0);
  ASSERT_EQ(listen(l, 1), 0);
  ASSERT_EQ(connect(c, reinterpret_cast<sockaddr *>(&a), sizeof(a)), 0);
  int p[2];
  ASSERT_EQ(pipe(p), 0);
  int u = socket(AF_INET, SOCK_DGRAM, 0);
  FdTargets fds(getpid());
  EXPECT_EQ(fds.Name(l), "unix " + path);
  EXPECT_EQ(fds.Name(c), "unix " + path);  // a client: its peer's path
  EXPECT_EQ(fds.Name(p[0]), "pipe");
  EXPECT_EQ(fds.Name(u), "udp local 0.0.0.0:0");
  EXPECT_EQ(fds.Name(1000000), "fd 1000000");  // no such fd: not named, not kept
  for (int fd : {l, c, p[0], p[1], u}) close(fd);
  unlink(path.c_str());
}

}  // namespace
}  // namespace gotraced::session
