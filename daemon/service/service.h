// Service: the always-on flight recorder behind `gotraced serve`.
//
//   discovery  /proc scan at start and every rescan_seconds, plus exec/exit notifications
//              (exec_watch.h): a process that matches a [[watch]] rule gets a Target.
//   targets    one thread per traced process driving a Recording (session::Session) whose
//              sink is the process's FlightRecorder; a process that exits keeps its window
//              (state "exited") until the cap evicts it or keep_exited is exceeded.
//   memory     FlightStore enforces memory_mb over all windows; once a second the daemon's
//              RSS is measured and the windows' share of the cap shrinks by whatever the
//              rest of the daemon (BPF rings, model state, binaries) uses, so RSS stays
//              under memory_mb. Windows can shrink, a target's own cost cannot: a process
//              whose cost would not fit under the cap is not attached (logged, counted,
//              tried again at the next rescan).
//   endpoint   HTTP on a Unix socket (api.cc): /processes, /flight, /trace, /metrics.
//   upload     [upload] (daemon/upload/uploader.h): the files triggers save are queued for
//              a background uploader; the store is checked at start and reload.
//   reload     ApplyConfig (SIGHUP): targets that still match keep recording and keep
//              their windows; ones that no longer match are detached (window kept); new
//              matches are attached. A config that cannot be applied leaves the old one.
//
// Threading: Start/Step/ApplyConfig/Stop from one thread (the serve loop); the endpoint's
// threads read targets under mu_.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "daemon/service/config.h"
#include "daemon/service/discovery.h"
#include "daemon/service/endpoint.h"
#include "daemon/service/exe_filter.h"
#include "daemon/service/exec_watch.h"
#include "daemon/service/flight_recorder.h"
#include "daemon/service/triggers.h"
#include "daemon/service/recording.h"
#include "daemon/service/standby.h"
#include "daemon/service/wake_event.h"
#include "daemon/upload/uploader.h"

namespace gotraced::service {

enum class TargetState { kAttaching, kRecording, kExited, kDetached, kFailed };
std::string_view TargetStateName(TargetState s);

struct Target {
  ProcInfo info;
  int rule_line = 0;
  std::uint32_t events = kEventDefault;
  session::CaptureLevel level = session::CaptureLevel::kFull;  // of the always-on recording
  std::shared_ptr<FlightRecorder> rec;
  // Escalations to full (dump --seconds / /trace?seconds= of a target below full): a
  // second recording of the process at level full alongside this one, for S seconds.
  std::atomic<std::uint64_t> escalations{0};
  std::atomic<double> last_escalation_ms{0};  // its start: request -> probes attached, snapshot taken
  // The next escalation's recording, loaded ahead by the target's thread (standby.h);
  // guarded by mu. Taken (moved out) by an escalation whose options it matches.
  std::unique_ptr<FullRecording> standby;
  // An escalation of this target is recording: the next standby waits for its end (a BPF
  // load is ~130 ms of a core, which a full-detail recording's consumer needs then).
  std::atomic<bool> escalating{false};
  std::shared_ptr<TargetTriggers> triggers;   // [watch.triggers] (triggers.h); null when none
  std::chrono::milliseconds generation_period{1000};

  std::atomic<TargetState> state{TargetState::kAttaching};
  std::atomic<bool> stop{false};  // detach requested
  std::atomic<bool> advance{false};  // a dump asks for the generation in progress (RequestAdvance)
  // Ends the recording loop's wait: written after setting stop or advance (wake_event.h).
  WakeEvent wake;
  std::atomic<bool> done{false};  // thread finished
  // The process exec'd (an exec notification for its pid): what runs now is another
  // program even when it is the same binary; this recording ends at the exec record.
  std::atomic<bool> execed{false};
  std::thread thread;

  mutable std::mutex mu;  // guards the fields below
  session::SessionStats stats;
  std::string error;
  int attach_attempts = 0;
  std::chrono::system_clock::time_point attached_at{}, ended_at{};

  session::SessionStats Stats() const {
    std::lock_guard<std::mutex> lock(mu);
    return stats;
  }
  bool live() const {
    TargetState s = state.load();
    return s == TargetState::kAttaching || s == TargetState::kRecording;
  }
};

struct ServiceCounters {
  std::uint64_t attach_errors = 0;
  std::uint64_t attached = 0;
  std::uint64_t detached = 0;
  std::uint64_t exited = 0;
  std::uint64_t exec_events = 0;
  std::uint64_t exec_skips = 0;    // executables named to the kernel as never traced (exe_filter.h)
  std::uint64_t proc_reads = 0;    // full reads of a process's /proc (ReadProcInfo) by discovery
  std::uint64_t rescans = 0;
  std::uint64_t reloads = 0;
  std::uint64_t reload_errors = 0;
  std::uint64_t access_denied = 0;
  std::uint64_t attach_refused_memory = 0;  // matching processes not attached: memory_mb reached
  std::uint64_t adhoc_traces = 0;           // ad-hoc /trace recordings started
  std::uint64_t adhoc_refused = 0;          // ad-hoc /trace requests refused (busy pid or memory_mb)
  std::uint64_t escalations = 0;            // /trace?seconds= of a watched target below level full
};

// Why an ad-hoc /trace may not start now; kAdmitted when it may.
enum class AdhocAdmission { kAdmitted, kBusy, kNoMemory };

class Service {
 public:
  explicit Service(Config cfg);
  ~Service();
  Service(const Service &) = delete;
  Service &operator=(const Service &) = delete;

