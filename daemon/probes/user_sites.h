// User-annotation sites of the probe plan (ProbeRole kUser*, GT_REC_USER records): which
// runtime/trace functions get a uprobe and which argument registers hold the strings BPF
// copies. docs/probe-plan.md §3.10 explains every row.
#pragma once

#include "daemon/probes/probe_plan.h"

namespace gotraced::probes {

// Appends the user-annotation sites found in `bin` to `plan` (all optional: a program that
// does not import runtime/trace has none; a note says what is absent). `stacks`:
// PlanOptions::stacks. Also sets plan.user_tracing_flag_* when StartRegion or Logf is probed.
void AddUserSites(const gobin::GoBinary &bin, const gobin::RuntimeLayout &layout, bool stacks, ProbePlan &plan);

}  // namespace gotraced::probes
