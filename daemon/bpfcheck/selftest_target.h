// The Go program whose probe plan fills the .rodata config while `gotraced selftest`
// verifies the programs: the verifier prunes on those frozen constants, so what it
// accepts depends on them.
//   * --binary PATH: the recorder's own path, capture::PlanTarget (GoBinary ->
//     ResolveRuntimeLayout -> probes::PlanFor, default PlanOptions) -> capture::FillConfig,
//     exactly as capture.cc loads a recording of that binary (the pid is this process's: any
//     non-zero tgid verifies the same code; the user-annotation flag at its link-time
//     address: the load bias only moves it).
//   * built in: no Go binary needed. The struct offsets of the newest Go the plan knows
//     (probes::kNewestKnownMinor) from gotraced's runtime layout table (the one stripped
//     binaries use, gobin/layout_tables.h), with what PlanFor derives from that version
//     (stack_prefers_syscall), every transition's optional reads and stack walks on, a
//     thread-local g found (tls_g_offset) and the user-annotation flag present: the
//     config of a go1.N binary that uses everything. Sites are not needed to load.
#pragma once

#include <string>

#include "daemon/gobin/result.h"
#include "daemon/probes/probe_plan.h"

namespace gotraced::bpfcheck {

struct SelftestTarget {
  std::string description;  // "built-in go1.27 runtime layout table" / "/path (go1.26.1)"
  probes::ProbePlan plan;
};

gobin::Result<SelftestTarget> TargetFromBinary(const std::string &path);
gobin::Result<SelftestTarget> BuiltinTarget();

}  // namespace gotraced::bpfcheck
