// Session implementation. See session.h.
#include "daemon/session/session.h"

#include <spdlog/spdlog.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <span>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "daemon/capture/capture.h"
#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/runtime_layout.h"
#include "daemon/model/model.h"
#include "daemon/model/record_decoder.h"
#include "daemon/session/fd_targets.h"
#include "daemon/session/gobin_symbolizer.h"
#include "daemon/session/heap_log.h"
#include "daemon/session/initial_heap_goal.h"
#include "daemon/session/label_prefetch.h"
#include "daemon/session/loss_log.h"
#include "daemon/session/model_counters.h"
#include "daemon/session/pipeline.h"
#include "daemon/session/record_file.h"
#include "daemon/session/snapshot_convert.h"
#include "daemon/session/state_sampler.h"
#include "encoder/sink.h"
#include "encoder/trace_writer.h"
#include "daemon/procmem/label_reader.h"
#include "daemon/procmem/mono_clock.h"

namespace gotraced::session {

std::optional<TraceVersion> ParseTraceVersion(std::string_view text) {
  std::string t;
  for (char c : text) t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (t == "auto" || t.empty()) return TraceVersion::kAuto;
  if (t.rfind("go", 0) == 0) t = t.substr(2);
  if (t.rfind("1.", 0) == 0) t = t.substr(2);
  if (t == "19" || t == "20") return TraceVersion::kGo119;
  if (t == "21") return TraceVersion::kGo121;
  if (t == "22") return TraceVersion::kGo122;
  if (t == "23" || t == "24") return TraceVersion::kGo123;
  if (t == "25") return TraceVersion::kGo125;
  if (t == "26" || t == "27") return TraceVersion::kGo126;
  return std::nullopt;
}

std::string_view TraceVersionName(TraceVersion v) {
  switch (v) {
    case TraceVersion::kAuto: return "auto";
    case TraceVersion::kGo119: return "go1.19";
    case TraceVersion::kGo121: return "go1.21";
    case TraceVersion::kGo122: return "go1.22";
    case TraceVersion::kGo123: return "go1.23";
    case TraceVersion::kGo125: return "go1.25";
    case TraceVersion::kGo126: return "go1.26";
  }
  return "?";
}

namespace {

// The format the target's own runtime/trace writes (shared/docs/go-trace-format.md §1.2):
// up to Go 1.21 the legacy format (go1.20 wrote "go 1.19 trace"), from 1.22 v2.
encoder::Version VersionFor(TraceVersion v, int go_minor) {
  switch (v) {
    case TraceVersion::kGo119: return encoder::Version::kGo119;
    case TraceVersion::kGo121: return encoder::Version::kGo121;
    case TraceVersion::kGo122: return encoder::Version::kGo122;
    case TraceVersion::kGo123: return encoder::Version::kGo123;
    case TraceVersion::kGo125: return encoder::Version::kGo125;
    case TraceVersion::kGo126: return encoder::Version::kGo126;
    case TraceVersion::kAuto: break;
  }
  if (go_minor >= 26) return encoder::Version::kGo126;
  if (go_minor == 25) return encoder::Version::kGo125;
  if (go_minor >= 23) return encoder::Version::kGo123;
  if (go_minor == 22) return encoder::Version::kGo122;
  if (go_minor == 21) return encoder::Version::kGo121;
  return encoder::Version::kGo119;
}

// The BPF side's per-CPU counters (records lost, short syscalls, probe hits) are read at
// most this far apart while recording, and at once when a CPU's sequence numbers show a
// gap (every loss leaves one: a refused reservation takes its number), and at stop. At
// every poll they were a bpf_map_lookup_elem on each CPU's counters, ~19% of a level-low
// recording thread's CPU (issue 28). The rest of Session::Stats() is updated every poll.
constexpr auto kCountersEvery = std::chrono::milliseconds(1000);
// Session::Stats() is at most this old while recording (the status line redraws every
// 250 ms; a full-detail recording polls every few ms).
constexpr auto kStatsEvery = std::chrono::milliseconds(50);

// GOTRACED_DEBUG_RECORDS / GOTRACED_RECORD_FILE name one file, but serve runs several
// sessions (levels, standbys, escalations): the process's second and later sessions write
// FILE.1, FILE.2, ... so none truncates another's.
std::string PerSessionPath(const char *path, int session) {
  return session ? fmt::format("{}.{}", path, session) : std::string(path);
}

// The target's executable as a path that outlives it (for GOTRACED_RECORD_FILE).
std::string ExeOf(pid_t pid, const std::string &exe_path) {
  if (!exe_path.empty()) return exe_path;
  std::error_code ec;
  auto p = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
  return ec ? std::string() : p.string();
}

// The file sink, counting what each generation held: the summary's counts must be those
// of the file(s), without the generations a failed write lost. At each generation the
// pipeline's counters are read (`now`); the difference since the last one is that
// generation's, and goes to the file it was written to or to the lost ones.
class TallySink final : public encoder::Sink {
 public:
  struct Counts {
    std::uint64_t events = 0, created = 0, blocks = 0, syscalls = 0;
    Counts &operator+=(const Counts &o) {
      events += o.events, created += o.created, blocks += o.blocks, syscalls += o.syscalls;
      return *this;
    }
    Counts operator-(const Counts &o) const {
      return {events - o.events, created - o.created, blocks - o.blocks, syscalls - o.syscalls};
    }
  };
  TallySink(encoder::FileSink &file, std::function<Counts()> now) : file_(file), now_(std::move(now)) {}
  void WriteHeader(std::span<const std::uint8_t> header) override { file_.WriteHeader(header); }
  void WriteGeneration(std::uint64_t gen, std::span<const std::uint8_t> bytes) override {
    file_.WriteGeneration(gen, bytes);
    const Counts c = now_();
    const Counts delta = c - prev_;
    prev_ = c;
    const int i = file_.last_file();
    if (i < 0) {
      lost_ += delta;
      return;
    }
    if (per_file_.size() <= std::size_t(i)) per_file_.resize(std::size_t(i) + 1);
    per_file_[std::size_t(i)] += delta;
  }
  void Close() override { file_.Close(); }
  // Counts of the generations not on disk: lost at their write, or in a removed file.
  Counts Lost() const {
    Counts c = lost_;
    const auto &files = file_.files();
    for (std::size_t i = 0; i < per_file_.size() && i < files.size(); ++i)
      if (files[i].removed) c += per_file_[i];
    return c;
  }

