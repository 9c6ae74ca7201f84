#include "daemon/session/state_sampler.h"

#include <time.h>

#include <algorithm>
#include <utility>

#include "daemon/procmem/goroutine_states.h"
#include "daemon/procmem/mono_clock.h"

namespace gotraced::session {
namespace {

// The next sample waits at least this many times the last one's cost (the 1% bound).
constexpr std::uint64_t kCostFactor = 100;

}  // namespace

StateSampler::StateSampler(pid_t pid, const gobin::RuntimeLayout &layout, const procmem::RuntimeGlobalAddrs &addrs,
                           std::chrono::nanoseconds interval, bool labels, int go_minor)
    : mem_(pid),
      labels_(labels ? std::make_unique<procmem::LabelReader>(pid, go_minor) : nullptr),
      layout_(layout),
      addrs_(addrs),
      interval_ns_(static_cast<std::uint64_t>(std::max<std::int64_t>(interval.count(), 1))) {}

std::optional<StateSampler::Sample> StateSampler::Poll(std::uint64_t now_ns) {
  if (now_ns < next_ns_) return std::nullopt;
  procmem::GoroutineStatesOptions opts;
  opts.labels = labels_ != nullptr;
  auto states = procmem::ReadGoroutineStates(mem_, layout_, addrs_, opts);
  std::optional<Sample> out;
  std::uint64_t begin = now_ns;
  if (states) {
    begin = states->begin_ts_ns;
    out = Sample{states->begin_ts_ns, procmem::GoroutineStatesMessage(*states, layout_)};
    if (labels_) {
      // Sets are read afresh each sample: between two, a GC may have freed a set and
      // another may sit at its address (no GC events here to forget the cache by).
      labels_->Forget();
      out->message += procmem::GoroutineLabelsMessage(*states, [this](std::uint64_t p) { return labels_->TextNow(p); });
    }
    ++stats_.samples;
    stats_.max_goroutines = std::max(stats_.max_goroutines, states->live());
  } else {
    ++stats_.failures;
    last_error_ = states.error();
  }
  const std::uint64_t cost = procmem::MonoNowNs() - std::min(begin, now_ns);
  const double ms = double(cost) / 1e6;
  stats_.total_ms += ms;
  stats_.max_ms = std::max(stats_.max_ms, ms);
  next_ns_ = now_ns + std::max(interval_ns_, kCostFactor * cost);
  return out;
}

}  // namespace gotraced::session
