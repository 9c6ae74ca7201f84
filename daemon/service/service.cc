// Service orchestration. See service.h.
#include "daemon/service/service.h"

#include <malloc.h>
#include <sys/stat.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string_view>

#include "daemon/capture/capture.h"
#include "daemon/procmem/mono_clock.h"
#include "daemon/service/api.h"
#include "daemon/session/malloc_tuning.h"
#include "daemon/session/syscall_path.h"
#include "daemon/service/spool.h"

namespace gotraced::service {

namespace {

using SteadyClock = std::chrono::steady_clock;

// How long after an exec notification the process is looked at: the Go runtime must have
// initialized (schedinit, allp) before its goroutines can be snapshotted.
constexpr auto kExecSettle = std::chrono::milliseconds(50);
// Attach attempts per process, with the pause before each retry.
constexpr std::chrono::milliseconds kAttachBackoff[] = {std::chrono::milliseconds(100), std::chrono::milliseconds(400),
                                                        std::chrono::milliseconds(1000)};
// Of memory_mb, 1/16 is kept free (RSS is measured once a second and moves in between)
// and 1/16 is the least the windows get, so a dump always has something to give.
std::size_t CapMargin(std::size_t cap) { return cap / 16; }
std::size_t WindowFloor(std::size_t cap) { return cap / 16; }
// The loaded objects kept for the next process of an executable (capture.h EnableObjectReuse).
constexpr capture::ObjectPoolLimits kReuseLimits{
    .per_key = 2, .total = 8, .max_bytes = std::size_t{16} << 20, .idle = std::chrono::seconds(10)};

}  // namespace

std::string_view TargetStateName(TargetState s) {
  switch (s) {
    case TargetState::kAttaching: return "attaching";
    case TargetState::kRecording: return "recording";
    case TargetState::kExited: return "exited";
    case TargetState::kDetached: return "detached";
    case TargetState::kFailed: return "failed";
  }
  return "?";
}

std::size_t SelfRss() {
  std::ifstream in("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  in >> size >> resident;
  return resident * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

Service::Service(Config cfg) : config_(std::move(cfg)), store_(config_.memory_bytes) {}

Service::~Service() { Stop(); }

Config Service::config() const {
  std::lock_guard<std::mutex> lock(mu_);
  return config_;
}

std::vector<std::shared_ptr<Target>> Service::Targets() const {
  std::lock_guard<std::mutex> lock(mu_);
  return targets_;
}

std::shared_ptr<Target> Service::FindTarget(pid_t pid) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::shared_ptr<Target> best;
  for (const auto &t : targets_) {
    if (t->info.pid != pid) continue;
    if (t->live()) return t;
    if (!best || t->info.start_time > best->info.start_time) best = t;
  }
  return best;
}

ServiceCounters Service::counters() const {
  std::lock_guard<std::mutex> lock(mu_);
  return counters_;
}

void Service::CountDenied() {
  std::lock_guard<std::mutex> lock(mu_);
  counters_.access_denied++;
}

void Service::CountReloadError() {
  std::lock_guard<std::mutex> lock(mu_);
  counters_.reload_errors++;
}

FlightWindow Service::WindowFor(const Config &cfg, int rule) const {
  const WatchRule &r = cfg.watch[static_cast<std::size_t>(rule)];
  return FlightWindow{cfg.WindowSeconds(r), cfg.WindowBytes(r)};
}

bool Service::StartEndpoint(const Config &cfg, std::unique_ptr<Endpoint> *out, std::string *error) {
  Endpoint::Options eo;
  eo.path = cfg.socket;
  eo.owner = cfg.owner_uid;
  eo.group = cfg.group_gid;
  eo.mode = cfg.mode;
  auto logger = [this](int status, const Peer &peer, const std::string &what, const std::string &detail) {
    const std::string who = fmt::format("uid {} pid {}", static_cast<long>(peer.uid), static_cast<long>(peer.pid));
    if (status == 403) {
      CountDenied();
      spdlog::warn("endpoint: 403 {} for {}{}{}", what, who, detail.empty() ? "" : ": ", detail);
    } else if (status >= 400) {
      spdlog::info("endpoint: {} {} for {}{}{}", status, what.empty() ? "(malformed request)" : what, who,
                   detail.empty() ? "" : ": ", detail);
    } else {
      spdlog::debug("endpoint: {} {} for {}{}{}", status, what, who, detail.empty() ? "" : ": ", detail);
    }
  };
  auto ep = std::make_unique<Endpoint>(
      eo, [this](const http::Request &req, const Peer &peer, ResponseWriter &w) { HandleRequest(*this, req, peer, w); },
      logger);
  if (!ep->Start(error)) return false;
  *out = std::move(ep);
  return true;
}

bool Service::PrepareUpload(const Config &cfg, std::optional<upload::UploadSettings> *out, std::string *error) {
  out->reset();
  if (!cfg.upload) return true;
  std::string why, warning;
  std::optional<upload::UploadSettings> s = upload::ResolveUpload(*cfg.upload, &why);
  if (!s || !upload::CheckStore(*s, &why, &warning)) {
    if (error) *error = fmt::format("{}:{}: [upload]: {}", cfg.path, cfg.upload->line, why);
    return false;
  }
  if (!warning.empty()) spdlog::warn("upload: {}", warning);
  else spdlog::info("upload: s3://{} at {} answers; saved traces go there", s->s3.bucket, s->s3.endpoint.Text());
  *out = std::move(s);
  return true;
}

bool Service::SaveToSpool(const std::string &name, const std::vector<std::uint8_t> &bytes,
                          const upload::TraceFacts *upload, std::string *error, std::string *key) {
  const Config cfg = config();
  Spool spool(cfg.spool_dir, cfg.spool_max_files, cfg.spool_max_bytes,
              [this](const std::string &n, std::uint64_t b, bool pending) {
                if (pending) uploader_.NoteEvicted(n, b, pending);
              });
  std::optional<upload::ManifestEntry> entry;
  if (upload && cfg.upload) {
    std::string why;
    entry = uploader_.Entry(name, *upload, &why);
    if (!entry) spdlog::error("upload: {} stays in the spool, not queued: {}", name, why);
  }
  if (!spool.Save(name, bytes, error, entry ? &*entry : nullptr)) return false;
  if (entry) uploader_.Wake();
  if (key) *key = entry ? entry->key : "";
  return true;
}

bool Service::Start(std::string *error) {
  session::TuneMalloc();  // RSS follows what the flight recorder holds (malloc_tuning.h)
  // A process of an executable seen before takes the loaded object of one that exited
  // (capture.h EnableObjectReuse): its attach loads and verifies nothing (issue 28 part 0:
  // 37 ms of CPU an attach before). At most 2 kept per executable and configuration, 8 in
  // all, 16 MiB of their rings (level low: 1 MiB each by default; kernel memory, mapped by
  // no one, not counted under memory_mb), none idle over 10 s.
  // GOTRACED_OBJECT_REUSE=0: every attach loads its own (benches compare the two:
  // scripts/bench-host.sh --attach).
  const char *reuse = std::getenv("GOTRACED_OBJECT_REUSE");
  capture::EnableObjectReuse(reuse && std::string_view(reuse) == "0" ? capture::ObjectPoolLimits{0, 0, 0, {}} : kReuseLimits);
  capture::ReleaseExitedProbesOnThreads(true);  // (no fork of serve at every target's exit)

  Config cfg = config();
  std::optional<upload::UploadSettings> up;
  if (!PrepareUpload(cfg, &up, error)) return false;
  // Exec notifications before the socket: once the endpoint answers, every exec after it
  // reaches serve (a client or test that starts a program right after the socket appears
  // lost that exec while the watcher's programs were still loading).
  if (cfg.exec_watch) {
    watcher_ = std::make_unique<ExecWatcher>();
    std::string err;
    if (!watcher_->Start(&err)) {
      spdlog::warn("exec notifications unavailable ({}); new processes are found by rescans every {} s", err,
                   cfg.rescan_seconds);
      watcher_.reset();
    }
  }
  if (!StartEndpoint(cfg, &endpoint_, error)) return false;
  uploader_.Configure(std::move(up), cfg.spool_dir);
  idle_rss_ = SelfRss();
  spdlog::info("endpoint listening on {} (owner {}:{}, mode {:04o})", cfg.socket, cfg.owner, cfg.group, cfg.mode);
  if (!cfg.metrics_address.empty()) {
    Endpoint::Options mo;
    mo.tcp_address = cfg.metrics_address;
    mo.max_connections = 8;
    metrics_endpoint_ = std::make_unique<Endpoint>(
        mo, [this](const http::Request &req, const Peer &, ResponseWriter &w) { HandleNetworkRequest(*this, req, w); },
        nullptr);
    if (!metrics_endpoint_->Start(error)) {
      *error = "endpoint.metrics_address: " + *error;
      endpoint_->Stop();
      return false;
    }
    spdlog::info("metrics and readiness on tcp {} (port {}): GET /metrics, /ready", cfg.metrics_address,
                 metrics_endpoint_->tcp_port());
  }
  Rescan();
  next_rescan_ = SteadyClock::now() + std::chrono::milliseconds(static_cast<long long>(cfg.rescan_seconds * 1000));
  return true;
}

void Service::Rescan() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    counters_.rescans++;
  }
  // Lost exec records: a process may run another program than the one remembered.
  if (const std::uint64_t lost = exec_events_lost(); lost != rescan_lost_seen_) {
    rescan_lost_seen_ = lost;
    rescan_memo_.ForgetAll();
  }
  const bool full = rescan_memo_.BeginRescan();
  for (pid_t pid : ListPids()) {
    if (!full && rescan_memo_.Known(pid, ProcessStartTime(pid))) continue;
    std::uint64_t settled = 0;
    Consider(pid, &settled);
    if (settled) rescan_memo_.Remember(pid, settled);
  }
}

