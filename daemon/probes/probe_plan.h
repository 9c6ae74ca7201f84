// ProbePlan: for one Go binary, which runtime functions get a uprobe, at which
// instruction, what the BPF side reads there, and which .rodata constants (struct
// offsets) it needs. The plan is the place that knows Go versions; BPF copies values,
// the model interprets records by ProbeRole (never by function name or address).
//
// Site choice, from shared/docs/perf-anchors.md: a uprobe on an instruction the kernel
// must single-step costs 12-20 us here, on an emulated one (PUSHQ BP, NOP, JMP, Jcc)
// ~1 us. Every splittable Go function starts with CMPQ SP, 16(R14) (single-stepped) and
// JBE morestack (emulated) at entry+4: we probe the JBE with GT_CALL_CHECK_MORESTACK so
// the hit that morestack will repeat is dropped. Nosplit functions with a frame start
// with PUSHQ BP: probed at entry. See docs/probe-plan.md for the per-version table.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/gobin/result.h"
#include "proto/records.h"

namespace gotraced::gobin {
class GoBinary;
struct RuntimeLayout;
}  // namespace gotraced::gobin

namespace gotraced::probes {

// What a probe site means. The model dispatches on this (record probe_id ->
// ProbePlan::sites[probe_id].role). Append only: values are shown by capture-dump.
enum class ProbeRole : uint16_t {
  kCasgstatus = 0,        // GT_REC_GSTATUS: runtime.casgstatus(gp, old, new) entry
  kEnterSyscall = 1,      // runtime.reentersyscall(pc, sp, bp) entry: G Running->Syscall
                          // (needed on Go >= 1.26, whose entersyscall CASes the status
                          // itself and calls casgstatus only for bubbled goroutines)
  kEnterSyscallBlock = 2, // runtime.entersyscallblock() entry (unused: it still calls
                          // casgstatus in 1.26/1.27; kept for numbering)
  kExitSyscall = 3,       // runtime.exitsyscall() entry: G Syscall->Running attempt
                          // (Go >= 1.26); ctx.p != 0: fast path kept/regained its P
  kAcquireP = 4,          // runtime.acquirep(pp) entry+4: emits ProcStart in-process.
                          // Go >= 1.26: runtime.acquirepNoTrace(pp), called by acquirep
                          // and by exitsyscall's slow path (caller_pc tells them apart)
  kReleaseP = 5,          // runtime.releasep() entry+4: emits ProcStop in-process
  kProcResize = 6,        // runtime.procresize(nprocs) entry+4: GOMAXPROCS (ProcsChange)
  kPreemptPark = 7,       // runtime.preemptPark(gp) entry+4: Running->Preempted (suspendG),
                          // which bypasses casgstatus (casGToPreemptScan)
  kHandoffP = 8,          // runtime.handoffp(pp) entry+4; caller_pc says who (retake =>
                          // the P was stolen from a syscall: ProcSteal on Go <= 1.25)
  kGCStart = 9,           // runtime.gcBgMarkStartWorkers entry+4: gcStart decided to start
                          // a cycle and has just written GCBegin (mgc.go gcStart)
  kGCDone = 10,           // runtime.gcMarkTermination entry+4 (GCEnd)
  kSTWStart = 11,         // runtime.stopTheWorldWithSema(reason) entry+4 (STWBegin)
  kSTWDone = 12,          // runtime.startTheWorldWithSema's CALL of wakep (STWEnd; gc_sites.cc)
  kSyscallReleaseP = 13,  // runtime.syscallingThread.releaseP entry (Go >= 1.26): sysmon /
                          // STW takes a P from a thread in a syscall (ProcSteal)
  kSTWSyscallSteal = 14,  // Go <= 1.25 stopTheWorldWithSema: the Jcc of the tracer test after
                          // its CAS of a P from _Psyscall to _Pgcstop (ProcSteal; deref = that
                          // P, its syscalltick not yet incremented; stw_steal_site.h)
  kEnterSyscallGCStop = 15,  // Go <= 1.25 entersyscall_gcwait: the same site after the CAS by
                             // which a thread entering a syscall gives its own P to a
                             // stopping world (ProcSteal after its GoSyscallBegin)
  // 30..39: user annotations (GT_REC_USER records; daemon/probes/user_sites.cc). The
  // runtime half of runtime/trace (runtime/traceruntime.go, linknamed as
  // runtime/trace.user*), called by the package whether or not tracing is on ...
  kUserTaskCreate = 30,   // runtime/trace.userTaskCreate(id, parentID, taskType) entry+4
  kUserTaskEnd = 31,      // runtime/trace.userTaskEnd(id) entry+4
  kUserRegion = 32,       // runtime/trace.userRegion(id, mode, name) entry+4
  kUserLog = 33,          // runtime/trace.userLog(id, category, message) entry+4
  // ... and the package functions that return before calling the runtime when tracing
  // is off (runtime/trace/annotation.go: `if !IsEnabled()`).
  kUserStartRegion = 34,  // runtime/trace.StartRegion(ctx, regionType) entry+4
  kUserLogf = 35,         // runtime/trace.Logf(ctx, category, format, args...) entry+4
  // 20..29: GC details (docs/probe-plan.md §3.9; records decoded in
  // daemon/model/record_decoder_gc.cc). Gaps are named "?".
  kGCHeapUpdate = 20,     // runtime.(*gcControllerState).update(dHeapLive, dHeapScan) entry+4:
                          // heapLive += dHeapLive, HeapAlloc(heapLive) when != 0
  kGCHeapReset = 21,      // runtime.(*gcControllerState).resetLive(bytesMarked) entry+4:
                          // heapLive = bytesMarked, HeapAlloc(bytesMarked)
  kGCHeapGoal = 22,       // runtime.gcPaceScavenger(memoryLimit, heapGoal, lastHeapGoal)
                          // entry+4: right after gcControllerCommit's HeapGoal
  kGCDrain = 23,          // runtime.gcDrain(gcw, flags) entry+4: a mark worker's drain;
                          // flags say dedicated / fractional / idle (GoLabel)
  kGCAssist = 24,         // runtime.gcAssistAlloc1(gp, scanWork) entry+4: mark assist work
                          // (GCMarkAssistBegin was just written by gcAssistAlloc)
  // Sweeps (daemon/probes/sweep_sites.cc): the runtime brackets a sweep loop with
  // GCSweepStart/GCSweepDone and writes GCSweepBegin at the first GCSweepSpan inside
  // (traceruntime.go). Start/Done sites are the Jcc of the `traceAcquire()` (tracer on?)
  // test that precedes those calls, reached whether or not the target traces itself.
  kGCSweepStart = 25,     // deductSweepCredit / (*mcentral).cacheSpan / (*mheap).reclaim:
                          // the test before trace.GCSweepStart()
  kGCSweepSpan = 26,      // runtime.(*sweepLocked).sweep(preserve): the Jcc of its `if
                          // traceEnabled()` before `reclaimed +=`, GT_CALL_SPAN_REGS
  kGCSweepDone = 27,      // the same functions: the test before trace.GCSweepDone()
  kGCSweepChunk = 28,     // (*mheap).reclaimChunk: the test before its trailing
                          // trace.GCSweepSpan((n0 - nFreed) * pageSize)
  kCount
};
std::string_view ProbeRoleName(ProbeRole r);

enum class SiteKind : uint8_t {
  kEntry,            // the function's first instruction (must be emulatable: PUSHQ BP)
  kAfterStackCheck,  // the JBE after CMPQ SP, 16(R14) (entry+4): flags has CHECK_MORESTACK
  kRet,              // a RET instruction
  kCall,             // a CALL of the role's function inside another (syscall_sites.h)
};

struct ProbeSite {
  uint16_t id = 0;           // index in ProbePlan::sites; the attach cookie's low 16 bits
  ProbeRole role = ProbeRole::kCasgstatus;
  std::string function;      // "runtime.casgstatus"
  SiteKind kind = SiteKind::kEntry;
  uint64_t vaddr = 0;        // link-time address of the probed instruction
  uint64_t file_offset = 0;  // where the uprobe goes (offset in the ELF file)
  uint32_t flags = 0;        // GT_CALL_* (cookie bits 16..31) for CALL sites
  bool required = true;      // attach failure of a required site fails the plan
  std::string insn;          // the probed instruction, for humans ("PUSHQ BP", "JBE")
  uint32_t cookie_hi = 0;    // cookie bits 32..63 (GT_USER_COOKIE_* >> 32 for user sites)
  // No uprobe: the syscall tracepoints write this site's records (syscall_sites.h).
  bool via_tracepoint = false;
};

// The .rodata the BPF program reads (bpf/gotrace.bpf.c `cfg`). Offsets in bytes, -1 when
// the field does not exist in this Go version (the BPF side then writes 0).
struct BpfOffsets {
  int32_t g_stackguard0 = -1, g_m = -1, g_sched_pc = -1, g_sched_sp = -1, g_sched_bp = -1;
  int32_t g_syscallsp = -1, g_syscallpc = -1, g_syscallbp = -1;
  int32_t g_atomicstatus = -1, g_goid = -1, g_waitreason = -1, g_parent_goid = -1;
  int32_t g_gopc = -1, g_startpc = -1;
  int32_t m_id = -1, m_procid = -1, m_curg = -1, m_p = -1, m_oldp = -1, m_syscalltick = -1;
  int32_t m_wait_trace_block_reason = -1, m_wait_trace_skip = -1;
  int32_t p_id = -1, p_status = -1, p_m = -1, p_syscalltick = -1;
  int32_t p_goidcache = -1, p_goidcacheend = -1;
  int32_t g_sync_safe_point = -1;
  int32_t span_npages = -1, span_nelems = -1, span_alloc_count = -1, span_elemsize = -1;
  int32_t m_vdso_sp = -1, m_vdso_pc = -1, m_ncgo = -1;
  int32_t g_labels = -1;  // -1 also when PlanOptions::labels is off
};

struct ProbePlan {
  std::string name;          // "go1.26", "go1.22", ... (printed by capture-dump, Stats)
  int go_minor = 0;          // Go 1.<minor> of the target
  std::vector<ProbeSite> sites;
  BpfOffsets offsets;
  // Which casgstatus transitions get a stack walk: bit `new` of stack_for_old[old]
  // (statuses without the _Gscan bit; old/new >= 16 never get one). Chosen to match the
  // events the in-process tracer writes with a stack (GoCreate, GoBlock, GoUnblock,
  // GoStop, GoSyscallBegin); see docs/probe-plan.md.
  uint16_t stack_for_old[16] = {};
  // Which optional field groups (GT_READ_*, proto/bpf_config.h) the casgstatus program
  // reads per transition [old][new]: the rest of those fields are 0 in the record.
  uint8_t gstatus_groups[16][16] = {};
  // traceStack picks gp.syscall{pc,bp} over gp.sched when gp.syscallsp != 0 (Go >= 1.23).
  bool stack_prefers_syscall = false;
  uint32_t max_frames = GT_MAX_FRAMES;
  // FS-relative offset of the thread's g (tls_g.h TlsGOffset); 0 = not found: CPU samples
  // outside Go code then keep the walk from the interrupted registers.
  int32_t tls_g_offset = 0;
  // runtime.ready spills its traceskip argument (RBX) to its ABI spill slot 1 before it
  // calls casgstatus, so gt_gstatus_record::caller_spill[1] is GoUnblock's traceskip
  // when the record's caller is runtime.ready (checked on the code of this binary).
  bool ready_traceskip_spilled = false;
  // The runtime's "in-process tracer on" flag (gobin GlobalId::kTraceEnabled; link-time
  // address, size 1 or 8), read at the StartRegion/Logf sites (user_sites.cc); 0 = none.
  uint64_t user_tracing_flag_vaddr = 0;
  uint32_t user_tracing_flag_size = 0;
  // GCSweepBegin's stack (sweep_sites.cc SweepBeginStack). In-process it is stack(1)
  // taken inside traceLocker.GCSweepSpan, which sweep calls at its top; our span site is
  // later in sweep, so a walk on the goroutine's own stack (REGS) starts at sweep's
  // caller. These return addresses (link-time; after GCSweepSpan's CALL of traceStack,
  // after sweep's CALL of GCSweepSpan) go in front of such a walk, and then
  // sweep_begin_skip logical frames are dropped (the traceLocker.stack inlined there).
  // A walk from curg.sched (sweep on the system stack: mheap.alloc's reclaim) is Go's
  // own, skip 1 (systemstack_switch). Empty: GCSweepBegin is written without a stack.
  std::vector<uint64_t> sweep_begin_prefix;
  uint32_t sweep_begin_skip = 0;
  // Go <= 1.21: GCMarkAssistStart's stack has the inlined traceGCMarkAssistStart on top,
  // at gcAssistAlloc's call of traceEvent (gc_sites.cc); the walk at gcAssistAlloc1 (on
  // the system stack) has gcAssistAlloc at its systemstack call instead, or not at all on
  // 1.19 (its systemstack pushes no frame). This return address (link-time) stands in
  // for that frame. 0: the walk as it is (1.22+, or not found).
  uint64_t assist_begin_pc = 0;
  // Syscalls from the tracepoints (syscall_sites.h): Go text and the range inside it whose
  // syscalls are not the goroutine's (runtime.futex), link-time [lo, hi).
  bool syscall_tp = false;
  // Capture level low (UseSyscallTracepointsOnly): one record per syscall, at its exit,
  // carrying the entry time in args[1] (bpf/gt_syscall_tp.bpf.h, cfg.sys_pair).
  bool syscall_pair = false;
  // With syscall_pair: the shortest syscall written (PlanOptions::syscall_min_ns; BPF
  // cfg.sys_min_us, rounded up to a microsecond). 0: all.
  uint64_t syscall_min_ns = 0;
  // With syscall_pair: the syscalls come from the syscall sampler (a task iterator every
  // few ms: bpf/gt_sys_sample.bpf.h, capture/syscall_sampler.h) instead of the sys_enter /
  // sys_exit programs, which are loaded as its fallback (PlanOptions::syscall_sample).
  bool syscall_sample = false;
  // ... every this long: a quarter of syscall_min_ns (a syscall of the threshold is seen by
  // 3-4 sweeps), between 250 us and 100 ms.
  uint64_t syscall_sample_period_ns = 0;
  // With syscall_pair and a threshold: the syscalls come from sched_switch (a thread off
  // CPU in a goroutine syscall for syscall_min_ns: bpf/gt_sys_switch.bpf.h) instead of the
  // sys_enter / sys_exit programs, which are loaded as its fallback
  // (PlanOptions::syscall_switch).
  bool syscall_switch = false;
  // The kernel view's goroutine syscall records (bpf/gt_kernel_syscall.bpf.h): the plan's
  // syscalls come from uprobes (Go <= 1.25) and the kernel view is on; go_text and sys_skip
  // are its filter's ranges too (syscall_sites.h UseKernelViewSyscalls).
  bool kernel_syscalls = false;
  struct Range {
    uint64_t lo = 0, hi = 0;
  };
  // sys_skip: runtime.futex; sys_skip_more: runtime.usleep, runtime.osyield (bpf_config.h).
  Range go_text, sys_skip, sys_skip_more[2];
  std::vector<std::string> notes;  // why a site is absent or degraded, for the operator
  // The target's Go version is outside the range the plan was written for
  // (version_support.h): Capture::Start then insists on a conclusive self-check.
  bool untested = false;

