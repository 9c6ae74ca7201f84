// Model: queues, ordering and generations. The per-event logic is in model_events.cc,
// the state-updating emitters in model_emit.cc, repairs in model_repair.cc.
#include "daemon/model/model.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace gotraced::model {

using encoder::GoStatus;
using encoder::ProcStatus;

std::string_view RecordKindName(RecordKind k) {
  switch (k) {
    case RecordKind::kProcsChange: return "ProcsChange";
    case RecordKind::kProcStart: return "ProcStart";
    case RecordKind::kProcStop: return "ProcStop";
    case RecordKind::kProcSteal: return "ProcSteal";
    case RecordKind::kGoCreate: return "GoCreate";
    case RecordKind::kGoStart: return "GoStart";
    case RecordKind::kGoEnd: return "GoEnd";
    case RecordKind::kGoStop: return "GoStop";
    case RecordKind::kGoBlock: return "GoBlock";
    case RecordKind::kGoUnblock: return "GoUnblock";
    case RecordKind::kGoSyscallBegin: return "GoSyscallBegin";
    case RecordKind::kGoSyscallEnd: return "GoSyscallEnd";
    case RecordKind::kGoSyscallEndBlocked: return "GoSyscallEndBlocked";
    case RecordKind::kGoCreateSyscall: return "GoCreateSyscall";
    case RecordKind::kGoDestroySyscall: return "GoDestroySyscall";
    case RecordKind::kGoSwitch: return "GoSwitch";
    case RecordKind::kUserTaskBegin: return "UserTaskBegin";
    case RecordKind::kUserTaskEnd: return "UserTaskEnd";
    case RecordKind::kUserRegionBegin: return "UserRegionBegin";
    case RecordKind::kUserRegionEnd: return "UserRegionEnd";
    case RecordKind::kUserLog: return "UserLog";
    case RecordKind::kCPUSample: return "CPUSample";
    case RecordKind::kGCBegin: return "GCBegin";
    case RecordKind::kGCEnd: return "GCEnd";
    case RecordKind::kSTWBegin: return "STWBegin";
    case RecordKind::kSTWEnd: return "STWEnd";
    case RecordKind::kHeapAlloc: return "HeapAlloc";
    case RecordKind::kHeapGoal: return "HeapGoal";
    case RecordKind::kGoLabel: return "GoLabel";
    case RecordKind::kGCMarkAssistBegin: return "GCMarkAssistBegin";
    case RecordKind::kGCMarkAssistEnd: return "GCMarkAssistEnd";
    case RecordKind::kGCSweepBegin: return "GCSweepBegin";
    case RecordKind::kGCSweepEnd: return "GCSweepEnd";
    case RecordKind::kKernelOff: return "KernelOff";
    case RecordKind::kKernelOn: return "KernelOn";
    case RecordKind::kKernelSyscallEnter: return "KernelSyscallEnter";
    case RecordKind::kKernelSyscallExit: return "KernelSyscallExit";
    case RecordKind::kStateSample: return "StateSample";
    case RecordKind::kGoidResolved: return "GoidResolved";
    case RecordKind::kGoLabels: return "GoLabels";
  }
  return "?";
}

Model::Model(encoder::EventWriter &writer, Symbolizer *symbolizer, ModelOptions options)
    : w_(writer), stacks_(writer, symbolizer), opt_(options) {
  first_gen_ = w_.generation();
}

Model::~Model() = default;

void Model::SetSnapshot(Snapshot snapshot) {
  snapshot_ = std::move(snapshot);
  have_snapshot_ = true;
  if (snapshot_.gomaxprocs > 0) st_.gomaxprocs = snapshot_.gomaxprocs;
}

void Model::SetInitialHeapGoal(std::uint64_t goal) { gc_.initial_goal = goal; }

void Model::NoteEnded(Goid g) {
  // A stale record names its goroutine within moments of the end (the reorder slack, a
  // generation at most), so a few seconds of even a busy program's goroutine churn is
  // enough. Bounded for long sessions (gotraced serve): ~40 bytes per id, and 1 << 20 ids
  // grew to ~40 MiB per process at 300 goroutines/s over an hour.
  constexpr std::size_t kRemember = 1 << 14;
  if (!ended_.insert(g).second) return;
  ended_fifo_.push_back(g);
  if (ended_fifo_.size() > kRemember) {
    ended_.erase(ended_fifo_.front());
    ended_fifo_.pop_front();
  }
}