bool Service::NotGoExec(const ProcEvent &e) {
  if (!e.has_exe) return false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (config_.synthetic) return false;  // synthetic recordings trace any program (tests)
  }
  std::optional<ExeVerdict> v = exe_verdicts_.Cached(e.exe);
  if (!v) {
    // The process's own link while it lives, else the path it exec'd (most short-lived
    // programs are gone by now); either counts only if it is the file the record names.
    std::optional<ExeLook> look = exe_verdicts_.LookPathExpecting("/proc/" + std::to_string(e.pid) + "/exe", e.exe);
    if (!look && !e.filename.empty() && e.filename[0] == '/') look = exe_verdicts_.LookPathExpecting(e.filename, e.exe);
    if (!look) return false;
    v = look->verdict;
    if (*v == ExeVerdict::kNotGo) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        counters_.exec_skips++;
      }
      ProcInfo p;  // what the record says (a rule's name also matches the file's base name)
      p.pid = e.pid;
      p.exe = e.filename;
      SayNotGo(p);
    }
  }
  if (*v != ExeVerdict::kNotGo) return false;
  // Again when cached: the kernel's map is an LRU that may have dropped it.
  if (watcher_) watcher_->Skip(e.exe);
  return true;
}

// Once per file (later verdicts come from the cache, later execs stop in the kernel): a
// rule aimed at a wrapper script or a C program would otherwise attach nothing and say
// nothing.
void Service::SayNotGo(const ProcInfo &p) {
  bool named;
  {
    std::lock_guard<std::mutex> lock(mu_);
    named = RulesCouldMatch(config_, p);
  }
  if (named)
    spdlog::info("pid {} runs {}, which a [[watch]] rule names but is not a Go program: not attached; "
                 "its execs stop in the kernel from now on",
                 p.pid, p.exe);
  else
    spdlog::debug("exec filter: {} (pid {}) is not a Go program; its execs stop in the kernel from now on", p.exe,
                  p.pid);
}

