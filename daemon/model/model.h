// Model: turns one traced process's records (record.h) into trace events (encoder).
//
// It plays the part the runtime's tracer plays in-process (runtime/traceruntime.go,
// traceevent.go, tracestatus.go, trace.go traceAdvance) and checks itself against the
// trace reader's state machine (internal/trace/order.go), which it mirrors one function
// per event kind (model_events.cc). Rules and citations: docs/model.md.
//
//   * Ordering. Records are queued per M (a thread's records are in program order);
//     Advance(watermark) applies them in timestamp order up to the watermark, and like
//     order.go it skips a head whose preconditions depend on another M's event not yet
//     applied (a GoStart before the GoUnblock that made the goroutine runnable, a
//     ProcSteal before the victim's GoSyscallBegin ...). A head that stays blocked once
//     everything before it has arrived is applied anyway, with a repair.
//   * Statuses. In the first generation a goroutine or P gets its status lazily, from the
//     state the first event touching it implies (the runtime's eventWriter(goStatus,
//     procStatus)); at the end of the first generation the snapshot supplies statuses
//     for everything no record mentioned (traceAdvance's sweep). Every later generation
//     starts with a status for every live G and P (traceAdvance / forEachP).
//   * Sequence numbers per G and per P, reset by statuses, as order.go expects.
//   * Repairs. A record that contradicts the state (lost or unprobed transitions) is
//     preceded by synthesized events that bring the trace state to what the record
//     requires (e.g. a GoUnblock before a GoStart of a goroutine the model thought
//     waiting); each repair is counted. Goroutines unknown after the first generation
//     (the parser forbids introducing them by status) are introduced by a synthesized
//     GoCreate. The output is therefore always accepted by the parser.
//   * Loss. NoteLoss() counts records the capture dropped and ends the generation early;
//     the next generation re-states every G and P.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "daemon/model/flat_map.h"
#include "daemon/model/kernel_view.h"
#include "daemon/model/label_source.h"
#include "daemon/model/model_gc.h"
#include "daemon/model/model_kernel.h"
#include "daemon/model/model_labels.h"
#include "daemon/model/model_user.h"
#include "daemon/model/record.h"
#include "daemon/model/record_queue.h"
#include "daemon/model/sched_state.h"
#include "daemon/model/snapshot.h"
#include "daemon/model/stack_pool.h"
#include "daemon/model/stack_builder.h"
#include "daemon/model/symbolizer.h"
#include "encoder/event_writer.h"

