// Config: what `gotraced serve` watches and how much of the recent past it keeps.
// Read from a TOML file (toml++); packaging/gotraced.toml is the documented default.
//
//   [flight]     window_seconds, window_mb (per process), memory_mb (total cap),
//                keep_exited, generation_ms, events, level, cpu_hz, syscall_min_ms,
//                trace_version, ring_mb, state_sample_seconds
//   [endpoint]   socket, owner, group, mode, max_trace_seconds, metrics_address
//   [spool]      dir, max_files, max_mb (trigger files)
//   [discovery]  exec_watch, rescan_seconds
//   [upload]     endpoint, bucket, prefix, region, path_style, credential files, ca_file,
//                tls_verify, node, key_template, part_mb, retry_*_seconds, max_mb_per_second
//                (daemon/upload/upload_config.h, docs/upload.md)
//   [[watch]]    exe / name / cgroup / unit / container / pod / namespace / container_name
//                (string or array of globs) and optional
//                per-entry window_seconds, window_mb, events, level, state_sample_seconds,
//                and a [watch.triggers]
//                sub-table (stw_ms, syscall_ms, cpu_throttle_ms, sched_latency_ms,
//                after_seconds, min_interval_seconds)
//
// Every error names the file, line and column and why ("gotraced.toml:12:1: [[watch]]
// needs at least one of exe, name, cgroup, unit"), unknown keys included, so a typo is
// refused instead of silently ignored.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/session/session.h"
#include "daemon/upload/upload_config.h"

namespace gotraced::service {

// The event classes a target's recording may carry (`events = [...]`).
enum EventClass : std::uint32_t {
  kEventSched = 1u << 0,    // goroutine and P scheduling
  kEventSyscall = 1u << 1,  // system calls
  kEventGc = 1u << 2,       // GC, STW, heap
  kEventUser = 1u << 3,     // runtime/trace tasks, regions, logs
  kEventCpu = 1u << 4,      // CPU samples
  // GC sweep ranges (with gc). Not in the default set: in a GC-heavy program they are most
  // of the probe hits (bench/overhead gc workload: target CPU 1.4x -> ~3x of the untraced
  // run, docs/probe-plan.md §3.9), too much for an always-on recorder; ask for them by name
  // or with "all".
  kEventSweep = 1u << 5,
  kEventAll = (1u << 6) - 1,
  kEventDefault = kEventAll & ~kEventSweep,
};
// "sched,syscall,gc" style text of a set.
std::string EventSetName(std::uint32_t events);

// What a session records for a configured set. `sched` and `syscall` are not switchable
// at levels full and sched: the goroutine/P/M model (and with it every other class) rests
// on them, and syscalls are scheduling events in the runtime's own trace (a P handed off
// in a blocking syscall), so the session always records both; `gc`, `user` and `cpu` (at
// cpu_hz) are, and at level low `syscall` too (from sched_switch it costs a few loads per
// context switch of the target's threads; by the syscall tracepoints, syscalls_by =
// "tracepoint", every process of the host ~0.2 us per syscall: docs/levels.md).
session::SessionOptions::EventSet SessionEvents(std::uint32_t events, std::uint32_t cpu_hz);

// [watch.triggers]: moments worth full detail. Each threshold is optional (0 = off). A
// crossing saves the window in memory (the level's past) and FULL detail for
// after_seconds to the spool ([spool]), at most once per min_interval_seconds per process
// (the others are counted as rate-limited).
struct TriggerConfig {
  double stw_ms = 0;             // a stop-the-world range longer than this
  double syscall_ms = 0;         // a goroutine syscall longer than this
  double cpu_throttle_ms = 0;    // CFS throttling of the process's cgroup, per throttled period
  double sched_latency_ms = 0;   // runnable -> running (levels full and sched only)
  double after_seconds = 2;      // full detail recorded after the moment
  double min_interval_seconds = 30;
  bool any() const { return stw_ms > 0 || syscall_ms > 0 || cpu_throttle_ms > 0 || sched_latency_ms > 0; }
};

// One [[watch]] entry. A process matches an entry when it matches every selector kind the
// entry gives (exe AND name AND ...), and within one kind any of its patterns.
struct WatchRule {
  std::vector<std::string> exe;     // fnmatch globs on the executable path (/proc/PID/exe)
  std::vector<std::string> name;    // globs on the process name (comm) or the exe's basename
  std::vector<std::string> cgroup;  // cgroup v2 path: equal, a parent of it, or a glob
  std::vector<std::string> unit;    // systemd unit: a component of the cgroup path
  // Containers and pods (daemon/container/identity.h): globs on the container id (or a 4+
  // character prefix of it) or name; the pod's name or UID; its namespace; the container's
  // name (Kubernetes' container name, else the runtime's).
  std::vector<std::string> container, pod, pod_namespace, container_name;
  // Per-entry overrides of [flight].
  std::optional<double> window_seconds;
  std::optional<std::size_t> window_bytes;
  std::optional<std::uint32_t> events;
  std::optional<session::CaptureLevel> level;
  std::optional<std::chrono::milliseconds> state_sample;
  TriggerConfig triggers;
  int line = 0;  // where the entry starts, for messages
};

struct Config {
  std::string path;  // the file it was read from ("" for text)