void Service::SyncWatched(pid_t pid) {
  bool want = pending_.count(pid) > 0;
  if (!want) {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto &t : targets_)
      if (t->info.pid == pid && !t->done.load()) want = true;
  }
  if (want == (watched_.count(pid) > 0)) return;
  if (want) {
    watched_.insert(pid);
    if (watcher_) watcher_->Watch(pid);
  } else {
    watched_.erase(pid);
    if (watcher_) watcher_->Unwatch(pid);
  }
}

// Attaches to pid if it matches a rule and is not traced (or known to fail) already.
// Returns false when the pid should be looked at again shortly (its previous recording,
// of the program it ran before an exec, is still finishing).
//
// Reads in order of cost and stops as soon as it knows (issue 28: every exec of the host
// read all of /proc/PID and the container identity): stat, exe and comm; whether the
// executable is a Go program (once per file; one that is not is named to the kernel,
// whose exec notifications of it stop); whether a rule could select those; only then the
// rest (uid, cgroup, container) for the rules.
bool Service::Consider(pid_t pid, std::uint64_t *no_target) {
  if (no_target) *no_target = 0;
  if (pid == getpid()) return true;
  std::optional<ProcInfo> basics = ReadProcBasics(pid);
  if (!basics) return true;
  bool could_match = false, synthetic = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (adhoc_.count(pid)) return false;  // an ad-hoc /trace probes it now: attach after
    for (const auto &t : targets_) {
      if (t->info.pid != pid || t->info.start_time != basics->start_time) continue;
      // The process exec'd since: another program (or the same binary again, a new
      // runtime) that gets a recording of its own once the old one has ended. Without
      // the exec flag a same-binary exec looked like the live recording itself, and the
      // new program waited for a rescan (suite 65 saw a 2 s program end unrecorded).
      if (t->info.exe != basics->exe || t->execed.load()) {
        if (!t->done.load()) return false;
        continue;
      }
      if (t->live() || t->state.load() == TargetState::kFailed) return true;
      if (!t->done.load()) return false;  // being detached
      // Ended (detached by a reload, or the recording stopped on an error) while the
      // process lives on: attach again if it matches now.
    }
    could_match = RulesCouldMatch(config_, *basics);
    synthetic = config_.synthetic;  // synthetic recordings trace any program (tests)
  }
  if (basics->kernel_thread) {
    if (no_target) *no_target = basics->start_time;
    return true;
  }
  if (!synthetic) {
    std::optional<ExeLook> look = exe_verdicts_.Look(pid);
    if (look && look->verdict == ExeVerdict::kNotGo) {
      // Named again even when cached: the kernel's map is an LRU that may have dropped it.
      if (watcher_) watcher_->Skip(look->key);
      if (!look->cached) {
        {
          std::lock_guard<std::mutex> lock(mu_);
          counters_.exec_skips++;
        }
        SayNotGo(*basics);
      }
      if (no_target) *no_target = basics->start_time;
      return true;
    }
  }
  if (!could_match) {
    if (no_target) *no_target = basics->start_time;
    return true;
  }
  std::optional<ProcInfo> info = ReadProcInfo(pid);
  if (!info) return true;
  int rule;
  {
    std::lock_guard<std::mutex> lock(mu_);
    counters_.proc_reads++;
    rule = MatchRules(config_, *info);
  }
  if (rule < 0) {
    if (no_target) *no_target = info->start_time;
    return true;
  }
  std::string why;
  const Config cfg = config();
  const std::size_t ring = static_cast<std::size_t>(rule) < cfg.watch.size()
                               ? cfg.RingBytes(cfg.Level(cfg.watch[static_cast<std::size_t>(rule)]))
                               : cfg.ring_bytes;
  if (!MemoryAdmits(cfg, *info, ring, &why)) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      counters_.attach_refused_memory++;
    }
    auto [it, fresh] = refused_.try_emplace(pid, info->start_time);
    if (fresh || it->second != info->start_time) {
      it->second = info->start_time;
      spdlog::warn("not tracing pid {} ({}): {}; raise memory_mb, lower ring_mb or watch fewer processes "
                   "(tried again at every rescan)",
                   pid, info->exe, why);
    }
    return true;
  }
  refused_.erase(pid);
  Attach(*info, rule);
  return true;
}

