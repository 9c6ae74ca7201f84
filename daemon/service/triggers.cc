#include "daemon/service/triggers.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <time.h>

#include <filesystem>

#include "daemon/service/flight_recorder.h"
#include "daemon/service/recording.h"
#include "daemon/service/service.h"
#include "daemon/container/identity.h"
#include "daemon/gobin/elf_file.h"

namespace gotraced::service {

namespace {

using SteadyClock = std::chrono::steady_clock;

std::uint64_t MonoNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::uint64_t(ts.tv_sec) * 1000000000ull + std::uint64_t(ts.tv_nsec);
}

// 20261201T174455.123Z
std::string UtcStamp() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  tm t{};
  gmtime_r(&ts.tv_sec, &t);
  return fmt::format("{:04}{:02}{:02}T{:02}{:02}{:02}.{:03}Z", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour,
                     t.tm_min, t.tm_sec, ts.tv_nsec / 1000000);
}

// A trace file of the generations held (header + each, rebased for the legacy formats).
bool DumpBytes(const FlightRecorder::Dump &d, std::vector<std::uint8_t> &out, std::string *error) {
  if (d.header.empty() || d.generations.empty()) {
    if (error) *error = "no generation held";
    return false;
  }
  TraceChunker chunker;
  for (const GenerationChunk &c : d.generations)
    if (!chunker.Next(d.header, c, out, error)) return false;
  return true;
}

// The window as it is now, with the generation in progress ended first (like /flight),
// once the model has applied the moment: the pipeline applies a record when the newest
// record is 1 ms past it (pipeline.cc kModelSlackNs) and polls every 100 ms, so a cut
// asked for 300 ms after the moment (CLOCK_MONOTONIC, steady_clock's clock on Linux)
// holds it.
bool WindowNow(const std::shared_ptr<Target> &t, std::uint64_t moment_ns, std::vector<std::uint8_t> &out,
               std::string *error) {
  const std::uint64_t ready = moment_ns + 300'000'000;
  for (std::uint64_t now = MonoNs(); now < ready && t->live(); now = MonoNs())
    std::this_thread::sleep_for(std::chrono::nanoseconds(ready - now));
  auto sub = t->rec->Subscribe();
  if (t->live()) {
    t->advance = true;
    t->wake.Wake();
    const auto deadline = SteadyClock::now() + 2 * t->generation_period + std::chrono::seconds(2);
    sub->Next(deadline);
  }
  return DumpBytes(t->rec->Snapshot(), out, error);
}

// What the upload's key and metadata say of a saved file (daemon/upload/key_template.h).
// The moment is the hit's CLOCK_MONOTONIC time, also given on CLOCK_REALTIME.
// `trigger`: the kind (session::TriggerKindName), or "dump" for a dump asked to upload.
upload::TraceFacts Facts(const Target &t, std::string_view trigger, std::uint64_t at_ns, std::string_view part,
                         double window_seconds) {
  upload::TraceFacts f;
  f.exe = t.info.exe;
  f.pid = t.info.pid;
  const session::SessionStats st = t.Stats();
  f.go_version = st.go_version;
  f.trace_format = st.trace_format;
  if (auto elf = gobin::ElfFile::Open(t.info.exe); elf.ok()) f.build_id = elf.value()->go_build_id();
  f.trigger = std::string(trigger);
  f.part = std::string(part);
  f.at_mono_ns = at_ns;
  timespec rt{};
  clock_gettime(CLOCK_REALTIME, &rt);
  const std::int64_t now_rt = std::int64_t(rt.tv_sec) * 1000000000 + rt.tv_nsec;
  f.at_unix_ns = now_rt - static_cast<std::int64_t>(MonoNs() - std::min(at_ns, MonoNs()));
  f.window_seconds = window_seconds;
  // Container and pod (daemon/container/identity.h), empty for a process in none.
  const container::Identity id = container::ReadIdentity(t.info.pid);
  f.container = id.container_name.empty() ? id.short_id() : id.container_name;
  if (!id.pod_name.empty()) f.pod = id.pod_namespace + "/" + id.pod_name;
  return f;
}

// The spool name of a save, before its ".part.trace": <namespace>_<pod>_<container>- first
// for a process in a pod (container::FileStem), so a spool listing or an object store's
// prefix search finds a pod's files; then <exe>-<pid>-<UTC time>-<kind>.
std::string SpoolBase(const Target &t, std::string_view kind) {
  const std::string stem = container::FileStem(t.info.identity);
  return fmt::format("{}{}{}-{}-{}-{}", stem, stem.empty() ? "" : "-",
                     std::filesystem::path(t.info.exe).filename().string(), t.info.pid, UtcStamp(), kind);
}