 private:
  encoder::FileSink &file_;
  std::function<Counts()> now_;
  Counts prev_, lost_;
  std::vector<Counts> per_file_;
};

}  // namespace

struct Session::Impl {
  // A failed Prepare/Start: the message to the caller and to last_error(). Returns false.
  bool Fail(std::string *error, std::string msg) {
    if (error) *error = msg;
    std::lock_guard<std::mutex> lock(mu);
    last_error = std::move(msg);
    return false;
  }
  SessionOptions options;
  double plan_ms = 0;        // Prepare's binary analysis and probe plan
  bool kernel_view = false;  // the plan's sched_switch option (capture level applied)
  mutable std::mutex mu;
  SessionStats stats;
  std::string last_error;
  bool started = false;
  bool stopped = false;
  std::atomic<bool> advance{false};  // RequestAdvance: cut at the next Poll

  std::unique_ptr<capture::Capture> cap;
  std::unique_ptr<encoder::FileSink> file_sink;
  std::unique_ptr<TallySink> tally;  // around file_sink
  encoder::Sink *sink = nullptr;
  std::uint64_t write_errors_logged = 0;
  std::size_t files_logged = 1;
  std::unique_ptr<TriggerScan> triggers;  // serve's triggers (trigger_scan.h); outlives the pipeline
  std::unique_ptr<FdTargets> fds;        // the kernel view's fd names (fd_targets.h)
  std::unique_ptr<procmem::LabelReader> labels;  // pprof label sets (procmem/label_reader.h)
  std::unique_ptr<LabelPrefetch> label_prefetch;  // ... read as records come off the ring
  std::unique_ptr<RecordPipeline> pipe;  // decoder -> model -> writer (pipeline.h)
  std::unique_ptr<StateSampler> sampler;  // level low's goroutine state samples (state_sampler.h)
  std::uint64_t lost_seen = 0;
  LossLog loss_log;  // the log's lines of those losses, one per 10 s at most
  std::uint64_t repairs_logged = 0;
  std::chrono::steady_clock::time_point next_stats{};     // kStatsEvery
  std::chrono::steady_clock::time_point next_counters{};  // kCountersEvery
  std::uint64_t gaps_at_counters = 0;  // the consumer's seq_gaps at that read
  int pidfd = -1;  // the target's, for the consumer's waits (closed with the session)

  ~Impl() {
    if (pidfd >= 0) close(pidfd);  // nothing waits on it any more (one thread)
  }