// Whether one more target fits under memory_mb with the windows at their floor. What a
// target costs resident: its BPF ring, which libbpf maps twice back to back (so a record
// that wraps around reads contiguously: libbpf ringbuf.c ringbuf_map_mmap) and which
// therefore counts twice once written around; the pages of its binary that gobin maps;
// its model and encoder state (~2 MiB for a small service: suite 60 measures 8.8 MiB per
// target in all with ring_mb = 2 and a 2.6 MB binary). An average measured over the live
// targets was tried and dropped: with few targets it charges them whatever the daemon
// kept from earlier ones. Windows shrink to make room; a target's own cost cannot, so
// refusing it here is what keeps the RSS under the cap as targets come.
bool Service::MemoryAdmits(const Config &cfg, const ProcInfo &info, std::size_t ring_bytes, std::string *why) {
  constexpr std::size_t kStateBytes = std::size_t{2} << 20;
  std::size_t estimate = kStateBytes;
  if (!cfg.synthetic) {
    estimate += 2 * ring_bytes;
    struct stat st {};
    if (::stat(info.binary.c_str(), &st) == 0) estimate += static_cast<std::size_t>(st.st_size);
  }
  std::size_t live = 0, attaching = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto &t : targets_) {
      if (!t->live()) continue;
      live++;
      if (t->state.load() == TargetState::kAttaching) attaching++;
    }
    // Ad-hoc recordings are in the RSS once started; until then they are costs to come.
    for (const auto &[pid, started] : adhoc_) {
      if (pid == info.pid) continue;  // the one being admitted: the "+ 1" below
      live++;
      if (!started) attaching++;
    }
  }
  const std::size_t rss = SelfRss();
  const std::size_t windows = store_.Stats().bytes;
  const std::size_t overhead = rss > windows ? rss - windows : 0;
  const std::size_t cap = cfg.memory_bytes;
  const std::size_t need = overhead + estimate * (attaching + 1) + CapMargin(cap) + WindowFloor(cap);
  if (need <= cap) return true;
  if (why)
    *why = fmt::format("memory_mb ({} MiB) reached: the daemon holds {} MiB besides the windows ({} targets), one more "
                       "costs ~{} MiB, and {} MiB stay for margin and windows",
                       cap >> 20, overhead >> 20, live, (estimate + (1 << 19)) >> 20,
                       (CapMargin(cap) + WindowFloor(cap)) >> 20);
  return false;
}

AdhocAdmission Service::BeginAdhoc(const ProcInfo &info, std::string *why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (adhoc_.count(info.pid)) {
      counters_.adhoc_refused++;
      if (why) *why = fmt::format("an ad-hoc trace of pid {} is already being recorded; ask again when it ends", info.pid);
      return AdhocAdmission::kBusy;
    }
    adhoc_[info.pid] = false;  // reserved before the memory check, so two requests cannot both pass it
  }
  std::string mem;
  if (!MemoryAdmits(config(), info, config().ring_bytes, &mem)) {
    std::lock_guard<std::mutex> lock(mu_);
    adhoc_.erase(info.pid);
    counters_.adhoc_refused++;
    if (why) *why = mem;
    return AdhocAdmission::kNoMemory;
  }
  std::lock_guard<std::mutex> lock(mu_);
  counters_.adhoc_traces++;
  return AdhocAdmission::kAdmitted;
}

void Service::AdhocStarted(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  if (auto it = adhoc_.find(pid); it != adhoc_.end()) it->second = true;
}

void Service::CountEscalation() {
  std::lock_guard<std::mutex> lock(mu_);
  counters_.escalations++;
}

void Service::EndAdhoc(pid_t pid) {
  std::lock_guard<std::mutex> lock(mu_);
  adhoc_.erase(pid);
}

void Service::Attach(const ProcInfo &info, int rule) {
  Config cfg = config();
  auto t = std::make_shared<Target>();
  t->info = info;
  t->rule_line = cfg.watch[static_cast<std::size_t>(rule)].line;
  t->events = cfg.Events(cfg.watch[static_cast<std::size_t>(rule)]);
  t->level = cfg.Level(cfg.watch[static_cast<std::size_t>(rule)]);
  t->generation_period = cfg.generation_period;
  t->rec = store_.Create(info.pid, WindowFor(cfg, rule));
  RecordingOptions ro;
  ro.pid = info.pid;
  ro.exe = info.binary;
  ro.sink = t->rec.get();
  ro.version = cfg.trace_version;
  ro.ring_bytes = cfg.RingBytes(t->level);
  ro.generation_period = cfg.generation_period;
  ro.events = t->events;
  ro.level = t->level;
  ro.state_sample = cfg.StateSample(cfg.watch[static_cast<std::size_t>(rule)]);
  if (const TriggerConfig &tc = cfg.watch[static_cast<std::size_t>(rule)].triggers; tc.any()) {
    t->triggers = std::make_shared<TargetTriggers>(tc);
    ro.triggers = t->triggers->Thresholds();
    ro.on_trigger = [tt = t->triggers](const session::TriggerHit &h) { tt->Queue(h); };
  }
  ro.cpu_hz = cfg.cpu_hz;
  ro.syscall_min = std::chrono::nanoseconds(static_cast<std::int64_t>(cfg.syscall_min_ms * 1e6));
  ro.syscall_sample = cfg.syscalls_by_sample;
  ro.syscall_switch = cfg.syscalls_by_switch;
  ro.start_time = info.start_time;
  ro.interrupt_fd = t->wake.fd();
  const std::string where = container::Describe(info.identity);
  spdlog::info("attaching to pid {} ({}{}{}) [watch rule at line {}]", info.pid, info.exe, where.empty() ? "" : ", ",
               where, t->rule_line);
  {
    std::lock_guard<std::mutex> lock(mu_);
    targets_.push_back(t);
  }
  SyncWatched(info.pid);  // its exec ends the recording (Step)
  t->thread = std::thread([this, t, ro, synthetic = cfg.synthetic] { RunTarget(t, ro, synthetic); });
}

