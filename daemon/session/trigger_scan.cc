#include "daemon/session/trigger_scan.h"

#include <fmt/format.h>

namespace gotraced::session {

std::string_view TriggerKindName(TriggerKind k) {
  switch (k) {
    case TriggerKind::kStw: return "stw";
    case TriggerKind::kSyscall: return "syscall";
    case TriggerKind::kSchedLatency: return "sched_latency";
    case TriggerKind::kCpuThrottle: return "cpu_throttle";
  }
  return "?";
}

TriggerScan::TriggerScan(TriggerThresholds t, std::function<void(const TriggerHit &)> fire)
    : t_(t), fire_(std::move(fire)) {}

bool TriggerScan::enabled() const { return t_.stw_ns || t_.syscall_ns || t_.sched_latency_ns; }

void TriggerScan::OnRecord(const model::Record &r) {
  using model::RecordKind;
  auto hit = [&](TriggerKind k, std::uint64_t since, model::Goid g, std::string what) {
    const std::uint64_t d = r.ts > since ? r.ts - since : 0;
    fire_(TriggerHit{k, r.ts, d, g, fmt::format("{} {:.1f} ms{}", TriggerKindName(k), d / 1e6, what)});
  };
  switch (r.kind) {
    case RecordKind::kSTWBegin:
      if (t_.stw_ns) stw_[r.m] = {r.ts, std::string(r.reason)};
      return;
    case RecordKind::kSTWEnd:
      if (auto it = stw_.find(r.m); it != stw_.end()) {
        if (r.ts >= it->second.first + t_.stw_ns)
          hit(TriggerKind::kStw, it->second.first, 0, fmt::format(" ({})", it->second.second));
        stw_.erase(it);
      }
      return;
    case RecordKind::kGoSyscallBegin:
      if (t_.syscall_ns) sys_[r.m] = {r.ts, r.g};
      return;
    case RecordKind::kGoSyscallEnd:
    case RecordKind::kGoSyscallEndBlocked:
      if (auto it = sys_.find(r.m); it != sys_.end()) {
        if (r.ts >= it->second.first + t_.syscall_ns)
          hit(TriggerKind::kSyscall, it->second.first, it->second.second,
              fmt::format(" (goroutine {})", it->second.second));
        sys_.erase(it);
      }
      return;
    case RecordKind::kGoUnblock:
    case RecordKind::kGoCreate:
      if (t_.sched_latency_ns) runnable_.try_emplace(r.target_g, r.ts);
      return;
    case RecordKind::kGoStop:
      if (t_.sched_latency_ns && r.g != model::kUnknownG) runnable_.try_emplace(r.g, r.ts);
      return;
    case RecordKind::kGoStart:
      if (auto it = runnable_.find(r.target_g); it != runnable_.end()) {
        if (r.ts >= it->second + t_.sched_latency_ns)
          hit(TriggerKind::kSchedLatency, it->second, r.target_g, fmt::format(" (goroutine {} runnable)", r.target_g));
        runnable_.erase(it);
      }
      return;
    case RecordKind::kGoEnd:
      if (r.g != model::kUnknownG) runnable_.erase(r.g);
      return;
    default:
      return;
  }
}

}  // namespace gotraced::session
