// The .rodata configuration (proto/bpf_config.h gt_bpf_config) a probe plan gives the
// BPF programs of bpf/gotrace.bpf.c. One function for the recorder (capture.cc) and for
// `gotraced selftest` (daemon/bpfcheck/), so the self-test verifies the programs with
// the very constants a recording loads them with: the verifier prunes on these frozen
// values (an offset of -1, m_big_len 0, max_frames), so other values would verify other
// code.
#pragma once

#include <sys/types.h>

#include "daemon/probes/probe_plan.h"
#include "proto/bpf_config.h"

namespace gotraced::capture {

// Fills *c from `plan` for a recording of `pid` (the tracepoints' tgid filter).
void FillConfig(const probes::ProbePlan &plan, pid_t pid, gt_bpf_config *c, uint64_t load_bias = 0);

}  // namespace gotraced::capture
