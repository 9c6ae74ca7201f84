#include "daemon/capture/load_error.h"

#include <sys/utsname.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "build_info.h"
#include "daemon/capture/kernel_features.h"
#include "daemon/capture/libbpf_log.h"
#include "daemon/probes/privileges.h"

namespace gotraced::capture {

LoadFailure ObservedLoadFailure(int err, const LibbpfLogCapture &log) {
  LoadFailure f;
  f.err = err;
  f.privileged = probes::CurrentPrivileges().can_load();
  f.program = log.failed_program();
  f.log_tail = log.log_tail();
  if (f.privileged) f.missing_features = MissingFeatures(ProbeKernelFeatures());
  return f;
}

std::string ExplainLoadFailure(const LoadFailure &f, const LoadContext &c) {
  const bool refused = f.err == EPERM || f.err == EACCES;
  const char *why = std::strerror(f.err);
  if (refused && !f.privileged)
    return fmt::format("{} was refused ({}): run as root, or with CAP_BPF + CAP_PERFMON", c.what, why);
  if (!f.missing_features.empty()) {
    std::string msg = fmt::format("{} failed ({}): this kernel lacks what gotraced needs:", c.what, why);
    for (const auto &m : f.missing_features) msg += "\n  - " + m;
    msg += fmt::format("\ngotraced supports Linux {} and newer; `gotraced selftest` checks a machine.", kMinimumKernel);
    return msg;
  }
  const std::string prog = f.program.empty() ? std::string("one of the programs") : "program " + f.program;
  if (!f.log_tail.empty()) {
    std::string msg = fmt::format("{} failed: the kernel's BPF verifier refused {} ({}). The verifier's last words:",
                                  c.what, prog, why);
    for (const auto &line : f.log_tail) msg += "\n    " + line;
    msg += fmt::format(
        "\nThis is a gotraced bug, not a problem with this machine's setup: please report it with this message "
        "and these versions: {}",
        c.versions);
    return msg;
  }
  if (refused)
    return fmt::format("{} was refused ({}) although this process has CAP_SYS_ADMIN or CAP_BPF + CAP_PERFMON{}: "
                       "a security policy refuses bpf() here (kernel lockdown, an LSM such as SELinux or AppArmor, "
                       "or a container's seccomp filter)",
                       c.what, why, f.program.empty() ? "" : " (" + prog + ")");
  if (!f.program.empty())
    return fmt::format("{} failed: the kernel refused {} ({}) and gave no verifier log{}. Versions for a report: {}",
                       c.what, prog, why, c.other_hint, c.versions);
  return fmt::format("{} failed: {}{}", c.what, why, c.other_hint);
}

std::string ReportVersions(std::string_view target_go_version) {
  utsname u{};
  std::string kernel = uname(&u) == 0 ? u.release : "unknown";
  std::string s = fmt::format("gotraced {} (git {}), kernel {}", GOTRACED_VERSION, GOTRACED_GIT_REV, kernel);
  if (!target_go_version.empty()) s += fmt::format(", target {}", target_go_version);
  return s;
}

}  // namespace gotraced::capture