  const ProbeSite *site(uint32_t probe_id) const {
    return probe_id < sites.size() ? &sites[probe_id] : nullptr;
  }
};

struct PlanOptions {
  bool syscall_tracepoints = false;  // raw_syscalls sys_enter/sys_exit (costly)
  // The kernel view (docs/kernel-view.md): sched_switch + sched_wakeup, records only for
  // threads whose M runs a goroutine. The session sets it from --kernel-view (on by
  // default); capture-dump turns it on.
  bool sched_switch = false;
  bool gc_probes = true;             // gcStart / gcMarkTermination / STW
  bool sweep_probes = true;          // GC sweeps (sweep_sites.cc; only with gc_probes)
  bool stacks = true;                // stack walks for the events that carry one
  bool user_probes = true;           // runtime/trace tasks, regions, logs (user_sites.cc)
  // Goroutine syscalls from the sys_enter/sys_exit tracepoints instead of uprobes at
  // entersyscall/exitsyscall where the version allows (syscall_sites.h).
  bool syscalls_from_tracepoints = true;
  // The kernel has uprobe multi links (uprobe_multi.h, 6.6+): Go <= 1.25 syscalls from the
  // tracepoints need casgstatus probed at its ~45 call sites, affordable only as one link.
  bool uprobe_multi = false;
  // ... and that path itself, on by default (docs/probe-plan.md §3.6: an exit's outcome,
  // decided by exitsyscallfast's unprobed CAS, is read from the P's syscalltick at the
  // thread's next record). GOTRACED_LEGACY_SYSCALL_TP=0 turns it off (capture.cc
  // PlanTarget): casgstatus' entry probe then writes Go <= 1.25's syscalls.
  bool legacy_syscall_tracepoints = true;
  // Capture level "low" (session/capture_level.h): no per-goroutine-switch site. Off, the
  // plan has no casgstatus, P (acquirep/releasep/handoffp/releaseP) or preemptPark probe and
  // no uprobe at entersyscall/exitsyscall: goroutine syscalls come from the sys_enter /
  // sys_exit tracepoints for every version (syscall_sites.h UseSyscallTracepointsOnly),
  // GC from its few per-cycle sites.
  bool sched_probes = true;
  // The GC probes hit per span or per worker run rather than per cycle: heap-live updates
  // ((*gcControllerState).update), mark workers (gcDrain), assists (gcAssistAlloc1).
  bool gc_detail = true;
  // Capture level low (sched_probes off): goroutine syscalls shorter than this are not
  // written, and their g is not read (ProbePlan::syscall_min_ns). 0: all of them.
  uint64_t syscall_min_ns = 0;
  // Capture level low (sched_probes off): goroutine syscalls from the tracepoints. false:
  // none, no syscall tracepoint attached.
  bool low_syscalls = true;
  // pprof labels (issue 34): casgstatus to _Grunning records g.labels (GT_READ_LABELS),
  // the daemon reads the set it points to. Off: --no-labels.
  bool labels = true;
  // Capture level low with a threshold (syscall_min_ns > 0): find the long syscalls by
  // sampling the target's threads (ProbePlan::syscall_sample) rather than by a program on
  // every syscall. `--syscalls-by sample`, serve's `syscalls_by = "sample"`.
  bool syscall_sample = false;
  // ... or from sched_switch (ProbePlan::syscall_switch): `--syscalls-by switch`, serve's
  // `syscalls_by = "switch"`, the default of both (SessionOptions::syscall_switch; off
  // where the kernel lacks bpf_task_pt_regs: capture.cc PlanTarget). Neither: the
  // sys_enter / sys_exit tracepoints.
  bool syscall_switch = false;
};

// The plan for `bin` with runtime struct offsets `layout`. Errors name what is missing:
// "runtime.casgstatus not found in this binary (Go 1.x.y)", "casgstatus starts with
// SUBQ $0x40, SP: cannot probe it cheaply" is a note, not an error (entry probe at 12 us).
gobin::Result<ProbePlan> PlanFor(const gobin::GoBinary &bin, const gobin::RuntimeLayout &layout,
                                 const PlanOptions &opts = {});

// The struct offsets of `layout` as the BPF side reads them (-1: absent), the part of a
// plan that needs no binary (gotraced selftest's built-in target uses it).
BpfOffsets OffsetsFrom(const gobin::RuntimeLayout &layout);

// Cookie for a site: probe id | flags << 16 | cookie_hi << 32.
inline uint64_t CookieFor(const ProbeSite &s) {
  return uint64_t{s.id} | (uint64_t{s.flags} << 16) | (uint64_t{s.cookie_hi} << 32);
}

// Human-readable plan (one line per site) for capture-dump / inspect.
std::string DescribePlan(const ProbePlan &plan);

}  // namespace gotraced::probes
