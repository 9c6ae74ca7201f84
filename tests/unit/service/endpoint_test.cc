// The Unix-socket endpoint: round trips through the client, peer credentials, malformed
// and oversized requests, slow clients, streaming, and stop with a stream open.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "daemon/service/client.h"
#include "daemon/service/endpoint.h"
#include "tests/unit/service/test_util.h"

namespace gotraced::service {
namespace {

struct Fixture {
  testing::TempDir dir;
  std::atomic<int> handled{0};
  Peer last_peer;
  std::unique_ptr<Endpoint> ep;

  explicit Fixture(int read_timeout_ms = 5000) {
    Endpoint::Options o;
    o.path = dir.File("s.sock");
    o.owner = geteuid();
    o.group = getegid();
    o.mode = 0660;
    o.read_timeout_ms = read_timeout_ms;
    ep = std::make_unique<Endpoint>(
        o,
        [this](const http::Request &req, const Peer &peer, ResponseWriter &w) {
          handled++;
          last_peer = peer;
          if (req.path == "/stream") {
            w.Begin(200, "application/octet-stream");
            for (int i = 0; i < 5; i++) {
              std::vector<std::uint8_t> b(1000, static_cast<std::uint8_t>(i));
              w.Chunk(b);
            }
            w.End();
          } else if (req.path == "/forever") {
            w.Begin(200, "application/octet-stream");
            while (!w.Cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
          } else if (req.path == "/throw") {
            throw std::runtime_error("boom");
          } else {
            w.Reply(200, "text/plain", "hello " + req.Param("x").value_or("") + "\n");
          }
        },
        nullptr);
    std::string err;
    EXPECT_TRUE(ep->Start(&err)) << err;
  }
};

// Sends raw bytes, returns everything the server answered before closing.
std::string Raw(const std::string &path, const std::string &bytes, bool shut_write = true) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
  if (connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) != 0) {
    close(fd);
    return "connect failed";
  }
  if (!bytes.empty()) (void)!send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  if (shut_write) shutdown(fd, SHUT_WR);
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = recv(fd, buf, sizeof buf, 0)) > 0) out.append(buf, static_cast<std::size_t>(n));
  close(fd);
  return out;
}

int StatusOf(const std::string &response) {
  if (response.size() < 12 || response.rfind("HTTP/1.1 ", 0) != 0) return -1;
  return std::stoi(response.substr(9, 3));
}

TEST(Endpoint, RoundTripWithPeerCredentialsAndMode) {
  Fixture f;
  ClientResult r = UnixGet(f.ep->path(), "/hi?x=there");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, "hello there\n");
  EXPECT_EQ(f.last_peer.uid, getuid());
  EXPECT_EQ(f.last_peer.pid, getpid());
  struct stat st {};
  ASSERT_EQ(stat(f.ep->path().c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 0777, 0660u);
}

TEST(Endpoint, StreamsChunks) {
  Fixture f;
  std::string got;
  ClientResult r = UnixGet(f.ep->path(), "/stream", [&](std::string_view b) {
    got.append(b);
    return true;
  });
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(got.size(), 5000u);
  EXPECT_EQ(got[4999], 4);
}

TEST(Endpoint, MalformedRequestsGet4xxAndTheServerLives) {
  Fixture f;
  EXPECT_EQ(StatusOf(Raw(f.ep->path(), "garbage\r\n\r\n")), 400);
  EXPECT_EQ(StatusOf(Raw(f.ep->path(), std::string("\x00\x01\x02\xff\r\n\r\n", 8))), 400);
  EXPECT_EQ(StatusOf(Raw(f.ep->path(), "POST / HTTP/1.1\r\nHost: x\r\n\r\n")), 405);
  EXPECT_EQ(StatusOf(Raw(f.ep->path(), "GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")), 413);
  EXPECT_EQ(StatusOf(Raw(f.ep->path(), "GET / HTTP/1.1\r\nHost: " + std::string(20000, 'x'))), 431);
  EXPECT_EQ(StatusOf(Raw(f.ep->path(), "GET / HTTP/1.1\r\nHost: x\r\n")), 400);  // closed mid-head
  EXPECT_EQ(Raw(f.ep->path(), ""), "");                                        // connect and leave
  EXPECT_EQ(StatusOf(Raw(f.ep->path(), "GET /throw HTTP/1.1\r\nHost: x\r\n\r\n")), 500);
  EXPECT_EQ(StatusOf(Raw(f.ep->path(), "GET /ok HTTP/1.1\r\nHost: x\r\n\r\n")), 200);
  auto counts = f.ep->responses();
  EXPECT_EQ(counts[400], 3u);
  EXPECT_EQ(counts[200], 1u);
}

TEST(Endpoint, SlowClientTimesOut) {
  Fixture f(200);
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(StatusOf(Raw(f.ep->path(), "GET / HT", false)), 408);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(3));
}

TEST(Endpoint, ClientGoingAwayCancelsStream) {
  Fixture f;
  std::string path = f.ep->path();
  {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::snprintf(a.sun_path, sizeof a.sun_path, "%s", path.c_str());
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
    std::string req = "GET /forever HTTP/1.1\r\nHost: x\r\n\r\n";
    (void)!send(fd, req.data(), req.size(), 0);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    close(fd);
  }
  for (int i = 0; i < 100 && f.ep->active_connections() > 0; i++)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(f.ep->active_connections(), 0);
}

TEST(Endpoint, StopEndsOpenStreamsAndRemovesSocket) {
  Fixture f;
  std::thread client([&] { UnixGet(f.ep->path(), "/forever", [](std::string_view) { return true; }, 10000); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  auto t0 = std::chrono::steady_clock::now();
  f.ep->Stop();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  client.join();
  EXPECT_NE(access(f.ep->path().c_str(), F_OK), 0);
}

TEST(Endpoint, RefusesSecondServerAndReplacesStaleSocket) {
  Fixture f;
  Endpoint::Options o;
  o.path = f.ep->path();
  o.owner = geteuid();
  o.group = getegid();
  Endpoint second(o, [](const http::Request &, const Peer &, ResponseWriter &w) { w.Reply(200, "x", ""); }, nullptr);
  std::string err;
  EXPECT_FALSE(second.Start(&err));
  EXPECT_NE(err.find("already running"), std::string::npos) << err;
  // A stale socket file (nobody listening) is replaced.
  testing::TempDir d;
  std::string stale = d.File("stale.sock");
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::snprintf(a.sun_path, sizeof a.sun_path, "%s", stale.c_str());
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
  close(fd);
  o.path = stale;
  Endpoint third(o, [](const http::Request &, const Peer &, ResponseWriter &w) { w.Reply(200, "x", "ok"); }, nullptr);
  EXPECT_TRUE(third.Start(&err)) << err;
  EXPECT_EQ(UnixGet(stale, "/").body, "ok");
}

TEST(Endpoint, ClientReportsMissingServer) {
  ClientResult r = UnixGet("/nonexistent/gotraced.sock", "/processes");
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("cannot connect"), std::string::npos);
}

}  // namespace
}  // namespace gotraced::service
