// GC, STW and heap-metric CALL records -> model records (docs/probe-plan.md §3.9).
//
// Per record, the runtime call it stands for (Go 1.22/1.23 trace2runtime.go /
// traceruntime.go, 1.26/1.27 traceruntime.go; the sites are the same in 1.19-1.27):
//   kGCStart  runtime.gcBgMarkStartWorkers entry: mgc.go gcStart has just written
//             trace.GCStart() -> GCBegin with tl.stack(3) (traceStack's caller, GCStart,
//             gcStart dropped: the stack starts at gcStart's caller). Our walk is on the
//             goroutine's own stack (REGS): [return into gcStart, gcStart's caller, ...],
//             so one logical frame (gcStart) is skipped.
//   kGCDone   runtime.gcMarkTermination entry: GCEnd, stamped at the body's
//             casgstatus(curgp, _Gwaiting, _Grunning) right before trace.GCDone()
//             (GcMarkTermEnd), before startTheWorldWithSema: the event order STWBegin,
//             GCEnd, STWEnd holds.
//   kSTWStart runtime.stopTheWorldWithSema(reason) -> STWBegin(stwReasonStrings[reason]),
//             tl.stack(2) taken on the system stack from curg.sched, which is also our
//             walk (SCHED): skip 2.
//   kSTWDone  runtime.startTheWorldWithSema -> STWEnd.
//   kGCHeapUpdate  (*gcControllerState).update(dHeapLive, dHeapScan): RBX = dHeapLive;
//             mgcpacer.go: `live := gcController.heapLive.Add(dHeapLive)`, then
//             HeapAlloc(live) when dHeapLive != 0.
//   kGCHeapReset   (*gcControllerState).resetLive(bytesMarked): RBX = bytesMarked;
//             heapLive.Store(bytesMarked), HeapAlloc(bytesMarked).
//   kGCHeapGoal    gcPaceScavenger(memoryLimit, heapGoal, lastHeapGoal): RBX = the goal
//             gcControllerCommit got from gcController.trigger() right after writing
//             HeapGoal(), which reads the same gcController.heapGoal() under the heap lock.
//             traceruntime.go HeapGoal writes 0 when heap-based triggering is off
//             (goal == ^0 or gcPercent < 0); with GOGC=off the goal is the memory limit's
//             (~MaxInt64 by default), so goals >= 2^62 are written as 0.
//   kGCDrain  gcDrain(gcw, flags): RBX = flags. Mark workers drain with
//             gcDrainFlushBgCredit (+gcDrainIdle / gcDrainFractional) (mgcmark.go
//             gcDrainMarkWorkerIdle/Dedicated/Fractional; flags 0 is mark termination's own
//             drain): GoLabel(gcMarkWorkerModeStrings[mode]) for the worker goroutine, which
//             the runtime writes right after the worker's GoStart (traceruntime.go GoStart:
//             pp.gcMarkWorkerMode != gcMarkWorkerNotWorker). The model writes one per run.
//   kGCAssist gcAssistAlloc1(gp, scanWork) on the system stack: gcAssistAlloc has just
//             written GCMarkAssistStart (stack(1) from the user stack: our SCHED walk
//             starts at systemstack_switch, skip 1 leaves gcAssistAlloc's frame; the runtime's
//             stack also holds the traceLocker.GCMarkAssistStart frame). The assist ends at
//             gcAssistAlloc1's casgstatus(gp, _Gwaiting, _Grunning) (GCMarkAssistEnd; the
//             runtime writes it when gcAssistAlloc returns, after a gcParkAssist park if
//             the debt is still unpaid: ours then ends before the park). The model opens
//             one assist per goroutine (the retry loop calls gcAssistAlloc1 again inside
//             the same assist).
//   kGCSweepStart / kGCSweepDone  the `traceAcquire()` test before trace.GCSweepStart() /
//             GCSweepDone() in deductSweepCredit, (*mcentral).cacheSpan, (*mheap).reclaim
//             (mgcsweep.go, mcentral.go, mheap.go): the thread's bracket opens / closes.
//             BPF keeps the bracket (GT_CALL_SWEEP_*): a start writes no record, spans and
//             chunks are recorded only inside a bracket, a done only after one of them
//             (GCSweepDone writes GCSweepEnd(swept, reclaimed) iff a span was swept inside).
//   kGCSweepSpan  (*sweepLocked).sweep's `if traceEnabled()` test before `reclaimed +=
//             uintptr(nfreed) * s.elemsize` (mgcsweep.go, every span): deref = the span's
//             {npages, nfreed (its register, a uint16), allocCount, elemsize}. Inside a
//             bracket: trace.GCSweepSpan(npages*pageSize) at sweep's top writes
//             GCSweepBegin at the bracket's first span (ours: later in the same sweep
//             call), and adds the bytes; the test adds nfreed * elemsize to reclaimed
//             (small spans: freed objects; large: 0 or 1 object of the span's size).
//   kGCSweepChunk (*mheap).reclaimChunk's trailing GCSweepSpan((n0 - nFreed) * pageSize):
//             begins the range like a span. n0 is always pagesPerReclaimerChunk (512:
//             mheap.go reclaim); nFreed is not read: reclaimChunk sweeps only spans with
//             no marked object (`inUseUnmarked`), which sweep(false) frees, so nFreed is
//             taken as the pages of the spans swept since the previous chunk (a span kept
//             alive by a finalizer special makes ours smaller than the runtime's).
// heapLive has no other writers (mgcpacer.go), so the decoder keeps it as resetLive's
// value plus the deltas since; before the first resetLive it is known when the capture
// started before the runtime allocated anything (launch mode) or from the value read in
// the target's memory at attach (heap_live_seed; the probe fires a few instructions
// before update's atomic Add, so a delta whose probe straddles the read is lost: at most
// one span's bytes, until the next resetLive).
#include "daemon/model/record_decoder.h"