void Model::ForgetEnded(Goid g) {
  st_.gs.erase(g);
  NoteEnded(g);
  user_.regions.erase(g);   // regions left open: order.go drops them with the goroutine
  kernel_.resume.erase(g);
  gc_.labelled.erase(g);
  gc_.stw_stale.erase(g);
  labels_.last.erase(g);
}

std::vector<Goid> Model::GoroutinesOffM() const {
  std::vector<Goid> out;
  for (const auto &[g, gs] : st_.gs)
    if (gs.status == GoStatus::kWaiting || gs.status == GoStatus::kRunnable) out.push_back(g);
  return out;
}

std::size_t Model::ForgetGone(std::span<const Goid> candidates, std::span<const Goid> live) {
  std::size_t n = 0;
  for (const Goid g : candidates) {
    const GoState *gs = st_.G(g);
    if (gs == nullptr || (gs->status != GoStatus::kWaiting && gs->status != GoStatus::kRunnable)) continue;
    if (std::binary_search(live.begin(), live.end(), g)) continue;
    ForgetEnded(g);
    w_.ForgetGoroutine(g);
    ++n;
  }
  stats_.goroutines_gone += n;
  return n;
}

ModelFootprint Model::footprint() const {
  ModelFootprint f;
  f.goroutines = st_.gs.size();
  f.procs = st_.ps.size();
  f.threads = st_.ms.size();
  f.queues = queues_.size();
  f.pending_creates = pending_creates_.size();
  f.unresolved_creates = unresolved_creates_.size();
  f.ended = ended_fifo_.size();
  f.user_regions = user_.regions.size();
  f.kernel_open = kernel_.open.size();
  f.kernel_syscalls = kernel_.sys.size();
  f.kernel_resume = kernel_.resume.size();
  f.gc_labelled = gc_.labelled.size();
  f.gc_assist = gc_.assist.size();
  f.gc_stw_stale = gc_.stw_stale.size();
  f.seen_in_first_gen = seen_in_first_gen_.size();
  f.labelled = labels_.last.size();
  return f;
}

static bool IsCreate(RecordKind k) { return k == RecordKind::kGoCreate || k == RecordKind::kGoCreateSyscall; }

// A create written before its goroutine had an id (kGoCreate, target_g kNoG: Go <= 1.23,
// record.h kGoidResolved). It is not ready, so its M's later records wait behind it in
// their queue, the M's order kept; ProcessUpTo never forces it (a create with no id is
// nothing the reader could take), and at the end of the capture it is dropped.
static bool UnresolvedCreate(const Record &r) { return r.kind == RecordKind::kGoCreate && r.target_g == kNoG; }

void Model::ResolveGoid(const Record &r) {
  auto it = unresolved_creates_.find(r.value2);
  if (it == unresolved_creates_.end()) return;
  const ThreadId m = it->second;
  unresolved_creates_.erase(it);
  auto q = queue_of_.find(m);
  if (q == queue_of_.end()) return;
  RecordQueue &rq = queues_[q->second];
  for (std::size_t i = 0; i < rq.size(); ++i) {
    Record &c = rq.at(i);
    if (UnresolvedCreate(c) && c.value2 == r.value2) {
      c.target_g = r.target_g;
      c.value2 = 0;
      ++pending_creates_[c.target_g];
      return;
    }
  }
}

void Model::Push(Record &&r) {
  if (r.kind == RecordKind::kGoidResolved) return ResolveGoid(r);
  if (UnresolvedCreate(r)) unresolved_creates_[r.value2] = r.m;
  else if (IsCreate(r.kind)) ++pending_creates_[r.target_g];
  auto [slot, fresh] = queue_of_.try_emplace(r.m, static_cast<std::uint32_t>(queues_.size()));
  if (fresh) {
    queues_.emplace_back();
    head_ts_.push_back(kNoHead);
  }
  const std::uint32_t i = slot->second;
  RecordQueue &q = queues_[i];
  // A thread's records arrive in its program order; keep the queue sorted anyway in case
  // a capture path delivers them slightly out of order (insertion from the back).
  if (q.empty() || q.back().ts <= r.ts) {
    q.push_back(std::move(r));
  } else {
    q.insert_sorted(std::move(r));
  }
  head_ts_[i] = q.front().ts;
  ++queued_;
}

void Model::NoteLoss(std::uint64_t n) {
  if (n == 0) return;
  stats_.records_lost += n;
  loss_pending_ = true;
}

