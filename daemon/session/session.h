// Session: records one Go process's execution trace from outside it.
//
// One Session per traced process. Start() opens the target's binary (gobin), picks and
// attaches the probe plan for its Go version (probes), starts the ring-buffer consumer
// (capture), snapshots the runtime's goroutines/Ps/Ms (procmem) and opens the first
// generation. Poll() is one step of the loop: it drains captured records into the model
// (model), which drives the trace writer (encoder) into the sink, and cuts a generation
// when its period is over. Stop() detaches, drains what is left, ends the last
// generation and closes the sink: the file is then complete and parseable.
//
// The sink always holds a whole number of generations (encoder/sink.h), so even a
// Session that is killed between generations leaves a valid trace prefix.
//
// Threading: Start/Poll/Run/Stop from one thread. Stats() may be called from any thread.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/session/capture_level.h"
#include "daemon/session/trigger_scan.h"
#include "encoder/sink.h"

namespace gotraced::session {

// Format of the written trace. kAuto: the format the target's own runtime/trace would
// write (go1.22 -> 22, go1.23/go1.24 -> 23, go1.25 -> 25, go1.26 and later -> 26;
// older targets -> 22). See shared/docs/go-trace-format.md §1.
enum class TraceVersion : std::uint8_t { kAuto, kGo119, kGo121, kGo122, kGo123, kGo125, kGo126 };

// "auto", "go1.19", "go1.21" (the legacy format), "go1.22", "go1.23", "go1.25", "go1.26"
// (also "1.22", "22" ...). nullopt if unknown.
std::optional<TraceVersion> ParseTraceVersion(std::string_view text);
std::string_view TraceVersionName(TraceVersion v);

// SessionOptions::state_sample's default (--state-sample, serve's state_sample_seconds).
inline constexpr std::chrono::milliseconds kDefaultStateSample{5000};

struct SessionOptions {
  pid_t pid = 0;  // the target process (tgid)

  // Where the trace goes: `sink` if set (caller-owned, must outlive the Session: flight
  // recorder ring, endpoint stream, tests), else a file created/truncated at `out_path`.
  std::string out_path;
  encoder::Sink *sink = nullptr;
  // What a failed write of out_path does (--on-write-error): stop recording (the file
  // keeps its whole generations), or drop that generation and go on in a continuation
  // file (encoder/sink.h).
  encoder::WriteErrorPolicy on_write_error = encoder::WriteErrorPolicy::kStop;

  TraceVersion version = TraceVersion::kAuto;

  // BPF ring buffer size in bytes (rounded up to a power of two, at least one page).
  std::size_t ring_bytes = std::size_t{64} << 20;

  // A new generation every period, like the runtime's traceAdvance
  // (GODEBUG=traceadvanceperiod, default 1 s). Zero: a single generation for the whole
  // session (cut early only to recover from lost records).
  std::chrono::milliseconds generation_period{1000};

  // Trace clock = ns / tick_divisor (64 = the runtime's traceTimeDiv on Linux).
  std::uint64_t tick_divisor = 64;

  // Launch mode: the target has been created but has not yet run any Go code (stopped
  // before exec or before runtime init). No snapshot is taken; every goroutine appears
  // through GoCreate, as in a trace started by runtime/trace at process start.
  bool launched = false;

  // Path of the target's executable; empty = /proc/<pid>/exe.
  std::string exe_path;

  // Which event classes to record (record's --events / --cpu-hz, serve's `events`).
  // Scheduling events (goroutines, procs, blocking, syscalls as the Go runtime sees them)
  // are always recorded: every other class hangs off the goroutine/P/M model.
  struct EventSet {
    bool gc = true;           // GC, STW, sweep, assists, heap metrics, worker labels
    // GC sweep ranges (with gc): the costliest GC probes, ~2 hits per span an allocation
    // takes from an mcentral plus one per span swept (docs/probe-plan.md §3.9).
    bool sweeps = true;
    bool user = true;         // runtime/trace tasks, regions, logs
    // pprof labels: a "gotraced: labels" log when a goroutine starts running, blocks,
    // stops or enters a syscall with a label set other than its last one
    // (daemon/model/model_labels.cc); at level low, counts per label value in the state
    // samples (state_sampler.h).
    bool labels = true;
    // The kernel view (docs/kernel-view.md): off-CPU intervals of running goroutines'
    // threads as "kernel: ..." regions (sched_switch + sched_wakeup).
    bool kernel = true;
    std::uint32_t cpu_hz = 0; // CPU samples per second per thread (0 = off)
    // Level low only: goroutine syscalls (from sched_switch or the raw_syscalls
    // tracepoints: syscall_switch). Off, neither is attached for them, and no syscall of
    // any process on the host pays for one (docs/levels.md: ~0.2 us per syscall host-wide
    // by the tracepoints). The other levels always record syscalls (scheduling events
    // in the runtime's own trace).
    bool syscalls = true;
  };
  EventSet events;