// `seconds` of the process at level full, beside its always-on recording (as an
// escalation: api.cc HandleAdhocTrace).
bool FullDetail(Service &svc, const std::shared_ptr<Target> &t, double seconds, std::vector<std::uint8_t> &out,
                std::string *error) {
  std::string why;
  if (svc.BeginAdhoc(t->info, &why) != AdhocAdmission::kAdmitted) {
    if (error) *error = "full detail not recorded: " + why;
    return false;
  }
  struct EndAdhoc {
    Service &svc;
    pid_t pid;
    ~EndAdhoc() { svc.EndAdhoc(pid); }
  } end_adhoc{svc, t->info.pid};
  const Config cfg = svc.config();
  // The always-on recording checked this binary: no self-check. The standby loaded ahead
  // (standby.h) when there is one: full detail from ~20 ms after the moment, not ~130.
  const RecordingOptions ro =
      FullRecordingOptions(cfg, t->info.pid, t->info.binary, t->events, t->info.start_time, false);
  bool ahead = false;
  FullRecording full = TakeFullRecording(cfg, t.get(), ro, &ahead);
  std::shared_ptr<FlightRecorder> rec = full.rec;
  rec->SetWindow(FlightWindow{seconds + 3600, cfg.memory_bytes / 4});  // all of it, read at the end
  std::unique_ptr<Recording> &r = full.recording;
  struct Escalating {
    Target &t;
    explicit Escalating(Target &x) : t(x) { t.escalating = true; }
    ~Escalating() { t.escalating = false; }
  } escalating{*t};
  if (!r->Start(&why)) {
    if (error) *error = "full detail not recorded: " + why;
    return false;
  }
  svc.AdhocStarted(t->info.pid);
  t->escalations++;
  svc.CountEscalation();
  const auto end = SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(seconds));
  while (SteadyClock::now() < end && r->Poll(std::chrono::milliseconds(100))) {
  }
  r->Stop(nullptr);  // the last generation, the recorder closed
  return DumpBytes(rec->Snapshot(), out, error);
}

}  // namespace

TargetTriggers::TargetTriggers(TriggerConfig cfg) : cfg_(cfg) {}

TargetTriggers::~TargetTriggers() {
  // The save's thread may hold the last reference to its Target (and so to this).
  if (worker_.joinable()) {
    if (worker_.get_id() == std::this_thread::get_id()) worker_.detach();
    else worker_.join();
  }
}

void TargetTriggers::Join() {
  if (worker_.joinable() && worker_.get_id() != std::this_thread::get_id()) worker_.join();
}

session::TriggerThresholds TargetTriggers::Thresholds() const {
  session::TriggerThresholds t;
  t.stw_ns = static_cast<std::uint64_t>(cfg_.stw_ms * 1e6);
  t.syscall_ns = static_cast<std::uint64_t>(cfg_.syscall_ms * 1e6);
  t.sched_latency_ns = static_cast<std::uint64_t>(cfg_.sched_latency_ms * 1e6);
  return t;
}

void TargetTriggers::Queue(const session::TriggerHit &hit) {
  std::lock_guard<std::mutex> lock(mu_);
  if (pending_.size() < 64) pending_.push_back(hit);
  else stats_.rate_limited++;
}

TriggerStats TargetTriggers::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

