// SysSampleTracker: the syscall sampler's sweeps (GT_REC_SYS_SAMPLE, bpf/gt_sys_sample.bpf.h)
// -> goroutine syscalls of at least a minimum duration. Capture level low's syscalls when
// they come from sampling instead of the sys_enter/sys_exit tracepoints (docs/probe-plan.md
// §10, "Syscalls by sampling").
//
// A sweep lists every thread of the target that was in a goroutine syscall at that moment.
// The same syscall seen asleep in consecutive sweeps is one syscall: same thread, same g,
// same number, and the same count of voluntary context switches (task->nvcsw moves when
// the thread sleeps again, so a second blocking syscall of the same kind is a new one). A
// thread seen running (TASK_RUNNING) in a syscall may have made several between two sweeps
// without sleeping (a busy connection's reads): each such sighting starts a new one, so a
// syscall that computes in the kernel for a long time without sleeping is not found. Its
// begin is the first sweep that saw it and its end the start of the first sweep that did not (or that
// saw the thread in another one): both up to one sampling period late, so the duration is
// the true one within one period. A sampler late by more than a period (the daemon's thread
// not scheduled: the machine is busy) says less: the end is then put one period after the
// last sighting, and a syscall is written only when its sightings span min_ns less one
// period (a single sighting before a late sweep proves no duration). One still open at the
// end is not written (as the tracepoint path writes a syscall at its exit).
#pragma once

#include <cstdint>
#include <vector>

#include "daemon/model/flat_map.h"
#include "proto/records.h"

namespace gotraced::model {

struct SampledSyscall {
  std::uint32_t tid = 0;
  std::uint64_t goid = 0;
  std::int64_t nr = -1;
  std::uint64_t arg0 = 0;
  std::uint64_t begin = 0, end = 0;
};

class SysSampleTracker {
 public:
  SysSampleTracker(std::uint64_t min_ns, std::uint64_t period_ns) : min_ns_(min_ns), period_ns_(period_ns) {}
  // One record of a sweep (tid 0: the sweep's end); syscalls that ended go to `out`.
  void Add(const gt_sys_sample_record &r, std::vector<SampledSyscall> &out);
  std::uint64_t short_syscalls() const { return short_; }  // ended under min_ns
  std::uint64_t sweeps() const { return sweep_; }

 private:
  struct Open {
    std::uint64_t g = 0, goid = 0, nvcsw = 0, arg0 = 0;
    std::int64_t nr = -1;
    std::uint64_t first = 0, last = 0;
    std::uint64_t sweep = 0;  // the last sweep that saw it
    bool sleeping = false;    // asleep when first seen (task state not TASK_RUNNING)
  };
  void Finish(std::uint32_t tid, const Open &o, std::uint64_t end, std::vector<SampledSyscall> &out);

  std::uint64_t min_ns_, period_ns_;
  FlatMap<std::uint32_t, Open> open_;  // tid -> the syscall it was last seen in
  std::uint64_t sweep_ = 0;
  std::uint64_t sweep_begin_ = 0;  // the ts of this sweep's first record
  std::uint64_t short_ = 0;
};

}  // namespace gotraced::model
