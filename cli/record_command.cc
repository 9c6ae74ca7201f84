// The default command: record one Go process.
//   gotraced --pid N --out FILE [--duration D]      attach to a running process
//   gotraced --out FILE -- PROG ARGS                launch PROG under tracing
//   gotraced --out-dir DIR -- PROG ARGS             one file per process: DIR/<binary>-<pid>.trace
//   gotraced --pod NAME|UID [--namespace NS] --out-dir DIR   every Go process of a pod
//   gotraced --container ID|NAME --out-dir DIR               ... of a container (container_select.h)
// Stops on Ctrl-C, SIGTERM, --duration or target exit, always leaving a complete file.
#include <signal.h>
#include <sys/wait.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/s3_out.h"
#include "cli/container_select.h"
#include "cli/duration.h"
#include "cli/launcher.h"
#include "cli/report_gate.h"
#include "cli/status_line.h"
#include "daemon/capture/cpu_sampler.h"
#include "daemon/procmem/mono_clock.h"
#include "daemon/probes/privileges.h"
#include "daemon/service/discovery.h"
#include "daemon/session/malloc_tuning.h"
#include "daemon/session/session.h"
#include "daemon/session/syscall_path.h"

namespace gotraced::cli {
namespace {

std::atomic<int> g_signals{0};
std::atomic<int> g_last_signal{0};

void OnSignal(int sig) {
  g_last_signal.store(sig);
  g_signals.fetch_add(1);
}

void InstallSignalHandlers() {
  struct sigaction sa {};
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: let poll() return early
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  signal(SIGPIPE, SIG_IGN);
  // A file size limit (ulimit -f) makes a write past it fail with EFBIG, which the
  // output handles like a full disk, instead of killing gotraced (SIGXFSZ's default).
  signal(SIGXFSZ, SIG_IGN);
}

struct RecordOptions {
  pid_t pid = 0;
  std::string out;
  std::string out_dir;
  std::string store;  // --store CONFIG: serve's [upload] settings for --out s3://
  std::string report_fail_on;  // --report-fail-on (report_gate.h)
  std::string duration;
  std::string trace_version = "auto";
  // Empty: 16M for a launched program, 64M for --pid (RunRecord). A ring's pages are
  // allocated, zeroed, mapped twice and torn down at every recording: 64M cost a launch
  // ~60 ms of kernel CPU (strings.test: 164 ms of gotraced CPU at 64M, 108 at 16M), which
  // `go test -exec` pays per test binary. A launched program starts with the drain at its
  // shortest interval; an attached server may have been busy for hours, and 64M is there
  // for its bursts.
  std::string ring_size;
  std::string generation_period = "1s";
  std::string on_write_error = "stop";
  bool verbose = false;  // where start-up and stop time went
  bool quiet = false;
  bool no_gc = false;
  bool no_sweeps = false;
  bool no_user = false;
  bool no_labels = false;
  bool no_syscalls = false;  // level low only
  bool kernel_view = true;
  std::int64_t cpu_hz = 0;
  std::string level = "full";
  std::string state_sample;  // "" = session::kDefaultStateSample
  std::string syscall_min;  // level low only; "" = the level's default (SessionOptions)
  // Level low only: switch (the default: sched_switch, docs/probe-plan.md §10) | tracepoint | sample.
  std::string syscalls_by = "switch";
  std::vector<std::string> command;
  ContainerSelector select;  // --container / --pod / --namespace
};

std::optional<std::size_t> ParseSize(const std::string &text) {
  if (text.empty()) return std::nullopt;
  char *end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || v <= 0) return std::nullopt;
  std::string unit(end);
  double scale = 1;
  if (unit.empty() || unit == "B") scale = 1;
  else if (unit == "K" || unit == "KiB" || unit == "k") scale = 1024;
  else if (unit == "M" || unit == "MiB" || unit == "m") scale = 1024.0 * 1024;
  else if (unit == "G" || unit == "GiB" || unit == "g") scale = 1024.0 * 1024 * 1024;
  else return std::nullopt;
  return static_cast<std::size_t>(v * scale);
}

std::string BinaryName(pid_t pid, const std::vector<std::string> &command) {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/" + std::to_string(pid) + "/exe", ec);
  std::string name = ec ? (command.empty() ? "process" : command[0]) : exe.string();
  name = std::filesystem::path(name).filename().string();
  if (name.empty()) name = "process";
  return name;
}

// --out-dir's file for pid: <binary>-<pid>.trace, with <namespace>_<pod>_<container>- first
// for a process in a pod (container::FileStem).
std::string OutDirFile(const std::string &dir, pid_t pid, const std::vector<std::string> &command) {
  const std::string stem = container::FileStem(container::ReadIdentity(pid, service::IdentitySourcesFromEnv()));
  return (std::filesystem::path(dir) /
          ((stem.empty() ? "" : stem + "-") + BinaryName(pid, command) + "-" + std::to_string(pid) + ".trace"))
      .string();
}

bool ProcessExists(pid_t pid) { return kill(pid, 0) == 0 || errno == EPERM; }

int Fail(const std::string &msg) {
  spdlog::error("{}", msg);
  return 1;
}

int RunRecord(const RecordOptions &o);

// --container / --pod: every Go process of it, one recording each (a child process per
// recording when there are several: each is a `gotraced --pid` of its own, with its own
// summary; Ctrl-C reaches them all, SIGTERM is passed on).
int RunSelected(const RecordOptions &o) {
  if (o.pid || !o.command.empty()) return Fail("--container and --pod choose the processes: give no --pid or program");
  if (!o.select.container.empty() && !o.select.pod.empty()) return Fail("give --container or --pod, not both");
  if (!o.select.pod_namespace.empty() && o.select.pod.empty()) return Fail("--namespace goes with --pod");
  if (o.out_dir.empty() == o.out.empty()) return Fail("give --out-dir DIR (one file per Go process) or --out FILE");
  Selection sel = SelectProcesses(o.select);
  for (const std::string &s : sel.skipped) spdlog::warn("{}: skipped", s);
  if (sel.go.empty()) return Fail(fmt::format("no Go process in {} on this node{}", o.select.What(),
                                              sel.skipped.empty() ? "" : " (see the skipped ones above)"));
  if (!o.out.empty() && sel.go.size() > 1)
    return Fail(fmt::format("{} has {} Go processes: give --out-dir DIR for one file each", o.select.What(), sel.go.size()));
  std::vector<pid_t> children;
  for (const service::ProcInfo &p : sel.go) {
    RecordOptions one = o;
    one.select = {};
    one.pid = p.pid;
    if (!o.out_dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(o.out_dir, ec);
      one.out = OutDirFile(o.out_dir, p.pid, {});
      one.out_dir.clear();
    }
    spdlog::info("{}: recording pid {} ({}) -> {}", o.select.What(), p.pid, container::Describe(p.identity), one.out);
    if (sel.go.size() == 1) return RunRecord(one);
    one.quiet = true;
    pid_t c = fork();
    if (c < 0) return Fail(fmt::format("fork: {}", std::strerror(errno)));
    if (c == 0) _exit(RunRecord(one));
    children.push_back(c);
  }
  InstallSignalHandlers();
  int rc = 0, handled = 0;
  std::size_t left = children.size();
  while (left) {
    int status = 0;
    pid_t w = waitpid(-1, &status, 0);
    if (w < 0 && errno == EINTR) {
      if (g_signals.load() != handled) {
        handled = g_signals.load();
        if (g_last_signal.load() == SIGTERM)
          for (pid_t c : children) kill(c, SIGTERM);
      }
      continue;
    }
    if (w < 0) break;
    left--;
    const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    rc = std::max(rc, code);
  }
  return rc;
}

int RunRecord(const RecordOptions &o) {
  if (!o.select.empty() || !o.select.pod_namespace.empty()) return RunSelected(o);
  session::TuneMalloc();  // a long recording's RSS follows what it holds (malloc_tuning.h)
  const bool launch = !o.command.empty();
  if (launch && o.pid) return Fail("give either --pid N or a program after --, not both");
  if (!launch && !o.pid)
    return Fail("nothing to trace: give --pid N (a running Go process) or a program after -- (see --help)");
  if (o.out.empty() == o.out_dir.empty()) return Fail("give exactly one of --out FILE or --out-dir DIR");

  std::optional<std::chrono::nanoseconds> duration;
  if (!o.duration.empty()) {
    duration = ParseDuration(o.duration);
    if (!duration || duration->count() == 0)
      return Fail("--duration " + o.duration + ": not a duration (examples: 10s, 500ms, 2m)");
  }
  auto version = session::ParseTraceVersion(o.trace_version);
  if (!version) return Fail("--trace-version " + o.trace_version + ": expected auto, go1.19, go1.21, go1.22, go1.23, go1.25 or go1.26");
  auto level = session::ParseCaptureLevel(o.level);
  if (!level) return Fail("--level " + o.level + ": expected full, sched or low");
  std::chrono::milliseconds state_sample = session::kDefaultStateSample;
  if (!o.state_sample.empty()) {
    auto d = ParseDuration(o.state_sample);
    if (!d) return Fail("--state-sample " + o.state_sample + ": not a duration (examples: 5s, 500ms; 0 = off)");
    if (*level != session::CaptureLevel::kLow)
      return Fail("--state-sample is for --level low (the other levels record every goroutine transition)");
    state_sample = std::chrono::duration_cast<std::chrono::milliseconds>(*d);
    if (d->count() > 0 && state_sample.count() == 0) state_sample = std::chrono::milliseconds(1);
  }
  if (o.no_syscalls && *level != session::CaptureLevel::kLow)
    return Fail("--no-syscalls applies to --level low (the other levels' scheduling rests on syscalls)");
  if (o.no_syscalls && !o.syscall_min.empty()) return Fail("give --no-syscalls or --syscall-min, not both");
  std::optional<std::chrono::nanoseconds> syscall_min;
  if (!o.syscall_min.empty()) {
    if (*level != session::CaptureLevel::kLow)
      return Fail("--syscall-min applies to --level low (the other levels record every goroutine syscall)");
    syscall_min = ParseDuration(o.syscall_min);
    if (!syscall_min) return Fail("--syscall-min " + o.syscall_min + ": not a duration (examples: 1ms, 200us, 0 for all)");
  }
  const std::string ring_size = !o.ring_size.empty() ? o.ring_size : launch ? "16M" : "64M";
  auto ring = ParseSize(ring_size);
  if (!ring) return Fail("--ring-size " + ring_size + ": expected a size such as 64M");
  if (o.on_write_error != "stop" && o.on_write_error != "drop")
    return Fail("--on-write-error " + o.on_write_error + ": expected stop or drop");
  auto period = ParseDuration(o.generation_period);
  if (!period) return Fail("--generation-period " + o.generation_period + ": not a duration");
  if (o.cpu_hz < 0 || o.cpu_hz > capture::kMaxCpuHz)
    return Fail("--cpu-hz " + std::to_string(o.cpu_hz) + ": expected 0 (off) or 1.." + std::to_string(capture::kMaxCpuHz) +
                " samples per second of CPU time per thread (100 is runtime/pprof's rate)");

  // The capabilities in effect, not the uid: root in a container may lack them, a
  // non-root user may have been given them.
  if (!probes::CurrentPrivileges().can_attach())
    spdlog::warn("without root's capabilities: loading BPF and reading the target's memory need root "
                 "(or CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE); expect a permission error");
  if (std::string e = CheckReportGate(o.report_fail_on); !e.empty()) return Fail("--report-fail-on " + e);
  if (!o.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec) return Fail("--out-dir " + o.out_dir + ": " + ec.message());
  }

