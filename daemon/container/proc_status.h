// The pid of a process in each pid namespace it belongs to, from /proc/PID/status's
// "NSpid:" line (proc(5); kernel fs/proc/array.c task_state: outermost first, the
// process's own namespace last). Absent before Linux 4.1.
#pragma once

#include <sys/types.h>

#include <string_view>
#include <vector>

namespace gotraced::container {

// The NSpid values, outermost first; empty if the line is absent or malformed.
std::vector<pid_t> ParseNsPid(std::string_view status_text);

}  // namespace gotraced::container
