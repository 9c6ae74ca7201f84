// WakeEvent (daemon/service/wake_event.h): a write makes the fd readable for the
// recording loop's wait, however many wakes came before it was read; one read (as the
// ring consumer does) makes it quiet again.
#include "daemon/service/wake_event.h"

#include <poll.h>

#include <cerrno>
#include <cstdint>

#include <gtest/gtest.h>

namespace gotraced::service {
namespace {

bool Readable(int fd) {
  pollfd p{fd, POLLIN, 0};
  return poll(&p, 1, 0) == 1 && (p.revents & POLLIN);
}

TEST(WakeEvent, WakesUntilReadBack) {
  WakeEvent w;
  ASSERT_GE(w.fd(), 0);
  EXPECT_FALSE(Readable(w.fd()));
  w.Wake();
  w.Wake();  // a detach and a dump at once: still one wait to end
  EXPECT_TRUE(Readable(w.fd()));
  std::uint64_t n = 0;
  ASSERT_EQ(read(w.fd(), &n, sizeof(n)), ssize_t(sizeof(n)));
  EXPECT_EQ(n, 2u);
  EXPECT_FALSE(Readable(w.fd()));
  EXPECT_LT(read(w.fd(), &n, sizeof(n)), 0) << "non-blocking: the consumer's read never waits";
  EXPECT_EQ(errno, EAGAIN);
}

}  // namespace
}  // namespace gotraced::service