  InstallSignalHandlers();

  Launcher launcher;
  pid_t pid = o.pid;
  if (launch) {
    std::string err;
    if (!launcher.Start(o.command, &err)) return Fail(err);
    pid = launcher.pid();
  } else if (!ProcessExists(pid)) {
    return Fail("no process with pid " + std::to_string(pid));
  }

  // --out s3://bucket/key: written here first, uploaded at the end (s3_out.h).
  std::string s3_err;
  const std::optional<S3Out> s3 = ParseS3Out(o.out, o.store, &s3_err);
  if (!s3_err.empty()) return Fail("--out " + s3_err);
  std::string out = s3 ? s3->local : o.out;
  if (!o.out_dir.empty()) out = OutDirFile(o.out_dir, pid, o.command);

  session::SessionOptions so;
  so.pid = pid;
  so.out_path = out;
  so.on_write_error = o.on_write_error == "drop" ? encoder::WriteErrorPolicy::kDrop : encoder::WriteErrorPolicy::kStop;
  so.version = *version;
  so.ring_bytes = *ring;
  so.generation_period = std::chrono::duration_cast<std::chrono::milliseconds>(*period);
  so.launched = launch;
  so.events.gc = !o.no_gc;
  so.events.sweeps = !o.no_sweeps;
  so.events.user = !o.no_user;
  so.events.labels = !o.no_labels;
  so.events.kernel = o.kernel_view;
  so.events.cpu_hz = static_cast<std::uint32_t>(o.cpu_hz);
  so.events.syscalls = !o.no_syscalls;
  so.level = *level;
  so.state_sample = state_sample;
  if (syscall_min) so.syscall_min = *syscall_min;
  so.syscall_sample = o.syscalls_by == "sample";
  so.syscall_switch = o.syscalls_by == "switch";
  session::Session session(so);