  std::FILE *record_log = nullptr;  // GOTRACED_DEBUG_RECORDS=FILE: decoded records, one a line
  std::unique_ptr<RecordFileWriter> record_file;  // GOTRACED_RECORD_FILE=FILE: the raw records
  std::unique_ptr<HeapLog> heap_log = HeapLog::FromEnv();  // GOTRACED_HEAP_LOG=SECONDS

  bool execed = false;  // the target's exec record was seen: nothing after it is the program's

  void OnRecord(const capture::RecordView &v) {
    if (execed) return;
    if (v.header().kind == GT_REC_EXEC && int(v.header().tgid) == options.pid) {
      // execve replaced the traced program (sched_process_exec, after the kernel ended its
      // other threads): what its pid does next is another program's, even when it is the
      // same binary again (a new runtime, goroutine ids from 1).
      execed = true;
      spdlog::info("gotraced: pid {} exec'd another program; the recording ends there", options.pid);
      return;
    }
    if (record_file) record_file->Write(v);
    pipe->OnRecord(v);
  }

  // Records lost, as far as they are known to be (SessionStats::records_lost). While
  // recording: the BPF side's failed reservations, exact when they happen. A gap in a
  // CPU's sequence numbers is no loss yet: the record may still be being written (a BPF
  // program preempted between its reservation and its commit while the next one on that
  // CPU committed; a preemptible kernel's uprobe), and counting it made a recording warn
  // "1 records lost" and then sum up "nothing lost" once it arrived. A failed
  // reservation leaves a gap too, so the two are not added. `final`: the probes are
  // detached and every record was read, so the gaps that remain are records that never
  // came.
  static std::uint64_t KnownLost(const capture::CaptureStats &cs, bool final) {
    const capture::ConsumerStats &c = cs.consumer;
    if (!final) return c.lost();
    // Per CPU (the counters and the sequence numbers are both per CPU): a refused
    // reservation is a gap too, unless it was that CPU's last.
    std::uint64_t n = 0;
    for (std::size_t cpu = 0; cpu < std::max(c.lost_per_cpu.size(), c.seq_gaps_per_cpu.size()); ++cpu)
      n += std::max(cpu < c.lost_per_cpu.size() ? c.lost_per_cpu[cpu] : 0,
                    cpu < c.seq_gaps_per_cpu.size() ? c.seq_gaps_per_cpu[cpu] : 0);
    return n;
  }

  // A loss the model must hear of: it cuts the generation.
  void NoteLoss(const capture::CaptureStats &cs, bool final) {
    const std::uint64_t lost = KnownLost(cs, final);
    if (lost > lost_seen) {
      pipe->NoteLoss(lost - lost_seen);
      const std::uint64_t refused = cs.consumer.lost() > lost_seen ? cs.consumer.lost() - lost_seen : 0;
      const std::uint64_t missing = lost > std::max(cs.consumer.lost(), lost_seen)
                                        ? lost - std::max(cs.consumer.lost(), lost_seen)
                                        : 0;
      loss_log.Note(refused, missing, LossLog::Clock::now());
      lost_seen = lost;
    }
    if (final) loss_log.Flush(LossLog::Clock::now());
  }

  void UpdateStats(const capture::CaptureStats &cs, bool final = false) {
    std::lock_guard<std::mutex> lock(mu);
    const model::Model *model = &pipe->model();
    const encoder::EventWriter *writer = &pipe->writer();
    const model::RecordDecoder *decoder = &pipe->decoder();
    stats.records = cs.consumer.records;
    stats.records_lost = std::max(lost_seen, KnownLost(cs, final));
    stats.ring_bytes_read = cs.consumer.bytes;
    stats.target_exited = cs.target_exited;
    stats.target_execed = execed;
    model::ModelStats ms = model->stats();
    FillModelCounters(ms, writer->stats(), stats);
    stats.events = writer->stats().events;
    stats.records_discarded = ms.records_discarded + decoder->stats().unusable;
    stats.sparse_observations = ms.sparse_observations;
    stats.state_samples_written = ms.state_samples;
    if (sampler) {
      const StateSamplerStats &ss = sampler->stats();
      stats.state_samples = ss.samples;
      stats.state_sample_failures = ss.failures;
      stats.state_sample_max_goroutines = ss.max_goroutines;
      stats.state_sample_ms_max = ss.max_ms;
      stats.state_sample_ms_total = ss.total_ms;
    }
    stats.short_syscalls = cs.short_syscalls;
    stats.syscall_sample_period_ns = cs.syscall_sample_period_ns;
    stats.syscall_sweeps = cs.syscall_sweeps;
    stats.syscalls_by_switch = cs.syscalls_by_switch;
    stats.syscalls_switch_refused = cs.syscalls_switch_refused;
    if (file_sink) {
      stats.output_error = file_sink->error();
      stats.output_stopped = file_sink->stopped();
      stats.output_write_errors = file_sink->write_errors();
      stats.generations_lost = file_sink->generations_lost();
      stats.generations = file_sink->generations_written();
      stats.bytes_written = file_sink->good_bytes();
      const TallySink::Counts lost = tally->Lost();
      stats.events_lost = lost.events;
      stats.goroutines_created_lost = lost.created;
      stats.blocks_lost = lost.blocks;
      stats.syscalls_lost = lost.syscalls;
      stats.events -= std::min(stats.events, lost.events);
      stats.goroutines_created -= std::min(stats.goroutines_created, lost.created);
      stats.blocks -= std::min(stats.blocks, lost.blocks);
      stats.syscalls -= std::min(stats.syscalls, lost.syscalls);
      stats.output_files.clear();
      for (const auto &f : file_sink->files())
        if (!f.removed && f.generations) stats.output_files.push_back({f.path, f.generations, f.first_gen});
    }
  }