void Service::RunTarget(std::shared_ptr<Target> t, RecordingOptions ro, bool synthetic) {
  std::unique_ptr<Recording> rec;
  std::string err;
  bool ok = false;
  for (std::size_t attempt = 0;; attempt++) {
    rec = synthetic ? MakeSyntheticRecording(ro) : MakeSessionRecording(ro);
    {
      std::lock_guard<std::mutex> lock(t->mu);
      t->attach_attempts = static_cast<int>(attempt + 1);
    }
    {
      // One load at a time: each parses the kernel's BTF (libbpf, ~10 MiB while it
      // loads), so ten processes found at once would hold ~100 MiB together, far over
      // what they cost once running (and two cores would share ten loads). The attach,
      // snapshot and self-check (up to a second's wait for an idle process's first
      // record) run outside the lock: under it, serve attached one idle process a second.
      std::lock_guard<std::mutex> lock(start_mu_);
      if (t->stop.load()) err = "detached before the recording started";
      else ok = rec->Prepare(&err);
    }
    if (ok) ok = rec->Start(&err);
    if (ok) break;
    rec.reset();
    if (attempt >= std::size(kAttachBackoff) || t->stop.load() || !ProcessAlive(ro.pid, ro.start_time)) break;
    std::this_thread::sleep_for(kAttachBackoff[attempt]);
  }
  if (!ok) {
    const bool gone = !ProcessAlive(ro.pid, ro.start_time);
    {
      std::lock_guard<std::mutex> lock(t->mu);
      t->error = err;
      t->ended_at = std::chrono::system_clock::now();
    }
    t->state = gone ? TargetState::kExited : TargetState::kFailed;
    {
      std::lock_guard<std::mutex> lock(mu_);
      counters_.attach_errors++;
    }
    spdlog::warn("cannot trace pid {} ({}): {}", ro.pid, ro.exe, err);
    t->done = true;
    return;
  }
  {
    std::lock_guard<std::mutex> lock(t->mu);
    t->attached_at = std::chrono::system_clock::now();
    t->stats = rec->Stats();
  }
  t->state = TargetState::kRecording;
  {
    std::lock_guard<std::mutex> lock(mu_);
    counters_.attached++;
  }
  {
    // Level low: which path its syscalls take, the tracepoints' reason included (syscall_path.h).
    const session::SessionStats st = rec->Stats();
    std::string low;
    if (t->level == session::CaptureLevel::kLow)
      low = (t->events & kEventSyscall) ? ", level low, syscalls " + session::SyscallPath(st)
                                        : ", level low, no syscalls";
    // An attach that loaded nothing (capture::EnableObjectReuse) says whose object it took.
    const std::string reused = st.reused_from ? fmt::format(", reusing the loaded object of pid {}", st.reused_from) : "";
    spdlog::info("tracing {} ({}, trace format {}{}{})", container::TargetLog(t->info.identity), st.go_version,
                 st.trace_format, low, reused);
  }
  // Who the trace is of, at its start (what a reader of the file alone cannot know).
  rec->Note(procmem::MonoNowNs(), "gotraced: target", container::TargetLog(t->info.identity));
  auto last_stats = SteadyClock::now();
  // Below level full: keep the next escalation's recording loaded (standby.h). It is
  // made on a thread of its own: a load takes 130-300 ms, which this loop's drains and
  // the cuts that dumps and trigger saves ask for must not wait.
  const bool want_standby = !synthetic && t->level != session::CaptureLevel::kFull;
  // Not before the process has lived kStandbyDelay under recording: a standby costs a full
  // BPF load (130-300 ms of CPU), which a short-lived process (a CLI, a test binary, a
  // cron job) would pay on every start for an escalation it never lives to get (issue 28:
  // 100 processes of 400 ms started at 10/s).
  auto next_standby = SteadyClock::now() + kStandbyDelay;
  std::thread standby_thread;
  std::atomic<bool> standby_busy{false}, standby_failed{false};
  // The loop's wait: a level-low ring is drained every 250 ms at most (session.cc), and
  // waking at 100 ms for nothing was most of its wakes (issue 28 part 1: 13.6 a second);
  // a detach or a dump's cut ends the wait (t->wake). With triggers, 100 ms: a crossing is
  // seen when its record is drained, and is reported within 100 ms, as before.
  const auto poll_wait = t->level == session::CaptureLevel::kLow && !t->triggers ? std::chrono::milliseconds(250)
                                                                                  : std::chrono::milliseconds(100);
  while (!t->stop.load()) {
    // A dump's cut is made by the next poll's drain: that one does not wait (the wake
    // ended the wait before, whose poll saw no request yet).
    const bool cut = t->advance.exchange(false);
    if (cut) rec->RequestAdvance();
    if (!rec->Poll(cut ? std::chrono::milliseconds(0) : poll_wait)) break;
    if (want_standby && !t->escalating.load() && !standby_busy.load() && SteadyClock::now() >= next_standby) {
      if (standby_thread.joinable()) standby_thread.join();
      if (standby_failed.exchange(false)) {
        next_standby = SteadyClock::now() + std::chrono::seconds(60);  // a minute after a failed load
      } else {
        next_standby = SteadyClock::now() + std::chrono::seconds(1);
        standby_busy = true;
        standby_thread = std::thread([this, t, &standby_busy, &standby_failed] {
          if (!PrepareStandby(*t)) standby_failed = true;
          standby_busy = false;
        });
      }
    }
    if (t->triggers) t->triggers->Poll(*this, t, rec.get());  // triggers.h: saves run on their own thread
    if (SteadyClock::now() - last_stats >= std::chrono::milliseconds(250)) {
      last_stats = SteadyClock::now();
      session::SessionStats s = rec->Stats();
      std::lock_guard<std::mutex> lock(t->mu);
      t->stats = std::move(s);
    }
  }
  const bool detached = t->stop.load();
  if (standby_thread.joinable()) standby_thread.join();
  {
    std::lock_guard<std::mutex> lock(t->mu);
    t->standby.reset();  // its BPF object goes with the recording
  }
  if (t->triggers) t->triggers->Join();
  std::string stop_err;
  if (!rec->Stop(&stop_err)) spdlog::warn("pid {}: finishing the trace failed: {}", ro.pid, stop_err);
  {
    std::lock_guard<std::mutex> lock(t->mu);
    t->stats = rec->Stats();
    t->ended_at = std::chrono::system_clock::now();
    if (!rec->last_error().empty()) t->error = rec->last_error();
  }
  t->state = detached ? TargetState::kDetached : TargetState::kExited;
  {
    std::lock_guard<std::mutex> lock(mu_);
    (detached ? counters_.detached : counters_.exited)++;
  }
  FlightStats fs = t->rec->Stats();
  spdlog::info("pid {} {}: window of {:.1f} s, {} generations, {} bytes kept", ro.pid,
               detached ? "detached" : "exited", fs.seconds_held, fs.generations_held, fs.bytes_held);
  t->done = true;
}

