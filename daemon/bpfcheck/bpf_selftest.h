// `gotraced selftest`: can this machine record? In this order:
//   1. the kernel features gotraced uses (capture/kernel_features.h), each with the first
//      Linux that has it and what to do when it is missing;
//   2. every program of the gotrace, exec_watch and hello objects loaded and verified on
//      its own (program_check.h), the gotrace config filled from a probe plan
//      (selftest_target.h: --binary PATH, or the built-in target), with the verifier's
//      figures: processed instructions and their share of the 1M limit, stack depth per
//      subprog and of the deepest call chain, verification time;
//   3. the hello program attached to sched_process_exec, /bin/true run, its record read
//      back through the ring buffer.
// The verdict's exit code: 0 recording can start; 1 this machine cannot (privileges, a
// missing kernel feature, attaching or the ring buffer fails, --binary unusable); 2 a
// program was refused on a kernel that has every feature (a gotraced bug to report).
#pragma once

#include <string>
#include <vector>

#include "daemon/bpfcheck/program_check.h"
#include "daemon/capture/kernel_features.h"
#include "daemon/probes/probe_plan.h"

namespace gotraced {

struct SelftestOptions {
  std::string binary;        // --binary: a Go binary whose probe plan fills the config
  bool attach_check = true;  // step 3
};

struct SelftestReport {
  std::string kernel;        // uname -r
  std::string versions;      // capture::ReportVersions: for a bug report
  std::string target;        // what filled the gotrace config
  std::string target_error;  // --binary could not be planned
  bool privileged = false;
  std::vector<capture::KernelFeature> features;
  std::vector<bpfcheck::ProgramCheck> programs;
  bool attach_ran = false;
  std::string attach_error;  // "" when the record arrived

  int ExitCode() const;
  // Why ExitCode() is not 0, in words (a refusal with the verifier's last lines); "".
  std::string Problem() const;
};

SelftestReport RunSelftest(const SelftestOptions &opts);

// Step 2 alone: every program of gotrace (its config filled from `plan`; skipped when
// null), exec_watch and hello, each loaded on its own. The budget test uses it.
std::vector<bpfcheck::ProgramCheck> CheckAllPrograms(const probes::ProbePlan *plan);

std::string FormatSelftestText(const SelftestReport &r);
std::string FormatSelftestJson(const SelftestReport &r);

}  // namespace gotraced
