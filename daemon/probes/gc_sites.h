// GC sites of the probe plan that the generic entry / entry+4 rule cannot place
// (docs/probe-plan.md §3.9). The rest of the GC rows are in probe_plan.cc's table.
#pragma once

#include "daemon/probes/probe_plan.h"

namespace gotraced::probes {

// Moves the kSTWDone site from startTheWorldWithSema's entry to its CALL of wakep (the
// moment the runtime writes STWDone), and appends the kGCHeapGoal site
// (runtime.gcPaceScavenger) when its code has the expected shape; otherwise a note says
// what stays as it was. Never a single-stepped site.
void AddGcSites(const gobin::GoBinary &bin, ProbePlan &plan);

}  // namespace gotraced::probes