namespace gotraced::model {

struct ModelOptions {
  // Called with a description of every repair (for debug logs); may be empty.
  std::function<void(const std::string &)> on_repair;
  // Records for which a blocked head may wait for a later record of another M (beyond the
  // watermark) before it is repaired instead (ns).
  std::uint64_t lookahead_ns = 2'000'000;
  // Where applied records' stacks go back to (the decoder's pool); may be null.
  StackPool *stack_pool = nullptr;
  // Capture level "low": no scheduling records; each syscall, GC/STW event and sample is
  // written as a self-contained observation (model_sparse.cc).
  bool sparse = false;
  // The kernel view is on (--kernel-view): goroutine syscalls get their regions
  // (model_kernel_syscall.cc; the off-CPU regions need records only it captures).
  bool kernel_view = true;
  // The target's pprof label sets (model_labels.cc); null: no "gotraced: labels" logs.
  LabelSource *labels = nullptr;
};

struct ModelStats {
  std::uint64_t records = 0;            // records applied
  std::uint64_t events = 0;             // trace events emitted (accepted by the writer)
  std::uint64_t writer_dropped = 0;     // events the writer refused (a model bug if > 0)
  std::uint64_t goroutines_created = 0; // GoCreate/GoCreateBlocked/GoCreateSyscall (incl. synthesized)
  std::uint64_t goroutines_ended = 0;   // GoDestroy/GoDestroySyscall
  std::uint64_t goroutines_synthesized = 0;  // GoCreate invented for goroutines unknown after gen 1
  std::uint64_t goroutines_live = 0;
  std::uint64_t blocks = 0;             // GoBlock from records
  std::uint64_t stops = 0;              // GoStop from records
  std::uint64_t syscalls = 0;           // GoSyscallBegin from records
  std::uint64_t inconsistencies = 0;    // records that contradicted the state (repaired)
  std::uint64_t repair_events = 0;      // events synthesized by repairs
  std::uint64_t records_discarded = 0;  // records dropped as redundant or unusable
  std::uint64_t records_lost = 0;       // records the capture reported lost (NoteLoss)
  std::uint64_t generations = 0;        // generations ended
  std::uint64_t generation_cuts = 0;    // generations ended early because of loss
  std::uint64_t queued = 0;             // records waiting in the per-M queues
  std::uint64_t gc_events = 0;          // GC/STW/heap/label/assist events emitted (model_gc.cc)
  std::uint64_t gc_dropped = 0;         // GC records with no valid place in the trace
  std::uint64_t cpu_samples = 0;        // CPUSample events written (model_cpu.cc)
  std::uint64_t cpu_samples_dropped = 0;  // samples without a readable user stack
  std::uint64_t kernel_regions = 0;       // kernel view regions begun (model_kernel.cc)
  std::uint64_t kernel_unplaced = 0;      // off-CPU intervals of a thread whose M ran no
                                          // running goroutine the model knew of
  std::uint64_t sparse_observations = 0;  // sparse mode: GC/STW/procs events wrapped in a G of their own
  std::uint64_t state_samples = 0;        // sparse mode: goroutine state samples written (model_sparse.cc)
  std::uint64_t state_samples_dropped = 0;  // ... left out: no P was idle to write one on
  std::uint64_t label_logs = 0;             // "gotraced: labels" logs written (model_labels.cc)
  std::uint64_t label_unknown = 0;          // ... not written: the set could not be told
  std::uint64_t goroutines_gone = 0;        // given up after a loss: ended in the target, end lost (ForgetGone)
};

// How many entries the model's per-goroutine, per-P and per-M tables hold (tests: memory
// stays flat however long a recording runs, issue 30). Per-M entries stay: the runtime
// never frees an M but one whose locked goroutine exits (proc.go mexit), and no record
// says a thread ended, so they are bounded by the threads the target ever had.
struct ModelFootprint {
  std::size_t goroutines = 0, procs = 0, threads = 0;  // SchedState
  std::size_t queues = 0;               // per-M record queues
  std::size_t pending_creates = 0, unresolved_creates = 0;
  std::size_t ended = 0;                // recently ended ids (bounded: NoteEnded)
  std::size_t user_regions = 0;         // goroutines with open regions
  std::size_t kernel_open = 0, kernel_syscalls = 0, kernel_resume = 0;
  std::size_t gc_labelled = 0, gc_assist = 0, gc_stw_stale = 0;
  std::size_t seen_in_first_gen = 0;    // cleared when the first generation ends
  std::size_t labelled = 0;             // goroutines whose last label set is kept
};

class Model {
 public:
  Model(encoder::EventWriter &writer, Symbolizer *symbolizer, ModelOptions options = {});
  ~Model();
  Model(const Model &) = delete;
  Model &operator=(const Model &) = delete;

  // Attach-time state (optional; not used in launch mode). Call before the first Advance.
  void SetSnapshot(Snapshot snapshot);
  // The heap goal the runtime's StartTrace writes (heap_goal.h): written once, in the
  // first generation, on the first M that holds a running P, unless a HeapGoal record
  // comes first (model_gc.cc). Call before the first Advance.
  void SetInitialHeapGoal(std::uint64_t goal);

  // Queues a record. Records of one M must come in that M's order; different Ms may
  // interleave arbitrarily.
  void Push(Record &&r);
  void Push(const Record &r) { Push(Record(r)); }
  // The capture lost `n` records before the next pushed one.
  void NoteLoss(std::uint64_t n);

  // Applies every queued record with ts <= watermark (all earlier records must have been
  // pushed). Ends the generation early after a loss.
  void Advance(std::uint64_t watermark);
  // Advance(ts), then end the current generation at ts and start the next one.
  void CutGeneration(std::uint64_t ts);
  // Applies everything queued and ends the last generation. The caller then closes the
  // writer. No records may be pushed afterwards.
  void Finish(std::uint64_t ts);

  std::uint64_t generation_start() const { return gen_start_ts_; }
  ModelStats stats() const;
  const SchedState &state() const { return st_; }
  ModelFootprint footprint() const;
  // After a loss, goroutines whose end was among the lost records would stay (restated
  // every generation) until the recording ends. The caller takes GoroutinesOffM() at a
  // generation's end, then reads the target's live goroutine ids (allgs), and at a later
  // generation's end, once every record older than that read is applied, ForgetGone
  // drops each candidate still held off every M that the target no longer has: it died
  // before the read, and no record of its end came. Ids are never reused (proc.go
  // newproc1: sched.goidgen), so "not live" is final. Only goroutines off every M: one
  // the model holds on an M is restated with that M, and a later record there repairs it.
  std::vector<Goid> GoroutinesOffM() const;
  // `live`: ascending. Returns how many were forgotten (stats().goroutines_gone).
  std::size_t ForgetGone(std::span<const Goid> candidates, std::span<const Goid> live);
  // Description of the last repair, for logs ("" if none).
  const std::string &last_repair() const { return last_repair_; }

