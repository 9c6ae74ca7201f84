// SyscallSampler: runs the syscall sampler's task iterator (bpf/gt_sys_sample.bpf.h) over
// one process's threads every period, from a thread of its own (capture level low,
// `--syscalls-by sample`, docs/probe-plan.md §10 "Syscalls by sampling").
//
// The iterator link is made with the process's pid in its link info (bpf_iter_link_info
// task.pid, Linux 6.1+), so a sweep visits that process's threads only; each sweep is a
// read() of a fresh iterator fd (bpf_iter_create), which runs the program once per thread
// and once more at the end (the sweep's end record). What a sweep costs is the daemon's:
// the target pays nothing per syscall, and no other process's syscall takes the kernel's
// slow path, as they do while a program is on sys_enter/sys_exit (docs/cost.md).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "daemon/gobin/result.h"

struct bpf_link;
struct bpf_program;

namespace gotraced::capture {

class SyscallSampler {
 public:
  // Attaches `prog` as a task iterator over `pid`'s threads and starts sweeping.
  static gobin::Result<std::unique_ptr<SyscallSampler>> Start(bpf_program *prog, pid_t pid, std::uint64_t period_ns);
  ~SyscallSampler();  // stops the thread, then detaches
  SyscallSampler(const SyscallSampler &) = delete;
  SyscallSampler &operator=(const SyscallSampler &) = delete;

  std::uint64_t sweeps() const { return sweeps_.load(std::memory_order_relaxed); }
  std::uint64_t period_ns() const { return period_ns_; }

 private:
  SyscallSampler() = default;
  void Run();
  bpf_link *link_ = nullptr;
  std::uint64_t period_ns_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<std::uint64_t> sweeps_{0};
  std::thread thread_;
};

}  // namespace gotraced::capture
