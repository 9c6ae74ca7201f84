// RecordDecoder: raw capture records (proto/records.h, via capture::RecordView) ->
// model::Records. This is where the Go runtime is interpreted: which casgstatus call or
// probed runtime function stands for which trace event, which block reason, which stack
// and which skip — per Go version. docs/model.md §3 is the table this file implements.
//
// The key idea: a casgstatus hit is classified by the function that called it (the
// record's caller_pc, symbolized, innermost inlined frame first): execute -> GoStart,
// park_m -> GoBlock, goschedImpl -> GoStop, ready -> GoUnblock, newproc1 -> GoCreate,
// gdestroy -> GoDestroy ... exactly the functions where runtime/proc.go calls the tracer.
// gstatus_table.h holds those names and, per (site, old, new status, Go version), what
// the tracer writes there; DecodeGstatus looks the row up and runs the row's handler.
// Transitions the tracer does not report (GC's casGToWaitingForSuspendG, newstack's
// _Gcopystack, ...) come from other callers and are ignored.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <map>
#include <unordered_map>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/capture/record_view.h"
#include "daemon/model/flat_map.h"
#include "daemon/model/gstatus_table.h"
#include "daemon/model/kernel_view.h"
#include "daemon/model/record.h"
#include "daemon/model/stack_pool.h"
#include "daemon/model/sys_sample_tracker.h"
#include "daemon/probes/probe_plan.h"

namespace gotraced::model {

struct DecoderConfig {
  int go_minor = 26;                      // Go 1.<minor> of the target
  // Runtime address - link-time address of the target's text (PIE), for the plan's
  // link-time PCs (ProbePlan::sweep_begin_prefix).
  std::uint64_t load_bias = 0;
  const probes::ProbePlan *plan = nullptr;  // roles of CALL records
  // runtime.traceBlockReasonStrings of the target (gobin RuntimeLayout), index = the
  // traceBlockReason gopark was given.
  std::vector<std::string> block_reasons;
  // Function names at a return address (runtime address, load bias included), innermost
  // inlined frame first; empty when the PC is in no Go function.
  std::function<void(std::uint64_t pc, std::vector<std::string_view> &names)> func_chain;
  // The runtime's pcsp value at an instruction (runtime address): bytes the function has
  // pushed below its entry SP there (runtime/symtab.go funcspdelta); nullopt outside Go
  // code. CPU samples use it to find a leaf's caller (cpu_sample_decoder.cc).
  std::function<std::optional<std::int32_t>(std::uint64_t pc)> sp_delta;
  // CPU samples are captured (--cpu-hz): track which threads the runtime profiles.
  bool cpu_samples = false;
  // runtime.stwReasonStrings of the target (gobin RuntimeLayout), index = stwReason.
  std::vector<std::string> stw_reasons;
  // gcController.heapLive is known to be 0 at the first record (launch mode: the probes
  // are attached before the runtime allocates); otherwise HeapAlloc waits for the first
  // resetLive (record_decoder_gc.cc).
  bool heap_live_from_zero = false;
  // Attach mode: gcController.heapLive as read from the target's memory at
  // heap_live_seed_ts (procmem snapshot). update records whose probe fired before that
  // time are already in the value; later ones are added to it (record_decoder_gc.cc).
  std::optional<std::uint64_t> heap_live_seed;
  std::uint64_t heap_live_seed_ts = 0;
  // Recycled vectors for the records' stacks (the model gives them back); may be null.
  StackPool *stack_pool = nullptr;
  // Capture level "low" (Model sparse mode): a syscall exit is written at once, with no
  // fast/slow decision (there is no P in the trace to decide about), and CPU samples
  // carry their own goroutine and P.
  bool sparse = false;
  // The kernel view is on: syscall exits from the tracepoints also give the model their
  // return value (kKernelSyscallExit), and fd_namer (may be null) names the fds of
  // syscalls as their entry records are decoded, not later when the model applies them:
  // the model waits for records of other threads (the ring is drained every few ms, and
  // a quiet program's entry waits for its next record), by which time a short-lived fd
  // may be closed.
  bool kernel_view = false;
  FdNamer *fd_namer = nullptr;
};

struct DecoderStats {
  std::uint64_t records = 0;       // capture records seen
  std::uint64_t emitted = 0;       // model records produced
  std::uint64_t ignored = 0;       // transitions the tracer does not report (by design)
  std::uint64_t unclassified = 0;  // casgstatus callers not in the table
  std::uint64_t unusable = 0;      // records missing what their event needs
  std::uint64_t deferred = 0;      // slow syscall exits resolved by a later record
  std::uint64_t cpu_samples_unprofiled = 0;  // samples of threads the runtime does not profile
  std::uint64_t exits_fast = 0, exits_retaken = 0, exits_no_p = 0;  // Go 1.26 exitsyscall paths
  std::uint64_t exits_self_stolen = 0;  // Go <= 1.25: a steal not yet recorded, written at the sys_exit
  std::uint64_t gc_end_late = 0;   // GCEnds written at a later record (their casgstatus lost)
  // Records whose M (ctx.m, read through the hit's own registers) was last seen on another
  // thread. An M keeps its thread for life (runtime2.go `type m`: one per OS thread; only
  // cgo's extra Ms move, and a freed M's memory may be reused), so in a program without
  // those a non-zero count means a record was built from another hit's data: the BPF
  // side's scratch shared between two preempting hits (docs/preemption.md).
  std::uint64_t m_thread_changes = 0;
  // The syscall sampler (capture level low, sys_sample_tracker.h): sweeps read, and the
  // syscalls seen in them that ended under the threshold.
  std::uint64_t sample_sweeps = 0, sample_short = 0;
  // Level low's whole syscalls (sampler, sched_switch) dropped because they overlapped one
  // already written for the same goroutine (EmitSampledSyscall's guard): 0 unless the
  // capture side made one of a stale observation.
  std::uint64_t syscall_overlaps = 0;
  std::map<std::string, std::uint64_t> unclassified_callers;  // for diagnostics
};

// The fingerprint of the words BPF copied with a g.labels pointer (proto/records.h
// gt_labels_id; procmem/label_identity.h), for the model's LabelSource to check the set it
// reads against (Record::value2 of a labels record); 0 without a pointer.
std::uint64_t LabelsId(int go_minor, std::uint64_t ptr, const gt_labels_id &id);

class RecordDecoder {
 public:
  explicit RecordDecoder(DecoderConfig cfg);