void TargetTriggers::Poll(Service &svc, const std::shared_ptr<Target> &t, Recording *rec) {
  const auto now = SteadyClock::now();
  // CFS throttling (cgroup_cpu.h), once a second: the throttled time per throttled period
  // since the last reading.
  if (cfg_.cpu_throttle_ms > 0 && now >= next_throttle_read_) {
    next_throttle_read_ = now + std::chrono::seconds(1);
    if (!cpu_stat_looked_up_) {
      cpu_stat_looked_up_ = true;
      cpu_stat_ = CpuStatPath(t->info.pid);
      if (!cpu_stat_) spdlog::warn("pid {}: no cpu.stat for its cgroup: cpu_throttle_ms cannot fire", t->info.pid);
      if (cpu_stat_) {
        const std::optional<CpuQuota> q = ReadCpuQuota(*cpu_stat_);
        if (!q || !q->quota_us)
          spdlog::info("pid {}: its cgroup ({}) has no CPU quota: cpu_throttle_ms fires only if one is set", t->info.pid,
                       *cpu_stat_);
        else
          spdlog::info("pid {}: CPU quota {:.1f} ms per {:.1f} ms ({})", t->info.pid, *q->quota_us / 1e3,
                       q->period_us / 1e3, *cpu_stat_);
      }
    }
    if (cpu_stat_) {
      std::optional<CpuThrottle> cur = ReadCpuThrottle(*cpu_stat_);
      if (cur && last_throttle_ && cur->nr_throttled > last_throttle_->nr_throttled) {
        const std::uint64_t periods = cur->nr_throttled - last_throttle_->nr_throttled;
        const std::uint64_t ns = cur->throttled_ns - last_throttle_->throttled_ns;
        const std::uint64_t per = ns / periods;
        if (per >= static_cast<std::uint64_t>(cfg_.cpu_throttle_ms * 1e6))
          Queue(session::TriggerHit{session::TriggerKind::kCpuThrottle, MonoNs(), per, 0,
                                    fmt::format("cpu_throttle {:.1f} ms per throttled period ({} of {} periods, {})",
                                                per / 1e6, periods, cur->nr_periods - last_throttle_->nr_periods,
                                                *cpu_stat_)});
      }
      if (cur) last_throttle_ = cur;
    }
  }
  std::deque<session::TriggerHit> hits;
  {
    std::lock_guard<std::mutex> lock(mu_);
    hits.swap(pending_);
  }
  if (hits.empty()) return;
  const bool busy = saving_.load();
  const bool recent = last_save_ && now - *last_save_ < std::chrono::duration<double>(cfg_.min_interval_seconds);
  std::size_t skip = hits.size() - 1;
  if (busy || recent) {
    skip = hits.size();
  } else {
    if (worker_.joinable()) worker_.join();
    last_save_ = now;
    saving_ = true;
    {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.fired[std::string(session::TriggerKindName(hits.front().kind))]++;
    }
    // at_ns: the end of the interval that crossed the threshold, CLOCK_MONOTONIC (the
    // traces' clock), so a reader of the spool finds the moment in the files.
    spdlog::info("pid {} ({}): trigger {} (at_ns={}): saving the window and {} s at full detail to the spool",
                 t->info.pid, t->info.exe, hits.front().what, hits.front().ts, cfg_.after_seconds);
    // A cgroup reading's moment is no event of the trace (the others are: the STW, the
    // syscall, the late start): write it in (a "gotraced: trigger" log), so the
    // saved window shows where it fired even when nothing else happened then, as a
    // throttled process at level low may write no event for hundreds of ms. (Noted now,
    // with the moment just read, so no generation was cut past it yet.)
    if (rec && hits.front().kind == session::TriggerKind::kCpuThrottle)
      rec->Note(hits.front().ts, "gotraced: trigger", hits.front().what);
    worker_ = std::thread([this, &svc, t, hit = hits.front()] { Save(svc, t, hit); });
  }
  if (skip) {
    std::lock_guard<std::mutex> lock(mu_);
    stats_.rate_limited += skip;
  }
}

void TargetTriggers::Save(Service &svc, std::shared_ptr<Target> t, session::TriggerHit hit) {
  const Config cfg = svc.config();
  // <namespace>_<pod>_<container>- first for a process in a pod (container::FileStem), so
  // a spool listing or an object store's prefix search finds a pod's files.
  const std::string base = SpoolBase(*t, session::TriggerKindName(hit.kind));
  auto note = [&](bool ok, const std::string &name, const std::string &err) {
    std::lock_guard<std::mutex> lock(mu_);
    if (ok) {
      stats_.files++;
      stats_.recent.push_back(name);
      if (stats_.recent.size() > 8) stats_.recent.erase(stats_.recent.begin());
    } else {
      stats_.errors++;
      stats_.last_error = err;
    }
  };
  for (const char *part : {"before", "after"}) {
    std::vector<std::uint8_t> bytes;
    std::string err;
    const bool got = std::string_view(part) == "before" ? WindowNow(t, hit.ts, bytes, &err)
                                                        : FullDetail(svc, t, cfg_.after_seconds, bytes, &err);
    const std::string name = base + "." + part + ".trace";
    const bool before = part == std::string_view("before");
    const upload::TraceFacts facts = Facts(*t, session::TriggerKindName(hit.kind), hit.ts, part,
                                           before ? t->rec->Stats().seconds_held : cfg_.after_seconds);
    if (got && svc.SaveToSpool(name, bytes, &facts, &err)) {
      note(true, name, "");
      spdlog::info("pid {}: trigger {}: saved {}/{} ({} bytes)", t->info.pid, session::TriggerKindName(hit.kind),
                   cfg.spool_dir, name, bytes.size());
    } else {
      note(false, name, err);
      spdlog::warn("pid {}: trigger {}: {} not saved: {}", t->info.pid, session::TriggerKindName(hit.kind), name, err);
    }
  }
  saving_ = false;
}

bool SaveDumpToSpool(Service &svc, const std::shared_ptr<Target> &t, double seconds, SavedDump *saved,
                     std::string *error) {
  const std::uint64_t at = MonoNs();
  std::vector<std::uint8_t> bytes;
  if (seconds > 0 ? !FullDetail(svc, t, seconds, bytes, error) : !WindowNow(t, at, bytes, error)) return false;
  const upload::TraceFacts facts = Facts(*t, "dump", at, "", seconds > 0 ? seconds : t->rec->Stats().seconds_held);
  saved->file = SpoolBase(*t, "dump") + ".trace";
  saved->bytes = bytes.size();
  if (!svc.SaveToSpool(saved->file, bytes, &facts, error, &saved->key)) return false;
  spdlog::info("pid {}: dump saved to {}/{} ({} bytes){}", t->info.pid, svc.config().spool_dir, saved->file, bytes.size(),
               saved->key.empty() ? "" : ", queued for upload as " + saved->key);
  return true;
}

}  // namespace gotraced::service