  // [flight]
  double window_seconds = 10;                     // keep at least this much history per process
  std::size_t window_bytes = std::size_t{16} << 20;  // ... and at most this many bytes of it
  std::size_t memory_bytes = std::size_t{256} << 20; // all windows together, and the daemon's RSS
  std::size_t keep_exited = 16;                   // windows of exited processes kept (oldest dropped first)
  std::chrono::milliseconds generation_period{1000};
  std::uint32_t events = kEventDefault;
  // What each target is trapped for (session/capture_level.h): `level = "full" | "sched" |
  // "low"`, in [flight] and per [[watch]].
  session::CaptureLevel level = session::CaptureLevel::kLow;  // priced to stay on (docs/levels.md)
  std::uint32_t cpu_hz = 100;  // CPU samples per second per thread when `cpu` is on (pprof's default rate)
  // Level low: goroutine states sampled this often (SessionOptions::state_sample), 0 = off.
  std::chrono::milliseconds state_sample = session::kDefaultStateSample;
  // Level low: goroutine syscalls shorter than this are left out (SessionOptions::
  // syscall_min; a watch's syscall trigger below it lowers it for that process). 0: all.
  double syscall_min_ms = 1;
  // Level low: how those syscalls are found. "sample": a task iterator over the target's
  // threads every syscall_min_ms / 4, nothing per syscall; "switch": sched_switch, a
  // thread off CPU in a syscall that long, nothing per syscall; "tracepoint": a program on
  // every syscall (sys_enter/sys_exit), which also makes every other process's syscalls
  // slower (docs/cost.md).
  // Default "switch" (docs/probe-plan.md §10 "Syscalls from sched_switch": its figures);
  // the tracepoints where the kernel cannot, or with syscall_min_ms = 0, said in the log.
  bool syscalls_by_sample = false;
  bool syscalls_by_switch = true;
  session::TraceVersion trace_version = session::TraceVersion::kAuto;
  std::size_t ring_bytes = std::size_t{8} << 20;  // BPF ring buffer per target

  // [endpoint]
  std::string socket = "/run/gotraced/gotraced.sock";
  std::string owner = "root";
  std::string group = "root";
  uid_t owner_uid = 0;
  gid_t group_gid = 0;
  mode_t mode = 0666;  // who may connect; who may read what is decided per request (SO_PEERCRED)
  int max_trace_seconds = 300;
  // HOST:PORT of a TCP listener for GET /metrics and /ready only (api.h
  // HandleNetworkRequest); "" = none. Read at start (a reload keeps the running one).
  std::string metrics_address;

  // [spool]: where triggers save their windows; bounded, oldest removed first.
  std::string spool_dir = "/var/lib/gotraced/spool";
  std::size_t spool_max_files = 32;
  std::size_t spool_max_bytes = std::size_t{256} << 20;

  // [discovery]
  bool exec_watch = true;       // BPF on sched_process_exec/exit; else only rescans
  double rescan_seconds = 30;   // full /proc scan (catches what exec notifications missed)

  std::vector<WatchRule> watch;

  // [upload]: saved traces to S3-compatible storage; none when absent.
  std::optional<upload::UploadConfig> upload;

  // [testing] (undocumented): targets are driven by a synthetic scheduler instead of
  // BPF, so the service can be tested where capture cannot run.
  bool synthetic = false;

  // Effective per-target settings for rule `i` (overrides applied).
  double WindowSeconds(const WatchRule &r) const { return r.window_seconds.value_or(window_seconds); }
  std::size_t WindowBytes(const WatchRule &r) const { return r.window_bytes.value_or(window_bytes); }
  // The set actually recorded: sched and syscall always (see SessionEvents).
  // At level low, `syscall` may be left out: then neither sched_switch's syscall part
  // nor any syscall tracepoint is attached.
  std::uint32_t Events(const WatchRule &r) const {
    return r.events.value_or(events) | kEventSched | (Level(r) == session::CaptureLevel::kLow ? 0u : std::uint32_t{kEventSyscall});
  }
  session::CaptureLevel Level(const WatchRule &r) const { return r.level.value_or(level); }
  std::chrono::milliseconds StateSample(const WatchRule &r) const { return r.state_sample.value_or(state_sample); }
  // The BPF ring of a recording at `level`: ring_mb, but an eighth of it (at least
  // kMinLowRingBytes) at level low, whose records are few (syscalls over syscall_min_ms,
  // GC, CPU samples) and which is the level that stays on. A ring is kernel memory and,
  // mapped twice by the consumer, twice its size of the daemon's RSS: at the default
  // ring_mb of 8, 16 of the ~22 MiB each watched process cost (issue 28, bench/host).
  std::size_t RingBytes(session::CaptureLevel level) const {
    return level == session::CaptureLevel::kLow ? std::max(kMinLowRingBytes, ring_bytes / 8) : ring_bytes;
  }
  static constexpr std::size_t kMinLowRingBytes = std::size_t{256} << 10;
};

// Parses and validates. On failure returns nullopt and sets *error to
// "FILE:LINE:COL: reason" (FILE = `path`, or "<config>" when empty).
std::optional<Config> ParseConfig(std::string_view text, const std::string &path, std::string *error);
// Reads `path` and parses it; a missing or unreadable file is an error naming it.
std::optional<Config> LoadConfig(const std::string &path, std::string *error);

}  // namespace gotraced::service