bool Service::PrepareStandby(Target &t) {
  const Config cfg = config();
  const RecordingOptions ro = FullRecordingOptions(cfg, t.info.pid, t.info.binary, t.events, t.info.start_time, false);
  const std::string key = FullRecordingKey(ro);
  {
    std::lock_guard<std::mutex> lock(t.mu);
    if (t.standby && t.standby->key == key) return true;
    t.standby.reset();  // made under another configuration
  }
  // The standbys' rings are kernel memory (memcg-charged to this service) that no trace
  // uses until an escalation: at most kStandbyRingBytes of them, first come first served;
  // the others' escalations load their own.
  std::size_t held = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto &o : targets_) {
      if (o.get() == &t) continue;
      std::lock_guard<std::mutex> tl(o->mu);
      if (o->standby) held++;
    }
    // The loads under way count too: 50 processes attached together all asked before the
    // first standby was stored, and all got one (bench/host: 400 MiB of rings at N=50).
    held += standbys_loading_;
    if ((held + 1) * cfg.ring_bytes <= kStandbyRingBytes) standbys_loading_++;
  }
  if ((held + 1) * cfg.ring_bytes > kStandbyRingBytes) {
    spdlog::debug("pid {}: no full-detail standby: {} processes hold one ({} MiB of rings, the most kept)",
                  t.info.pid, held, (held * cfg.ring_bytes) >> 20);
    return false;
  }
  struct Loading {
    Service *s;
    ~Loading() {
      std::lock_guard<std::mutex> lock(s->mu_);
      s->standbys_loading_--;
    }
  } loading{this};
  auto f = std::make_unique<FullRecording>(NewFullRecording(cfg, ro));
  std::string err;
  bool ok;
  auto t0 = SteadyClock::now();
  {
    std::lock_guard<std::mutex> lock(start_mu_);  // one BPF load at a time (RunTarget)
    t0 = SteadyClock::now();
    ok = f->recording->Prepare(&err);
  }
  if (!ok) {
    if (ProcessAlive(t.info.pid, t.info.start_time))
      spdlog::warn("pid {}: no full-detail standby (escalations will load their own, ~130 ms slower): {}",
                   t.info.pid, err);
    return false;
  }
  spdlog::info("pid {}: full-detail standby loaded in {:.0f} ms (escalations attach it)", t.info.pid,
                std::chrono::duration<double, std::milli>(SteadyClock::now() - t0).count());
  std::lock_guard<std::mutex> lock(t.mu);
  t.standby = std::move(f);
  return true;
}

