// Which BPF program (bpf/gotrace.bpf.c, one per site class) a probe-plan site is
// attached to. The classes are the issue's: goroutine status changes, P events, syscalls,
// GC and STW, sweep, user annotations, other scheduler sites; a class whose sites may or
// may not walk a stack has a program for each (the walk is a constant of the program, so
// the verifier never explores both). Capture loads only the programs its plan names.
#pragma once

#include <set>
#include <string>

#include "daemon/probes/probe_plan.h"

namespace gotraced::probes {

// The SEC("uprobe") program name for `s`: "gt_casgstatus", "gt_proc", "gt_gc_stack" ...
const char *SiteProgram(const ProbeSite &s);

// Every program the plan's sites use (for autoload).
std::set<std::string> PlanPrograms(const ProbePlan &plan);

}  // namespace gotraced::probes
