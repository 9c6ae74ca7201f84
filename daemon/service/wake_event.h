// WakeEvent: an eventfd a target's recording thread waits on besides its ring
// (SessionOptions::interrupt_fd), written by the threads that ask something of that loop
// (a detach, a dump's cut): the loop of a quiet level-low recording sleeps a drain
// interval of 250 ms between polls, and these must not wait for it (issue 28 part 1).
#pragma once

#include <sys/eventfd.h>
#include <unistd.h>

#include <cstdint>

namespace gotraced::service {

class WakeEvent {
 public:
  WakeEvent() : fd_(eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {}
  ~WakeEvent() {
    if (fd_ >= 0) close(fd_);
  }
  WakeEvent(const WakeEvent &) = delete;
  WakeEvent &operator=(const WakeEvent &) = delete;

  // -1 if the eventfd could not be made: the loop then waits its poll out, as before.
  int fd() const { return fd_; }
  // Ends the loop's current or next wait. Any thread.
  void Wake() const {
    const std::uint64_t one = 1;
    if (fd_ < 0) return;
    [[maybe_unused]] const ssize_t r = write(fd_, &one, sizeof(one));  // full counter: already woken
  }

 private:
  int fd_;
};

}  // namespace gotraced::service