  // Decodes one capture record, appending 0..n model records (in the M's order).
  void Decode(const capture::RecordView &v, std::vector<Record> &out);
  // End of capture: resolves what is still pending (nothing is invented).
  void Flush(std::vector<Record> &out);
  // The time of the oldest record held for the thread's next record to decide, which
  // another M's records may depend on (0: none): entersyscallblock's ProcStop (Go 1.26+,
  // held_release_) and a syscall exit that found no P (pending_exit_). Both are decided
  // within microseconds unless the kernel preempts the thread in between; the pipeline
  // keeps the model behind them (pipeline.cc Watermark). Fast exits (pending_fast_) are
  // not counted: they keep their P, so no other M waits for them, and one can be held as
  // long as the goroutine computes.
  std::uint64_t OldestHeldTs() const;

  const DecoderStats &stats() const { return stats_; }

  // What a casgstatus call site means (by its caller's function): gstatus_table.h, with
  // the decisions per (site, old, new status, Go version).
  using Site = gstatus::Site;

 private:
  Site Classify(std::uint64_t caller_pc);
  // The record a gstatus row names, without its stack (Attach adds it): kind, subject,
  // skip and reason from the row.
  Record FromRow(const gstatus::Row &row, const capture::RecordView &v, Goid goid) const;
  static void Attach(const gstatus::Row &row, Record &r, std::vector<std::uint64_t> &pcs);
  std::string_view Innermost(std::uint64_t pc);
  void DecodeGstatus(const capture::RecordView &v, std::vector<Record> &out);
  void DecodeCall(const capture::RecordView &v, std::vector<Record> &out);
  // The syscall half (record_decoder_syscall.cc): the CALL roles of syscall entry, exit
  // and the steals of a syscall's P (false: not one of them), and the exits that the
  // thread's next record decides (ResolvePendingFast false: the record is consumed).
  void DecodeSyscallGstatus(const gstatus::Row &row, const capture::RecordView &v, Record &&r,
                            std::vector<std::uint64_t> &pcs, std::vector<Record> &out);
  bool DecodeSyscallCall(const capture::RecordView &v, const probes::ProbeSite &site,
                         std::vector<std::uint64_t> &pcs, std::vector<Record> &out);
  bool ResolvePendingFast(const capture::RecordView &v, std::vector<Record> &out);
  void DecodeSyscallSteal(const capture::RecordView &v, ProcId p, std::uint64_t tick_after, std::vector<Record> &out);
  void ResolvePendingExit(const capture::RecordView &v, std::vector<Record> &out);
  Record Base(const capture::RecordView &v, RecordKind k) const;
  void Emit(std::vector<Record> &out, Record &&r);
  std::uint32_t UnblockSkip(std::uint32_t tid, const std::vector<std::uint64_t> &pcs);
  // Drops the leading frames of the syscall entry path (reentersyscall, entersyscall,
  // entersyscallblock, systemstack_switch) so the walk starts at gp.syscallpc's frame.
  void TrimSyscallEntry(std::vector<std::uint64_t> &pcs);
  bool HasRole(probes::ProbeRole role) const;
  // The kernel view's sched_switch records (kernel_view_decoder.cc).
  void DecodeKernelSwitch(const capture::RecordView &v, std::vector<Record> &out);
  // ... its goroutine syscall records (Go <= 1.25, GT_REC_KSYS_*), and the name of a
  // syscall's fd at decode time (FdName, "" when none is asked for).
  void DecodeKernelSyscall(const capture::RecordView &v, std::vector<Record> &out);
  // The syscall sampler's records (GT_REC_SYS_SAMPLE): a begin and an end per syscall
  // that lasted the plan's syscall_min_ns (sys_sample_tracker.h).
  void DecodeSysSample(const capture::RecordView &v, std::vector<Record> &out);
  // Level low's syscalls from sched_switch (GT_REC_SYS_SWITCH): the record is the syscall.
  void DecodeSysSwitch(const capture::RecordView &v, std::vector<Record> &out);
  // A syscall of either: GoSyscallBegin and GoSyscallEnd on its thread; one that begins
  // before the end of the last one written for its goroutine is dropped (a goroutine is
  // in one syscall at a time: Go's parser refuses a second GoCreateSyscall), counted.
  void EmitSampledSyscall(const SampledSyscall &c, std::vector<Record> &out);
  std::unordered_map<std::uint64_t, std::uint64_t> syscall_end_;  // goid -> its last written end
  std::uint64_t syscall_end_max_ = 0;                             // the latest of those
  std::size_t syscall_end_prune_at_ = 65536;
  std::optional<SysSampleTracker> sys_sample_;
  std::vector<SampledSyscall> sampled_;  // scratch
  std::string FdName(std::int64_t nr, std::uint64_t arg0);
  // User annotations (record_decoder_user.cc).
  void DecodeUser(const capture::RecordView &v, std::vector<Record> &out);
  std::uint64_t UserTaskOfContext(const gt_user_record &u) const;
  FlatSet<std::uint64_t> user_live_tasks_;  // tasks created, not yet ended
  // GC / STW / heap / worker / assist CALL records (record_decoder_gc.cc); false: not a
  // GC role.
  bool DecodeGcCall(const capture::RecordView &v, probes::ProbeRole role, std::vector<std::uint64_t> &pcs,
                    std::vector<Record> &out);
  std::uint64_t heap_live_ = 0;  // the target's gcController.heapLive as of the last record
  bool heap_known_ = false;      // heap_live_ is the runtime's (not a partial sum)
  bool heap_started_ = false;    // a heap record was seen (heap_live_from_zero applied)
  // The record's probe fired before heapLive was read at attach (heap_live_seed).
  bool BeforeHeapSeed(const capture::RecordView &v) const {
    return cfg_.heap_live_seed.has_value() && v.ts() < cfg_.heap_live_seed_ts;
  }
  // Go <= 1.20: the STW's reason from the stack, "" when the runtime does not trace it.
  std::string_view LegacyStwReason(const std::vector<std::uint64_t> &pcs);
  FlatSet<Goid> legacy_untraced_stw_;  // goroutines inside an untraced STW
  // Threads whose goroutine is in gcAssistAlloc1 (goid): the assist ends at its
  // casgstatus(gp, _Gwaiting, _Grunning) there (record_decoder_gc.cc GcAssistEnd).
  FlatMap<std::uint32_t, Goid> assisting_;
  void GcAssistEnd(const capture::RecordView &v, std::vector<Record> &out);
  // Threads inside gcMarkTermination: the GCEnd to write at its casgstatus(curgp,
  // _Gwaiting, _Grunning) (record_decoder_gc.cc GcMarkTermEnd).
  FlatMap<std::uint32_t, Record> mark_term_;
  void GcMarkTermEnd(const capture::RecordView &v, std::vector<Record> &out);
  void FlushMarkTerm(std::uint32_t tid, const capture::RecordView &v, std::vector<Record> &out);
  void SweepBeginStack(const capture::RecordView &v, probes::ProbeRole role, std::vector<std::uint64_t> &pcs,
                       Record &r);
  // Per thread: an open sweep bracket (spans recorded since the thread's last GCSweepDone:
  // BPF records them only inside a bracket) and what the runtime's pp.trace.{inSweep,
  // swept, reclaimed} would hold (traceruntime.go).
  struct SweepBracket {
    bool begun = false;          // a span was swept inside: GCSweepBegin written
    std::uint64_t swept = 0;     // bytes
    std::uint64_t reclaimed = 0; // bytes
    std::uint64_t chunk_pages = 0;  // pages of the spans swept since the last chunk end
  };
  FlatMap<std::uint32_t, SweepBracket> sweeping_;