#include <algorithm>

namespace gotraced::model {

namespace {
constexpr std::string_view kUnknownStw = "unknown";
// runtime/mgcmark.go gcDrainFlags and mgc.go gcMarkWorkerModeStrings (1.20-1.27).
constexpr std::uint64_t kDrainFlushBgCredit = 2, kDrainIdle = 4, kDrainFractional = 8;
constexpr std::string_view kLabelDedicated = "GC (dedicated)";
constexpr std::string_view kLabelFractional = "GC (fractional)";
constexpr std::string_view kLabelIdle = "GC (idle)";
constexpr std::uint32_t kGwaiting = 4, kGrunning = 2;
constexpr std::uint64_t kGoalOff = std::uint64_t{1} << 62;
constexpr int kFirstStwReasonMinor = 21;  // stopTheWorldWithSema(reason stwReason): Go 1.21
constexpr std::uint64_t kPageSize = 8192;  // runtime/malloc.go _PageShift = 13 (all of 1.19-1.27)
// mheap.go pagesPerReclaimerChunk (512; min(512, pagesPerArena) from 1.26: 512 on amd64).
constexpr std::uint64_t kReclaimChunkPages = 512;
}  // namespace

bool RecordDecoder::DecodeGcCall(const capture::RecordView &v, probes::ProbeRole role,
                                 std::vector<std::uint64_t> &pcs, std::vector<Record> &out) {
  const gt_call_record &c = *v.call();
  if (!heap_started_) {
    heap_started_ = true;
    heap_known_ = cfg_.heap_live_from_zero || cfg_.heap_live_seed.has_value();
    if (cfg_.heap_live_seed) heap_live_ = *cfg_.heap_live_seed;
  }
  switch (role) {
    case probes::ProbeRole::kGCStart: {
      Record r = Base(v, RecordKind::kGCBegin);
      r.stack = std::move(pcs);
      r.stack_skip = 1;
      Emit(out, std::move(r));
      return true;
    }
    case probes::ProbeRole::kGCDone: {
      // GCEnd waits for gcMarkTermination's casgstatus(curgp, _Gwaiting, _Grunning)
      // (GcMarkTermEnd); a GCEnd still pending on this thread is written first.
      FlushMarkTerm(v.tid(), v, out);
      Record r = Base(v, RecordKind::kGCEnd);
      if (r.g == kNoG) {
        Emit(out, std::move(r));  // no goroutine to follow: the entry is the best we know
        return true;
      }
      mark_term_[v.tid()] = std::move(r);
      ++stats_.ignored;
      return true;
    }
    case probes::ProbeRole::kSTWStart: {
      Record r = Base(v, RecordKind::kSTWBegin);
      const std::size_t reason = c.args[0] & 0xff;  // stwReason is a uint8
      r.reason = reason < cfg_.stw_reasons.size() ? std::string_view(cfg_.stw_reasons[reason]) : kUnknownStw;
      if (cfg_.go_minor < kFirstStwReasonMinor) {
        r.reason = LegacyStwReason(pcs);
        if (r.reason.empty()) {
          ++stats_.ignored;  // an untraced stopTheWorld: its startTheWorld is untraced too
          legacy_untraced_stw_.insert(r.g);
          return true;
        }
      }
      r.stack = std::move(pcs);
      r.stack_skip = 2;
      Emit(out, std::move(r));
      return true;
    }
    case probes::ProbeRole::kSTWDone: {
      FlushMarkTerm(v.tid(), v, out);  // GCEnd before mark termination's STWEnd
      Record r = Base(v, RecordKind::kSTWEnd);
      if (legacy_untraced_stw_.erase(r.g)) {
        ++stats_.ignored;
        return true;
      }
      Emit(out, std::move(r));
      return true;
    }
    case probes::ProbeRole::kGCHeapUpdate: {
      const auto delta = static_cast<std::int64_t>(c.args[1]);
      if (delta == 0) {
        ++stats_.ignored;  // update() writes nothing when heapLive does not change
        return true;
      }
      if (BeforeHeapSeed(v)) {
        ++stats_.ignored;  // already in the value read at attach
        return true;
      }
      heap_live_ += static_cast<std::uint64_t>(delta);
      if (!heap_known_) {
        ++stats_.ignored;
        return true;
      }
      Record r = Base(v, RecordKind::kHeapAlloc);
      r.value = heap_live_;
      Emit(out, std::move(r));
      return true;
    }
    case probes::ProbeRole::kGCHeapReset: {
      Record r = Base(v, RecordKind::kHeapAlloc);
      r.value = c.args[1];
      if (!BeforeHeapSeed(v)) {  // else the value read at attach is newer
        heap_live_ = c.args[1];
        heap_known_ = true;
      }
      Emit(out, std::move(r));
      return true;
    }
    case probes::ProbeRole::kGCHeapGoal: {
      Record r = Base(v, RecordKind::kHeapGoal);
      r.value = c.args[1] >= kGoalOff ? 0 : c.args[1];
      Emit(out, std::move(r));
      return true;
    }
    case probes::ProbeRole::kGCDrain: {
      const std::uint64_t flags = c.args[1];
      if (!(flags & kDrainFlushBgCredit)) {
        ++stats_.ignored;  // not a mark worker's drain
        return true;
      }
      Record r = Base(v, RecordKind::kGoLabel);
      r.reason = (flags & kDrainIdle) ? kLabelIdle : (flags & kDrainFractional) ? kLabelFractional : kLabelDedicated;
      Emit(out, std::move(r));
      return true;
    }
    case probes::ProbeRole::kGCAssist: {
      Record r = Base(v, RecordKind::kGCMarkAssistBegin);
      // Walked from curg.sched: [systemstack_switch, gcAssistAlloc (1.21+), ...], skip 1.
      // Go <= 1.21 writes it from traceGCMarkAssistStart, inlined in gcAssistAlloc
      // (ProbePlan::assist_begin_pc): that call site in place of gcAssistAlloc's frame.
      if (cfg_.plan && cfg_.plan->assist_begin_pc && pcs.size() > 1) {
        const std::uint64_t at = cfg_.plan->assist_begin_pc + cfg_.load_bias;
        if (Innermost(pcs[1]) == "runtime.gcAssistAlloc") pcs[1] = at;
        else pcs.insert(pcs.begin() + 1, at);
      }
      r.stack = std::move(pcs);
      r.stack_skip = 1;
      if (r.g != kNoG) assisting_[v.tid()] = r.g;
      Emit(out, std::move(r));
      return true;
    }
    case probes::ProbeRole::kGCSweepStart:
      ++stats_.ignored;  // BPF writes none (GT_CALL_SWEEP_OPEN); the bracket opens at its first span
      return true;
    case probes::ProbeRole::kGCSweepSpan:
    case probes::ProbeRole::kGCSweepChunk: {
      // Recorded only inside a bracket (GT_CALL_SWEEP_IN): the thread's first one since
      // its last Done opens it.
      auto it = sweeping_.try_emplace(v.tid()).first;
      SweepBracket &b = it->second;
      if (role == probes::ProbeRole::kGCSweepSpan) {
        b.swept += c.deref[0] * kPageSize;
        b.chunk_pages += c.deref[0];
        b.reclaimed += (c.deref[1] & 0xffff) * c.deref[3];  // nfreed is a uint16
      } else {
        b.swept += (kReclaimChunkPages - std::min(kReclaimChunkPages, b.chunk_pages)) * kPageSize;
        b.chunk_pages = 0;
      }
      if (b.begun) {
        ++stats_.ignored;
        return true;
      }
      b.begun = true;
      Record r = Base(v, RecordKind::kGCSweepBegin);
      SweepBeginStack(v, role, pcs, r);
      Emit(out, std::move(r));
      return true;
    }
    case probes::ProbeRole::kGCSweepDone: {
      auto it = sweeping_.find(v.tid());
      if (it == sweeping_.end() || !it->second.begun) {
        if (it != sweeping_.end()) sweeping_.erase(it);
        ++stats_.ignored;  // nothing swept: no events
        return true;
      }
      Record r = Base(v, RecordKind::kGCSweepEnd);
      r.value = it->second.swept;
      r.value2 = it->second.reclaimed;
      sweeping_.erase(it);
      Emit(out, std::move(r));
      return true;
    }
    default:
      return false;
  }
}

// GCSweepBegin's stack: traceruntime.go GCSweepSpan's tl.stack(1), taken at the top of
// sweep. On the goroutine's own stack our walk (REGS, from sweep's frame) starts at
// sweep's caller: the plan's two return addresses (in GCSweepSpan, in sweep) go first,
// then its skip. On the system stack (mheap.alloc's systemstack(reclaim)) both walk
// curg.sched: [systemstack_switch, ...], skip 1 (ProbePlan::sweep_begin_prefix); so does
// reclaimChunk's GCSweepSpan (kGCSweepChunk), which runs only there.
void RecordDecoder::SweepBeginStack(const capture::RecordView &v, probes::ProbeRole role,
                                    std::vector<std::uint64_t> &pcs, Record &r) {
  const gt_stack_tail *t = v.stack_tail();
  const probes::ProbePlan *plan = cfg_.plan;
  if (!t || pcs.empty() || !plan || plan->sweep_begin_prefix.empty()) return;
  if (t->source == GT_STACK_REGS && role == probes::ProbeRole::kGCSweepSpan) {
    std::vector<std::uint64_t> full;
    full.reserve(plan->sweep_begin_prefix.size() + pcs.size());
    for (std::uint64_t pc : plan->sweep_begin_prefix) full.push_back(pc + cfg_.load_bias);
    full.insert(full.end(), pcs.begin(), pcs.end());
    r.stack = std::move(full);
    r.stack_skip = plan->sweep_begin_skip;
  } else if (t->source == GT_STACK_SCHED) {
    r.stack = std::move(pcs);
    r.stack_skip = 1;
  }
}

// Go <= 1.20: stopTheWorldWithSema() has no stwReason (added in 1.21) and the runtime
// traces only the GC's own two stops: mgc.go gcStart `traceGCSTWStart(1);
// systemstack(stopTheWorldWithSema)` and gcMarkDone `traceGCSTWStart(0); ...`; the stops
// of stopTheWorld (GOMAXPROCS, ReadMemStats, the tracer's own start and stop...) write
// nothing, and their startTheWorldWithSema(false) no end (proc.go). The stack tells them
// apart. Go 1.19's systemstack has no frame (sched.bp is its caller's frame pointer), so
// our SCHED walk is [systemstack_switch, the CALLER of the function that called
// systemstack, ...] (seen: [systemstack_switch, runtime.GC, main...] for runtime.GC's
// stop): gcStart's callers are mallocgc, GC and forcegchelper (malloc.go, mgc.go,
// proc.go), gcMarkDone's gcBgMarkWorker and gcAssistAlloc (mgc.go, mgcmark.go); the two
// themselves are accepted too. x/exp/trace (tracev1.go) names kind 0 "GC mark
// termination", 1 "GC sweep termination". "" = not traced.
std::string_view RecordDecoder::LegacyStwReason(const std::vector<std::uint64_t> &pcs) {
  constexpr std::string_view kSweepTerm = "GC sweep termination", kMarkTerm = "GC mark termination";
  for (std::uint64_t pc : pcs) {
    names_.clear();
    if (cfg_.func_chain) cfg_.func_chain(pc, names_);
    if (names_.size() == 1 && names_.front() == "runtime.systemstack_switch") continue;
    for (std::string_view f : names_) {
      if (f == "runtime.gcStart" || f == "runtime.GC" || f == "runtime.mallocgc" || f == "runtime.forcegchelper")
        return kSweepTerm;
      if (f == "runtime.gcMarkDone" || f == "runtime.gcBgMarkWorker" || f == "runtime.gcAssistAlloc")
        return kMarkTerm;
    }
    return {};
  }
  return kUnknownStw;  // no stack to tell: written (as the reason it was given would be)
}

// The end of a GC cycle: mgc.go gcMarkTermination (1.19 .. 1.27) writes GCDone right
// after `casgstatus(curgp, _Gwaiting, _Grunning)`, once the mark (gcMark) and the start
// of the sweep (gcSweep) are done on the system stack, 0.1-1 ms after its entry (where
// the kGCDone probe is): that casgstatus of the goroutine that entered it, on the same
// thread (its only _Gwaiting -> _Grunning there: casGToWaitingForSuspendG at the entry
// is its only other transition), is the GCEnd's time. No probe of its own: the
// casgstatus records are captured anyway.
void RecordDecoder::GcMarkTermEnd(const capture::RecordView &v, std::vector<Record> &out) {
  auto it = mark_term_.find(v.tid());
  if (it == mark_term_.end()) return;
  const gt_gstatus_record *gs = v.gstatus();
  if (gs == nullptr || gs->goid != it->second.g || (gs->oldval & 0xfff) != kGwaiting ||
      (gs->newval & 0xfff) != kGrunning)
    return;
  Record r = std::move(it->second);
  mark_term_.erase(it);
  r.ts = v.ts();
  if (const gt_go_ctx *c = v.go_ctx(); c && c->p_id >= 0) r.p = c->p_id;
  Emit(out, std::move(r));
}

// A GCEnd whose casgstatus was not seen (a lost record) is written at the next GC
// record of its thread (startTheWorldWithSema's STWDone comes right after GCDone), so
// the cycle still ends before its STW range does.
void RecordDecoder::FlushMarkTerm(std::uint32_t tid, const capture::RecordView &v, std::vector<Record> &out) {
  auto it = mark_term_.find(tid);
  if (it == mark_term_.end()) return;
  Record r = std::move(it->second);
  mark_term_.erase(it);
  r.ts = v.ts();
  ++stats_.gc_end_late;
  Emit(out, std::move(r));
}

// The end of a thread's assist: gcAssistAlloc1's casgstatus(gp, _Gwaiting, _Grunning) of
// the assisting goroutine (its only _Gwaiting -> _Grunning on its own thread).
void RecordDecoder::GcAssistEnd(const capture::RecordView &v, std::vector<Record> &out) {
  auto it = assisting_.find(v.tid());
  if (it == assisting_.end()) return;
  const gt_gstatus_record *gs = v.gstatus();
  if (gs == nullptr || gs->goid != it->second || (gs->oldval & 0xfff) != kGwaiting ||
      (gs->newval & 0xfff) != kGrunning)
    return;
  Record r = Base(v, RecordKind::kGCMarkAssistEnd);
  r.g = it->second;
  assisting_.erase(it);
  Emit(out, std::move(r));
}

}  // namespace gotraced::model
