#include "daemon/session/syscall_path.h"

#include <fmt/format.h>

namespace gotraced::session {

std::string FormatDurationNs(std::uint64_t ns) {
  if (ns % 1000000 == 0) return fmt::format("{} ms", ns / 1000000);
  return fmt::format("{} us", (ns + 999) / 1000);
}

std::string SyscallPath(const SessionStats &s) {
  if (s.syscall_sample_period_ns)
    return fmt::format("by sampling the target's threads every {}", FormatDurationNs(s.syscall_sample_period_ns));
  if (s.syscalls_by_switch) return "from sched_switch";
  if (!s.syscalls_switch_refused.empty())
    return fmt::format("by the syscall tracepoints ({})", s.syscalls_switch_refused);
  return "by the syscall tracepoints";
}

std::string SyscallSummary(const SessionStats &s) {
  const std::string path = SyscallPath(s);
  if (s.syscall_sample_period_ns)
    return fmt::format("level low: syscalls {} ({} sweeps): no program ran on any syscall", path, s.syscall_sweeps);
  if (s.syscalls_by_switch)
    return fmt::format("level low: syscalls {}: only syscalls that kept their thread off CPU for {} or longer are "
                       "in the trace, from the switch-out; {} shorter sleeps in syscalls were not written; no "
                       "program ran on any syscall (--syscall-min 0 writes all)",
                       path, FormatDurationNs(s.syscall_min_ns), s.short_syscalls);
  // The tracepoints: a program on every syscall of the host while the recording runs.
  if (s.syscall_min_ns)
    return fmt::format("level low: syscalls {}: only syscalls of {} or longer are in the trace; {} shorter ones "
                       "of the target's threads were not written (--syscall-min 0 writes all); every syscall of "
                       "the host ran a program",
                       path, FormatDurationNs(s.syscall_min_ns), s.short_syscalls);
  return fmt::format("level low: syscalls {}: every goroutine syscall is in the trace; every syscall of the host "
                     "ran a program",
                     path);
}

}  // namespace gotraced::session