void Service::Step() {
  std::vector<ProcEvent> events;
  // Wake for the earliest exec'd process due a look, not a whole turn later: a process
  // found by its exec is attached kExecSettle after it, not up to 200 ms after that.
  auto wait = std::chrono::milliseconds(200);
  for (const auto &[pid, due] : pending_)
    wait = std::clamp(std::chrono::ceil<std::chrono::milliseconds>(due - SteadyClock::now()),
                      std::chrono::milliseconds(0), wait);
  if (watcher_) watcher_->Poll(static_cast<int>(wait.count()), &events);
  else std::this_thread::sleep_for(wait);
  const auto now = SteadyClock::now();
  for (const ProcEvent &e : events) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      counters_.exec_events++;
    }
    // Each record the kernel sent (tests/serve/exec-filter.sh counts a file's execs by it,
    // which the host's own execs cannot move).
    spdlog::trace("exec watch: {} of pid {}{}{}", e.kind == ProcEvent::Kind::kExec ? "exec" : "exit", e.pid,
                  e.filename.empty() ? "" : " ", e.filename);
    if (e.kind == ProcEvent::Kind::kExec) {
      bool target = false;
      {
        // A traced process that execs another program: the old recording ends here.
        std::lock_guard<std::mutex> lock(mu_);
        for (const auto &t : targets_)
          if (t->info.pid == e.pid && t->live()) {
            target = true;
            std::optional<ProcInfo> now_info = ReadProcInfo(e.pid);
            if (!now_info || now_info->exe != t->info.exe) {
              t->stop = true;
              t->wake.Wake();
            }
            // Same binary: its session ends at the exec record (session.cc). An exec from
            // before the process was read is the one that started the program recorded.
            if (e.ts_ns > t->info.read_ns) t->execed = true;
          }
      }
      rescan_memo_.Forget(e.pid);  // another program now
      if (!target && NotGoExec(e)) {
        pending_.erase(e.pid);  // what it ran before is no more
        SyncWatched(e.pid);
        continue;
      }
      pending_[e.pid] = now + kExecSettle;
      SyncWatched(e.pid);  // its exit, should it come before the look
    } else {
      pending_.erase(e.pid);  // Sessions notice their target's exit themselves.
      SyncWatched(e.pid);
    }
  }
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (it->second <= now) {
      const pid_t pid = it->first;
      std::uint64_t settled = 0;
      if (Consider(pid, &settled)) {
        it = pending_.erase(it);
        if (settled) rescan_memo_.Remember(pid, settled);
        SyncWatched(pid);
      } else {
        it->second = now + std::chrono::milliseconds(100);
        ++it;
      }
    } else {
      ++it;
    }
  }
  if (now >= next_rescan_) {
    Rescan();
    next_rescan_ = now + std::chrono::milliseconds(static_cast<long long>(config().rescan_seconds * 1000));
  }
  if (now >= next_budget_) {
    next_budget_ = now + std::chrono::seconds(1);
    capture::ExpireReusableObjects();  // (kept objects idle for kReuseLimits.idle)
    Sweep();
    AdjustBudget();
  }
}

// Joins finished threads; drops failed targets whose process is gone, ended targets
// whose window was evicted entirely, and the oldest ended ones beyond keep_exited.
void Service::Sweep() {
  std::vector<std::shared_ptr<Target>> drop;
  {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<std::shared_ptr<Target>> ended;
    for (const auto &t : targets_) {
      if (!t->done.load()) continue;
      if (t->thread.joinable()) t->thread.join();
      TargetState s = t->state.load();
      if (s == TargetState::kFailed) {
        if (!ProcessAlive(t->info.pid, t->info.start_time)) drop.push_back(t);
        continue;
      }
      if (t->rec->Stats().generations_held == 0) drop.push_back(t);
      else ended.push_back(t);
    }
    if (ended.size() > config_.keep_exited) {
      std::sort(ended.begin(), ended.end(), [](const auto &a, const auto &b) {
        std::lock_guard<std::mutex> la(a->mu);
        std::lock_guard<std::mutex> lb(b->mu);
        return a->ended_at < b->ended_at;
      });
      for (std::size_t i = 0; i + config_.keep_exited < ended.size(); i++) drop.push_back(ended[i]);
    }
    for (const auto &d : drop) targets_.erase(std::remove(targets_.begin(), targets_.end(), d), targets_.end());
  }
  for (const auto &d : drop)
    spdlog::debug("forgetting pid {} ({}, {})", d->info.pid, d->info.exe, TargetStateName(d->state.load()));
  // Ended recordings' pids: the kernel stops sending their execs and exits.
  std::vector<pid_t> was_watched(watched_.begin(), watched_.end());
  for (pid_t pid : was_watched) SyncWatched(pid);
  std::erase_if(refused_, [](const auto &r) { return !ProcessAlive(r.first, r.second); });
}

