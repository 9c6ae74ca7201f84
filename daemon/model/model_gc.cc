// GC events: GCBegin/GCEnd/GCActive, STWBegin/STWEnd, HeapAlloc/HeapGoal.
//
// Authorities: runtime/traceruntime.go (GCActive, GCStart, GCDone, STWStart, STWDone,
// HeapAlloc, HeapGoal: all eventWriter(GoRunning, ProcRunning)), runtime/trace.go
// (StartTrace: seqGC = 1; traceAdvance: "Emit a GCActive event in the new generation if
// necessary") and what the reader checks, internal/trace/order.go:
//   * advanceGCBegin/GCEnd/GCActive: seq must be the last GC event's + 1; GCBegin not
//     while a cycle runs; GCEnd not while none runs (nor "undetermined": the first GC
//     event of a trace may be GCActive, in the first generation only, and then needs no
//     M/P/G); all others need M, P and G (userGoReqs).
//   * advanceGoRangeBegin/End (STW): a range on the current goroutine; STWEnd needs the
//     range open on that goroutine.
//   * advanceHeapMetric: M and P, G optional.
#include <fmt/format.h>

#include "daemon/model/model.h"

namespace gotraced::model {

namespace {
bool Valid(Goid g) { return g != kNoG && g != kUnknownG; }
}  // namespace

// Brings the record's M to what the event needs (a running P, and with need_g the
// record's goroutine running on it), repairing like OnProcsChange does.
bool Model::GcContext(const Record &r, bool need_g) {
  const Goid g = r.g == kUnknownG ? st_.M(r.m).g : r.g;
  if (!EnsureProc(r, r.p)) return false;
  if (!need_g) return true;
  return Valid(g) && EnsureRunning(r, g);
}

void Model::OnGc(const Record &r) {
  auto dropped = [&] {
    ++stats_.gc_dropped;
    ++stats_.records_discarded;
  };
  auto emitted = [&](encoder::EmitStatus s) {
    Count(s);
    if (s == encoder::EmitStatus::kOk) ++stats_.gc_events;
  };
  switch (r.kind) {
    case RecordKind::kGCBegin: {
      if (!GcContext(r, true)) return dropped();
      const std::uint64_t ts = Ts(r.m, r.ts);
      if (gc_.running) {
        // The previous cycle's end was not seen (lost record): close it here.
        Repair(r, "GCBegin while a GC cycle is open: GCEnd first");
        ++stats_.repair_events;
        emitted(w_.GCEnd(r.m, ts, gc_.next_seq++));
      }
      encoder::StackId stack = stacks_.Build(r.stack, r.stack_skip, st_.M(r.m).g == 1);
      emitted(w_.GCBegin(r.m, ts, gc_.next_seq++, stack));
      gc_.running = gc_.any = true;
      return;
    }
    case RecordKind::kGCEnd: {
      if (!gc_.running) {
        // A cycle that began before the capture: order.go accepts GCActive as the
        // trace's first GC event in the first generation (the runtime's StartTrace
        // writes it when it starts during a cycle). Otherwise the end has no begin.
        if (gc_.any || !FirstGeneration()) return dropped();
        emitted(w_.GCActive(r.m, Ts(r.m, r.ts), gc_.next_seq++));
        gc_.running = gc_.any = true;
      }
      if (!GcContext(r, true)) return dropped();
      emitted(w_.GCEnd(r.m, Ts(r.m, r.ts), gc_.next_seq++));
      gc_.running = false;
      return;
    }
    case RecordKind::kSTWBegin: {
      if (!GcContext(r, true)) return dropped();
      const Goid g = st_.M(r.m).g;
      const std::uint64_t ts = Ts(r.m, r.ts);
      if (gc_.stw_g == g || gc_.stw_stale.erase(g) != 0) {
        // Its STWEnd was not seen: the range must be closed before it can begin again.
        Repair(r, "STWBegin inside an open STW range: STWEnd first");
        ++stats_.repair_events;
        emitted(w_.STWEnd(r.m, ts));
      }
      // Another goroutine's range is still open: this stop shows it over, but its end can
      // only be written on that goroutine (when it begins again, above).
      if (gc_.stw_g != kNoG && gc_.stw_g != g) gc_.stw_stale.insert(gc_.stw_g);
      encoder::StackId stack = stacks_.Build(r.stack, r.stack_skip, g == 1);
      emitted(w_.STWBegin(r.m, ts, r.reason, stack));
      gc_.stw_g = g;
      gc_.stw_ts = r.ts;
      return;
    }
    case RecordKind::kSTWEnd: {
      // startTheWorld runs on the goroutine that stopped the world; without the range
      // open on this M's goroutine (STW began before the capture) there is nothing to end.
      const MState &ms = st_.M(r.m);
      const GoState *gs = st_.G(ms.g);
      if (ms.g != gc_.stw_g && ms.p != kNoP && gs != nullptr && gs->status == encoder::GoStatus::kRunning &&
          gc_.stw_stale.erase(ms.g) != 0) {
        emitted(w_.STWEnd(r.m, Ts(r.m, r.ts)));  // a range left open by a later stop (stw_stale)
        return;
      }
      if (gc_.stw_g == kNoG || ms.g != gc_.stw_g || ms.p == kNoP || gs == nullptr ||
          gs->status != encoder::GoStatus::kRunning)
        return dropped();
      emitted(w_.STWEnd(r.m, Ts(r.m, r.ts)));
      gc_.stw_g = kNoG;
      return;
    }
    case RecordKind::kHeapAlloc:
    case RecordKind::kHeapGoal: {
      if (!GcContext(r, false)) return dropped();
      const std::uint64_t ts = Ts(r.m, r.ts);
      emitted(r.kind == RecordKind::kHeapAlloc ? w_.HeapAlloc(r.m, ts, r.value) : w_.HeapGoal(r.m, ts, r.value));
      return;
    }
    case RecordKind::kGoLabel: {
      if (!GcContext(r, true)) return dropped();
      const Goid g = st_.M(r.m).g;
      const GoState *gs = st_.G(g);
      if (gs == nullptr) return dropped();
      const std::pair<std::uint64_t, std::uint64_t> run{gs->seq_gen, gs->seq};
      auto it = gc_.labelled.find(g);
      if (it != gc_.labelled.end() && it->second == run) return;  // this run has its label
      gc_.labelled[g] = run;
      emitted(w_.GoLabel(r.m, Ts(r.m, r.ts), r.reason));
      return;
    }
    case RecordKind::kGCMarkAssistBegin: {
      // gcAssistAlloc1 after the cycle's mark phase ended (gcAssistAlloc's retry after a
      // Gosched or a failed gcParkAssist that outlived mark termination) sees
      // gcBlackenEnabled == 0 and returns at once, without the casgstatus that ends our
      // range (mgcmark.go gcAssistAlloc1): opened here it would stay open, and Go's reader
      // refuses a goroutine that exits with an open range. The runtime's own range, if
      // any, began at the first try, which opened ours too. (Not known before the first
      // GC event of a --pid capture: a cycle may be running.)
      if (gc_.any && !gc_.running) return dropped();
      if (!GcContext(r, true)) return dropped();
      const Goid g = st_.M(r.m).g;
      if (gc_.assist.count(g)) return;  // gcAssistAlloc's retry: the same assist
      encoder::StackId stack = stacks_.Build(r.stack, r.stack_skip, g == 1);
      emitted(w_.GCMarkAssistBegin(r.m, Ts(r.m, r.ts), stack));
      gc_.assist.insert(g);
      return;
    }
    case RecordKind::kGCMarkAssistEnd: {
      const MState &ms = st_.M(r.m);
      const GoState *gs = st_.G(ms.g);
      if (ms.g != r.g || !gc_.assist.count(r.g) || ms.p == kNoP || gs == nullptr ||
          gs->status != encoder::GoStatus::kRunning)
        return dropped();
      emitted(w_.GCMarkAssistEnd(r.m, Ts(r.m, r.ts)));
      gc_.assist.erase(r.g);
      return;
    }
    case RecordKind::kGCSweepBegin: {
      // order.go advanceGCSweepBegin: M and P (G optional), and no sweep open on the P.
      if (!GcContext(r, false)) return dropped();
      const ProcId p = st_.M(r.m).p;
      if (gc_.sweep.count(p)) {
        // The previous sweep's end was lost: close it (no byte counts known).
        Repair(r, "GCSweepBegin while a sweep is open on the P: GCSweepEnd first");
        ++stats_.repair_events;
        emitted(w_.GCSweepEnd(r.m, Ts(r.m, r.ts), 0, 0));
      }
      encoder::StackId stack = stacks_.Build(r.stack, r.stack_skip, st_.M(r.m).g == 1);
      emitted(w_.GCSweepBegin(r.m, Ts(r.m, r.ts), stack));
      gc_.sweep.insert(p);
      return;
    }
    case RecordKind::kGCSweepEnd: {
      // advanceGCSweepEnd: the range must be open on the M's current P (a bracket never
      // changes P: it runs with mallocing set or acquirem, mcentral.go/mheap.go).
      const MState &ms = st_.M(r.m);
      if (ms.p == kNoP || ms.p != r.p || !gc_.sweep.count(ms.p)) return dropped();
      emitted(w_.GCSweepEnd(r.m, Ts(r.m, r.ts), r.value, r.value2));
      gc_.sweep.erase(ms.p);
      return;
    }
    default:
      return dropped();
  }
}

// runtime/trace.go traceAdvance: a new generation that starts during a cycle (gcphase
// _GCmark or _GCmarktermination) opens with GCActive, written by a running goroutine on a
// running P. Any M of ours that holds both will do; without one the event is left out,
// which the reader tolerates (the cycle stays open across generations, order.go keeps
// gcState and gcSeq, and the next GCEnd is the next sequence number).
// The runtime never ends a generation inside a stop-the-world: traceAdvance holds
// worldsema (runtime/trace.go), and the format has no STWActive, so a range that crossed a
// boundary would end in a generation whose string table does not hold its reason (the
// reader then names the end after whatever string has that id), and a window that starts
// after the begin would end a range it never saw. A cut asked for while a range is open
// waits for its STWEnd; after kStwHoldNs (the STWEnd was lost) the range is closed here,
// as a repair, on the M that runs its goroutine.
bool Model::StwHoldsCut(std::uint64_t ts) {
  constexpr std::uint64_t kStwHoldNs = 500'000'000;
  if (gc_.stw_g == kNoG) return false;
  if (ts < gc_.stw_ts + kStwHoldNs) return true;
  for (auto &[m, ms] : st_.ms) {
    if (ms.g != gc_.stw_g || ms.p == kNoP) continue;
    const GoState *gs = st_.G(ms.g);
    if (gs == nullptr || gs->status != encoder::GoStatus::kRunning) continue;
    ++stats_.repair_events;
    last_repair_ = fmt::format("STW range of goroutine {} open for {} ms at a generation cut: STWEnd written",
                               gc_.stw_g, (ts - gc_.stw_ts) / 1'000'000);
    Count(w_.STWEnd(m, Ts(m, std::max(ts, last_ts_))));
    break;
  }
  gc_.stw_g = kNoG;
  return false;
}

// runtime/trace.go StartTrace writes HeapGoal right after the trace's first events, on
// the goroutine that started tracing; ours starts with the records, so the value read at
// attach (or gcinit's, launch mode) goes on the first M that holds a running P once a
// record has been applied (order.go advanceHeapMetric: M and P, G optional), at that
// record's time. A HeapGoal record before it (gcControllerCommit) is newer: the initial
// value is then dropped; so is one still unwritten when the first generation ends (the
// runtime writes it in the first generation only).
void Model::InitialHeapGoal(const Record &r) {
  if (!FirstGeneration() || r.kind == RecordKind::kHeapGoal) {
    gc_.initial_goal.reset();
    return;
  }
  const MState &ms = st_.M(r.m);
  const ProcState *ps = ms.p == kNoP ? nullptr : st_.P(ms.p);
  if (ps == nullptr || ps->status != encoder::ProcStatus::kRunning || ps->m != r.m) return;
  EnsureStatusP(r.m, r.ts, ms.p, encoder::ProcStatus::kRunning);
  encoder::EmitStatus s = w_.HeapGoal(r.m, Ts(r.m, r.ts), *gc_.initial_goal);
  Count(s);
  if (s == encoder::EmitStatus::kOk) ++stats_.gc_events;
  gc_.initial_goal.reset();
}

void Model::GcGenerationStart(std::uint64_t ts) {
  if (!gc_.running) return;
  for (auto &[m, ms] : st_.ms) {
    if (ms.p == kNoP || ms.g == kNoG) continue;
    const GoState *gs = st_.G(ms.g);
    const ProcState *ps = st_.P(ms.p);
    if (gs == nullptr || gs->status != encoder::GoStatus::kRunning || ps == nullptr ||
        ps->status != encoder::ProcStatus::kRunning)
      continue;
    encoder::EmitStatus s = w_.GCActive(m, Ts(m, ts), gc_.next_seq++);
    Count(s);
    if (s == encoder::EmitStatus::kOk) ++stats_.gc_events;
    return;
  }
}

}  // namespace gotraced::model
