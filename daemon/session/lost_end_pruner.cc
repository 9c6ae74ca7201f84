#include "daemon/session/lost_end_pruner.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "daemon/procmem/goroutine_states.h"
#include "daemon/procmem/process_memory.h"

namespace gotraced::session {
namespace {

// A record older than the read can still wait in the model's queues behind another M's
// (model.h: the lookahead, 2 ms) or in the decoder: the judgment waits this much more,
// so a goroutine's last run and end are applied before it is judged.
constexpr std::uint64_t kSettleNs = 100'000'000;

}  // namespace

LostEndPruner::LostEndPruner(ReadLive read, Clock now) : read_(std::move(read)), now_(std::move(now)) {}

std::size_t LostEndPruner::AfterCut(model::Model &m, std::uint64_t cut_ts) {
  std::size_t gone = 0;
  if (judging_ && cut_ts >= read_end_ + kSettleNs) {
    gone = m.ForgetGone(candidates_, live_);
    judging_ = false;
    ++rounds_;
    // The round's memory goes with it (tens of thousands of ids on a busy server).
    std::vector<model::Goid>().swap(candidates_);
    std::vector<model::Goid>().swap(live_);
  }
  if (judging_ || !wanted_ || !read_) return gone;
  wanted_ = false;
  candidates_ = m.GoroutinesOffM();
  if (candidates_.empty()) return gone;
  live_.clear();
  if (!read_(live_)) {
    ++failed_reads_;
    candidates_.clear();
    return gone;
  }
  read_end_ = now_();
  std::sort(live_.begin(), live_.end());
  judging_ = true;
  return gone;
}

LostEndPruner::ReadLive LiveGoroutineReader(pid_t pid, const gobin::RuntimeLayout &layout,
                                            const procmem::RuntimeGlobalAddrs &addrs) {
  auto mem = std::make_shared<procmem::ProcessMemory>(pid);
  return [mem, &layout, addrs](std::vector<std::uint64_t> &live) {
    procmem::GoroutineStatesOptions opts;
    opts.live_goids = &live;
    auto s = procmem::ReadGoroutineStates(*mem, layout, addrs, opts);
    return s && s->unreadable == 0;
  };
}

}  // namespace gotraced::session
