// The model's state for user annotations (runtime/trace tasks, regions, logs), kept so
// that every annotation it writes is valid for the trace reader: internal/trace/order.go
// keeps `activeTasks` (a second UserTaskBegin of an active id is "task ID conflict") and,
// per goroutine, a stack of open regions (gState.beginRegion/endRegion: an end must match
// the innermost open region, or come with none open: "misuse of region"). The logic is
// model_user.cc (Model::OnUser).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "daemon/model/flat_map.h"
#include "daemon/model/record.h"

namespace gotraced::model {

struct UserModelState {
  // Per goroutine: its open regions (task id, type), innermost last.
  FlatMap<Goid, std::vector<std::pair<std::uint64_t, std::string>>> regions;
  FlatSet<std::uint64_t> active_tasks;
  std::uint64_t events = 0;    // user annotation events written
  std::uint64_t dropped = 0;   // records without a valid place (goroutine not running here,
                               // duplicate task begin, region end matching no open region)
  std::uint64_t repaired = 0;  // region ends written for inner regions whose end was lost
};

}  // namespace gotraced::model