 private:
  // ---- ordering (model.cc) ----
  bool Ready(const Record &r);
  void Apply(const Record &r, bool forced);
  void ProcessUpTo(std::uint64_t watermark, bool drain);
  void StartGenerationStatuses(std::uint64_t ts);
  void FirstGenerationSweep(std::uint64_t ts);
  void EndGeneration(std::uint64_t ts);

  // ---- one function per event kind (model_events.cc), cf. order.go advance* ----
  void OnProcsChange(const Record &r);
  void OnProcStart(const Record &r);
  void OnProcStop(const Record &r);
  void OnProcSteal(const Record &r);
  void OnGoCreate(const Record &r);
  void OnGoStart(const Record &r);
  void OnGoStopExec(const Record &r);  // GoEnd, GoStop, GoBlock
  void OnGoUnblock(const Record &r);
  void OnGoSyscallBegin(const Record &r);
  void OnGoSyscallEnd(const Record &r);
  void OnGoSyscallEndBlocked(const Record &r);
  void OnGoCreateSyscall(const Record &r);
  void OnGoDestroySyscall(const Record &r);
  void OnGoSwitch(const Record &r);
  void OnUser(const Record &r);  // tasks, regions, logs (model_user.cc)
  // g's label set at a GoStart (after it), GoBlock or GoStop (before it): model_labels.cc.
  void RunningLabels(const Record &r, Goid g);
  void OnGoLabels(const Record &r);  // kGoLabels: the running goroutine's set (model_labels.cc)
  // GC, STW, heap metrics, mark workers and assists (model_gc.cc).
  void OnGc(const Record &r);
  void GcGenerationStart(std::uint64_t ts);
  void InitialHeapGoal(const Record &r);  // after each record: SetInitialHeapGoal's event
  // True while an open STW range keeps a generation cut waiting (model_gc.cc).
  bool StwHoldsCut(std::uint64_t ts);
  bool GcContext(const Record &r, bool need_g);
  void OnCPUSample(const Record &r);  // model_cpu.cc
  void OnKernel(const Record &r);     // the kernel view's regions (model_kernel.cc)
  // Sparse mode (model_sparse.cc).
  void ApplySparse(const Record &r);
  void SparseSyscallBegin(const Record &r);
  void SparseSyscallEnd(ThreadId m, std::uint64_t ts, Goid g);
  void SparseObserve(const Record &r);
  void SparseStateSample(const Record &r);
  ProcId SparseIdleP();
  // The kernel view of goroutine syscalls (model_kernel_syscall.cc), hooked into the
  // syscall and steal handlers of model_events.cc.
  void KernelSyscallBegin(const Record &r, std::uint64_t t0);
  void KernelSyscallEnd(const Record &r, bool lost_p);
  void OnKernelSyscall(const Record &r);  // kKernelSyscallEnter / kKernelSyscallExit
  void KernelProcSteal(ThreadId victim, std::uint64_t ts);
  bool KernelSyscallRegionBegin(ThreadId m, KernelModelState::Syscall &s);
  void KernelSyscallNamed(KernelModelState::Syscall &s, const Record &r);
  void KernelGoStart(ThreadId m, Goid g);
  bool KernelSyscallOffCpu(ThreadId m, std::string_view cause, std::uint64_t off, std::uint64_t on,
                           std::uint64_t wake);
  void KernelSyscallClose(ThreadId m, const KernelModelState::Syscall &s, std::uint64_t at);
  std::string KernelSyscallMessage(const KernelModelState::Syscall &s, std::uint64_t t1,
                                   std::uint64_t resumed) const;

  // ---- emit primitives (model_emit.cc): write one event and update the state as
  // order.go would; each asserts its own preconditions.
  std::uint64_t Ts(ThreadId m, std::uint64_t ts);  // per-M non-decreasing time
  void Count(encoder::EmitStatus s);
  void EmitProcStatus(ThreadId batch, std::uint64_t ts, ProcId p, encoder::ProcStatus s);
  void EmitGoStatus(ThreadId batch, std::uint64_t ts, Goid g, ThreadId gm, encoder::GoStatus s);
  void EmitProcStart(ThreadId m, std::uint64_t ts, ProcId p);
  void EmitProcStop(ThreadId m, std::uint64_t ts);
  void EmitProcSteal(ThreadId m, std::uint64_t ts, ProcId p, ThreadId victim);
  void EmitGoCreate(ThreadId m, std::uint64_t ts, Goid g, bool blocked, encoder::StackId new_stack,
                    encoder::StackId stack);
  void EmitGoStart(ThreadId m, std::uint64_t ts, Goid g);
  void EmitGoStopExec(ThreadId m, std::uint64_t ts, RecordKind kind, std::string_view reason,
                      encoder::StackId stack);
  void EmitGoUnblock(ThreadId m, std::uint64_t ts, Goid g, encoder::StackId stack);
  void EmitGoSyscallBegin(ThreadId m, std::uint64_t ts, encoder::StackId stack);
  void EmitGoSyscallEnd(ThreadId m, std::uint64_t ts);
  void EmitGoSyscallEndBlocked(ThreadId m, std::uint64_t ts);
  void EmitGoSwitch(ThreadId m, std::uint64_t ts, Goid next, bool destroy);