  std::string err;
  if (!session.Start(&err)) {
    if (launch) {
      launcher.Signal(SIGKILL);  // a stopped tracee dies on SIGKILL; nothing of it ran
      launcher.Wait();
    }
    // Another user's process refused for want of privilege: say whose it is and what
    // would do (the capture names what its own refusals need).
    const probes::BpfPrivileges priv = probes::CurrentPrivileges();
    struct stat st {};
    std::string hint;
    if (!priv.can_attach() && (err.find("Permission denied") != std::string::npos ||
                               err.find("not permitted") != std::string::npos) &&
        ::stat(("/proc/" + std::to_string(pid)).c_str(), &st) == 0 && st.st_uid != geteuid())
      hint = fmt::format(" (pid {} belongs to uid {}; gotraced runs as uid {} without {}: run it as root, or "
                         "give it CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE)",
                         pid, st.st_uid, geteuid(),
                         !priv.can_load() ? "CAP_BPF and CAP_PERFMON" : "CAP_SYS_PTRACE");
    return Fail(fmt::format("cannot trace pid {}: {}{}", pid, err, hint));
  }
  // Who the trace is of (NSpid, container, pod, node): the trace's first log (at every
  // level, on gotraced's own goroutine: Session::Note) and the summary.
  const container::Identity identity = container::ReadIdentity(pid, service::IdentitySourcesFromEnv());
  session.Note(procmem::MonoNowNs(), "gotraced: target", container::TargetLog(identity));
  if (launch && !launcher.Resume(&err)) {
    launcher.Signal(SIGKILL);
    session.Stop();
    return Fail(err);
  }

