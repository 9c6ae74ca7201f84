#include "daemon/capture/capture.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <spdlog/spdlog.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "daemon/capture/analysis_cache.h"
#include "daemon/capture/bpf_config_fill.h"
#include "daemon/capture/cpu_sampler.h"
#include "daemon/capture/host_hooks.h"
#include "daemon/capture/kernel_features.h"
#include "daemon/capture/libbpf_log.h"
#include "daemon/capture/load_error.h"
#include "daemon/capture/stack_guard.h"
#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/layout_resolver.h"
#include "daemon/gobin/runtime_globals.h"
#include "daemon/gobin/runtime_layout.h"
#include "daemon/probes/attach.h"
#include "daemon/probes/site_program.h"
#include "daemon/probes/uprobe_multi.h"
#include "daemon/probes/version_support.h"
#include "daemon/procmem/load_bias.h"
#include "daemon/procmem/mono_clock.h"
#include "daemon/procmem/process_memory.h"
#include "proto/bpf_config.h"
#include "daemon/capture/syscall_sampler.h"
#include "gotrace.skel.h"

namespace gotraced::capture {

namespace {

// A loaded object kept for the next process of its executable (EnableObjectReuse): its
// programs, maps and ring, and its slot in the dispatch of the kernel-wide hooks, which it
// keeps reserved (its .rodata names it). Detached from everything.
struct KeptObject {
  gotrace *skel = nullptr;
  gotrace *sys_skel = nullptr;  // Impl::sys_skel
  HostHooks *host = nullptr;
  uint32_t slot = GT_HOST_NONE;
  pid_t tgid = 0;  // the process it recorded last
  KeptObject() = default;
  KeptObject(const KeptObject &) = delete;
  KeptObject &operator=(const KeptObject &) = delete;
  ~KeptObject() {
    if (host && slot != GT_HOST_NONE) host->Release(slot);
    if (sys_skel) gotrace__destroy(sys_skel);
    if (skel) gotrace__destroy(skel);
  }
};

struct ObjectReuse {
  std::atomic<bool> enabled{false};
  ObjectPool<std::unique_ptr<KeptObject>> pool;
  std::atomic<uint64_t> reused{0}, kept{0}, released{0};

  void Release(std::vector<std::unique_ptr<KeptObject>> out) {
    released += out.size();
    out.clear();  // destroyed here, outside the pool's lock
  }
};

// Never destroyed (as HostHooks): a recording may end during the process's exit.
ObjectReuse &Reuse() {
  static ObjectReuse *r = new ObjectReuse();
  return *r;
}

}  // namespace

void EnableObjectReuse(ObjectPoolLimits limits) {
  Reuse().pool.set_limits(limits);
  Reuse().enabled = limits.per_key > 0 && limits.total > 0;
}

ObjectReuseStats GetObjectReuseStats() {
  ObjectReuse &r = Reuse();
  ObjectReuseStats s;
  s.reused = r.reused.load();
  s.kept = r.kept.load();
  s.released = r.released.load();
  s.pooled = r.pool.size();
  s.pooled_bytes = r.pool.bytes();
  return s;
}

namespace {
std::atomic<bool> release_on_threads{false};
}  // namespace

void ReleaseExitedProbesOnThreads(bool on) { release_on_threads = on; }

void ExpireReusableObjects() { Reuse().Release(Reuse().pool.Expire(std::chrono::steady_clock::now())); }

struct Capture::Impl {
  CaptureOptions opts;
  std::shared_ptr<const gobin::GoBinary> bin;  // shared by the processes of one executable
  gobin::RuntimeLayout layout;
  probes::ProbePlan plan;
  uint64_t bias = 0;
  gotrace *skel = nullptr;
  // Level low's syscall tracepoint programs where its syscalls cannot come from
  // sched_switch or the sampler (LoadSyscallFallback): a second object sharing every map
  // of `skel` but its .rodata. Null until needed.
  gotrace *sys_skel = nullptr;
  std::function<gotrace *(bool sys_fallback)> open_configured;  // set by Load
  // The daemon's dispatcher of the kernel-wide hooks and this recording's slot in it
  // (host_hooks.h): its tracepoint and CPU-sample programs run from there.
  HostHooks *host = nullptr;
  uint32_t slot = GT_HOST_NONE;
  std::unique_ptr<probes::AttachedProbes> uprobes;
  std::unique_ptr<CpuSampler> cpu_sampler;  // --cpu-hz
  std::unique_ptr<SyscallSampler> sys_sampler;  // level low's syscalls by sampling (plan.syscall_sample)
  bool by_switch = false;  // level low's syscalls from sched_switch (plan.syscall_switch), joined
  std::string sys_switch_missing;  // TargetPlan::sys_switch_missing
  std::string switch_refused;      // CaptureStats::syscalls_switch_refused
  uint64_t sample_period_ns = 0, sample_sweeps = 0;  // its period and its sweeps once stopped
  std::unique_ptr<RingConsumer> consumer;
  procmem::RuntimeSnapshot snapshot;
  std::optional<procmem::RuntimeGlobalAddrs> globals;  // runtime_globals(), found on first use
  std::vector<std::string> warnings;
  // Records read during the self-check, delivered by the next Poll.
  std::deque<std::vector<uint8_t>> held;
  bool exited = false;
  bool stopped = false;
  std::chrono::steady_clock::time_point next_alive_check{};
  CaptureTimings timings;
  std::string exe;        // the path probed (TargetPlan::exe)
  bool attached = false;  // Attach() ran (Load alone attaches nothing)
  // CLOCK_MONOTONIC when the last probe was attached (0: not yet). Records stamped before
  // it come from a partial set of sites: attaching takes 15-25 ms, and a thread whose
  // ProcStop site was not yet armed while its casgstatus site was leaves its P held in the
  // model, so the next ProcStart of that P needs a repair (tests/serve/level-switch.sh
  // caught 1 in 8). Wrap drops them: the recording starts when every site is armed.
  uint64_t armed_ns = 0;
  uint64_t before_armed = 0;  // records dropped for that
  // What a kept object must match to be taken (ReuseKey; "": never kept), and the
  // process it recorded before this one (0: loaded for this one).
  std::string reuse_key;
  pid_t reused_from = 0;
  uint64_t stale = 0;     // records of reused_from's process, dropped (Wrap)
  bool attach_ok = false;  // Attach() succeeded