  bool Start(std::string *error);
  // One turn of the loop: waits up to ~200 ms for exec/exit notifications, attaches and
  // detaches, rescans when due, adjusts the memory budget once a second.
  void Step();
  // Switches to `cfg` (see file comment). On failure the old config stays in force.
  bool ApplyConfig(Config cfg, std::string *error);
  // Detaches everything (windows are lost with the process) and closes the endpoint.
  void Stop();

  Config config() const;
  std::vector<std::shared_ptr<Target>> Targets() const;
  // The live target of pid, else the most recently ended one; nullptr if none.
  std::shared_ptr<Target> FindTarget(pid_t pid) const;
  ServiceCounters counters() const;
  const FlightStore &store() const { return store_; }
  const Endpoint *endpoint() const { return endpoint_.get(); }
  const Endpoint *metrics_endpoint() const { return metrics_endpoint_.get(); }
  std::uint64_t exec_events_lost() const { return watcher_ ? watcher_->lost() : 0; }
  std::uint64_t exec_events_filtered() const { return watcher_ ? watcher_->filtered() : 0; }
  // One line for systemd's STATUS=.
  std::string StatusLine() const;
  void CountDenied();
  void CountReloadError();

  // Saves `bytes` as `name` in the spool ([spool], spool.h), whole or not at all. With
  // `upload` facts and an [upload] table, the file is pending upload from the moment it
  // is there (its manifest saved with it; no network) and the uploader is woken. A pending
  // file the spool's cap evicts is counted as lost (Uploader::NoteEvicted).
  // *key: the object key it is queued under ("" when not queued).
  bool SaveToSpool(const std::string &name, const std::vector<std::uint8_t> &bytes,
                   const upload::TraceFacts *upload, std::string *error, std::string *key = nullptr);
  upload::UploadStats UploadStats() const { return uploader_.Stats(); }

  // Admission of an ad-hoc /trace (a process no [[watch]] rule traces): it costs what a
  // watched target costs (BPF ring, mapped binary, model), so it passes the same
  // memory_mb check, and one pid has one ad-hoc recording at a time (a second would
  // probe every runtime function twice). kAdmitted reserves the pid until EndAdhoc; the
  // reservation counts as a target being attached until AdhocStarted.
  AdhocAdmission BeginAdhoc(const ProcInfo &info, std::string *why);
  void AdhocStarted(pid_t pid);
  void CountEscalation();  // an ad-hoc trace that escalates a watched target to full
  void EndAdhoc(pid_t pid);

 private:
  void Rescan();
  // *no_target (if given): the process's start time when it is settled that it is no
  // target (no rule selects it, or it runs no Go program), else 0.
  bool Consider(pid_t pid, std::uint64_t *no_target = nullptr);
  // The kernel sends pid's execs and exits while it is pending a look or a live target's
  // (exec_watch.h Watch); called whenever either may have changed.
  void SyncWatched(pid_t pid);
  // An exec of a program that is surely not Go (exe_filter.h), judged from its record
  // alone when the process is gone already; the kernel is told to stop sending its execs.
  bool NotGoExec(const ProcEvent &e);
  // Logs the first verdict that p's executable is not Go: at info when a rule names it.
  void SayNotGo(const ProcInfo &p);
  void Attach(const ProcInfo &info, int rule);
  void RunTarget(std::shared_ptr<Target> t, RecordingOptions ro, bool synthetic);
  // Makes t.standby (standby.h) unless one made under the current config is there.
  // False (logged) when the load failed.
  bool PrepareStandby(Target &t);
  void Sweep();
  void AdjustBudget();
  bool StartEndpoint(const Config &cfg, std::unique_ptr<Endpoint> *out, std::string *error);
  FlightWindow WindowFor(const Config &cfg, int rule) const;
  bool MemoryAdmits(const Config &cfg, const ProcInfo &info, std::size_t ring_bytes, std::string *why);
  // [upload] of cfg made usable and the store asked (uploader.h CheckStore); false with
  // *error for what a retry would not change. *out stays empty without [upload].
  static bool PrepareUpload(const Config &cfg, std::optional<upload::UploadSettings> *out, std::string *error);

  mutable std::mutex mu_;  // config_, targets_, counters_, adhoc_
  Config config_;
  std::vector<std::shared_ptr<Target>> targets_;
  ServiceCounters counters_;

  FlightStore store_;
  std::unique_ptr<Endpoint> endpoint_;
  std::unique_ptr<Endpoint> metrics_endpoint_;  // [endpoint] metrics_address (TCP), if set
  std::unique_ptr<ExecWatcher> watcher_;
  std::map<pid_t, std::chrono::steady_clock::time_point> pending_;  // exec'd pids to look at
  std::set<pid_t> watched_;         // what watcher_ was told to Watch (serve loop only)
  ExeVerdicts exe_verdicts_;        // Go or not, per executable (serve loop only)
  RescanMemo rescan_memo_;          // processes rescans need not read again (serve loop only)
  std::uint64_t rescan_lost_seen_ = 0;
  std::chrono::steady_clock::time_point next_rescan_{}, next_budget_{};
  std::mutex start_mu_;  // recordings start one at a time (RunTarget)
  // Standbys being loaded (PrepareStandby), under mu_: counted against kStandbyRingBytes
  // with those held, or every target that asks at once passes the check.
  std::size_t standbys_loading_ = 0;
  std::size_t idle_rss_ = 0;                  // RSS before any target (Start)
  std::map<pid_t, std::uint64_t> refused_;    // pid -> start time, logged once as refused
  std::map<pid_t, bool> adhoc_;               // ad-hoc /trace recordings: pid -> started (under mu_)
  upload::Uploader uploader_;
};

// Resident set size of this process in bytes (/proc/self/statm).
std::size_t SelfRss();

}  // namespace gotraced::service
