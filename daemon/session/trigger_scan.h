// TriggerScan: watches the decoded records of a recording for the moments serve's
// triggers name (service/config.h [watch.triggers]): a stop-the-world longer than X ms,
// a goroutine syscall longer than X ms, and (where scheduling is recorded: levels full
// and sched) a goroutine runnable for longer than X ms before it ran. Pure bookkeeping
// over model::Record (record.h), no I/O: the pipeline hands it every decoded record and
// it reports each crossing once through the callback, from the recording's thread.
//
// The records are the ones the model is about to apply: an STW range is STWBegin ->
// STWEnd on one thread (runtime/proc.go stopTheWorldWithSema / startTheWorldWithSema);
// a syscall GoSyscallBegin -> GoSyscallEnd / EndBlocked on one thread; a scheduling delay
// GoUnblock / GoCreate / GoStop (runnable) -> GoStart of that goroutine.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>

#include "daemon/model/record.h"

namespace gotraced::session {

enum class TriggerKind : std::uint8_t { kStw, kSyscall, kSchedLatency, kCpuThrottle };
std::string_view TriggerKindName(TriggerKind k);  // "stw", "syscall", "sched_latency", "cpu_throttle"

struct TriggerThresholds {
  std::uint64_t stw_ns = 0;            // 0 = off
  std::uint64_t syscall_ns = 0;
  std::uint64_t sched_latency_ns = 0;
};

struct TriggerHit {
  TriggerKind kind = TriggerKind::kStw;
  std::uint64_t ts = 0;        // when the long interval ended (CLOCK_MONOTONIC ns)
  std::uint64_t duration_ns = 0;
  std::uint64_t goroutine = 0; // 0 when none
  std::string what;            // for the log: "STW 12.3 ms (GC mark termination)"
};

class TriggerScan {
 public:
  TriggerScan(TriggerThresholds t, std::function<void(const TriggerHit &)> fire);
  bool enabled() const;
  void OnRecord(const model::Record &r);

 private:
  TriggerThresholds t_;
  std::function<void(const TriggerHit &)> fire_;
  std::unordered_map<model::ThreadId, std::pair<std::uint64_t, std::string>> stw_;   // M -> begin ts, reason
  std::unordered_map<model::ThreadId, std::pair<std::uint64_t, model::Goid>> sys_;   // M -> begin ts, goroutine
  std::unordered_map<model::Goid, std::uint64_t> runnable_;                          // G -> since
};

}  // namespace gotraced::session