ModelStats Model::stats() const {
  ModelStats s = stats_;
  s.goroutines_live = st_.gs.size();
  s.queued = queued_;
  s.label_logs = labels_.logs;
  s.label_unknown = labels_.unknown;
  return s;
}

// Readiness: like order.go's advance functions returning (false, nil), a record whose
// precondition depends on another M's event that has not been applied yet waits.
bool Model::Ready(const Record &r) {
  if (UnresolvedCreate(r)) return false;
  // An event about a goroutine whose creation is still queued waits for it.
  if (!pending_creates_.empty()) {
    if (!IsCreate(r.kind) && r.target_g != kNoG && pending_creates_.count(r.target_g)) return false;
    if (r.g != kNoG && pending_creates_.count(r.g)) return false;
  }
  switch (r.kind) {
    case RecordKind::kGoStart: {
      const GoState *g = st_.G(r.target_g);
      if (g == nullptr) return true;
      if (g->status == GoStatus::kRunnable) return true;
      if (g->status == GoStatus::kRunning && g->m == r.m) return true;  // duplicate: dropped
      return false;  // waiting (unblock pending) or still on another M
    }
    case RecordKind::kGoUnblock:
    case RecordKind::kGoSwitch: {
      const GoState *g = st_.G(r.target_g);
      return g == nullptr || g->status == GoStatus::kWaiting;
    }
    case RecordKind::kProcStart: {
      // Still bound (to another M, or in a syscall on this one): its ProcStop/ProcSteal
      // comes first.
      const ProcState *p = st_.P(r.target_p);
      return p == nullptr || p->status == ProcStatus::kIdle;
    }
    case RecordKind::kProcSteal: {
      const ProcState *p = st_.P(r.target_p);
      return p == nullptr || p->status == ProcStatus::kSyscall || p->status == ProcStatus::kSyscallAbandoned;
    }
    case RecordKind::kGoSyscallEndBlocked: {
      // order.go advanceGoSyscallEndBlocked: not while the M's P is still in a syscall
      // (the ProcSteal from another M comes first).
      auto it = st_.ms.find(r.m);
      if (it == st_.ms.end() || it->second.p == kNoP) return true;
      const ProcState *p = st_.P(it->second.p);
      return p == nullptr || p->status != ProcStatus::kSyscall;
    }
    default:
      return true;
  }
}

