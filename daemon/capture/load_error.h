// Why loading BPF programs failed, in words that lead to the fix. EPERM/EACCES from
// bpf() means "not permitted" only for a process without the capabilities; with them,
// EACCES (also EINVAL, E2BIG, ENOSPC) from BPF_PROG_LOAD is the verifier refusing a
// program (kernel/bpf/verifier.c), which is a gotraced bug to report, not a setup
// problem. Telling a root user to run as root sends them nowhere.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gotraced::capture {

struct LoadFailure {
  int err = 0;                        // errno of the failed open/load
  bool privileged = false;            // CAP_SYS_ADMIN, or CAP_BPF + CAP_PERFMON, in effect
  std::string program;                // the program the kernel refused (libbpf's log); may be empty
  std::vector<std::string> log_tail;  // the verifier log's last lines; may be empty
  // What this kernel lacks of what gotraced needs (kernel_features.h DescribeMissing):
  // a refusal is then the old kernel's, not a gotraced bug.
  std::vector<std::string> missing_features;
};

struct LoadContext {
  std::string what;        // "loading the BPF programs"
  std::string versions;    // what a bug report needs: ReportVersions(...)
  std::string other_hint;  // appended to errors of no known cause: " (run `gotraced selftest` ...)"
};

std::string ExplainLoadFailure(const LoadFailure &failure, const LoadContext &context);

class LibbpfLogCapture;
// The failure of a load that just failed with `err` while `log` listened: the program
// libbpf reported refused, the verifier log's tail, whether this process has the
// capabilities (probes::CurrentPrivileges, capget) and, when it has, the kernel features
// it lacks (kernel_features.h ProbeKernelFeatures: a few ms).
LoadFailure ObservedLoadFailure(int err, const LibbpfLogCapture &log);

// "gotraced 0.1.0 (git 7e37775abcde), kernel 6.18.0-1-amd64" and, when given,
// ", target go1.26.1".
std::string ReportVersions(std::string_view target_go_version);

}  // namespace gotraced::capture
