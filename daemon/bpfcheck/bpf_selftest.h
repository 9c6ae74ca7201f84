#pragma once
#include <string>

namespace gotraced {

// Loads the trivial hello BPF program, attaches it to sched_process_exec, runs
// /bin/true and waits for its record. Returns an empty string on success, else a
// message that says what is wrong with this machine and what to do about it.
std::string RunBpfSelfTest();

}  // namespace gotraced
