// CpuSampler: the perf events behind `--cpu-hz N` (CPU samples in the trace).
//
// One PERF_COUNT_SW_CPU_CLOCK event per online CPU (perf_event_open pid = -1, cpu = c),
// sample period 1e9/N ns of CPU time, each with bpf/gt_cpu.bpf.h's gt_cpu_sample
// attached; the BPF program keeps the samples whose current thread is in a traced tgid.
//
// Why per CPU and not per thread: a per-thread event (pid = tid) must be opened for every
// thread of the target, including the ones Go creates later (newm -> clone, at any time
// and from any M); `inherit` covers only threads cloned by a thread we already opened,
// and a thread created between listing /proc/PID/task and opening its event would go
// unsampled. Per CPU needs no thread tracking, covers threads of several targets (serve)
// with one set of events, and gives the same statistics: the CPU clock of a CPU runs
// while the target's thread is on it, so a thread gets N samples per CPU second of its
// own, like the runtime's per-thread CLOCK_THREAD_CPUTIME_ID timer
// (runtime/signal_unix.go setThreadCPUProfiler). The cost is N interrupts per second on
// every CPU, idle or not, each a few hundred ns when the thread is not traced.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "daemon/gobin/result.h"

struct bpf_link;
struct bpf_program;

namespace gotraced::capture {

// Valid --cpu-hz values. The runtime's profiler defaults to 100 Hz
// (runtime/pprof.StartCPUProfile) and documents rates above ~500 Hz as unreliable
// (runtime.SetCPUProfileRate); each sample costs a stack walk here.
inline constexpr std::uint32_t kMinCpuHz = 1;
inline constexpr std::uint32_t kMaxCpuHz = 1000;

// perf_event_open's errno in words: "run as root" only when this process lacks
// CAP_PERFMON (and CAP_SYS_ADMIN); with it, what refused is not the uid.
std::string ExplainPerfEventErrno(int err, bool perfmon_capable);

class CpuSampler {
 public:
  // Opens and attaches one event per online CPU. Fails (nothing left attached) with a
  // message that says what to do when the kernel refuses.
  static gobin::Result<std::unique_ptr<CpuSampler>> Attach(bpf_program *prog, std::uint32_t hz);
  ~CpuSampler();  // detaches and closes every event
  CpuSampler(const CpuSampler &) = delete;
  CpuSampler &operator=(const CpuSampler &) = delete;

  std::size_t cpus() const { return links_.size(); }

 private:
  CpuSampler() = default;
  std::vector<bpf_link *> links_;
};

}  // namespace gotraced::capture
