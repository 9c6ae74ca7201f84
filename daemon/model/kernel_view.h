// The kernel view (docs/kernel-view.md): what the kernel did to a goroutine's thread while
// Go believed the goroutine ran, written as user regions on that goroutine whose types
// carry the fixed prefix "kernel: ", so that `go tool trace` shows them on the goroutine
// and its "User-defined regions" page gives their distributions. This header is the one
// list of those types and of how a switch-out's kernel state names its cause; the
// decoder (kernel_view_decoder.cc), the model (model_kernel.cc) and `gotraced report`
// read it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gotraced::model {

inline constexpr std::string_view kKernelRegionPrefix = "kernel: ";
// Off CPU while runnable: the scheduler gave the CPU to another task (sched_switch's
// preempt, or prev_state TASK_RUNNING), and the thread waited in the run queue throughout.
inline constexpr std::string_view kKernelPreempted = "kernel: off-CPU preempted";
// Off CPU while runnable because the thread's cgroup (or one above it) used up its CPU
// quota for the period (CFS bandwidth: v2 cpu.max, v1 cpu.cfs_quota_us).
inline constexpr std::string_view kKernelThrottled = "kernel: throttled";
// Asleep in the kernel outside a Go syscall, uninterruptibly (TASK_UNINTERRUPTIBLE: a page
// fault waiting for I/O, the mmap lock ...), until its wake-up.
inline constexpr std::string_view kKernelBlocked = "kernel: off-CPU blocked";
// Asleep in the kernel outside a Go syscall, interruptibly (TASK_INTERRUPTIBLE: e.g. the
// runtime's own futex sleeps in lock2 while the M has a goroutine), until its wake-up.
inline constexpr std::string_view kKernelSleep = "kernel: off-CPU sleep";
// From the wake-up of a blocked or sleeping thread until it ran again.
inline constexpr std::string_view kKernelRunQueue = "kernel: run-queue wait";

// The log written at the end of a syscall region: where its time went
// (model_kernel_syscall.cc).
inline constexpr std::string_view kKernelSyscallLog = "kernel: syscall";

// include/linux/sched.h task states (the bits sched_switch's prev_state reports).
inline constexpr std::uint32_t kTaskInterruptible = 0x1;
inline constexpr std::uint32_t kTaskUninterruptible = 0x2;
inline constexpr std::uint32_t kTaskReportMask = 0x7f;  // TASK_REPORT

// The region type of an off-CPU interval from its switch-out (bpf/gt_kernel.bpf.h OFF
// record). Runnable as the kernel's own sched_switch output decides it
// (include/trace/events/sched.h __trace_sched_switch_state: a preempted task is "R+"
// whatever its state word says: it was preempted while getting ready to sleep).
inline std::string_view KernelOffCause(std::uint32_t prev_state, bool preempt, bool throttled) {
  if (preempt || (prev_state & kTaskReportMask) == 0) return throttled ? kKernelThrottled : kKernelPreempted;
  if (prev_state & kTaskUninterruptible) return kKernelBlocked;
  return kKernelSleep;
}

// Whether a region of this type ends at the thread's wake-up and continues as
// kKernelRunQueue until it runs.
// (A throttled one too: its "wake-up" is the quota's refill, kernel_view_decoder.cc.)
inline bool KernelCauseSleeps(std::string_view cause) {
  return cause == kKernelBlocked || cause == kKernelSleep || cause == kKernelThrottled;
}

inline bool IsKernelRegion(std::string_view type) { return type.substr(0, kKernelRegionPrefix.size()) == kKernelRegionPrefix; }

}  // namespace gotraced::model

namespace gotraced::model {

// What an fd of the target is ("/var/lib/x.db", "pipe", "tcp 10.0.0.2:5432" ...), for the
// syscall regions; the session's implementation reads /proc once per fd
// (session/fd_targets.h). Forget: the model saw the fd closed.
class FdNamer {
 public:
  virtual ~FdNamer() = default;
  virtual std::string Name(std::int64_t fd) = 0;
  virtual void Forget(std::int64_t fd) = 0;
};

}  // namespace gotraced::model
