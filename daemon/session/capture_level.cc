#include "daemon/session/capture_level.h"

#include "daemon/probes/probe_plan.h"

namespace gotraced::session {

void ApplyCaptureLevel(CaptureLevel level, probes::PlanOptions &opts) {
  switch (level) {
    case CaptureLevel::kFull: return;
    case CaptureLevel::kSched:
      opts.stacks = false;
      opts.sweep_probes = false;
      return;
    case CaptureLevel::kLow:
      opts.sched_probes = false;
      opts.gc_detail = false;
      opts.sweep_probes = false;
      // Annotations are events of a running goroutine (order.go userGoReqs), which this
      // level does not know.
      opts.user_probes = false;
      // The kernel view's off-CPU regions go on a goroutine the model has running
      // (docs/kernel-view.md): at this level none is, and sched_switch would run at every
      // context switch of the host for records the model must drop.
      opts.sched_switch = false;
      return;
  }
}

std::string_view CaptureLevelContents(CaptureLevel level) {
  switch (level) {
    case CaptureLevel::kFull: return "";
    case CaptureLevel::kSched:
      return "level sched: scheduling, syscalls, Ps, GC; no stacks on scheduling events, no GC sweeps";
    case CaptureLevel::kLow:
      return "level low: syscalls (no stack), GC cycles, STW, GOMAXPROCS, CPU samples with goroutine and "
             "stack; NOT scheduling: goroutines appear only in their syscalls and GC work (each one a "
             "goroutine created and destroyed around it), no blocks, no Ps in use, no user annotations";
  }
  return "";
}

}  // namespace gotraced::session