  // Threads seen running a goroutine (ctx.curg != 0): the runtime arms a thread's CPU
  // profiling timer only in execute (cpu_sample_decoder.cc).
  FlatSet<std::uint32_t> cpu_profiled_tids_;
  FlatMap<std::uint64_t, std::uint32_t> m_thread_;  // ctx.m -> the thread it was last seen on
  DecoderConfig cfg_;
  DecoderStats stats_;
  FlatMap<std::uint64_t, Site> sites_;  // caller pc -> site
  std::vector<std::string_view> names_;            // scratch

  // Per thread: a syscall exit that found no P (Go 1.26: exitsyscall's slow path), to be
  // resolved by the thread's next record (ProcStart+GoSyscallEndBlocked+GoStart when it
  // got a P, GoSyscallEndBlocked from exitsyscallNoP otherwise).
  struct PendingExit {
    Goid g = kNoG;
    std::uint64_t ts = 0;
  };
  FlatMap<std::uint32_t, PendingExit> pending_exit_;
  // Per thread: a Go 1.26 syscall exit that still had its P at exitsyscall's entry. The
  // runtime decides fast vs. slow only after its CAS, and sysmon may take the P in
  // between (seen: the thread preempted by the kernel right at the entry), so the events
  // are written when the thread's next record shows the exit went through, or turned
  // into a slow exit when a releaseP takes that P first.
  struct PendingFast {
    Record base;          // ts, m, p, g of the exitsyscall record
    bool kept = true;     // p.syscalltick unchanged since the entry
    std::uint64_t gp = 0; // the goroutine's g pointer
    // Go <= 1.25: a P regained with another tick is taken from the syscall of whichever
    // M holds it now (exitsyscallfast_reacquired: ProcSteal(pp, true)), not from this one.
    bool steal_from_holder = false;
    // Go <= 1.25 (sys_exit): the P's syscalltick at sys_exit, so the thread's next record
    // tells whether its CAS won at once (PTickAfterWin) or the P went through other hands
    // first; and whether another M's exit already took this P out of the syscall.
    std::uint32_t p_tick = 0;
    bool legacy = false;
    bool taken = false;
  };
  // What p.syscalltick reads after exitsyscall got the P at once: ++ in exitsyscall, and
  // one more in exitsyscallfast_reacquired when the tick had moved (proc.go, 1.19-1.25).
  static std::uint32_t PTickAfterWin(const PendingFast &pf) { return pf.p_tick + (pf.kept ? 1 : 2); }
  // Go <= 1.25: the thread's P and its syscalltick as a record shows them (m.p, or m.oldp
  // read at a syscall's tracepoint); false when it shows no P.
  static bool RecordP(const capture::RecordView &v, ProcId &p, std::uint32_t &tick);
  void EmitStealBack(const capture::RecordView &v, ProcId p, Goid g, std::vector<Record> &out);
  void MarkSyscallPTaken(ProcId p);
  // The exit (its thread) a retake/forEachP handoffp of P took the P from (Go <= 1.25).
  std::optional<std::uint32_t> HandoffVictim(ProcId p, std::uint64_t tick_after) const;
  bool SyscallHolder(ProcId p, std::uint32_t except) const;
  bool SameSyscallExitAgain(const capture::RecordView &v, std::uint64_t gp) const;
  bool SignalReturnEntry(const capture::RecordView &v) const;
  bool SignalReturn(const capture::RecordView &v);
  bool TakenByWaitingExit(ProcId p, std::uint64_t status, std::uint64_t holder_m) const;
  FlatMap<std::uint32_t, PendingFast> pending_fast_;
  void EmitFastExit(PendingFast &pf, std::vector<Record> &out);
  // Per thread (Go 1.26+ only): the ProcStop of entersyscallblock's handoff, which the
  // runtime writes after GoSyscallBegin but whose probe fires before the casgstatus we
  // decode it from (Go <= 1.25 runs the casgstatus first: nothing to hold).
  FlatMap<std::uint32_t, Record> held_release_;
  bool skip_current_ = false;
  // Per thread: the traceskip of the last runtime.ready entry (if the plan probes it).
  FlatMap<std::uint32_t, std::uint32_t> ready_skip_;
  // Per goroutine (g pointer) in a syscall: its thread and the P it held, for the
  // ProcSteal that takes that P (Go 1.26 syscallingThread.releaseP gets the g).
  struct InSyscall {
    std::uint32_t tid = 0;
    ProcId p = kNoP;
  };
  FlatMap<std::uint64_t, InSyscall> in_syscall_;
  // Go <= 1.25: per P, a retake/forEachP steal decoded while no known syscall held the P,
  // with the P's syscalltick it read: the syscall's entry record may come after it (the
  // thread preempted before sys_enter), and is then already stolen (DecodeSyscallCall).
  struct EarlySteal {
    std::uint32_t tick = 0;
    std::uint64_t ts = 0;
  };
  FlatMap<ProcId, EarlySteal> early_steal_;
  // Go <= 1.25: Ps whose steal the exiting thread wrote itself (its sys_exit found m.oldp
  // taken, or its next record showed the P gone) before the stealer's record: retake and
  // forEachP CAS the P, then reach handoffp, whose probe is the record, after the thread
  // may have written its exit. That handoffp is the same steal and is dropped; written
  // too, it came after the P's next holder had taken it (handoffp's startm, an idle M's
  // acquirep), which the model had let go first ("P running on M, not in a syscall", then
  // that M's events repaired). A P leaves the set at its next syscall entry: a handoffp
  // after that is a new steal.
  FlatSet<ProcId> steal_written_;
  // Threads whose last record was the rt_sigreturn of a signal that came outside a
  // syscall (in entersyscall / exitsyscall, the g _Gsyscall): the kernel's next record
  // of the thread is that return's sys_exit, no syscall's (SignalReturnEntry).
  FlatSet<std::uint32_t> signal_return_;
  // Threads whose procresize (its record) destroys their M's P: their next acquirep is
  // procresize's move to allp[0], with the GoSched/ProcStop/GoStart the runtime writes.
  FlatSet<std::uint32_t> resize_move_;
  // Go <= 1.25: per thread, entersyscall_gcwait's steal of its own P (kEnterSyscallGCStop)
  // waiting for that syscall's sys_enter record, whose GoSyscallBegin the runtime writes
  // before it: the P and its syscalltick after the steal's ++.
  struct GcStopSteal {
    ProcId p = kNoP;
    std::uint64_t tick_after = 0;
  };
  FlatMap<std::uint32_t, GcStopSteal> gcwait_steal_;
  // Go <= 1.23 creations whose goid was not yet assigned at the probe (the P's goid cache
  // was being refilled), by g address: written without an id, which a later record of
  // that g shows (a kGoidResolved then). The model holds the creating M's later records
  // behind the create meanwhile (record.h kGoidResolved), so that the M's order is kept.
  FlatSet<std::uint64_t> unresolved_;
  // Per P: the create held at a refill of that P's goid cache. The refill took the batch
  // [end-16, end) (runtime/proc.go newproc1, _GoidCacheBatch = 16) and the held create got
  // its first id, so the P's next create (which reads p.goidcacheend) resolves it.
  FlatMap<ProcId, std::uint64_t> held_by_p_;
  void DecodeRecord(const capture::RecordView &v, std::vector<Record> &out);
  void ResolveCreate(std::uint64_t gp, Goid goid, std::uint64_t ts, std::vector<Record> &out);
  // Per thread: p.syscalltick at syscall entry, which reentersyscall copies into
  // m.syscalltick; exitsyscall's "did I keep my P" test compares them (Go 1.26).
  FlatMap<std::uint32_t, std::uint32_t> entry_tick_;
  // Per thread: the P held at syscall entry (Go <= 1.25 lostP check).
  FlatMap<std::uint32_t, ProcId> syscall_p_;
};

}  // namespace gotraced::model