  const bool tty = !o.quiet && isatty(STDERR_FILENO);
  StatusLine status(tty);
  auto start = std::chrono::steady_clock::now();
  std::optional<std::chrono::steady_clock::time_point> deadline;
  if (duration) deadline = start + *duration;

  int handled_signals = 0;
  bool forwarded = false;
  const char *why = "target exited";
  while (true) {
    bool more = session.Poll(std::chrono::milliseconds(50));
    status.Update(pid, session.Stats(), std::chrono::steady_clock::now() - start);
    if (!more) break;
    if (launch && launcher.Exited()) {
      session.Poll(std::chrono::milliseconds(0));  // what the target wrote last
      break;
    }
    int sigs = g_signals.load();
    if (sigs != handled_signals) {
      handled_signals = sigs;
      // Launch mode: the first signal goes to the program (as if gotraced weren't there)
      // and recording continues until it exits; a second one stops recording now.
      if (launch && !forwarded) {
        forwarded = true;
        launcher.Signal(g_last_signal.load());
      } else {
        why = g_last_signal.load() == SIGINT ? "interrupted" : "terminated";
        break;
      }
    }
    if (deadline && std::chrono::steady_clock::now() >= *deadline) {
      why = "duration reached";
      break;
    }
  }

  if (session.Stats().target_execed) why = "target exec'd another program";
  if (session.Stats().output_stopped) why = "stopped: the output could not be written";
  std::string stop_err;
  bool ok = session.Stop(&stop_err);
  auto elapsed = std::chrono::steady_clock::now() - start;
  status.Clear();
  auto stats = session.Stats();
  if (!ok) spdlog::error("writing {} failed: {}", out, stop_err);
  if (!session.last_error().empty()) spdlog::warn("{}", session.last_error());
  std::fprintf(stderr, "%s (%s)\n", FormatSummary(out, pid, stats, elapsed, container::Describe(identity)).c_str(), why);
  // What a trace of a lower level holds and does not (capture_level.h).
  if (*level != session::CaptureLevel::kFull)
    std::fprintf(stderr, "gotraced: %s\n", session::CaptureLevelContents(*level, state_sample).c_str());
  if (o.verbose && stats.state_samples + stats.state_sample_failures > 0)
    std::fprintf(stderr,
                 "gotraced: %llu goroutine state samples (%llu written, %llu failed), up to %llu goroutines, "
                 "%.2f ms per sample at most, %.1f ms in all\n",
                 (unsigned long long)stats.state_samples, (unsigned long long)stats.state_samples_written,
                 (unsigned long long)stats.state_sample_failures, (unsigned long long)stats.state_sample_max_goroutines,
                 stats.state_sample_ms_max, stats.state_sample_ms_total);
  if (o.no_syscalls)
    std::fprintf(stderr, "gotraced: level low: no syscalls (--no-syscalls): no syscall tracepoint was attached\n");
  else if (*level == session::CaptureLevel::kLow)  // which path ran (syscall_path.h)
    std::fprintf(stderr, "gotraced: %s\n", session::SyscallSummary(stats).c_str());
  if (o.verbose)
    std::fprintf(stderr,
                 "gotraced: start-up %.0f ms (binary analysis %.0f, BPF load and verification %.0f for %llu programs, "
                 "attach %.0f for %llu uprobes, snapshot %.0f, self-check %.0f); stop %.0f ms (detach %.0f, last records, "
                 "model and flush %.0f); %llu records with an M on another thread; %llu model repairs\n",
                 stats.start_ms, stats.plan_ms, stats.load_ms, (unsigned long long)stats.bpf_programs, stats.attach_ms,
                 (unsigned long long)stats.uprobes, stats.snapshot_ms, stats.self_check_ms, stats.stop_ms,
                 stats.detach_ms, stats.stop_ms - stats.detach_ms, (unsigned long long)stats.m_thread_changes,
                 (unsigned long long)stats.inconsistencies);

