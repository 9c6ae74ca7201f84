// Where level low's goroutine syscalls came from, as the CLI's summary and serve's log say
// it (docs/probe-plan.md §10): from sched_switch (the default: nothing per syscall), by
// the sys_enter/sys_exit tracepoints (a program on every syscall of the host; the fallback,
// and what --syscall-min 0 takes), or by sampling the threads. A reader of the summary can
// tell which path ran, and why the tracepoints did when sched_switch was asked.
#pragma once

#include <cstdint>
#include <string>

#include "daemon/session/session.h"

namespace gotraced::session {

// "from sched_switch", "by sampling the target's threads every 250 us", "by the syscall
// tracepoints (sched_switch cannot be used here: ...)". Level low with syscalls on only.
std::string SyscallPath(const SessionStats &s);

// The summary's line (without "gotraced: "): the path, the threshold and what it left out,
// e.g. "level low: syscalls from sched_switch: only syscalls that kept their thread off
// CPU for 1 ms or longer are in the trace, ...". Level low with syscalls on only.
std::string SyscallSummary(const SessionStats &s);

// "1 ms", "250 us": a threshold or a period as the summary says it.
std::string FormatDurationNs(std::uint64_t ns);

}  // namespace gotraced::session