  // What is trapped for (capture_level.h): full, sched (no stacks, no sweeps) or low (no
  // per-goroutine-switch site). Applied over `events`.
  CaptureLevel level = CaptureLevel::kFull;
  // Level low only: every this long, the goroutines' states (how many run, wait and on
  // what) are read from the target's memory and written as a trace log (docs/levels.md;
  // session/state_sampler.h). Zero: never. Other levels record every transition.
  std::chrono::milliseconds state_sample{kDefaultStateSample};
  // Level low: goroutine syscalls shorter than this are not written (nor is their g read:
  // the level's cost per syscall, docs/levels.md), and are counted
  // (SessionStats::short_syscalls). A syscall trigger's threshold below it lowers it to
  // that. 0: every goroutine syscall. Ignored by the other levels.
  std::chrono::nanoseconds syscall_min = std::chrono::milliseconds(1);
  // Level low with syscall_min > 0: find those syscalls by sampling the target's threads
  // every syscall_min / 4 (capture/syscall_sampler.h) instead of a program on every
  // syscall (the sys_enter/sys_exit tracepoints, the fallback). `--syscalls-by`.
  bool syscall_sample = false;
  // ... or from sched_switch: a thread off CPU in a goroutine syscall for syscall_min
  // (bpf/gt_sys_switch.bpf.h), no program on any syscall. `--syscalls-by switch`, the
  // default (docs/cost.md "Per capture level"); the tracepoints where it cannot be used
  // (SessionStats::syscalls_switch_refused). Neither: the tracepoints.
  bool syscall_switch = true;

  // --pid: wait (up to 1 s) for a first record that proves the struct offsets right
  // (capture.h self_check). Off for serve's escalations: the always-on recording of the
  // same binary has passed it.
  bool self_check = true;

  // An eventfd (EFD_NONBLOCK) the caller's other threads write to end Poll's wait early
  // (ring_consumer.h ConsumerOptions::interrupt_fd): serve's detaches and dumps, so its
  // loop can wait a quiet ring's whole drain interval. -1: none. Not owned.
  int interrupt_fd = -1;

  // serve's triggers (trigger_scan.h): thresholds on the decoded records, and where each
  // crossing is reported (called from the recording's thread; must be quick).
  TriggerThresholds triggers;
  std::function<void(const TriggerHit &)> on_trigger;
};

// Counters, cumulative since Start(). A snapshot; cheap to take.
struct SessionStats {
  // Target.
  std::string go_version;   // e.g. "go1.26.8" (empty before Start succeeded)
  std::string trace_format; // e.g. "go1.26": the header actually written
  std::string probe_plan;   // name of the attached probe plan
  std::string level;        // capture level ("full", "sched", "low")
  std::uint64_t sparse_observations = 0;  // level low: GC/STW/procs events wrapped in a G of their own
  // Level low's goroutine state samples: taken, written into the trace, reads that
  // failed, the most live goroutines in one, and the time the reads took.
  std::uint64_t state_samples = 0, state_samples_written = 0, state_sample_failures = 0;
  std::uint64_t state_sample_max_goroutines = 0;
  double state_sample_ms_max = 0, state_sample_ms_total = 0;
  // Level low: syscalls of the target's threads shorter than syscall_min_ns, not written
  // (the runtime's own among them: which goroutine made one is read only for those that
  // lasted). 0 with no threshold.
  std::uint64_t short_syscalls = 0;
  std::uint64_t syscall_min_ns = 0;
  // Level low's syscalls by sampling: the period (0: by the tracepoints) and sweeps made.
  std::uint64_t syscall_sample_period_ns = 0, syscall_sweeps = 0;
  // Level low's syscalls came from sched_switch (`--syscalls-by switch` in effect) ...
  bool syscalls_by_switch = false;
  // ... or were asked from there and came from the tracepoints: why (capture.h).
  std::string syscalls_switch_refused;
  bool target_exited = false;
  // The target called execve: the program traced is gone (its pid runs another one).
  // The recording ends at the exec; records after it are not the traced program's.
  bool target_execed = false;

  // Capture.
  std::uint64_t records = 0;        // records read from the ring buffer
  // Records the kernel side could not submit (its per-CPU counters of failed
  // reservations) while recording; after Stop, the larger of that and the records
  // missing by their per-CPU sequence numbers once every record was read (a gap may be
  // a record still being written while recording: not a loss until the end).
  std::uint64_t records_lost = 0;
  std::uint64_t ring_bytes_read = 0;

  // Model. The counts of what the output holds: events, goroutines_created, blocks,
  // syscalls, generations and bytes_written leave out the generations a failed write
  // lost (events_lost ... below), so they are what a reader of the file(s) finds.
  std::uint64_t events = 0;                 // trace events emitted
  std::uint64_t goroutines_live = 0;        // goroutines the model currently tracks
  std::uint64_t goroutines_created = 0;     // GoCreate* emitted
  std::uint64_t goroutines_ended = 0;       // GoDestroy* emitted
  std::uint64_t blocks = 0;                 // GoBlock emitted
  std::uint64_t syscalls = 0;               // GoSyscallBegin emitted
  std::uint64_t inconsistencies = 0;        // records that contradicted the model's state (repaired)
  std::uint64_t records_discarded = 0;      // records the model could not use (e.g. unknown goroutine)
  std::uint64_t generations = 0;            // generations finished (written to the sink)
  std::uint64_t generation_cuts = 0;        // generations ended early to recover from loss/inconsistency
  std::uint64_t goroutines_gone = 0;        // given up after a loss: ended, their end lost (lost_end_pruner.h)

