// serve's triggers (config.h [watch.triggers]): per target, the moments that cross a
// threshold are queued by the recording (session/trigger_scan.h: STW, syscall, scheduling
// latency) or found here (CPU throttling of the process's cgroup, cgroup_cpu.h, read once a
// second), and each one that the rate limit lets through saves, to the spool (spool.h):
//   NAME.before.trace  the flight window as it is then (the level's past, including the
//                      moment: the generation in progress is ended first),
//   NAME.after.trace   after_seconds of a recording at level full beside the always-on one.
// NAME = <exe>-<pid>-<UTC time>-<kind>. With [upload], each file saved is queued for the
// uploader (Service::SaveToSpool: its manifest saved with it, no network). A save runs on a thread of its own; while it runs
// (and for min_interval_seconds after it began) further crossings are counted as
// rate-limited, so a storm of them costs one save.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "daemon/service/cgroup_cpu.h"
#include "daemon/service/config.h"
#include "daemon/session/trigger_scan.h"

namespace gotraced::service {

class Recording;
class Service;
struct Target;

struct TriggerStats {
  std::map<std::string, std::uint64_t> fired;  // saves begun, by kind
  std::uint64_t rate_limited = 0;              // crossings not saved (a save ran or was too recent)
  std::uint64_t files = 0;                     // files written to the spool
  std::uint64_t errors = 0;                    // saves that failed (spool full/unwritable, recording refused)
  std::vector<std::string> recent;             // names of the last files saved (at most 8)
  std::string last_error;
};

class TargetTriggers {
 public:
  explicit TargetTriggers(TriggerConfig cfg);
  ~TargetTriggers();  // joins a save in progress
  const TriggerConfig &config() const { return cfg_; }
  session::TriggerThresholds Thresholds() const;
  // From the recording's thread (SessionOptions::on_trigger).
  void Queue(const session::TriggerHit &hit);
  // From the target's thread, after each poll: the cgroup check and the queue. `rec`, the
  // target's always-on recording, gets a note at each save's moment (Recording::Note).
  void Poll(Service &svc, const std::shared_ptr<Target> &t, Recording *rec = nullptr);
  TriggerStats Stats() const;
  void Join();  // waits for a save in progress (the target's thread, before it ends)

 private:
  void Save(Service &svc, std::shared_ptr<Target> t, session::TriggerHit hit);
  TriggerConfig cfg_;
  mutable std::mutex mu_;
  std::deque<session::TriggerHit> pending_;
  TriggerStats stats_;
  std::optional<std::chrono::steady_clock::time_point> last_save_;
  std::atomic<bool> saving_{false};
  std::thread worker_;
  // CPU throttling: the cgroup's cpu.stat and its last reading.
  std::optional<std::string> cpu_stat_;
  bool cpu_stat_looked_up_ = false;
  std::optional<CpuThrottle> last_throttle_;
  std::chrono::steady_clock::time_point next_throttle_read_{};
};

// A dump asked to upload (api.cc: /flight or /trace with upload=1): the window as it is
// now (seconds 0) or the next `seconds` at level full, saved to the spool as
// <exe>-<pid>-<UTC time>-dump.trace and queued for upload like a trigger's files.
struct SavedDump {
  std::string file;  // its name in the spool
  std::uint64_t bytes = 0;
  std::string key;   // the object key it is queued under
};
bool SaveDumpToSpool(Service &svc, const std::shared_ptr<Target> &t, double seconds, SavedDump *saved,
                     std::string *error);

}  // namespace gotraced::service
