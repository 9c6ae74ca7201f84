// The model's state for the kernel view (kernel_view.h, docs/kernel-view.md): per M, the
// kernel region its goroutine has open while the thread is off CPU. The logic is
// model_kernel.cc (Model::OnKernel).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "daemon/model/flat_map.h"
#include "daemon/model/record.h"

namespace gotraced::model {

struct KernelModelState {
  struct Open {
    Goid g = kNoG;
    std::string_view type;    // kernel_view.h constant
    std::uint64_t off_ts = 0; // the switch-out's ts (the ON record names it)
  };
  FlatMap<ThreadId, Open> open;  // M -> its goroutine's open kernel region
  // A goroutine syscall in progress on an M (model_kernel_syscall.cc), and what its
  // thread did off CPU meanwhile.
  struct Syscall {
    Goid g = kNoG;
    std::uint64_t t0 = 0, t1 = 0;  // GoSyscallBegin's ts (as written), the end record's
    std::int64_t nr = -1, fd = -1;  // nr -1: not known (yet: Go <= 1.25's comes after t0)
    std::string target;            // what fd is (the decoder's FdNamer; "fd N" unnamed)
    bool log_only = false;         // the legacy formats' syscall: its log, no region
    bool have_ret = false;         // the kernel's return value, from the exit's record
    std::int64_t ret = 0;
    std::string type;              // the region type, once begun
    std::uint64_t steal_ts = 0;    // the first ProcSteal of the M's P after t0
    std::map<std::string, std::uint64_t> off_ns;  // off CPU by cause (until the wake-up)
    std::uint64_t runq_ns = 0;     // run-queue waits after wake-ups
    std::uint64_t off_total = 0;   // off CPU, all of it
  };
  FlatMap<ThreadId, Syscall> sys;
  FlatMap<ThreadId, Open> sys_off;  // M in a syscall -> its switch-out (type = cause)
  FlatMap<Goid, Syscall> resume;    // regions of syscalls that lost the P, ended when the
                                    // goroutine next runs
  std::uint64_t unmatched_on = 0;  // ON records whose OFF was not placed (or lost)
  std::uint64_t moved = 0;         // ON records finding the goroutine no longer on the M
};

}  // namespace gotraced::model
