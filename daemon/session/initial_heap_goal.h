// The trace's first HeapGoal (runtime/trace.go StartTrace writes one at the very
// beginning of every trace; daemon/model/heap_goal.h computes it): from gcController as
// read at attach (--pid), or from what gcinit will compute (launch mode: the target is
// stopped right after exec, before the runtime initialised gcController, so the inputs
// are its environment's GOGC and GOMEMLIMIT and its data+bss size).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "daemon/gobin/go_binary.h"
#include "daemon/procmem/snapshot.h"

namespace gotraced::session {

// nullopt (and *why set) when the value is not known: the trace then has no HeapGoal
// until the runtime's first gcControllerCommit (probed at gcPaceScavenger).
std::optional<std::uint64_t> InitialHeapGoal(bool launched, pid_t pid, const gobin::GoBinary &bin, int go_minor,
                                             const procmem::RuntimeSnapshot &snapshot, std::string *why);

}  // namespace gotraced::session
