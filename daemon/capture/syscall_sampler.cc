#include "daemon/capture/syscall_sampler.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace gotraced::capture {

gobin::Result<std::unique_ptr<SyscallSampler>> SyscallSampler::Start(bpf_program *prog, pid_t pid,
                                                                    std::uint64_t period_ns) {
  union bpf_iter_link_info info;
  std::memset(&info, 0, sizeof(info));
  info.task.pid = static_cast<__u32>(pid);
  LIBBPF_OPTS(bpf_iter_attach_opts, opts, .link_info = &info, .link_info_len = sizeof(info));
  bpf_link *link = bpf_program__attach_iter(prog, &opts);
  if (!link) return gobin::Error{fmt::format("the syscall sampler's task iterator: {}", std::strerror(errno))};
  std::unique_ptr<SyscallSampler> s(new SyscallSampler());
  s->link_ = link;
  s->period_ns_ = period_ns;
  s->thread_ = std::thread([p = s.get()] { p->Run(); });
  return s;
}

SyscallSampler::~SyscallSampler() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (link_) bpf_link__destroy(link_);
}

// One sweep per period on an absolute clock (a slow sweep delays the next, it does not
// shift the rest). The program writes no text: read() returns 0 once the sweep is done.
void SyscallSampler::Run() {
  timespec next{};
  clock_gettime(CLOCK_MONOTONIC, &next);
  char buf[64];
  while (!stop_.load(std::memory_order_relaxed)) {
    int fd = bpf_iter_create(bpf_link__fd(link_));
    if (fd >= 0) {
      while (read(fd, buf, sizeof(buf)) > 0) {
      }
      close(fd);
      sweeps_.fetch_add(1, std::memory_order_relaxed);
    }
    std::uint64_t ns = static_cast<std::uint64_t>(next.tv_nsec) + period_ns_;
    next.tv_sec += static_cast<time_t>(ns / 1'000'000'000);
    next.tv_nsec = static_cast<long>(ns % 1'000'000'000);
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (now.tv_sec > next.tv_sec || (now.tv_sec == next.tv_sec && now.tv_nsec > next.tv_nsec)) next = now;  // behind
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, nullptr);
  }
}

}  // namespace gotraced::capture