  // Level low: the goroutines' states, when a sample is due (state_sampler.h).
  void SampleStates() {
    const std::uint64_t failures = sampler->stats().failures;
    if (auto s = sampler->Poll(procmem::MonoNowNs())) pipe->OnStateSample(s->ts, std::move(s->message));
    if (sampler->stats().failures > failures && failures == 0)
      spdlog::warn("gotraced: goroutine states could not be sampled: {}", sampler->last_error());
  }

  // --on-write-error drop: each lost generation and each continuation file, logged.
  void LogOutput() {
    if (!file_sink) return;
    if (file_sink->write_errors() > write_errors_logged) {
      write_errors_logged = file_sink->write_errors();
      spdlog::warn("gotraced: {}; {} generation(s) lost so far{}", file_sink->latest_error(),
                   file_sink->generations_lost(),
                   file_sink->stopped() ? "; recording stops" : "; recording goes on (--on-write-error drop)");
    }
    if (file_sink->files().size() > files_logged) {
      files_logged = file_sink->files().size();
      const auto &f = file_sink->files().back();
      if (f.generations)
        spdlog::warn("gotraced: the trace goes on in {} from generation {} (a file of its own, parseable on its own)",
                     f.path, f.first_gen);
    }
  }
};

Session::Session(SessionOptions options) : impl_(std::make_unique<Impl>()) { impl_->options = std::move(options); }

Session::~Session() {
  if (impl_ && impl_->started && !impl_->stopped) Stop();
}

bool Session::Prepare(std::string *error) {
  Impl &I = *impl_;
  auto fail = [&](std::string msg) { return I.Fail(error, std::move(msg)); };
  if (I.started) return fail("session: already started");
  if (I.cap) return true;  // prepared already
  if (I.options.pid <= 0) return fail("session: no target pid");
  // GOTRACED_DEBUG=1: the model's repairs and the decoder's counts in the log.
  if (std::getenv("GOTRACED_DEBUG")) spdlog::set_level(spdlog::level::debug);
  if (const char *f = std::getenv("GOTRACED_DEBUG_RECORDS")) {
    static std::atomic<int> sessions{0};
    I.record_log = std::fopen(PerSessionPath(f, sessions++).c_str(), "w");
  }

  capture::CaptureOptions co;
  co.pid = I.options.pid;
  co.exe_path = I.options.exe_path;
  co.ring_bytes = I.options.ring_bytes;
  co.snapshot = !I.options.launched;
  co.self_check = !I.options.launched && I.options.self_check;
  co.plan.user_probes = I.options.events.user;  // tasks, regions, logs (docs/probe-plan.md §3.10)
  co.plan.labels = I.options.events.labels;  // g.labels at each start (model_labels.cc)
  co.plan.gc_probes = I.options.events.gc;  // GC, STW, heap metrics (docs/probe-plan.md §3.9)
  co.plan.sweep_probes = I.options.events.sweeps;
  co.plan.sched_switch = I.options.events.kernel;  // the kernel view (docs/kernel-view.md)
  co.cpu_hz = I.options.events.cpu_hz;  // CPU samples (docs/probe-plan.md §9)
  ApplyCaptureLevel(I.options.level, co.plan);  // capture_level.h
  const bool sparse = I.options.level == CaptureLevel::kLow;
  if (sparse) {
    auto min_ns = static_cast<std::uint64_t>(std::max<std::int64_t>(I.options.syscall_min.count(), 0));
    // A syscall trigger must see the syscalls it fires on (trigger_scan.h).
    if (I.options.triggers.syscall_ns) min_ns = std::min(min_ns, I.options.triggers.syscall_ns);
    co.plan.syscall_min_ns = min_ns;
    co.plan.low_syscalls = I.options.events.syscalls;
    co.plan.syscall_sample = I.options.syscall_sample;
    co.plan.syscall_switch = I.options.syscall_switch;
    // Its records are few: a quiet ring is drained every 250 ms at most, not every 64
    // (ring_consumer.h; the caller's poll bounds it too: serve's loop waits 250 ms at
    // level low, 100 ms with triggers, service.cc RunTarget), as each drain
    // wakes the recording's thread, ~43 us of serve's CPU (docs/probe-plan.md §11: 15.7
    // wakes a second were 0.068% of a core per idle process).
    co.consumer.max_drain_interval = std::chrono::milliseconds(250);
  }
  if (sparse && (I.options.version == TraceVersion::kGo119 || I.options.version == TraceVersion::kGo121))
    return fail("--level low writes the Go 1.22+ trace format (its syscalls are GoCreateSyscall/GoDestroySyscall "
                "pieces, which the pre-1.22 format cannot say): use --trace-version auto or go1.22+");
  // The consumer sleeps on the target's pidfd between drains (ring_consumer.h): its exit
  // ends the wait, so the recording ends within a poll of it however long the drain
  // interval has grown. Linux 5.3+ (the floor is 6.1); without it, plain sleeps.
  I.pidfd = static_cast<int>(syscall(SYS_pidfd_open, I.options.pid, 0));
  co.consumer.wake_fd = I.pidfd;
  co.consumer.interrupt_fd = I.options.interrupt_fd;
  // pprof label sets are read as their records come off the ring, not when the model
  // reaches them a drain later (label_prefetch.h); the reader exists from Start on.
  co.consumer.on_read = [&I](const capture::RecordView &v) {
    if (I.label_prefetch) I.label_prefetch->OnRead(v);
  };
  // The session makes the plan (binary, layout, probe sites) and hands it to capture,
  // which loads only the programs the plan names.
  using Clock = std::chrono::steady_clock;
  const auto t_start = Clock::now();
  auto ms_since = [](Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); };
  auto target = capture::PlanTarget(co.pid, co.exe_path, co.plan);
  const double plan_ms = ms_since(t_start);
  if (!target) return fail(target.error());
  auto cap = capture::Capture::Load(co, std::move(*target));
  if (!cap) return fail(cap.error());
  I.cap = std::move(*cap);
  I.plan_ms = plan_ms;
  I.kernel_view = co.plan.sched_switch;
  return true;
}