  // ---- ensure/repair helpers (model_repair.cc) ----
  bool FirstGeneration() const;
  void Repair(const Record &r, std::string_view what);
  // Lazy status of the M's own resources, as eventWriter(goStatus, procStatus) does.
  void EnsureStatusP(ThreadId batch, std::uint64_t ts, ProcId p, encoder::ProcStatus s);
  void EnsureStatusG(ThreadId batch, std::uint64_t ts, Goid g, ThreadId gm, encoder::GoStatus s);
  // Make M hold P p in state Running (p < 0: keep whatever P the M holds, if any).
  // Returns false if the M ends up without a P.
  bool EnsureProc(const Record &r, ProcId p);
  // Make goroutine g Running on M (the M must hold a running P). Returns false if
  // impossible (g == kNoG / unknown).
  bool EnsureRunning(const Record &r, Goid g);
  // Make goroutine g Runnable (GoUnblock if waiting, taken off its M if bound, created if
  // unknown). Returns false if impossible.
  bool MakeRunnable(const Record &r, Goid g);
  // Remove whatever goroutine the M holds (GoBlock "unspecified" or GoSyscallEndBlocked).
  void DetachG(const Record &r, ThreadId m);
  // Take the P from whatever M holds it, leaving it idle.
  void FreeProc(const Record &r, ProcId p, ThreadId except);
  // Bring unknown goroutine g into existence on M (GoStatus in gen 1, else GoCreate).
  bool IntroduceG(const Record &r, Goid g, encoder::GoStatus want);
  bool EnsureKnownTarget(const Record &r, Goid g);

  encoder::EventWriter &w_;
  StackBuilder stacks_;
  ModelOptions opt_;
  SchedState st_;
  ModelStats stats_;
  std::string last_repair_;

  // Per-M queues of records not yet applied.
  // queues_[i] is M queue_m_[i]'s queue, head_ts_[i] the ts of its first record
  // (kNoHead when empty): ProcessUpTo looks for the earliest head once per record
  // applied, in one contiguous array.
  static constexpr std::uint64_t kNoHead = ~std::uint64_t{0};
  FlatMap<ThreadId, std::uint32_t> queue_of_;
  std::deque<RecordQueue> queues_;
  std::vector<std::uint64_t> head_ts_;
  std::uint64_t queued_ = 0;
  // Goroutines whose GoCreate record is queued: an event about such a goroutine waits
  // for its creation (GoCreate carries no sequence number, so the order must be ours).
  FlatMap<Goid, int> pending_creates_;
  // Creates queued without their goroutine's id (record.h kGoidResolved): g address -> M.
  FlatMap<std::uint64_t, ThreadId> unresolved_creates_;
  void ResolveGoid(const Record &r);
  // Recently ended goroutines. Goroutine ids are never reused (runtime/proc.go newproc1
  // takes them from sched.goidgen), so a record naming one is stale and dropped.
  FlatSet<Goid> ended_;
  std::deque<Goid> ended_fifo_;
  void NoteEnded(Goid g);
  // A goroutine ended (GoDestroy, GoSwitchDestroy): its state and everything else kept
  // per goroutine (regions, kernel view, GC) go; NoteEnded remembers the id.
  void ForgetEnded(Goid g);
  bool Ended(Goid g) const { return ended_.count(g) != 0; }

  Snapshot snapshot_;
  bool have_snapshot_ = false;
  // Goroutines any record mentioned during the first generation (the snapshot sweep must
  // not restate one, even one that has ended since).
  FlatSet<Goid> seen_in_first_gen_;
  std::uint64_t first_gen_ = 0;     // writer generation number of the first generation
  std::uint64_t gen_start_ts_ = 0;  // ts the current generation started at (0 = not yet)
  std::uint64_t last_ts_ = 0;       // latest ts applied
  GcModelState gc_;  // model_gc.h
  UserModelState user_;  // model_user.h
  LabelModelState labels_;  // model_labels.h
  KernelModelState kernel_;  // model_kernel.h
  bool loss_pending_ = false;
  bool cut_pending_ = false;  // a cut waits for an STW range to end (StwHoldsCut)
  bool finished_ = false;
};

}  // namespace gotraced::model
