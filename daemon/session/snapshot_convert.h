// The attach-time runtime snapshot (procmem, raw runtime values) -> model::Snapshot
// (trace statuses), with the runtime's own mapping: runtime/tracestatus.go
// goStatusToTraceGoStatus for goroutines and writeProcStatusForP for Ps.
#pragma once

#include "daemon/gobin/runtime_layout.h"
#include "daemon/model/snapshot.h"
#include "daemon/procmem/snapshot.h"

namespace gotraced::session {

model::Snapshot ConvertSnapshot(const procmem::RuntimeSnapshot &s, const gobin::RuntimeLayout &layout);

}  // namespace gotraced::session