void Model::Apply(const Record &r, bool forced) {
  if (gen_start_ts_ == 0) gen_start_ts_ = r.ts ? r.ts : 1;
  (void)forced;  // a forced record's contradictions are repaired (and counted) by its handler
  ++stats_.records;
  if (!ended_.empty() && ((r.target_g != kNoG && Ended(r.target_g)) || (r.g != kNoG && Ended(r.g)))) {
    // Names a goroutine that already ended: stale. Except a CPU sample's label set (kGoLabels
    // with target_g, cpu_sample_decoder.cc): the sample may read m.curg between goexit0's
    // casgstatus to _Gdead and its dropg, after the GoEnd. Like any sample's set that does
    // not find its goroutine running (model_labels.cc OnGoLabels), it says nothing and is
    // not a fault.
    if (!(r.kind == RecordKind::kGoLabels && r.target_g != kNoG)) ++stats_.records_discarded;
    return;
  }
  if (have_snapshot_ && FirstGeneration()) {
    seen_in_first_gen_.insert(r.g);
    seen_in_first_gen_.insert(r.target_g);
  }
  if (opt_.sparse) {
    ApplySparse(r);  // capture level "low" (model_sparse.cc)
    last_ts_ = std::max(last_ts_, r.ts);
    return;
  }
  switch (r.kind) {
    case RecordKind::kProcsChange: OnProcsChange(r); break;
    case RecordKind::kProcStart: OnProcStart(r); break;
    case RecordKind::kProcStop: OnProcStop(r); break;
    case RecordKind::kProcSteal: OnProcSteal(r); break;
    case RecordKind::kGoCreate: OnGoCreate(r); break;
    case RecordKind::kGoStart: OnGoStart(r); break;
    case RecordKind::kGoEnd:
    case RecordKind::kGoStop:
    case RecordKind::kGoBlock: OnGoStopExec(r); break;
    case RecordKind::kGoUnblock: OnGoUnblock(r); break;
    case RecordKind::kGoSyscallBegin: OnGoSyscallBegin(r); break;
    case RecordKind::kGoSyscallEnd: OnGoSyscallEnd(r); break;
    case RecordKind::kGoSyscallEndBlocked: OnGoSyscallEndBlocked(r); break;
    case RecordKind::kGoCreateSyscall: OnGoCreateSyscall(r); break;
    case RecordKind::kGoDestroySyscall: OnGoDestroySyscall(r); break;
    case RecordKind::kGoSwitch: OnGoSwitch(r); break;
    case RecordKind::kUserTaskBegin:
    case RecordKind::kUserTaskEnd:
    case RecordKind::kUserRegionBegin:
    case RecordKind::kUserRegionEnd:
    case RecordKind::kUserLog: OnUser(r); break;
    case RecordKind::kCPUSample: OnCPUSample(r); break;  // model_cpu.cc
    case RecordKind::kGCBegin:
    case RecordKind::kGCEnd:
    case RecordKind::kSTWBegin:
    case RecordKind::kSTWEnd:
    case RecordKind::kHeapAlloc:
    case RecordKind::kHeapGoal:
    case RecordKind::kGoLabel:
    case RecordKind::kGCMarkAssistBegin:
    case RecordKind::kGCMarkAssistEnd:
    case RecordKind::kGCSweepBegin:
    case RecordKind::kGCSweepEnd: OnGc(r); break;  // model_gc.cc
    case RecordKind::kKernelOff:
    case RecordKind::kKernelOn: OnKernel(r); break;  // model_kernel.cc
    case RecordKind::kKernelSyscallEnter:
    case RecordKind::kKernelSyscallExit: OnKernelSyscall(r); break;  // model_kernel_syscall.cc
    // Only level low samples goroutine states; a note (text2: its category, e.g. serve's
    // "gotraced: target" at the trace's start) is written at every level, on the trace's
    // own goroutine and M as at level low (model_sparse.cc), never on a program's.
    case RecordKind::kStateSample:
      if (r.text2.empty()) ++stats_.records_discarded;
      else SparseStateSample(r);
      break;
    case RecordKind::kGoidResolved: break;  // taken by Push, never queued
    case RecordKind::kGoLabels: OnGoLabels(r); break;  // model_labels.cc
  }
  if (gc_.initial_goal) InitialHeapGoal(r);  // model_gc.cc
  // Sets freed in this cycle may be reused at a cached pointer (model_labels.cc).
  if (r.kind == RecordKind::kGCEnd && opt_.labels) opt_.labels->Forget();
  last_ts_ = std::max(last_ts_, r.ts);
}

// The ordering loop (cf. internal/trace/generation.go + order.go Advance): repeatedly
// apply the earliest ready head among the Ms whose heads are at or below the watermark.
// When every such head is blocked, first look a little beyond the watermark for the
// record that unblocks one (probes that fire after the transition they report can invert
// timestamps by a few microseconds), else apply the earliest blocked head with repairs.
void Model::ProcessUpTo(std::uint64_t watermark, bool drain) {
  const std::uint64_t limit = drain ? kNoHead - 1 : watermark;
  for (;;) {
    const std::size_t nq = queues_.size();
    // The earliest head at or below the watermark: when it is ready it is what the scan
    // below picks (the earliest ready head; between equal timestamps the M that queued
    // first, either way), so the other Ms' heads need not be asked (Ready looks up the
    // state of each: that scan per applied record was ~10% of the daemon's CPU).
    std::size_t earliest = nq;
    std::uint64_t earliest_ts = kNoHead;
    for (std::size_t i = 0; i < nq; ++i) {
      const std::uint64_t ts = head_ts_[i];
      if (ts <= limit && ts < earliest_ts) {
        earliest = i;
        earliest_ts = ts;
      }
    }
    if (earliest == nq) break;
    std::size_t pick = Ready(queues_[earliest].front()) ? earliest : nq;
    bool forced = false;
    if (pick == nq) {
      std::size_t ready = nq, stuck = nq, ahead = nq;
      for (std::size_t i = 0; i < nq; ++i) {
        if (head_ts_[i] == kNoHead) continue;
        const Record &h = queues_[i].front();
        const bool below = drain || h.ts <= watermark;
        const bool ok = Ready(h);
        if (below) {
          if (ok) {
            if (ready == nq || h.ts < head_ts_[ready]) ready = i;
          } else if ((drain || !UnresolvedCreate(h)) && (stuck == nq || h.ts < head_ts_[stuck])) {
            stuck = i;
          }
        } else if (ok && (ahead == nq || h.ts < head_ts_[ahead])) {
          ahead = i;
        }
      }
      pick = ready;
      if (pick == nq) {
        if (stuck == nq) break;
        if (ahead != nq && head_ts_[ahead] <= head_ts_[stuck] + opt_.lookahead_ns) {
          pick = ahead;
        } else {
          pick = stuck;
          forced = true;
        }
      }
    }
    // Applied where it lies in the queue (Apply pushes nothing), then dropped.
    RecordQueue &q = queues_[pick];
    Record &r = q.front();
    --queued_;
    if (UnresolvedCreate(r)) {  // the capture ended before its goroutine had an id
      unresolved_creates_.erase(r.value2);
      ++stats_.records_discarded;
    } else {
      if (IsCreate(r.kind)) {
        auto it = pending_creates_.find(r.target_g);
        if (it != pending_creates_.end() && --it->second <= 0) pending_creates_.erase(it);
      }
      Apply(r, forced);
    }
    if (opt_.stack_pool) opt_.stack_pool->Give(std::move(r.stack));
    q.drop_front();
    head_ts_[pick] = q.empty() ? kNoHead : q.front().ts;
  }
}