  ~Impl() {
    consumer.reset();
    Detach();
    // The process exited and every probe is off: the next process of the executable may
    // take the object (only then: a live process's uprobe hit in flight could still write).
    if (Reuse().enabled && !reuse_key.empty() && attach_ok && stopped && exited && skel) {
      auto k = std::make_unique<KeptObject>();
      k->skel = std::exchange(skel, nullptr);
      k->sys_skel = std::exchange(sys_skel, nullptr);
      k->host = host;
      k->slot = std::exchange(slot, GT_HOST_NONE);
      k->tgid = opts.pid;
      Reuse().kept++;
      const size_t bytes = bpf_map__max_entries(k->skel->maps.events);  // (its ring: the most of it)
      Reuse().Release(Reuse().pool.Put(reuse_key, std::move(k), bytes, std::chrono::steady_clock::now()));
      return;
    }
    if (host && slot != GT_HOST_NONE) host->Release(slot);
    if (sys_skel) gotrace__destroy(sys_skel);
    if (skel) gotrace__destroy(skel);
  }

  // Makes a kept object this process's: its tgid in .bss, its counters and P epoch
  // zeroed, whatever its ring still holds discarded (nothing of this object runs: its
  // uprobes and hooks are off since its process's end), before anything is attached.
  // Returns "" or why not (the object is then destroyed and a load made instead).
  std::string Adopt(std::unique_ptr<KeptObject> k);

  // Loads the syscall tracepoint programs of level low's fallback (sys_skel), configured
  // as skel, writing to skel's ring and maps. Returns "" or why not.
  std::string LoadSyscallFallback();

