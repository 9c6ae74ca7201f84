// The model's and the trace writer's part of SessionStats, filled the same way by every
// recording: the real Session (session.cc) and the service's synthetic one
// (daemon/service/synthetic_recording.cc).
#pragma once

#include "daemon/model/model.h"
#include "daemon/session/session.h"
#include "encoder/trace_writer.h"

namespace gotraced::session {

// Goroutine, block, syscall, repair and generation counters and bytes written. Leaves
// alone what each recording counts its own way: records, events, records_discarded.
void FillModelCounters(const model::ModelStats &ms, const encoder::WriterStats &ws, SessionStats &out);

}  // namespace gotraced::session
