#include "daemon/session/capture_level.h"

#include <fmt/format.h>

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

std::string CaptureLevelContents(CaptureLevel level, std::chrono::milliseconds state_sample) {
  switch (level) {
    case CaptureLevel::kFull: return "";
    case CaptureLevel::kSched:
      return "level sched: scheduling, syscalls, Ps, GC; no stacks on scheduling events, no GC sweeps";
    case CaptureLevel::kLow: {
      const std::string states =
          state_sample.count() > 0
              ? fmt::format("goroutine states counted every {:g} s (logs \"gotraced: goroutine states\")",
                            double(state_sample.count()) / 1000)
              : std::string("no goroutine state samples (--state-sample 0)");
      return "level low: syscalls (no stack; by default those of 1 ms or more), GC cycles, STW, GOMAXPROCS, CPU samples with goroutine and "
             "stack, " + states + "; NOT scheduling: goroutines appear only in their syscalls and GC work (each one a "
             "goroutine created and destroyed around it), no blocks, no Ps in use, no user annotations";
    }
  }
  return "";
}

}  // namespace gotraced::session
