// The model's state for the kernel view (kernel_view.h, docs/kernel-view.md): per M, the
// kernel region its goroutine has open while the thread is off CPU. The logic is
// model_kernel.cc (Model::OnKernel).
#pragma once

#include <cstdint>
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
  std::uint64_t unmatched_on = 0;  // ON records whose OFF was not placed (or lost)
  std::uint64_t moved = 0;         // ON records finding the goroutine no longer on the M
};

}  // namespace gotraced::model