void Model::Advance(std::uint64_t watermark) {
  ProcessUpTo(watermark, false);
  if ((loss_pending_ || cut_pending_) && !StwHoldsCut(watermark)) {
    if (loss_pending_) ++stats_.generation_cuts;
    loss_pending_ = cut_pending_ = false;
    EndGeneration(std::max(watermark, last_ts_));
  }
}

void Model::CutGeneration(std::uint64_t ts) {
  ProcessUpTo(ts, false);
  if (StwHoldsCut(ts)) {
    cut_pending_ = true;  // Advance cuts once the STW range has ended (model_gc.cc)
    return;
  }
  cut_pending_ = false;
  loss_pending_ = false;
  EndGeneration(std::max(ts, last_ts_));
}

void Model::Finish(std::uint64_t ts) {
  if (finished_) return;
  ProcessUpTo(std::numeric_limits<std::uint64_t>::max(), true);
  finished_ = true;
  if (FirstGeneration()) FirstGenerationSweep(std::max(ts, last_ts_));
  ++stats_.generations;
  // The writer's Close() ends this last generation.
}

// End of the first generation: everything the snapshot knows that no record mentioned
// gets its status now, as the runtime's traceAdvance writes statuses for every goroutine
// not traced in the ending generation (runtime/trace.go traceAdvance, "untracedGs"). A
// snapshot entry that conflicts with what the records established is written in the
// weakest consistent form (Running/Syscall without its M -> Runnable; a P bound to an M
// that holds another -> Idle).
void Model::FirstGenerationSweep(std::uint64_t ts) {
  // Sparse mode keeps no goroutine or P between observations (model_sparse.cc): a
  // snapshot's would be stated once and then never move. Its pieces go on whichever P is
  // idle, so every P below GOMAXPROCS is stated (idle) here and at every later
  // generation's start (StartGenerationStatuses), as the runtime states every P: a P
  // that a later generation first names is one the reader never knew (tracecheck: "proc
  // 0 undetermined after the first generation"; a serve window of a target whose first
  // generation used no P had it).
  if (opt_.sparse) {
    for (ProcId id = 0; id < std::max<ProcId>(1, st_.gomaxprocs); ++id)
      if (st_.P(id) == nullptr) EmitProcStatus(encoder::kNoThread, ts, id, ProcStatus::kIdle);
    return;
  }
  if (!have_snapshot_) return;
  for (const SnapshotP &sp : snapshot_.procs) {
    if (st_.P(sp.id) != nullptr) continue;
    if (st_.gomaxprocs > 0 && sp.id >= st_.gomaxprocs) continue;
    ProcStatus s = sp.status;
    if (s == ProcStatus::kRunning || s == ProcStatus::kSyscall) {
      auto it = st_.ms.find(sp.m);
      if (sp.m == 0 || (it != st_.ms.end() && it->second.p != kNoP)) s = ProcStatus::kIdle;
    }
    if (s == ProcStatus::kRunning || s == ProcStatus::kSyscall)
      EmitProcStatus(sp.m, ts, sp.id, s);
    else
      EmitProcStatus(encoder::kNoThread, ts, sp.id, ProcStatus::kIdle);
  }
  for (const SnapshotG &sg : snapshot_.goroutines) {
    if (sg.goid == 0 || st_.G(sg.goid) != nullptr || seen_in_first_gen_.count(sg.goid)) continue;
    GoStatus s = sg.status;
    if (s == GoStatus::kRunning || s == GoStatus::kSyscall) {
      auto it = st_.ms.find(sg.m);
      bool m_free = sg.m != 0 && (it == st_.ms.end() || it->second.g == kNoG);
      // A running goroutine needs its M to hold a P (every later event of it does).
      if (s == GoStatus::kRunning && m_free) m_free = it != st_.ms.end() && it->second.p != kNoP;
      if (!m_free) s = GoStatus::kRunnable;
    }
    if (s == GoStatus::kRunning || s == GoStatus::kSyscall)
      EmitGoStatus(sg.m, ts, sg.goid, sg.m, s);
    else
      EmitGoStatus(encoder::kNoThread, ts, sg.goid, encoder::kNoThread, s);
  }
}

