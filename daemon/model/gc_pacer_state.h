// The gcControllerState fields (*gcControllerState).heapGoal reads (mgcpacer.go
// heapGoalInternal, memoryLimitHeapGoal): one struct for the two places that have them,
// procmem's snapshot (read from the target's gcController at attach) and the heap-goal
// arithmetic (heap_goal.h; also the state gcinit leaves, PacerAfterGcInit). Header only:
// procmem depends on it without depending on the model's code.
#pragma once

#include <cstdint>

namespace gotraced::model {

// The defaults are a runtime's before any cycle with GOGC and GOMEMLIMIT unset.
struct GcPacerState {
  std::int32_t gc_percent = 100;                // gcPercent (-1: GOGC=off)
  std::int64_t memory_limit = INT64_MAX;        // memoryLimit (math.MaxInt64: none)
  std::uint64_t heap_marked = 0;                // heapMarked
  std::uint64_t gc_percent_heap_goal = 0;       // gcPercentHeapGoal
  std::uint64_t sweep_dist_min_trigger = 0;     // sweepDistMinTrigger
  std::uint64_t triggered = ~std::uint64_t{0};  // triggered (^0: no cycle triggered yet)
  std::uint64_t heap_free = 0;                  // heapFree
  std::uint64_t total_alloc = 0, total_free = 0;  // totalAlloc, totalFree
  std::uint64_t mapped_ready = 0;               // mappedReady
};

}  // namespace gotraced::model