// The windows get what the cap leaves after the rest of the daemon's resident memory.
void Service::AdjustBudget() {
  const std::size_t cap = config().memory_bytes;
  StoreStats ss = store_.Stats();
  // Give freed memory back to the system now: evicted generations, and what a session
  // that started (kernel BTF) or ended left free in the arenas. Once a second is cheap
  // next to what it keeps off the RSS (suite 60: ~10 MiB after a few sessions came and went).
  malloc_trim(0);
  const std::size_t rss = SelfRss();
  const std::size_t overhead = rss > ss.bytes ? rss - ss.bytes : 0;
  const std::size_t margin = CapMargin(cap);
  const std::size_t floor = WindowFloor(cap);
  std::size_t budget = cap > overhead + margin ? cap - overhead - margin : 0;
  budget = std::clamp(budget, floor, cap);
  store_.SetCap(budget);
  static bool warned = false;
  if (overhead + margin > cap && !warned) {
    warned = true;
    spdlog::warn("memory: the daemon uses {} MiB besides the flight windows, more than memory_mb ({} MiB) allows; "
                 "lower ring_mb or trace fewer processes",
                 overhead >> 20, cap >> 20);
  }
}

bool Service::ApplyConfig(Config cfg, std::string *error) {
  Config old = config();
  // The store first (network): a config whose [upload] cannot work changes nothing.
  std::optional<upload::UploadSettings> up;
  if (!PrepareUpload(cfg, &up, error)) return false;
  // The endpoint next: if the new one cannot be had, nothing changes.
  if (cfg.socket != old.socket) {
    std::unique_ptr<Endpoint> ep;
    if (!StartEndpoint(cfg, &ep, error)) return false;
    endpoint_->Stop();
    endpoint_ = std::move(ep);
    spdlog::info("endpoint moved to {}", cfg.socket);
  } else if (cfg.owner_uid != old.owner_uid || cfg.group_gid != old.group_gid || cfg.mode != old.mode) {
    if (::chown(cfg.socket.c_str(), cfg.owner_uid, cfg.group_gid) != 0 || ::chmod(cfg.socket.c_str(), cfg.mode) != 0) {
      if (error) *error = fmt::format("changing owner/mode of {}: {}", cfg.socket, std::strerror(errno));
      return false;
    }
  }
  if (cfg.exec_watch && !watcher_) {
    watcher_ = std::make_unique<ExecWatcher>();
    std::string err;
    if (!watcher_->Start(&err)) {
      spdlog::warn("exec notifications unavailable: {}", err);
      watcher_.reset();
    }
    // A new kernel side knows no pid yet.
    std::vector<pid_t> was_watched(watched_.begin(), watched_.end());
    watched_.clear();
    for (pid_t pid : was_watched) SyncWatched(pid);
  } else if (!cfg.exec_watch && watcher_) {
    watcher_.reset();
  }
  // Which processes no rule selects changes with the rules. (The kernel's exec_skip
  // stays: a program that is not Go is not, whatever the rules.)
  rescan_memo_.ForgetAll();
  std::vector<std::shared_ptr<Target>> keep, detach;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto &t : targets_) {
      if (!t->live()) continue;
      int rule = MatchRules(cfg, t->info);
      if (rule < 0) {
        detach.push_back(t);
        continue;
      }
      const WatchRule &r = cfg.watch[static_cast<std::size_t>(rule)];
      t->rule_line = r.line;
      // A session's event set is fixed when it attaches (its probes are); a change
      // applies to processes attached from now on.
      if (cfg.Events(r) != t->events || cfg.cpu_hz != old.cpu_hz)
        spdlog::info("pid {} keeps recording events {} (the new set {} applies from its next attach)", t->info.pid,
                     EventSetName(t->events), EventSetName(cfg.Events(r)));
      t->rec->SetWindow(FlightWindow{cfg.WindowSeconds(r), cfg.WindowBytes(r)});
      keep.push_back(t);
    }
    config_ = cfg;
    counters_.reloads++;
  }
  for (const auto &t : detach) {
    spdlog::info("pid {} ({}) no longer matches the watch rules: detaching", t->info.pid, t->info.exe);
    t->stop = true;
    t->wake.Wake();
  }
  uploader_.Configure(std::move(up), cfg.spool_dir);
  AdjustBudget();
  Rescan();
  spdlog::info("configuration reloaded from {}: {} watch rules, {} targets kept, {} detached", cfg.path,
               cfg.watch.size(), keep.size(), detach.size());
  return true;
}

void Service::Stop() {
  std::vector<std::shared_ptr<Target>> all;
  {
    std::lock_guard<std::mutex> lock(mu_);
    all = targets_;
  }
  for (const auto &t : all) {
    t->stop = true;
    t->wake.Wake();
  }
  for (const auto &t : all)
    if (t->thread.joinable()) t->thread.join();
  if (metrics_endpoint_) metrics_endpoint_->Stop();
  if (endpoint_) endpoint_->Stop();
  watcher_.reset();
  uploader_.Stop();  // a transfer in progress is cancelled; its manifest keeps it pending
}

std::string Service::StatusLine() const {
  std::size_t live = 0, ended = 0;
  for (const auto &t : Targets()) (t->live() ? live : ended)++;
  StoreStats ss = store_.Stats();
  return fmt::format("tracing {} processes, {} ended windows kept, {:.1f} MiB of windows (budget {:.1f} MiB), RSS {:.1f} MiB",
                     live, ended, ss.bytes / 1048576.0, ss.cap / 1048576.0, SelfRss() / 1048576.0);
}

}  // namespace gotraced::service