  const bool crossed = !o.report_fail_on.empty() && ok &&
                       RunReportGate(o.report_fail_on, out, BinaryName(pid, o.command));
  // --out s3://: uploaded once the report read it (s3_out.h); a failed upload fails the run.
  const int upload_rc = s3 && ok ? UploadAndRemove(*s3) : 0;
  if (launch) {
    launcher.Wait();
    // A trace that did not reach the store fails the run (it is kept, and said where);
    // else the program's own failure wins; else a crossed threshold.
    return upload_rc ? upload_rc : launcher.exit_code() != 0 ? launcher.exit_code() : crossed ? 3 : 0;
  }
  return !ok ? 1 : upload_rc ? upload_rc : crossed ? 3 : 0;
}

}  // namespace

std::function<int()> RegisterRecord(CLI::App &app) {
  auto o = std::make_shared<RecordOptions>();
  app.add_option("--pid,-p", o->pid, "attach to this running Go process");
  app.add_option("--out,-o", o->out, "write the trace to this file, or to s3://BUCKET/KEY (AWS_* environment or "
                                     "--store: written locally, uploaded, then removed)");
  app.add_option("--store", o->store,
                 "with --out s3://: the store's endpoint, region and credentials from this serve config file's "
                 "[upload] table instead of the AWS_* environment");
  app.add_option("--report-fail-on", o->report_fail_on,
                 "after recording, report on the trace (one line) and exit 3 if it crosses a threshold, unless the "
                 "program failed: 'sched_latency_p99>5ms,goroutine_growth>1000' (gotraced report --fail-on)");
  app.add_option("--out-dir", o->out_dir, "write one trace per traced process into DIR, named <binary>-<pid>.trace");
  app.add_option("--duration,-d", o->duration, "stop after this long (10s, 2m ...); default: until Ctrl-C or exit");
  app.add_option("--trace-version", o->trace_version,
                 "trace format: auto (what the target's runtime writes: the legacy go1.19/go1.21 format for Go <= 1.21), "
                 "go1.19, go1.21, go1.22, go1.23, go1.25, go1.26")
      ->capture_default_str();
  app.add_option("--ring-size", o->ring_size,
                 "BPF ring buffer size (default: 16M for a launched program, 64M with --pid); a summary that "
                 "reports records lost says to raise it");
  app.add_option("--generation-period", o->generation_period, "start a new trace generation this often")
      ->capture_default_str();
  app.add_option("--on-write-error", o->on_write_error,
                 "when writing the trace fails (disk full, file removed): stop recording (the file keeps its whole "
                 "generations), or drop that generation and go on in a continuation file FILE.N (each file parses "
                 "on its own); either way the summary says what was lost and gotraced exits 1")
      ->capture_default_str();
  app.add_flag("--quiet,-q", o->quiet, "no live status line");
  app.add_flag("--verbose,-v", o->verbose,
               "say where start-up and stop time went (binary analysis, BPF load and verification, attach, "
               "snapshot, flush)");
  app.add_flag("--no-gc", o->no_gc, "do not record GC, STW, heap metrics (no GC probes are attached)");
  app.add_flag("--no-sweeps", o->no_sweeps,
               "do not record GC sweep ranges (their probes fire at every span an allocation takes from an mcentral and every span swept: the costliest GC probes)");
  app.add_flag("--no-user", o->no_user,
               "do not record user tasks, regions and logs (no runtime/trace annotation probes are attached)");
  app.add_flag("--no-labels", o->no_labels,
               "do not write goroutines' pprof labels (a \"gotraced: labels\" log when a goroutine starts running, "
               "blocks, stops or enters a syscall with another label set; at level low, counts per label in the "
               "goroutine state samples; docs/trace-contents.md)");
  app.add_flag("--kernel-view,!--no-kernel-view", o->kernel_view,
               "write what the kernel did to running goroutines' threads as \"kernel: ...\" regions on the "
               "goroutines: off CPU preempted, throttled by the cgroup's CPU quota, blocked or asleep outside a Go "
               "syscall, run-queue wait (sched_switch + sched_wakeup; docs/kernel-view.md)")
      ->capture_default_str();
  app.add_option("--cpu-hz", o->cpu_hz,
                 "CPU samples per second of each thread's CPU time, written as the trace's CPU profile "
                 "samples (0 = off; 100 = runtime/pprof's rate)")
      ->capture_default_str();
  app.add_option("--level", o->level,
                 "what to trap for (docs/levels.md): full (everything), sched (no stacks on scheduling "
                 "events, no GC sweeps), low (no per-goroutine-switch probe: syscalls of 1 ms or more from "
                 "sched_switch, GC cycles and STW, GOMAXPROCS, CPU samples; no scheduling)")
      ->capture_default_str();
  app.add_option("--state-sample", o->state_sample,
                 "level low: count the goroutines' states (running, runnable, syscall, waiting and on what) "
                 "read-only from the target's memory this often, each count a trace log \"gotraced: goroutine "
                 "states\" (default 5s; 0 = off)");
  app.add_flag("--no-syscalls", o->no_syscalls,
               "level low: record no syscall: attach neither sched_switch's syscall part nor any syscall "
               "tracepoint (a syscall tracepoint makes every syscall of every process on the host take the "
               "kernel's slow path, ~0.2 us each)");
  app.add_option("--syscall-min", o->syscall_min,
                 "level low: leave out goroutine syscalls shorter than this (default 1ms; 0 = write all, by the "
                 "syscall tracepoints: sched_switch sees only the syscalls that leave the CPU)");
  app.add_option("--syscalls-by", o->syscalls_by,
                 "level low: find the syscalls of --syscall-min or longer from sched_switch (switch, the default: "
                 "a thread off CPU in a syscall that long; nothing per syscall; the tracepoints where the kernel "
                 "cannot, said in the summary), with a program on every syscall of the host (tracepoint: also "
                 "the syscalls that never leave the CPU) or by sampling the target's threads every quarter of "
                 "it (sample)")
      ->check(CLI::IsMember({"switch", "sample", "tracepoint"}))
      ->capture_default_str();
  app.add_option("--container", o->select.container,
                 "record every Go process of this container (its id, a 4+ character prefix of it, or its name; "
                 "Kubernetes' container name or the runtime's); one file each: give --out-dir");
  app.add_option("--pod", o->select.pod,
                 "record every Go process of this Kubernetes pod (its name or UID, a glob), one file each "
                 "(--out-dir); processes that are not Go programs (the pause process) are named and skipped");
  app.add_option("--namespace", o->select.pod_namespace, "with --pod: the pod's namespace (default: any)");
  app.add_option("command", o->command, "program and arguments to launch under tracing (after --)");
  return [o] { return RunRecord(*o); };
}

}  // namespace gotraced::cli
