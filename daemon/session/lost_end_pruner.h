// After the capture loses records, the goroutines whose end was among them stay in the
// model (and the legacy writer), restated every generation, until the recording ends: a
// long recording of a busy server that loses records now and then would grow without
// end (issue 30). This drives model.h's GoroutinesOffM / ForgetGone across generations:
//
//   loss -> at the next generation's end (the model applied up to E1): candidates =
//   the goroutines off every M, then the target's live goroutine ids are read (allgs, at
//   T0 > E1: the model lags the target) -> at the first generation's end E2 >= T1 (the
//   read's end) + 100 ms, every record older than the read is applied: a candidate the
//   model still holds that was not live at the read ended before it with no record of it.
//
// One round per loss (a loss during a round asks for another after it). A read that
// fails or leaves a g unreadable decides nothing (a live goroutine could hide there).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "daemon/model/model.h"
#include "daemon/procmem/snapshot.h"

namespace gotraced::gobin {
struct RuntimeLayout;
}

namespace gotraced::session {

class LostEndPruner {
 public:
  // Appends the goid of every live goroutine of the target; false if the read failed or
  // was partial. Clock: CLOCK_MONOTONIC ns (the records' clock).
  using ReadLive = std::function<bool(std::vector<std::uint64_t> &live)>;
  using Clock = std::function<std::uint64_t()>;
  LostEndPruner(ReadLive read, Clock now);

  void NoteLoss() { wanted_ = true; }
  // Right after the model ended a generation at `cut_ts`. Returns goroutines forgotten.
  std::size_t AfterCut(model::Model &m, std::uint64_t cut_ts);

  std::uint64_t rounds() const { return rounds_; }
  std::uint64_t failed_reads() const { return failed_reads_; }

 private:
  ReadLive read_;
  Clock now_;
  bool wanted_ = false;
  bool judging_ = false;
  std::uint64_t read_end_ = 0;
  std::vector<model::Goid> candidates_, live_;
  std::uint64_t rounds_ = 0, failed_reads_ = 0;
};

// The target's live goroutine ids from its allgs (procmem/goroutine_states.h: ~40 bytes
// read per g, ~0.4 us each). `layout` must outlive the reader.
LostEndPruner::ReadLive LiveGoroutineReader(pid_t pid, const gobin::RuntimeLayout &layout,
                                            const procmem::RuntimeGlobalAddrs &addrs);

}  // namespace gotraced::session