bool Session::Start(std::string *error) {
  Impl &I = *impl_;
  auto fail = [&](std::string msg) { return I.Fail(error, std::move(msg)); };
  if (I.started) return fail("session: already started");
  using Clock = std::chrono::steady_clock;
  const auto t_start = Clock::now();
  auto ms_since = [](Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); };
  // Loaded ahead (Prepare, serve's standby) or now.
  const bool ahead = I.cap != nullptr;
  if (!ahead && !Prepare(error)) return false;
  if (std::string err = I.cap->Attach(); !err.empty()) {
    I.cap.reset();
    return fail(err);
  }
  const double plan_ms = I.plan_ms;
  const bool sparse = I.options.level == CaptureLevel::kLow;
  std::string record_file;
  if (const char *f = std::getenv("GOTRACED_RECORD_FILE"); f && *f) {
    static std::atomic<int> sessions{0};
    record_file = PerSessionPath(f, sessions++);
  }

  const gobin::GoBinary &bin = I.cap->binary();
  const gobin::RuntimeLayout &layout = I.cap->layout();
  const int minor = bin.go_version().minor;
  encoder::Version version = VersionFor(I.options.version, minor);
  if (sparse && (version == encoder::Version::kGo119 || version == encoder::Version::kGo121))
    version = encoder::Version::kGo122;  // auto for a <= 1.21 target: the v2 format (see above)

  if (I.options.sink) {
    I.sink = I.options.sink;
  } else {
    if (I.options.out_path.empty()) return fail("session: no output (out_path or sink)");
    I.file_sink = std::make_unique<encoder::FileSink>(I.options.out_path, I.options.on_write_error);
    if (!I.file_sink->error().empty()) return fail(I.file_sink->error());
    I.tally = std::make_unique<TallySink>(*I.file_sink, [&I] {
      const model::ModelStats ms = I.pipe->model().stats();
      return TallySink::Counts{I.pipe->writer().stats().events, ms.goroutines_created, ms.blocks, ms.syscalls};
    });
    I.sink = I.tally.get();
  }
  PipelineConfig pc;
  // --on-write-error drop: a legacy continuation file opens with a restart prelude.
  if (I.file_sink && I.options.on_write_error == encoder::WriteErrorPolicy::kDrop) pc.legacy_restart = I.file_sink.get();
  pc.bin = &bin;
  pc.layout = &layout;
  pc.plan = &I.cap->plan();
  pc.load_bias = I.cap->load_bias();
  pc.version = version;
  pc.tick_divisor = I.options.tick_divisor;
  pc.generation_period = I.options.generation_period;
  pc.launched = I.options.launched;
  pc.snapshot = I.options.launched ? nullptr : &I.cap->snapshot();
  pc.cpu_samples = I.options.events.cpu_hz > 0;
  pc.sparse = sparse;
  if (I.options.on_trigger) {
    I.triggers = std::make_unique<TriggerScan>(I.options.triggers, I.options.on_trigger);
    if (I.triggers->enabled()) pc.triggers = I.triggers.get();
  }
  pc.on_repair = [this](const std::string &s) {
    if (impl_->repairs_logged++ < 40) spdlog::debug("model repair: {}", s);
  };
  pc.record_log = I.record_log;
  pc.kernel_view = I.kernel_view;  // --kernel-view, unless the capture level left it out
  if (pc.kernel_view) {
    I.fds = std::make_unique<FdTargets>(I.options.pid);
    pc.fd_namer = I.fds.get();
  }
  if (I.options.events.labels && !sparse) {
    I.labels = std::make_unique<procmem::LabelReader>(pid(), minor);
    pc.labels = I.labels.get();
    I.label_prefetch = std::make_unique<LabelPrefetch>(*I.labels, I.cap->plan(), minor);
  }
  if (I.options.events.gc) {
    std::string why;
    pc.initial_heap_goal = InitialHeapGoal(I.options.launched, pid(), bin, minor, I.cap->snapshot(), &why);
    if (!pc.initial_heap_goal) spdlog::debug("gotraced: no HeapGoal at the trace's start: {}", why);
  }
  if (!sparse) pc.live_goroutines = LiveGoroutineReader(pid(), layout, I.cap->runtime_globals());
  I.pipe = std::make_unique<RecordPipeline>(*I.sink, pc);
  if (sparse && I.options.state_sample.count() > 0)
    I.sampler = std::make_unique<StateSampler>(pid(), layout, I.cap->runtime_globals(), I.options.state_sample,
                                               I.options.events.labels, minor);
  if (!record_file.empty()) {
    I.record_file = std::make_unique<RecordFileWriter>(
        record_file, std::map<std::string, std::string>{
                         {"exe", ExeOf(I.options.pid, I.options.exe_path)},
                         {"load_bias", std::to_string(I.cap->load_bias())},
                         {"launched", I.options.launched ? "1" : "0"},
                         {"version", std::to_string(static_cast<int>(version))},
                         {"cpu_samples", pc.cpu_samples ? "1" : "0"},
                         {"gc", I.options.events.gc ? "1" : "0"},
                         {"sweeps", I.options.events.sweeps ? "1" : "0"},
                         {"user", I.options.events.user ? "1" : "0"},
                     });
    if (!I.record_file->error().empty()) return fail("GOTRACED_RECORD_FILE: " + I.record_file->error());
  }
  for (const std::string &w : I.cap->warnings()) spdlog::warn("gotraced: {}", w);

  {
    std::lock_guard<std::mutex> lock(I.mu);
    I.stats.go_version = "go" + std::to_string(bin.go_version().major) + "." + std::to_string(minor) + "." +
                         std::to_string(bin.go_version().patch);
    I.stats.trace_format = "go1." + std::to_string(static_cast<int>(version));
    I.stats.probe_plan = I.cap->plan().name;
    I.stats.level = std::string(CaptureLevelName(I.options.level));
    I.stats.syscall_min_ns = I.cap->plan().syscall_pair ? I.cap->plan().syscall_min_ns : 0;
    // Which path level low's syscalls take (syscall_path.h), for serve's log at the start.
    const capture::CaptureStats cs = I.cap->stats();
    I.stats.syscalls_by_switch = cs.syscalls_by_switch;
    I.stats.syscalls_switch_refused = cs.syscalls_switch_refused;
    I.stats.syscall_sample_period_ns = cs.syscall_sample_period_ns;
    const capture::CaptureTimings &ct = I.cap->timings();
    I.stats.plan_ms = plan_ms;
    I.stats.load_ms = ct.load_ms;
    I.stats.attach_ms = ct.attach_ms;
    I.stats.snapshot_ms = ct.snapshot_ms;
    I.stats.self_check_ms = ct.self_check_ms;
    I.stats.reused_from = ct.reused_from;
    I.stats.bpf_programs = ct.programs;
    I.stats.uprobes = ct.uprobes;
    I.stats.start_ms = ms_since(t_start);
    I.stats.loaded_ahead = ahead;
  }
  I.started = true;
  return true;
}