  // Output.
  std::uint64_t bytes_written = 0;
  // The first failed write of the output file ("" if none; a removed file counts): the
  // file was cut back to its whole generations, and recording stopped (output_stopped,
  // --on-write-error stop) or went on into continuation files (drop).
  // generations_lost were finished but are not on disk; the events, goroutines
  // created, blocks and syscalls in them:
  std::string output_error;
  bool output_stopped = false;
  std::uint64_t output_write_errors = 0;
  std::uint64_t generations_lost = 0;
  std::uint64_t events_lost = 0, goroutines_created_lost = 0, blocks_lost = 0, syscalls_lost = 0;
  // The files that hold the trace, each parseable on its own (more than one only after
  // a drop): path, whole generations, number of the first.
  struct OutputFile {
    std::string path;
    std::uint64_t generations = 0;
    std::uint64_t first_gen = 0;
  };
  std::vector<OutputFile> output_files;

  // Where start-up and stop time went, in milliseconds (gotraced --verbose).
  double plan_ms = 0;        // binary analysis: ELF, pclntab, runtime layout, probe plan
  double load_ms = 0;        // BPF load and verification
  double attach_ms = 0;      // tracepoints and uprobes
  double snapshot_ms = 0;    // runtime snapshot at attach (--pid)
  double self_check_ms = 0;  // first consistent record (--pid)
  double start_ms = 0;       // all of Session::Start (after Prepare, when it ran ahead)
  bool loaded_ahead = false; // Prepare ran before Start (serve's standby): plan_ms and
                             // load_ms were spent then, not in start_ms
  // Not 0: nothing was loaded, the object of this earlier process of the same executable
  // was reused (capture::EnableObjectReuse, serve).
  int reused_from = 0;
  double stop_ms = 0;        // Session::Stop: detach, last records, model, flush
  double detach_ms = 0;      // of which detaching the probes (capture::Capture::Stop)
  std::uint64_t bpf_programs = 0, uprobes = 0;
  // Records whose M was last seen on another thread (DecoderStats::m_thread_changes).
  std::uint64_t m_thread_changes = 0;
};

class Session {
 public:
  explicit Session(SessionOptions options);
  ~Session();  // calls Stop() if Start() succeeded and Stop() was not called
  Session(const Session &) = delete;
  Session &operator=(const Session &) = delete;

  // Opens, attaches and snapshots (see the file comment). On failure returns false with
  // a message for the operator in *error (what failed and why), and nothing is attached.
  bool Start(std::string *error);
  // Start's first half ahead of time: the plan and the BPF object loaded and verified,
  // nothing attached, nothing recorded (capture::Capture::Load). Start then only attaches
  // and snapshots: serve's standby for switching a process to full detail (~20 ms
  // instead of ~130). On failure, false with *error; Start would fail the same way.
  bool Prepare(std::string *error);

  // One loop step: waits up to `timeout` for records, consumes everything available,
  // feeds the model, and cuts a generation if its period is over. Returns false when the
  // session is over (target exited and all its records were consumed, or a fatal error:
  // see last_error()); the caller then calls Stop().
  bool Poll(std::chrono::milliseconds timeout = std::chrono::milliseconds(100));

  // Ends the generation in progress at the next Poll(), whatever its period (runtime/trace
  // FlightRecorder.WriteTo's forced advance: a dump that wants what happened up to now).
  // Callable from any thread.
  void RequestAdvance();

  // Writes `text` as a UserLog of category `category` at `ts` (CLOCK_MONOTONIC ns), at
  // every level, on the trace's own goroutine and M (model/record.h kStateSampleG,
  // kStateSampleM; model_sparse.cc), as level low's goroutine state samples are, so a
  // reader finds it in go tool trace: who the trace is of ("gotraced: target"), where
  // serve's triggers fired. No goroutine of the program carries it. Call from Poll's
  // thread.
  void Note(std::uint64_t ts, std::string category, std::string text);

  // Polls until `stop` becomes true, `deadline` passes (if given) or Poll() returns false.
  void Run(const std::atomic<bool> &stop,
           std::optional<std::chrono::steady_clock::time_point> deadline = std::nullopt);

  // Detaches the probes, drains the ring buffer, writes the last generation and closes
  // the sink. Idempotent. Returns false (with *error, if given) if the output could not
  // be written completely.
  bool Stop(std::string *error = nullptr);

  SessionStats Stats() const;

  // Last non-fatal or fatal problem, for the operator ("" if none).
  std::string last_error() const;

  pid_t pid() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gotraced::session