// Start of every later generation: a status for every live P and G, each in the batch
// that may carry it (Running/Syscall in the owning M's, others in a "no thread" batch),
// which is what traceAdvance achieves with its sweep and forEachP (docs/model.md §4).
void Model::StartGenerationStatuses(std::uint64_t ts) {
  // Ps that procresize destroyed (id >= GOMAXPROCS) and that are idle are gone: not
  // restated, but kept as Idle, which is what the reader holds for them. Erasing one let a
  // record of it after a loss (its ProcStart lost) introduce it as Running: "inconsistent
  // status for proc N: old Idle vs. new Running". One below GOMAXPROCS again exists again.
  if (st_.gomaxprocs > 0)
    for (auto &[id, p] : st_.ps) p.gone = id >= st_.gomaxprocs && p.status == ProcStatus::kIdle;
  // Sparse mode: every P below GOMAXPROCS, as at the end of the first generation
  // (FirstGenerationSweep), also one that GOMAXPROCS has grown to since.
  if (opt_.sparse)
    for (ProcId id = 0; id < std::max<ProcId>(1, st_.gomaxprocs); ++id)
      if (st_.P(id) == nullptr) st_.ps[id] = ProcState{};
  std::vector<ProcId> pids;
  pids.reserve(st_.ps.size());
  for (auto &[id, p] : st_.ps)
    if (!p.gone) pids.push_back(id);
  std::sort(pids.begin(), pids.end());
  for (ProcId id : pids) {
    ProcState &p = st_.ps[id];
    bool bound = p.status == ProcStatus::kRunning || p.status == ProcStatus::kSyscall;
    EmitProcStatus(bound ? p.m : encoder::kNoThread, ts, id, p.status);
    // Like the runtime's writeProcStatus (tracestatus.go: GCSweepActive after the status
    // of a P with pp.trace.inSweep), so a window that starts here can end the sweep.
    if (gc_.sweep.count(id)) {
      const ThreadId batch = bound ? p.m : encoder::kNoThread;
      Count(w_.GCSweepActive(batch, Ts(batch, ts), id));
    }
  }
  std::vector<Goid> gids;
  gids.reserve(st_.gs.size());
  for (auto &[id, g] : st_.gs) gids.push_back(id);
  std::sort(gids.begin(), gids.end());
  for (Goid id : gids) {
    GoState &g = st_.gs[id];
    bool bound = g.status == GoStatus::kRunning || g.status == GoStatus::kSyscall;
    EmitGoStatus(bound ? g.m : encoder::kNoThread, ts, id, bound ? g.m : encoder::kNoThread, g.status);
    // Like the runtime's writeGoStatus (tracestatus.go): a goroutine inside a mark assist
    // says so in every generation, so a window that starts here can end the assist.
    if (gc_.assist.count(id)) {
      const ThreadId batch = bound ? g.m : encoder::kNoThread;
      Count(w_.GCMarkAssistActive(batch, Ts(batch, ts), id));
    }
  }
}

void Model::EndGeneration(std::uint64_t ts) {
  if (FirstGeneration()) {
    FirstGenerationSweep(ts);
    // Nothing asks about the attach-time goroutines again: free them.
    seen_in_first_gen_ = FlatSet<Goid>{};
    snapshot_.goroutines = {};
  }
  w_.EndGeneration();
  ++stats_.generations;
  gen_start_ts_ = ts;
  // A burst's storage is not kept for the rest of the recording (record_queue.h,
  // stack_pool.h; issue 30).
  for (RecordQueue &q : queues_) q.ShedIdleCapacity();
  if (opt_.stack_pool) opt_.stack_pool->ShedIdle();
  // New generation: per-M timestamps restart with the new batches.
  StartGenerationStatuses(ts);
  GcGenerationStart(ts);  // GCActive while a cycle is running (model_gc.cc)
}

}  // namespace gotraced::model