bool Session::Poll(std::chrono::milliseconds timeout) {
  Impl &I = *impl_;
  if (!I.started || I.stopped) {
    std::this_thread::sleep_for(timeout);
    return false;
  }
  I.cap->Poll([&I](const capture::RecordView &v) { I.OnRecord(v); }, timeout);
  // The capture's counters without the BPF side's (no syscall); those when due
  // (kCountersEvery, or a new sequence gap), loss included: a loss cuts the generation
  // at the drain whose records show its gap, and the model repairs what the missing
  // records leave.
  const auto now = std::chrono::steady_clock::now();
  capture::CaptureStats cs = I.cap->stats(false);
  // (A gap that closed, a record that was still being written, is no loss: a later one
  // reads the counters again.)
  I.gaps_at_counters = std::min(I.gaps_at_counters, cs.consumer.seq_gaps);
  const bool counters_due = now >= I.next_counters || cs.consumer.seq_gaps > I.gaps_at_counters;
  if (counters_due) {
    I.next_counters = now + kCountersEvery;
    cs = I.cap->stats(true);
    I.gaps_at_counters = cs.consumer.seq_gaps;
    I.NoteLoss(cs, false);
  }
  if (I.pipe->Advance(I.advance.load(), I.cap->delivered_up_to())) I.advance = false;
  // Between drains, not in the per-record path; queued behind the records it follows.
  if (I.sampler) I.SampleStates();
  I.LogOutput();
  // The output failed (disk full ...) under --on-write-error stop: the file was cut back
  // to whole generations and recording stops, saying why (SessionStats::output_error).
  const bool more = !(I.file_sink && I.file_sink->stopped()) && !I.cap->target_exited() && !I.execed;
  if (counters_due || now >= I.next_stats || !more) {
    I.next_stats = now + kStatsEvery;
    cs.target_exited = I.cap->target_exited();
    I.UpdateStats(cs);
    if (I.heap_log) I.heap_log->Maybe(now, I.pipe->model().footprint(), I.pipe->writer().stats());
  }
  return more;
}

