// Capture: everything between "trace pid N" and a stream of records — the one object the
// session uses from the capture layer.
//
//   auto cap = Capture::Start({.pid = 4242});
//   if (!cap) { spdlog::error("{}", cap.error()); }   // says what is wrong and what to do
//   const RuntimeSnapshot &snap = (*cap)->snapshot();  // goroutines/Ps/Ms at attach
//   while (running) (*cap)->Poll([&](const RecordView &r) { model.Apply(r); }, 100ms);
//   (*cap)->Stop(); (*cap)->Flush(cb);                 // detach, then the last records
//
// Start() does, in this order:
//   1. open the target's executable through /proc/PID/exe (the mapped inode, not a path
//      that may have been replaced), gobin::GoBinary + RuntimeLayout (DWARF or table);
//   2. probes::PlanFor (per Go version: sites, offsets, stack masks);
//   3. load bpf/gotrace.bpf.c with the plan in .rodata, ring of `ring_bytes` (or, in
//      serve, take the loaded object of an exited process of the same executable and
//      configuration: EnableObjectReuse below);
//   4. attach the uprobes with the target pid (the breakpoint exists only in that
//      process); the tracepoint and CPU-sample programs join the daemon's one dispatcher
//      per kernel-wide hook (host_hooks.h), attached nowhere themselves;
//   5. read the runtime snapshot (procmem) — after attaching, see procmem/snapshot.h;
//   6. self-check (optional, `self_check`): within self_check_timeout a casgstatus
//      record arrived whose ctx.m_id/curg/goid are plausible and consistent with the
//      snapshot; otherwise Start fails with what was seen (records received so far are
//      kept and delivered by the next Poll).
//
// Errors name the cause: not root / EPERM, no BTF, no uprobe support, tracefs not
// mounted, process gone, not a Go binary, Go version unsupported, a runtime function
// missing ("runtime.casgstatus not found"), offsets unknown.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "daemon/capture/object_pool.h"
#include "daemon/capture/record_view.h"
#include "daemon/capture/ring_consumer.h"
#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/result.h"
#include "daemon/gobin/runtime_layout.h"
#include "daemon/probes/probe_plan.h"
#include "daemon/procmem/snapshot.h"

namespace gotraced::gobin {
class GoBinary;
struct RuntimeLayout;
}  // namespace gotraced::gobin