  void Detach() {
    using Clock = std::chrono::steady_clock;
    auto ms = [](Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    // Tracepoints first, the reverse of attaching: the syscall tracepoints must not see
    // the goroutines' syscalls while the uprobes no longer see their scheduling (the
    // uprobes' release takes ~70 ms; ~500 repairs at the end of a --pid recording).
    const auto t0 = Clock::now();
    cpu_sampler.reset();
    if (sys_sampler) sample_sweeps = sys_sampler->sweeps();
    sys_sampler.reset();
    if (host && slot != GT_HOST_NONE) host->Leave(slot);
    const auto t1 = Clock::now();
    if (uprobes) uprobes->DetachAll();
    spdlog::debug("gotraced: detach: tracepoints {:.1f} ms, uprobes {:.1f} ms", ms(t0, t1), ms(t1, Clock::now()));
  }

  // The BPF side's per-CPU counters (struct gt_cpu_counters), one entry per possible CPU.
  std::vector<gt_cpu_counters> CpuCounters() const {
    int ncpu = libbpf_num_possible_cpus();
    if (!skel || ncpu <= 0) return {};
    std::vector<gt_cpu_counters> vals(static_cast<size_t>(ncpu));
    uint32_t key = 0;
    if (bpf_map_lookup_elem(bpf_map__fd(skel->maps.counters), &key, vals.data()) != 0) return {};
    return vals;
  }

  // The sums of the last read of those counters (Capture::stats(false) hands them out
  // again): probe_hits ... short_syscalls and consumer.lost_per_cpu of a CaptureStats.
  mutable CaptureStats counters;

  // Hands the records held back by the self-check to `wrapped`, oldest first.
  size_t DeliverHeld(const RingConsumer::Callback &wrapped) {
    size_t n = 0;
    while (!held.empty()) {
      std::vector<uint8_t> rec = std::move(held.front());
      held.pop_front();
      wrapped(RecordView(rec.data(), rec.size()));
      n++;
    }
    return n;
  }

  // The target's exit normally arrives as a GT_REC_TASK_EXIT record (Wrap); kill(pid, 0)
  // is the fallback for an exit record that was lost. A syscall on every Poll (every few
  // ms under load) buys nothing: once per 100 ms is soon enough for a session to end.
  // While the consumer waits on the target's pidfd, the wait itself says the target
  // lives (the pidfd ends it at the exit): once a second then, and every 100 ms again
  // once the pidfd fired (a zombie still answers kill(pid, 0): the exit record or Stop's
  // /proc read ends it).
  void CheckAlive() {
    if (exited) return;
    auto now = std::chrono::steady_clock::now();
    if (now < next_alive_check) return;
    const bool pidfd_watches = consumer && opts.consumer.wake_fd >= 0 && !consumer->woken();
    next_alive_check = now + (pidfd_watches ? std::chrono::milliseconds(1000) : std::chrono::milliseconds(100));
    if (kill(opts.pid, 0) != 0 && errno == ESRCH) exited = true;
  }

  // Wraps the caller's callback: notes the target's exit.
  RingConsumer::Callback Wrap(const RingConsumer::Callback &cb) {
    return [this, &cb](const RecordView &r) {
      // A record written while the previous process of a reused object ran (its header's
      // tgid is the running task's, and that process is gone): never this recording's.
      if (reused_from && reused_from != opts.pid && int(r.header().tgid) == reused_from) {
        ++stale;
        return;
      }
      if (auto *t = r.task()) {
        if (r.header().kind == GT_REC_TASK_EXIT && t->group_dead && int(r.header().tgid) == opts.pid) exited = true;
      } else if (r.ts() < armed_ns) {  // (task records: a thread's birth and death count whenever seen)
        ++before_armed;
        return;
      }
      cb(r);
    };
  }
};

namespace {

// Runtime addresses of the globals the snapshot reads (gobin finds them in .symtab or,
// stripped, in the code of anchor functions).
procmem::RuntimeGlobalAddrs GlobalAddrs(const gobin::GoBinary &bin, const gobin::RuntimeLayout &layout,
                                        uint64_t bias) {
  gobin::RuntimeGlobals g = gobin::FindRuntimeGlobals(bin, &layout);
  auto addr = [&](gobin::GlobalId id) -> uint64_t { return g[id].found() ? g[id].vaddr + bias : 0; };
  procmem::RuntimeGlobalAddrs a;
  a.allgs = addr(gobin::GlobalId::kAllgs);
  a.allglen = addr(gobin::GlobalId::kAllglen);
  a.allp = addr(gobin::GlobalId::kAllp);
  a.allm = addr(gobin::GlobalId::kAllm);
  a.gomaxprocs = addr(gobin::GlobalId::kGomaxprocs);
  a.sched = addr(gobin::GlobalId::kSched);
  a.gc_controller = addr(gobin::GlobalId::kGcController);
  return a;
}

size_t RoundRing(size_t bytes) {
  size_t page = size_t(sysconf(_SC_PAGESIZE));
  size_t r = page;
  while (r < bytes) r <<= 1;
  return r;
}

// What a kept object must match for this process to take it (EnableObjectReuse): the same
// executable, and everything the object's load was configured with but the process's
// tgid, which is in .bss (bpf/gt_maps.bpf.h gt_target_tgid): the .rodata FillConfig makes
// (offsets, and the text bounds with the load bias: a PIE binary mapped elsewhere is
// another key), the ring's size, which programs are loaded, the CPU sampling rate. The
// slot (cfg.host_slot) goes with the object. "": no key, never reused.
std::string ReuseKey(const std::string &exe_key, const probes::ProbePlan &plan, const CaptureOptions &opts,
                     uint64_t bias) {
  if (exe_key.empty()) return "";
  gt_bpf_config c;
  FillConfig(plan, 0, &c, bias);
  std::string key = exe_key;
  key.append(reinterpret_cast<const char *>(&c), sizeof(c));
  key += fmt::format("|bias {:x} user {:x}/{} ring {} cpu {} raw {} sched {} ksys {} tp {} switch {} sample {}|", bias,
                     plan.user_tracing_flag_vaddr, plan.user_tracing_flag_size, RoundRing(opts.ring_bytes), opts.cpu_hz,
                     opts.plan.syscall_tracepoints, opts.plan.sched_switch, plan.kernel_syscalls, plan.syscall_tp,
                     plan.syscall_switch, plan.syscall_sample);
  for (const auto &p : probes::PlanPrograms(plan)) key += p + ",";
  return key;
}

// `log` is what libbpf said during the load (the refused program, the verifier's tail).
std::string LoadError(int err, const LibbpfLogCapture &log, std::string_view target_go) {
  LoadContext c;
  c.what = "loading the BPF programs";
  c.versions = ReportVersions(target_go);
  c.other_hint = " (run `gotraced selftest`; gotraced needs Linux 6.1 or later with BTF: docs/requirements.md)";
  return ExplainLoadFailure(ObservedLoadFailure(err, log), c);
}

}  // namespace

namespace {
bool SameFile(const std::string &a, const std::string &b) {
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
}  // namespace

std::string Capture::Impl::Adopt(std::unique_ptr<KeptObject> k) {
  skel = std::exchange(k->skel, nullptr);
  sys_skel = std::exchange(k->sys_skel, nullptr);
  slot = std::exchange(k->slot, GT_HOST_NONE);
  reused_from = k->tgid;
  if (!skel->bss) return "its .bss is not mapped";
  // (sys_skel shares this .bss and every map but its .rodata: LoadSyscallFallback.)
  __atomic_store_n(&skel->bss->gt_target_tgid, uint32_t(opts.pid), __ATOMIC_RELEASE);
  __atomic_store_n(&skel->bss->gt_p_epoch, 0u, __ATOMIC_RELEASE);
  const int ncpu = libbpf_num_possible_cpus();
  if (ncpu <= 0) return "no CPU count";
  std::vector<gt_cpu_counters> zero(static_cast<size_t>(ncpu));
  uint32_t key = 0;
  if (bpf_map_update_elem(bpf_map__fd(skel->maps.counters), &key, zero.data(), BPF_ANY) != 0)
    return fmt::format("zeroing its counters: {}", std::strerror(errno));
  // The previous recording flushed its ring at its end; what a program already running at
  // its detach wrote after that is read and dropped here.
  ring_buffer *rb = ring_buffer__new(
      bpf_map__fd(skel->maps.events), [](void *, void *, size_t) { return 0; }, nullptr, nullptr);
  if (!rb) return fmt::format("draining its ring: {}", std::strerror(errno));
  const int n = ring_buffer__consume(rb);
  ring_buffer__free(rb);
  if (n < 0) return fmt::format("draining its ring: {}", std::strerror(-n));
  if (n > 0) spdlog::debug("gotraced: pid {}: {} records of pid {} dropped from the reused ring", opts.pid, n, reused_from);
  return "";
}

std::string Capture::Impl::LoadSyscallFallback() {
  if (sys_skel) return "";
  gotrace *s = open_configured(true);
  if (!s) return fmt::format("opening the syscall programs: {}", std::strerror(errno));
  bpf_program *p = nullptr;
  bpf_object__for_each_program(p, s->obj) bpf_program__set_autoload(p, false);
  bpf_program__set_autoload(s->progs.gt_sys_enter, true);
  bpf_program__set_autoload(s->progs.gt_sys_exit, true);
  bpf_map *m = nullptr;
  bpf_object__for_each_map(m, s->obj) {
    if (std::string_view(bpf_map__name(m)).ends_with(".rodata")) continue;  // its own, the same values
    bpf_map *mine = bpf_object__find_map_by_name(skel->obj, bpf_map__name(m));
    int err = mine ? bpf_map__reuse_fd(m, bpf_map__fd(mine)) : -ENOENT;
    if (err != 0) {
      gotrace__destroy(s);
      return fmt::format("sharing map {} with the syscall programs: {}", bpf_map__name(m), std::strerror(-err));
    }
  }
  LibbpfLogCapture log;
  if (int err = gotrace__load(s); err != 0) {
    gotrace__destroy(s);
    return fmt::format("loading the syscall programs: {}", LoadError(-err, log, plan.name));
  }
  sys_skel = s;
  timings.programs += 2;
  return "";
}

Capture::Capture(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Capture::~Capture() = default;

gobin::Result<TargetPlan> PlanTarget(pid_t pid, const std::string &exe_path, const probes::PlanOptions &opts) {
  TargetPlan t;
  // The file the process runs is what /proc/PID/exe opens. A path given (the process's
  // own, in our mount namespace) is used only while it still names that file: after a
  // binary was replaced on disk, the path holds the new one, which is not what runs.
  // pid 0: no process, the file at exe_path itself (selftest --binary, the BPF budget
  // test, gotraced-replay).
  const std::string running = pid > 0 ? fmt::format("/proc/{}/exe", pid) : exe_path;
  t.exe = exe_path.empty() || !SameFile(exe_path, running) ? running : exe_path;
  probes::PlanOptions po = opts;
  po.uprobe_multi = probes::KernelHasUprobeMulti();
  // Level low's syscalls from sched_switch (the default): where the kernel lacks what they
  // need, the tracepoints, said once in the log and in the summary (Capture::Attach).
  if (po.syscall_switch && !po.sched_probes) {
    t.sys_switch_missing = SysSwitchMissingHere();
    if (!t.sys_switch_missing.empty()) po.syscall_switch = false;
  }
  if (const char *e = std::getenv("GOTRACED_LEGACY_SYSCALL_TP")) po.legacy_syscall_tracepoints = std::string_view(e) != "0";
  // Once per distinct executable (analysis_cache.h), known by what runs.
  auto key = ExecutableKeyOf(running);
  if (!key) return gobin::Error{key.error()};
  t.exe_key = *key;
  auto bp = CachedBinaryPlan(*key, t.exe, po);
  if (!bp) return gobin::Error{bp.error()};
  t.bin = std::move(bp->bin);
  t.layout = std::move(bp->layout);
  t.plan = std::move(bp->plan);
  return t;
}

gobin::Result<std::unique_ptr<Capture>> Capture::Start(const CaptureOptions &opts) {
  if (opts.pid <= 0) return gobin::Error{"no target pid"};
  if (kill(opts.pid, 0) != 0 && errno == ESRCH) return gobin::Error{fmt::format("no process {}", opts.pid)};
  auto target = PlanTarget(opts.pid, opts.exe_path, opts.plan);
  if (!target) return gobin::Error{target.error()};
  return Start(opts, std::move(*target));
}

gobin::Result<std::unique_ptr<Capture>> Capture::Start(const CaptureOptions &opts, TargetPlan target) {
  auto cap = Load(opts, std::move(target));
  if (!cap) return cap;
  if (auto err = (*cap)->Attach(); !err.empty()) return gobin::Error{err};
  return cap;
}

gobin::Result<std::unique_ptr<Capture>> Capture::Load(const CaptureOptions &opts, TargetPlan target) {
  auto impl = std::make_unique<Impl>();
  impl->opts = opts;
  Impl &I = *impl;
  if (opts.pid <= 0) return gobin::Error{"no target pid"};
  if (kill(opts.pid, 0) != 0 && errno == ESRCH) return gobin::Error{fmt::format("no process {}", opts.pid)};
  I.exe = target.exe;
  I.bin = std::move(target.bin);
  I.layout = std::move(target.layout);
  I.plan = std::move(target.plan);
  I.sys_switch_missing = std::move(target.sys_switch_missing);
  // A Go version outside the plan's range (probes/version_support.h) is traced only
  // after a conclusive self-check, which needs the program running: not in launch mode.
  if (I.plan.untested && !opts.self_check)
    return gobin::Error{fmt::format("{} is outside the Go versions this gotraced was tested on (1.{} to 1.{}) and "
                                    "needs the start-up self-check, which launch mode cannot run (the program has "
                                    "not started): start it, then attach with --pid",
                                    I.plan.name, probes::kOldestKnownMinor, probes::kNewestKnownMinor)};
  for (const auto &n : I.plan.notes) I.warnings.push_back(n);

  auto bias = procmem::LoadBias(opts.pid, I.bin->elf());
  if (!bias) return gobin::Error{bias.error()};
  I.bias = *bias;

  using Clock = std::chrono::steady_clock;
  auto since_ms = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  auto t_phase = Clock::now();
  // 3. Load.
  libbpf_set_strict_mode(LIBBPF_STRICT_ALL);
  auto host = HostHooks::Get();
  if (!host) return gobin::Error{host.error()};
  I.host = *host;
  // A kept object of this executable and configuration (EnableObjectReuse): nothing to load.
  I.reuse_key = Reuse().enabled.load() ? ReuseKey(target.exe_key, I.plan, opts, I.bias) : "";
  bool adopted = false;
  if (!I.reuse_key.empty()) {
    std::vector<std::unique_ptr<KeptObject>> expired;
    auto kept = Reuse().pool.Take(I.reuse_key, Clock::now(), &expired);
    Reuse().Release(std::move(expired));
    if (kept) {
      kept->get()->host = nullptr;  // (Adopt takes its slot; the host is the daemon's one)
      if (std::string err = I.Adopt(std::move(*kept)); err.empty()) {
        adopted = true;
        Reuse().reused++;
      } else {
        spdlog::warn("gotraced: pid {}: the kept object of pid {} cannot be reused ({}): loading one", opts.pid,
                     I.reused_from, err);
        if (I.slot != GT_HOST_NONE) I.host->Release(std::exchange(I.slot, GT_HOST_NONE));
        if (I.sys_skel) gotrace__destroy(std::exchange(I.sys_skel, nullptr));
        if (I.skel) gotrace__destroy(std::exchange(I.skel, nullptr));
        I.reused_from = 0;
      }
    }
  }
  if (!adopted) {
    auto slot = I.host->Reserve();
    // Kept objects hold their slots: the oldest gives its up when none is free.
    while (!slot) {
      auto oldest = Reuse().pool.TakeOldest();
      if (!oldest) break;
      std::vector<std::unique_ptr<KeptObject>> out;
      out.push_back(std::move(*oldest));
      Reuse().Release(std::move(out));
      slot = I.host->Reserve();
    }
    if (!slot) return gobin::Error{slot.error()};
    I.slot = *slot;
  }
  const std::string target_go =
      I.bin->build_info().go_version.empty() ? I.plan.name : I.bin->build_info().go_version;
  // Opens and configures the object: only what the plan and options need is loaded.
  // sys_fallback: the object of LoadSyscallFallback, the syscall tracepoint programs alone.
  I.open_configured = [&I](bool sys_fallback) -> gotrace * {
    const CaptureOptions &opts = I.opts;
    gotrace *skel = gotrace__open();
    if (!skel) return nullptr;
    FillConfig(I.plan, opts.pid, &skel->rodata->cfg, I.bias);
    skel->bss->gt_target_tgid = uint32_t(opts.pid);  // (in .bss: a kept object is given to another process)
    // User annotations: the runtime's tracer flag, read at StartRegion/Logf (bpf/gt_user.bpf.h).
    if (I.plan.user_tracing_flag_vaddr) {
      skel->rodata->gt_user_tracing_addr = I.plan.user_tracing_flag_vaddr + I.bias;
      skel->rodata->gt_user_tracing_size = I.plan.user_tracing_flag_size;
    }
    bpf_map__set_max_entries(skel->maps.events, uint32_t(RoundRing(opts.ring_bytes)));
    // Every recording names its process (gt_target_tgid in .bss, above), so the programs
    // never look in traced_tgids: one entry, not 1,024 (83 KB of kernel memory per
    // recording and per standby, preallocated).
    bpf_map__set_max_entries(skel->maps.traced_tgids, 1);
    // The tracepoint and CPU-sample programs run from the daemon's dispatcher (host_hooks.h).
    skel->rodata->cfg.host_slot = I.slot;
    if (sys_fallback) return skel;  // (LoadSyscallFallback chooses its programs and maps)
    if (std::string err = I.host->ShareMaps(skel->obj); !err.empty()) {
      spdlog::warn("gotraced: {}", err);
      gotrace__destroy(skel);
      errno = EINVAL;
      return nullptr;
    }
    // One program per syscall tracepoint, for what the plan and options take from it
    // (bpf/gt_sys_hooks.bpf.h): --syscall-tracepoints' raw records, the kernel view's
    // goroutine syscalls where the plan's come from uprobes (Go <= 1.25), the plan's
    // goroutine syscalls (probes/syscall_sites.h).
    skel->rodata->cfg.raw_sys = opts.plan.syscall_tracepoints ? 1 : 0;
    // Level low's syscalls from sched_switch or the sampler take the syscall programs only
    // where those cannot be used: LoadSyscallFallback loads them then (a third of a level
    // low load's verification, paid at every attach for a path hardly ever taken).
    const bool low_fallback = I.plan.syscall_tp && (I.plan.syscall_switch || I.plan.syscall_sample);
    const bool sys = opts.plan.syscall_tracepoints || I.plan.kernel_syscalls || (I.plan.syscall_tp && !low_fallback);
    bpf_program__set_autoload(skel->progs.gt_sys_enter, sys);
    bpf_program__set_autoload(skel->progs.gt_sys_exit, sys);
    skel->rodata->cfg.sched_view = opts.plan.sched_switch ? 1 : 0;  // the kernel view (docs/kernel-view.md)
    // Level low's syscalls from sched_switch (bpf/gt_sys_switch.bpf.h).
    skel->rodata->cfg.sys_switch = I.plan.syscall_switch ? 1 : 0;
    const bool sched = opts.plan.sched_switch || I.plan.syscall_switch;
    bpf_program__set_autoload(skel->progs.gt_sched_prev, sched);
    bpf_program__set_autoload(skel->progs.gt_sched_next, sched);
    bpf_program__set_autoload(skel->progs.gt_sched_wakeup, opts.plan.sched_switch);
    if (opts.cpu_hz == 0) bpf_program__set_autoload(skel->progs.gt_cpu_sample, false);
    // The syscall sampler (syscall_sampler.h).
    bpf_program__set_autoload(skel->progs.gt_sys_sample, I.plan.syscall_sample);
    // Uprobe programs: only those of the site classes the plan uses (site_program.h); a
    // target without user annotations or sweeps does not load their programs.
    // Where the kernel has uprobe multi links (6.6), each program gets one link for all
    // its sites (probes/uprobe_multi.h: detaching is then one unregister per program,
    // not ~100 ms per site).
    const std::set<std::string> wanted = probes::PlanPrograms(I.plan);
    const bool multi = probes::KernelHasUprobeMulti();
    bpf_program *p = nullptr;
    bpf_object__for_each_program(p, skel->obj) {
      if (std::string_view(bpf_program__section_name(p)) != "uprobe") continue;
      bpf_program__set_autoload(p, wanted.count(bpf_program__name(p)) > 0);
      if (multi) bpf_program__set_expected_attach_type(p, bpf_attach_type(probes::kBpfTraceUprobeMulti));
    }
    return skel;
  };
  if (adopted) {
    I.timings.load_ms = since_ms(t_phase);
    I.timings.reused_from = I.reused_from;
    bpf_program *p = nullptr;
    bpf_object__for_each_program(p, I.skel->obj) I.timings.programs += bpf_program__fd(p) >= 0;
    spdlog::debug("gotraced: pid {}: the loaded object of pid {} reused ({:.2f} ms)", opts.pid, I.reused_from,
                  I.timings.load_ms);
    return std::unique_ptr<Capture>(new Capture(std::move(impl)));
  }
  LibbpfLogCapture load_log;
  I.skel = I.open_configured(false);
  if (!I.skel) return gobin::Error{LoadError(errno, load_log, target_go)};
  // The verifier's figures for the uprobe programs (stack_guard.h): BPF_LOG_STATS, tiny.
  auto stack_logs = UprobeStackLogs::Enable(I.skel->obj);
  if (int err = gotrace__load(I.skel); err != 0) {
    // A refusal: load once more without our stats buffers, so that libbpf's own log of
    // the refusal (the verifier's reason) reaches load_log.
    gotrace__destroy(I.skel);
    I.skel = I.open_configured(false);
    LibbpfLogCapture refusal_log;
    int err2 = I.skel ? gotrace__load(I.skel) : -errno;
    if (err2 == 0) return gobin::Error{LoadError(-err, load_log, target_go)};
    return gobin::Error{LoadError(-err2, refusal_log, target_go)};
  }
  if (auto refusal = stack_logs->Check()) return gobin::Error{*refusal};

  I.timings.load_ms = since_ms(t_phase);
  {
    bpf_program *p = nullptr;
    bpf_object__for_each_program(p, I.skel->obj) I.timings.programs += bpf_program__fd(p) >= 0;
  }
  return std::unique_ptr<Capture>(new Capture(std::move(impl)));
}

std::string Capture::Attach() {
  Impl &I = *impl_;
  if (I.attached) return "capture: already attached";
  I.attached = true;
  const CaptureOptions &opts = I.opts;
  const std::string &exe = I.exe;
  using Clock = std::chrono::steady_clock;
  auto since_ms = [](Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  };
  auto t_phase = Clock::now();
  // 4. Attach: the lifecycle and kernel-view tracepoints, the uprobes, then the goroutine
  // syscalls (each a join of this recording's programs to the daemon's dispatch:
  // host_hooks.h).
  HookPrograms life;
  life.prog[GT_HOOK_TASK_EXIT] = I.skel->progs.gt_task_exit;
  life.required[GT_HOOK_TASK_EXIT] = true;
  life.prog[GT_HOOK_EXEC] = I.skel->progs.gt_exec;
  life.prog[GT_HOOK_TASK_NEW] = I.skel->progs.gt_task_new;
  if (opts.plan.sched_switch) {  // a kernel without them records without the kernel view
    // (and with them level low's syscalls from sched_switch run in the same programs)
    life.prog[GT_HOOK_SCHED_PREV] = I.skel->progs.gt_sched_prev;
    life.prog[GT_HOOK_SCHED_NEXT] = I.skel->progs.gt_sched_next;
    life.prog[GT_HOOK_WAKEUP] = I.skel->progs.gt_sched_wakeup;
  }
  // The raw records and the kernel view's syscalls (without them the syscalls are
  // there, with no kernel view) join now; the plan's goroutine syscalls after the uprobes.
  if (!I.plan.syscall_tp && (I.plan.kernel_syscalls || opts.plan.syscall_tracepoints)) {
    life.prog[GT_HOOK_SYS_ENTER] = I.skel->progs.gt_sys_enter;
    life.prog[GT_HOOK_SYS_EXIT] = I.skel->progs.gt_sys_exit;
  }
  if (auto err = I.host->Join(I.slot, opts.pid, life, &I.warnings); !err.empty()) return err;
  // (No loss counter for the consumer: Capture::stats reads the per-CPU counters once
  // for the loss and the rest.)
  I.consumer = std::make_unique<RingConsumer>(bpf_map__fd(I.skel->maps.events), opts.consumer);
  if (!I.consumer->ok()) return fmt::format("ring_buffer__new: {}", std::strerror(errno));
  auto up = probes::AttachPlan(I.plan, opts.pid, exe, I.skel->obj, &I.warnings);
  if (!up) return up.error();
  I.uprobes = std::move(*up);
  HookPrograms late;
  if (I.plan.syscall_tp) {
    // The plan has no uprobes at entersyscall/exitsyscall: without these, no syscall.
    // After the uprobes: a syscall seen before the scheduling events of its goroutine
    // would be one of a goroutine the model does not know runs there (at --pid, ~500
    // repairs in the ~20 ms the uprobes took to attach).
    // With the sampler, no program on the syscalls at all; the tracepoints are its
    // fallback where the kernel refuses the iterator.
    if (I.plan.syscall_sample) {
      auto ss = SyscallSampler::Start(I.skel->progs.gt_sys_sample, opts.pid, I.plan.syscall_sample_period_ns);
      if (ss) {
        I.sys_sampler = std::move(*ss);
        I.sample_period_ns = I.sys_sampler->period_ns();
        spdlog::debug("gotraced: pid {}: syscalls by sampling every {} us", opts.pid,
                      I.sys_sampler->period_ns() / 1000);
      } else {
        I.warnings.push_back(fmt::format("syscalls by the tracepoints: {}", ss.error()));
      }
    }
    if (I.plan.syscall_switch && !opts.plan.sched_switch) {
      // From sched_switch: this recording's two sched_switch programs join the daemon's
      // one (host_hooks.h), and nothing joins the syscalls. Where that fails, the
      // tracepoints below.
      HookPrograms sw;
      for (uint32_t h : {GT_HOOK_SCHED_PREV, GT_HOOK_SCHED_NEXT}) sw.required[h] = true;
      sw.prog[GT_HOOK_SCHED_PREV] = I.skel->progs.gt_sched_prev;
      sw.prog[GT_HOOK_SCHED_NEXT] = I.skel->progs.gt_sched_next;
      // GOTRACED_TEST_REFUSE_SWITCH: the join refused, so that a test sees the fallback
      // work (tests/suites/48-syscalls-by-switch.sh).
      const char *refuse = std::getenv("GOTRACED_TEST_REFUSE_SWITCH");
      std::string err = refuse && *refuse ? "refused for a test (GOTRACED_TEST_REFUSE_SWITCH)"
                                          : I.host->Join(I.slot, opts.pid, sw, &I.warnings);
      if (err.empty()) {
        I.by_switch = true;
      } else {
        I.switch_refused = fmt::format("sched_switch: {}", err);
        I.warnings.push_back("syscalls by the tracepoints: " + I.switch_refused);
      }
    } else if (I.plan.syscall_switch) {
      I.by_switch = true;  // joined with the kernel view's
    } else if (opts.plan.syscall_switch && !I.plan.syscall_sample) {
      // Asked (the default at level low) and not planned: say why, once in the log and in
      // the summary. --syscall-min 0 is the documented choice, not worth a warning.
      if (!I.sys_switch_missing.empty()) {
        I.switch_refused = "sched_switch cannot be used here: " + I.sys_switch_missing;
        I.warnings.push_back("syscalls by the tracepoints: " + I.switch_refused);
      } else if (I.plan.syscall_min_ns == 0) {
        I.switch_refused = "no threshold: sched_switch sees only the syscalls that leave the CPU";
      }
    }
    if (!I.sys_sampler && !I.by_switch) {
      // The plan's path could not be taken: the syscall programs, loaded only now.
      gotrace *sys = I.skel;
      if (I.plan.syscall_switch || I.plan.syscall_sample) {
        if (auto err = I.LoadSyscallFallback(); !err.empty()) return "syscalls by the tracepoints: " + err;
        sys = I.sys_skel;
      }
      for (uint32_t h : {GT_HOOK_SYS_ENTER, GT_HOOK_SYS_EXIT}) late.required[h] = true;
      late.prog[GT_HOOK_SYS_ENTER] = sys->progs.gt_sys_enter;
      late.prog[GT_HOOK_SYS_EXIT] = sys->progs.gt_sys_exit;
    }
  }
  bool cpu_own = false;
  if (opts.cpu_hz > 0) {
    late.prog[GT_HOOK_CPU] = I.skel->progs.gt_cpu_sample;
    late.required[GT_HOOK_CPU] = true;
    late.cpu_hz = opts.cpu_hz;
  }
  if (auto err = I.host->Join(I.slot, opts.pid, late, &I.warnings, &cpu_own); !err.empty())
    return err.find("cpu sampling") == 0 ? err : fmt::format("{} (goroutine syscalls)", err);
  if (cpu_own) {
    // The daemon samples other processes at another rate: this one with events of its own.
    auto cs = CpuSampler::Attach(I.skel->progs.gt_cpu_sample, opts.cpu_hz);
    if (!cs) return cs.error();
    I.cpu_sampler = std::move(*cs);
  }

  I.armed_ns = procmem::MonoNowNs();
  I.timings.attach_ms = since_ms(t_phase);
  I.timings.uprobes = I.uprobes->count();
  t_phase = Clock::now();
  // 5. Snapshot, after attaching (procmem/snapshot.h explains the ordering).
  if (opts.snapshot) {
    procmem::ProcessMemory mem(opts.pid);
    mem.set_load_bias(I.bias);
    I.globals = GlobalAddrs(*I.bin, I.layout, I.bias);
    auto snap = procmem::TakeSnapshot(mem, I.layout, *I.globals);
    if (!snap) return fmt::format("runtime snapshot of pid {}: {}", opts.pid, snap.error());
    I.snapshot = std::move(*snap);
  }

  I.timings.snapshot_ms = since_ms(t_phase);
  t_phase = Clock::now();
  // 6. Self-check: a casgstatus record with a consistent Go context.
  if (opts.self_check) {
    auto deadline = std::chrono::steady_clock::now() + opts.self_check_timeout;
    std::string verdict = "no goroutine transition seen (idle program?)";
    bool ok = false, bad = false;
    // Capture level "low" has no casgstatus site: a goroutine's syscall record from the
    // tracepoints (which read g, m and curg through the same offsets) is the check then,
    // or a CPU sample of a running goroutine (its p_id and curg_goid come through the
    // same g.m.p / g.m.curg chain): a busy target that makes no syscall of the level's
    // 1 ms made every serve attach wait the whole second.
    const bool no_cas = std::none_of(I.plan.sites.begin(), I.plan.sites.end(), [](const probes::ProbeSite &s) {
      return s.role == probes::ProbeRole::kCasgstatus;
    });
    RingConsumer::Callback keep = [&](const RecordView &r) {
      I.held.emplace_back(r.data(), r.data() + r.size());
      if (const gt_cpu_sample_record *cs = r.cpu_sample(); no_cas && !ok && !bad && cs && cs->curg_goid != 0) {
        if (int(cs->h.tgid) != opts.pid || cs->p_id < -1 ||
            (I.snapshot.goidgen && cs->curg_goid > I.snapshot.goidgen + 1000000)) {
          bad = true;
          verdict = fmt::format("CPU sample with P {} goroutine {} (sched.goidgen {}): wrong g/m offsets?", cs->p_id,
                                cs->curg_goid, I.snapshot.goidgen);
        } else {
          ok = true;
        }
        return;
      }
      if (const gt_sys_sample_record *ss = r.sys_sample(); no_cas && !ok && !bad && ss && ss->h.tid != 0) {
        // The syscall sampler's (its g read from the thread's TLS, in _Gsyscall).
        if (ss->goid == 0 || (I.snapshot.goidgen && ss->goid > I.snapshot.goidgen + 1000000)) {
          bad = true;
          verdict = fmt::format("sampled syscall of g {:#x} goid {} (sched.goidgen {}): wrong g offsets?", ss->g,
                                ss->goid, I.snapshot.goidgen);
        } else {
          ok = true;
        }
        return;
      }
      if (const gt_sys_switch_record *sw = r.sys_switch(); no_cas && !ok && !bad && sw) {
        // A syscall from sched_switch (its g read from the thread's TLS, in _Gsyscall).
        if (sw->goid == 0 || (I.snapshot.goidgen && sw->goid > I.snapshot.goidgen + 1000000)) {
          bad = true;
          verdict = fmt::format("syscall from sched_switch of g {:#x} goid {} (sched.goidgen {}): wrong g offsets?",
                                sw->g, sw->goid, I.snapshot.goidgen);
        } else {
          ok = true;
        }
        return;
      }
      if (no_cas && !ok && !bad && r.call() && (r.call()->flags & GT_CALL_FROM_TRACEPOINT)) {
        const gt_go_ctx &c = r.call()->ctx;
        if (int(r.call()->h.tgid) != opts.pid || c.m == 0 || c.m_id < 0 || c.curg == 0 || c.curg_goid == 0 ||
            (I.snapshot.goidgen && c.curg_goid > I.snapshot.goidgen + 1000000)) {
          bad = true;
          verdict = fmt::format("syscall record with m {:#x} m.id {} curg {:#x} goid {}: wrong g/m offsets?", c.m,
                                c.m_id, c.curg, c.curg_goid);
        } else {
          ok = true;
        }
        return;
      }
      const gt_gstatus_record *g = r.gstatus();
      if (!g || ok || bad) return;
      if (int(g->h.tgid) != opts.pid) {
        bad = true;
        verdict = fmt::format("casgstatus record from tgid {} (expected {})", g->h.tgid, opts.pid);
      } else if (g->ctx.m == 0 || g->ctx.m_id < 0) {
        bad = true;
        verdict = fmt::format("casgstatus record without an M (R14={:#x}): wrong g/m offsets?", g->ctx.g);
      } else if ((g->oldval & ~gobin::kGscan) == gobin::kGrunnable && g->newval == gobin::kGrunning &&
                 g->ctx.curg != g->gp) {
        bad = true;
        verdict = fmt::format("execute: m.curg {:#x} != gp {:#x}: wrong m.curg offset?", g->ctx.curg, g->gp);
      } else if (g->goid == 0 && g->oldval != gobin::kGdead && g->newval != gobin::kGdead) {
        bad = true;
        verdict = fmt::format("goroutine id 0 for gp {:#x} ({}->{}): wrong g.goid offset?", g->gp, g->oldval,
                              g->newval);
      } else if (I.snapshot.goidgen && g->goid > I.snapshot.goidgen + 1000000) {
        bad = true;
        verdict = fmt::format("goroutine id {} far above sched.goidgen {}: wrong g.goid offset?", g->goid,
                              I.snapshot.goidgen);
      } else {
        ok = true;
      }
    };
    while (!ok && !bad && std::chrono::steady_clock::now() < deadline && !I.exited) {
      I.consumer->WaitAndDrain(I.Wrap(keep), std::chrono::milliseconds(5));
    }
    if (bad) return "self-check failed: " + verdict;
    if (!ok && I.plan.untested)
      return fmt::format("self-check inconclusive for {}, a Go version outside the plan's range: {}",
                                      I.plan.name, verdict);
    if (!ok) I.warnings.push_back("self-check inconclusive: " + verdict);
    if (I.plan.untested) I.warnings.push_back(probes::ClassifyGoVersion(I.bin->go_version()).why);
  }
  I.timings.self_check_ms = since_ms(t_phase);
  I.attach_ok = true;
  return "";
}

size_t Capture::Poll(const RingConsumer::Callback &cb, std::chrono::milliseconds max_wait) {
  Impl &I = *impl_;
  auto wrapped = I.Wrap(cb);
  size_t n = I.DeliverHeld(wrapped);
  if (I.stopped || !I.consumer) return n;  // (not attached: nothing to drain)
  n += I.consumer->WaitAndDrain(wrapped, max_wait);
  I.CheckAlive();
  return n;
}

void Capture::Stop() {
  Impl &I = *impl_;
  if (I.stopped) return;
  // The target is gone: its probes trap no one, so their slow release need not delay
  // the end of the recording (attach.h ReleaseInBackground).
  // (The exit record may still be in the ring: ask the kernel. A zombie ran its last
  // instruction too: launch mode reaps its child after this.)
  if (!I.exited) {
    I.next_alive_check = {};
    I.CheckAlive();
  }
  if (!I.exited) {
    char st = 0;
    if (FILE *f = std::fopen(fmt::format("/proc/{}/stat", I.opts.pid).c_str(), "r")) {
      if (std::fscanf(f, "%*d (%*[^)]) %c", &st) != 1) st = 0;
      std::fclose(f);
    }
    I.exited = st == 'Z' || st == 'X';
  }
  if (I.exited && I.uprobes && release_on_threads.load()) {
    probes::ReleaseOnThread(std::move(I.uprobes));
  } else if (I.exited && I.uprobes) {
    const bool bg = I.uprobes->ReleaseInBackground();
    spdlog::debug("gotraced: the target exited: uprobes released {}", bg ? "in the background" : "here");
  }
  I.Detach();
  I.stopped = true;
}

size_t Capture::Flush(const RingConsumer::Callback &cb) {
  Impl &I = *impl_;
  auto wrapped = I.Wrap(cb);
  size_t n = I.DeliverHeld(wrapped);
  return I.consumer ? n + I.consumer->Flush(wrapped) : n;
}

bool Capture::target_exited() const { return impl_->exited; }
uint64_t Capture::delivered_up_to() const { return impl_->consumer ? impl_->consumer->delivered_up_to() : 0; }
const CaptureTimings &Capture::timings() const { return impl_->timings; }
const probes::ProbePlan &Capture::plan() const { return impl_->plan; }
const procmem::RuntimeSnapshot &Capture::snapshot() const { return impl_->snapshot; }
const gobin::GoBinary &Capture::binary() const { return *impl_->bin; }
const gobin::RuntimeLayout &Capture::layout() const { return impl_->layout; }
uint64_t Capture::load_bias() const { return impl_->bias; }
const procmem::RuntimeGlobalAddrs &Capture::runtime_globals() const {
  if (!impl_->globals) impl_->globals = GlobalAddrs(*impl_->bin, impl_->layout, impl_->bias);
  return *impl_->globals;
}
const std::vector<std::string> &Capture::warnings() const { return impl_->warnings; }

CaptureStats Capture::stats(bool read_counters) const {
  CaptureStats &c = impl_->counters;
  if (read_counters) {  // one bpf_map_lookup_elem of the per-CPU array
    c = CaptureStats{};
    for (const auto &v : impl_->CpuCounters()) {
      c.probe_hits += v.hits;
      c.morestack_skips += v.morestack_skips;
      c.filtered += v.filtered;
      c.read_faults += v.read_faults;
      c.short_syscalls += v.short_syscalls;
      c.consumer.lost_per_cpu.push_back(v.lost);
    }
  }
  CaptureStats s;
  s.consumer = impl_->consumer ? impl_->consumer->stats() : ConsumerStats{};
  s.consumer.lost_per_cpu = c.consumer.lost_per_cpu;
  s.probe_hits = c.probe_hits;
  s.morestack_skips = c.morestack_skips;
  s.filtered = c.filtered;
  s.read_faults = c.read_faults;
  s.short_syscalls = c.short_syscalls;
  s.syscall_sample_period_ns = impl_->sample_period_ns;
  s.syscall_sweeps = impl_->sys_sampler ? impl_->sys_sampler->sweeps() : impl_->sample_sweeps;
  s.syscalls_by_switch = impl_->by_switch;
  s.syscalls_switch_refused = impl_->switch_refused;
  s.target_exited = impl_->exited;
  s.before_armed = impl_->before_armed;
  return s;
}

}  // namespace gotraced::capture