void Session::RequestAdvance() { impl_->advance = true; }

void Session::Note(std::uint64_t ts, std::string category, std::string text) {
  Impl &I = *impl_;
  if (!I.started || I.stopped || !I.pipe) return;
  I.pipe->OnStateSample(ts, std::move(text), std::move(category));
}

void Session::Run(const std::atomic<bool> &stop, std::optional<std::chrono::steady_clock::time_point> deadline) {
  while (!stop.load()) {
    if (deadline && std::chrono::steady_clock::now() >= *deadline) break;
    if (!Poll()) break;
  }
}

bool Session::Stop(std::string *error) {
  Impl &I = *impl_;
  if (!I.started || I.stopped) return true;
  I.stopped = true;
  const auto t_stop = std::chrono::steady_clock::now();
  // The recording ends now. Detaching takes a while (the syscall tracepoints go first,
  // the uprobes' release waits ~70 ms), and what those last records say is one-sided:
  // scheduling without the syscalls around it, which the model could only repair.
  const std::uint64_t end_ns = procmem::MonoNowNs();
  I.cap->Stop();
  const double detach_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_stop).count();
  std::uint64_t after_end = 0;
  I.cap->Flush([&I, end_ns, &after_end](const capture::RecordView &v) {
    if (v.ts() > end_ns) {
      ++after_end;
      return;
    }
    I.OnRecord(v);
  });
  if (after_end) spdlog::debug("gotraced: {} records written while detaching, after the end: left out", after_end);
  const capture::CaptureStats cs = I.cap->stats();
  I.NoteLoss(cs, true);
  I.pipe->Finish(procmem::MonoNowNs());
  I.LogOutput();
  if (I.record_log) std::fclose(I.record_log);
  I.record_log = nullptr;
  I.record_file.reset();
  I.UpdateStats(cs, true);
  {
    std::lock_guard<std::mutex> lock(I.mu);
    I.stats.stop_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_stop).count();
    I.stats.detach_ms = detach_ms;
  }
  const model::ModelStats ms = I.pipe->model().stats();
  const model::DecoderStats &ds = I.pipe->decoder().stats();
  spdlog::info(
      "gotraced: {} records -> {} events in {} generations; {} goroutines created, {} ended; {} inconsistencies "
      "repaired, {} records lost, {} ignored by design, {} unclassified",
      ds.records, I.pipe->writer().stats().events, I.pipe->writer().stats().generations, ms.goroutines_created, ms.goroutines_ended,
      ms.inconsistencies, ms.records_lost, ds.ignored, ds.unclassified);
  if (I.options.events.cpu_hz)
    spdlog::info("gotraced: {} CPU samples at {} Hz ({} without a readable user stack)", ms.cpu_samples,
                 I.options.events.cpu_hz, ms.cpu_samples_dropped);
  if (ds.cpu_samples_unprofiled)
    spdlog::info("gotraced: {} CPU samples of threads that never ran a goroutine (sysmon) left out, as the runtime does",
                 ds.cpu_samples_unprofiled);
  if (I.labels) {
    const procmem::LabelReaderStats &ls = I.labels->stats();
    spdlog::info("gotraced: {} pprof label logs; {} label sets read ({} unreadable, {} no longer the set "
                 "the record named: dropped, {} cut), {} from the cache; {} read as their record came off "
                 "the ring, {:.1f} ms after it on average",
                 ms.label_logs, ls.reads, ls.failed, ls.stale, ls.cut, ls.hits, ls.prefetched,
                 ls.prefetched ? static_cast<double>(ls.prefetch_age_ns) / 1e6 / static_cast<double>(ls.prefetched)
                               : 0.0);
  }
  for (const auto &[name, n] : ds.unclassified_callers) spdlog::debug("unclassified casgstatus caller {}: {}", name, n);
  if (ds.m_thread_changes)
    spdlog::info("gotraced: {} records showed an M on another thread than before (cgo's extra Ms or a reused M; "
                 "otherwise records built from another hit's data: docs/preemption.md)",
                 ds.m_thread_changes);
  {
    std::lock_guard<std::mutex> lock(I.mu);
    I.stats.m_thread_changes = ds.m_thread_changes;
  }
  if (ds.syscall_overlaps)
    spdlog::warn("gotraced: {} syscalls left out: each overlapped one already written for the same goroutine (a "
                 "stale observation of the capture side; RecordDecoder::EmitSampledSyscall)",
                 ds.syscall_overlaps);
  spdlog::debug("syscall exits: {} kept the P, {} retaken, {} without a P ({} resolved later)", ds.exits_fast,
                ds.exits_retaken, ds.exits_no_p, ds.deferred);
  if (ms.inconsistencies) spdlog::debug("last repair: {}", I.pipe->model().last_repair());
  {
    capture::CaptureStats cs = I.cap->stats();
    spdlog::debug("capture: {} probe hits, {} morestack skips, {} read faults, {} late, {} invalid, {} before every "
                  "probe was attached",
                  cs.probe_hits, cs.morestack_skips, cs.read_faults, cs.consumer.late, cs.consumer.invalid,
                  cs.before_armed);
  }
  if (I.pipe->writer().stats().dropped)
    spdlog::warn("gotraced: the writer refused {} events (model bug): {}", I.pipe->writer().stats().dropped,
                 I.pipe->writer().last_error());
  // Anything lost on the way to the disk fails the recording, whatever the policy.
  if (I.file_sink && (I.file_sink->stopped() || I.file_sink->generations_lost() > 0)) {
    if (error) *error = I.file_sink->error();
    std::lock_guard<std::mutex> lock(I.mu);
    I.last_error = I.file_sink->error();
    return false;
  }
  return true;
}

SessionStats Session::Stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->stats;
}

std::string Session::last_error() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->last_error;
}

pid_t Session::pid() const { return impl_->options.pid; }

}  // namespace gotraced::session