namespace gotraced::capture {

struct CaptureOptions {
  pid_t pid = 0;
  std::string exe_path;                 // default /proc/<pid>/exe
  size_t ring_bytes = size_t{32} << 20; // rounded up to a power of two
  ConsumerOptions consumer;
  probes::PlanOptions plan;
  bool snapshot = true;                 // false for launch mode (nothing runs yet)
  bool self_check = true;
  std::chrono::milliseconds self_check_timeout{1000};
  // CPU samples per second of each traced thread's CPU time (0 = off): cpu_sampler.h.
  uint32_t cpu_hz = 0;
};

struct CaptureStats {
  ConsumerStats consumer;
  uint64_t probe_hits = 0;       // BPF program invocations (all sites), summed per CPU
  uint64_t morestack_skips = 0;  // entry+4 hits dropped because morestack will re-enter
  uint64_t filtered = 0;         // hits from another tgid (should be 0 with pid-filtered uprobes)
  uint64_t read_faults = 0;      // bpf_probe_read_user failures on the hot path
  uint64_t short_syscalls = 0;   // level low: syscalls under the plan's syscall_min_ns, not written
  uint64_t before_armed = 0;     // records stamped before the last probe was attached, dropped
  // Level low's syscalls by sampling (syscall_sampler.h): its period and sweeps so far
  // (0: the syscalls come from the tracepoints, or there are none).
  uint64_t syscall_sample_period_ns = 0, syscall_sweeps = 0;
  // Level low's syscalls come from sched_switch (bpf/gt_sys_switch.bpf.h), joined.
  bool syscalls_by_switch = false;
  // ... or were asked from there and come from the syscall tracepoints: why (the kernel
  // lacks a feature, the join failed, --syscall-min 0 writes every syscall). "" otherwise.
  std::string syscalls_switch_refused;
  bool target_exited = false;
};

// What is known of a target before anything is loaded: its binary, its runtime's struct
// layout and the probe plan made from them. The session makes it (PlanTarget) and hands it
// to Capture::Start, which loads exactly the programs the plan names.
struct TargetPlan {
  std::string exe;  // the path probed: /proc/<pid>/exe unless given
  std::string exe_key;  // ExecutableKeyOf what runs (analysis_cache.h): what a reused object is of
  std::shared_ptr<const gobin::GoBinary> bin;  // shared by the processes of one executable
  gobin::RuntimeLayout layout;
  probes::ProbePlan plan;
  // Level low asked for its syscalls from sched_switch and this kernel lacks what that
  // needs (kernel_features.h SysSwitchMissing): the plan takes the tracepoints; why.
  std::string sys_switch_missing;
};

// Opens the target's binary, resolves its runtime layout and makes the probe plan, once
// per distinct executable and options (analysis_cache.h). pid 0: no process, the binary
// at exe_path.
gobin::Result<TargetPlan> PlanTarget(pid_t pid, const std::string &exe_path, const probes::PlanOptions &opts);

// Where Capture::Start's time went (gotraced --verbose prints it), in milliseconds.
struct CaptureTimings {
  double load_ms = 0;        // BPF object open, config and verification (bpf_object__load)
  double attach_ms = 0;      // tracepoints and uprobes
  double snapshot_ms = 0;    // allgs/allp/allm at attach (--pid)
  double self_check_ms = 0;  // waiting for the first consistent casgstatus record (--pid)
  size_t programs = 0;       // BPF programs loaded
  // Not 0: nothing was loaded, the object of this process's predecessor of the same
  // executable was taken (EnableObjectReuse) and this was its process.
  pid_t reused_from = 0;
  size_t uprobes = 0;        // uprobe sites attached
};

// serve: the loaded object of a recording whose process exited is kept (object_pool.h
// says how many and how long) and the next process of the same executable, options and
// load bias takes it: Load then loads nothing, and its verification, libbpf's BTF work and
// the kernel BTF's parse (~37 ms of CPU of a ~40 ms attach, docs/probe-plan.md §11) are
// paid once. Off unless enabled (a one-process recording has no successor).
void EnableObjectReuse(ObjectPoolLimits limits);
struct ObjectReuseStats {
  uint64_t reused = 0;    // loads that took a kept object
  uint64_t kept = 0;      // objects kept at the end of a recording
  uint64_t released = 0;  // kept objects destroyed (limits, idle, a slot wanted)
  size_t pooled = 0;      // kept now
  size_t pooled_bytes = 0;  // their rings' bytes (kernel memory)
};
ObjectReuseStats GetObjectReuseStats();
// Destroys the kept objects idle longer than the limit (serve's loop, once a second).
void ExpireReusableObjects();
// serve (a long-lived daemon): an exited target's uprobes are released on a thread
// (probes::ReleaseOnThread), not in a forked grandchild (AttachedProbes::
// ReleaseInBackground, which a short-lived gotraced keeps). Off by default.
void ReleaseExitedProbesOnThreads(bool on);

class Capture {
 public:
  // Loads and attaches what `target` (PlanTarget of opts.pid) names: Load, then Attach.
  static gobin::Result<std::unique_ptr<Capture>> Start(const CaptureOptions &opts, TargetPlan target);
  // The first half of Start: the BPF object configured for the target, loaded and
  // verified (most of a start's time: ~8-13 ms per program here), nothing attached, no
  // record written. serve loads a full-level capture ahead this way so that switching a
  // process to full detail is an Attach (service/standby.h).
  static gobin::Result<std::unique_ptr<Capture>> Load(const CaptureOptions &opts, TargetPlan target);
  // The second half: tracepoints and uprobes attached, the ring consumer, the runtime
  // snapshot and the self-check (CaptureOptions). Returns "" or why it failed (the
  // capture is then of no use: destroy it). Once.
  std::string Attach();
  // PlanTarget, then Start (tools that do not look at the plan first).
  static gobin::Result<std::unique_ptr<Capture>> Start(const CaptureOptions &opts);
  ~Capture();  // detaches and frees the BPF object
  Capture(const Capture &) = delete;
  Capture &operator=(const Capture &) = delete;

  // Waits up to `max_wait` for the next drain, delivers records in ts order (see
  // ring_consumer.h). Returns the number delivered.
  size_t Poll(const RingConsumer::Callback &cb, std::chrono::milliseconds max_wait);
  // Detaches every probe (no new records), then drains the ring once more.
  void Stop();
  // After Stop(): delivers everything still buffered.
  size_t Flush(const RingConsumer::Callback &cb);

  // The target's process exited (GT_REC_TASK_EXIT with group_dead, or /proc/PID gone).
  bool target_exited() const;
  // CLOCK_MONOTONIC ns up to which every record has been delivered (RingConsumer::
  // delivered_up_to; 0 before the first drain).
  uint64_t delivered_up_to() const;

  const probes::ProbePlan &plan() const;
  const CaptureTimings &timings() const;
  const procmem::RuntimeSnapshot &snapshot() const;
  const gobin::GoBinary &binary() const;
  const gobin::RuntimeLayout &layout() const;
  // Runtime address = link-time address + load_bias (PIE).
  uint64_t load_bias() const;
  // Runtime addresses of allgs, allp, allm ... (what the snapshot reads; found once, on
  // the first call, after Attach). The session's goroutine state samples read them too.
  const procmem::RuntimeGlobalAddrs &runtime_globals() const;
  // `read_counters`: the BPF side's per-CPU counters (probe_hits ... short_syscalls,
  // consumer.lost_per_cpu) are read now, a syscall; false: those of the last read (zero
  // before any), the rest is the consumer's and costs none (session.cc reads them once
  // a second, at a sequence gap and at stop, not at every poll).
  CaptureStats stats(bool read_counters = true) const;
  // Messages about degraded features (e.g. "sched_switch not attached: ...").
  const std::vector<std::string> &warnings() const;

  struct Impl;

 private:
  explicit Capture(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gotraced::capture
