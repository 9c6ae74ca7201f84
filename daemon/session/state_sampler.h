// StateSampler: when capture level "low" samples the target's goroutine states
// (SessionOptions::state_sample), and the sample itself (procmem/goroutine_states.h).
// The session asks it once per Poll, after the drain and the model's advance, so a
// sample never sits inside the per-record path; its log is queued into the model in time
// order with the records (RecordPipeline::OnStateSample).
//
// Cost bound: a sample takes ~0.4 us per goroutine (4.3 ms for 10k goroutines;
// scripts/bench-state-sample.sh, docs/levels.md). However many goroutines the target
// has, the next sample is due no sooner than 100 times the last one's cost after it, so
// sampling takes at most 1% of the recording thread's time.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "daemon/procmem/label_reader.h"
#include "daemon/procmem/process_memory.h"
#include "daemon/procmem/snapshot.h"

namespace gotraced::gobin {
struct RuntimeLayout;
}

namespace gotraced::session {

struct StateSamplerStats {
  std::uint64_t samples = 0;   // samples taken
  std::uint64_t failures = 0;  // reads that failed (target gone, unreadable allgs)
  double total_ms = 0, max_ms = 0;  // time spent reading and formatting
  std::uint64_t max_goroutines = 0;  // most live goroutines in one sample
};

class StateSampler {
 public:
  // `layout` must outlive the sampler. `interval` > 0.
  // `labels`: also count goroutines per pprof label set (procmem::GoroutineLabelsMessage),
  // the sets read as runtime/pprof of Go 1.<go_minor> lays them out.
  StateSampler(pid_t pid, const gobin::RuntimeLayout &layout, const procmem::RuntimeGlobalAddrs &addrs,
               std::chrono::nanoseconds interval, bool labels = false, int go_minor = 0);

  struct Sample {
    std::uint64_t ts = 0;  // CLOCK_MONOTONIC when the read began
    std::string message;   // procmem::GoroutineStatesMessage
  };
  // A sample if one is due at `now_ns` (CLOCK_MONOTONIC; the first one is due at once).
  std::optional<Sample> Poll(std::uint64_t now_ns);

  const StateSamplerStats &stats() const { return stats_; }
  const std::string &last_error() const { return last_error_; }

 private:
  procmem::ProcessMemory mem_;
  std::unique_ptr<procmem::LabelReader> labels_;  // null: no labels
  const gobin::RuntimeLayout &layout_;
  procmem::RuntimeGlobalAddrs addrs_;
  std::uint64_t interval_ns_;
  std::uint64_t next_ns_ = 0;
  StateSamplerStats stats_;
  std::string last_error_;
};

}  // namespace gotraced::session
