// The heap goal the runtime's tracer writes at the start of a trace, computed from
// outside.
//
// Authority: runtime/trace.go StartTrace (Go 1.22+: "Record the heap goal so we have it
// at the very beginning of the trace.", tl.HeapGoal() once, in the first generation;
// traceAdvance writes none) and traceruntime.go (1.23+) / trace2runtime.go (1.22)
// (traceLocker).HeapGoal: gcController.heapGoal(), written as 0 when it is ^uint64(0)
// and, from the version that checks it (1.26 and 1.27 do, 1.22 and 1.23 do not;
// go.dev/issue/63864), when gcPercent < 0. heapGoal() is mgcpacer.go heapGoalInternal and
// memoryLimitHeapGoal, the same code in every Go from 1.19 to 1.27 except the memory-limit
// headroom (1.19/1.20: a fixed 1 MiB; 1.21+: 3%, at least 1 MiB).
//
// Where its inputs come from: gcController's fields read at attach (--pid), or, in launch
// mode, the state gcinit leaves (gcController.init(readGOGC(), readGOMEMLIMIT()) and its
// commit(true)), which is what a trace started before the first GC cycle sees.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "daemon/model/gc_pacer_state.h"

namespace gotraced::model {

// gcController.heapGoal() (mgcpacer.go heapGoalInternal) for a runtime of Go 1.go_minor.
std::uint64_t HeapGoal(const GcPacerState &s, int go_minor);

// The value (traceLocker).HeapGoal writes for that state (0 when heap-based triggering is
// off, see above).
std::uint64_t TraceHeapGoal(const GcPacerState &s, int go_minor);

// The state gcinit leaves: gcController.init(gcPercent, memoryLimit): heapMinimum =
// defaultHeapMinimum (4 MiB) * gcPercent / 100 (setGCPercent), triggered = ^0, and
// commit(true): sweepDistMinTrigger = 0, gcPercentHeapGoal = max(globalsScan * gcPercent
// / 100, heapMinimum) (heapMarked and lastStackScan are 0; globalsScan is the data and
// bss size modulesinit added before gcinit, proc.go schedinit), or ^0 when gcPercent < 0.
// The memory statistics are taken as 0: what the runtime has mapped by then matters only
// for a GOMEMLIMIT within a few MiB of it.
GcPacerState PacerAfterGcInit(std::int32_t gc_percent, std::int64_t memory_limit, std::uint64_t globals_scan);

// readGOGC (mgcpacer.go): "off" -> -1, a decimal number -> itself, anything else
// (unset included) -> 100.
std::int32_t ParseGOGC(std::optional<std::string_view> v);

// readGOMEMLIMIT (mgcpacer.go): unset, "" or "off" -> math.MaxInt64; else
// parseByteCount (runtime/string.go: a decimal number with an optional B, KiB, MiB, GiB or
// TiB suffix). nullopt: a value the runtime would refuse (it throws at start).
std::optional<std::int64_t> ParseGOMEMLIMIT(std::optional<std::string_view> v);

}  // namespace gotraced::model
