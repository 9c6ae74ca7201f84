#include "daemon/session/model_counters.h"

namespace gotraced::session {

void FillModelCounters(const model::ModelStats &ms, const encoder::WriterStats &ws, SessionStats &out) {
  out.goroutines_live = ms.goroutines_live;
  out.goroutines_created = ms.goroutines_created;
  out.goroutines_ended = ms.goroutines_ended;
  out.blocks = ms.blocks;
  out.syscalls = ms.syscalls;
  out.inconsistencies = ms.inconsistencies + ws.repairs;
  out.generations = ws.generations;
  out.generation_cuts = ms.generation_cuts;
  out.goroutines_gone = ms.goroutines_gone;
  out.bytes_written = ws.bytes;
}

}  // namespace gotraced::session
