// The model's state for pprof labels (issue 34, model_labels.cc): per goroutine, the label
// set it last started running with, so that a log is written only when it changes.
#pragma once

#include <cstdint>

#include "daemon/model/flat_map.h"
#include "daemon/model/record.h"

namespace gotraced::model {

struct LabelModelState {
  struct Last {
    std::uint64_t ptr = 0;   // g.labels at its last start
    std::uint64_t hash = 0;  // hash of that set's text (a new pointer may hold the same set)
    std::uint64_t gen = 0;   // writer generation of its last log
  };
  // Goroutines that started with a label set at least once (ended ones are erased).
  FlatMap<Goid, Last> last;
  std::uint64_t logs = 0;  // "gotraced: labels" logs written
  std::uint64_t unknown = 0;  // sets the LabelSource could not tell (no log): label_source.h
};

}  // namespace gotraced::model
