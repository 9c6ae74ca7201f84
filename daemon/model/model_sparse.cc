// Sparse mode (ModelOptions::sparse; capture level "low", session/capture_level.h): the
// records come from no per-goroutine-switch site. There are syscalls (the sys_enter /
// sys_exit tracepoints), GC and STW (a few hits per cycle), GOMAXPROCS changes and CPU
// samples, each naming its thread, P and goroutine, but no record says where any
// goroutine runs in between. The model does not guess that: it writes each observation
// as a self-contained piece that order.go accepts, and keeps no goroutine alive between
// observations (so nothing accumulates in a long session):
//
//   * a syscall of goroutine G on thread M: GoCreateSyscall(G) at sys_enter and
//     GoDestroySyscall at sys_exit (order.go advanceGoCreateSyscall: M without a
//     goroutine, P optional; advanceGoDestroySyscall deletes G, so the next syscall of G
//     creates it again). The reader shows G in a syscall for the kernel's time in it. No
//     stack: GoCreateSyscall carries none.
//   * a GC, STW or GOMAXPROCS event of goroutine G with P p on M: ProcStart(p), GoCreate
//     (G), GoStart(G), the event, GoDestroy, ProcStop, all at the record's time (these
//     events need M, P and a running G: order.go userGoReqs). An STW range keeps G on
//     its M until STWEnd, as the goroutine that stopped the world indeed runs.
//   * a sample of the goroutines' states (RecordKind::kStateSample, read from the target's
//     memory every SessionOptions::state_sample): a UserLog, category "gotraced: goroutine
//     states", on a goroutine and an M of the trace's own (kStateSampleG, kStateSampleM,
//     record.h), wrapped as the GC observations are: ProcStart on an idle P, GoCreate
//     (with a one-frame stack "gotraced.goroutineStates", the goroutine's name in go tool
//     trace), GoStart, the log, GoDestroy, ProcStop. A UserLog needs M, P and a running
//     G (order.go advanceAnnotation, userGoReqs); a GoStatus for the sampled goroutines
//     themselves cannot be written (advanceGoStatus refuses a goroutine it has not seen
//     after the first generation, and each status must agree with the last one).
//     A note (the record's text2 is its category: "gotraced: target", "gotraced:
//     trigger") is the same piece with the goroutine "gotraced.note", and is written at
//     every level (model.cc applies it in full mode too): the piece uses an idle P for
//     an instant and no goroutine of the program.
//
// So a reader sees true syscalls, GC cycles, STW ranges and samples with their goroutine
// ids; the "goroutines" of the file are these pieces, not the program's lifetimes, and
// there is no scheduling (no blocks, unblocks, Ps in use) — the summary says so.
#include <algorithm>
#include <array>

#include "daemon/model/model.h"

namespace gotraced::model {

using encoder::GoStatus;
using encoder::ProcStatus;

namespace {
bool Valid(Goid g) { return g != kNoG && g != kUnknownG; }
}  // namespace

void Model::ApplySparse(const Record &r) {
  switch (r.kind) {
    case RecordKind::kGoSyscallBegin: SparseSyscallBegin(r); return;
    case RecordKind::kGoSyscallEnd:
    case RecordKind::kGoSyscallEndBlocked: SparseSyscallEnd(r.m, r.ts, r.g); return;
    case RecordKind::kCPUSample: OnCPUSample(r); return;  // the record's own G (model_cpu.cc)
    case RecordKind::kProcsChange:
    case RecordKind::kGCBegin:
    case RecordKind::kGCEnd:
    case RecordKind::kSTWBegin:
    case RecordKind::kSTWEnd:
    case RecordKind::kHeapAlloc:
    case RecordKind::kHeapGoal: SparseObserve(r); return;
    case RecordKind::kStateSample: SparseStateSample(r); return;
    default: ++stats_.records_discarded; return;  // not captured at this level
  }
}

void Model::SparseSyscallBegin(const Record &r) {
  const Goid g = r.g;
  if (!Valid(g)) {
    ++stats_.records_discarded;
    return;
  }
  MState &ms = st_.M(r.m);
  if (ms.g == g) {
    GoState *gs = st_.G(g);
    if (gs != nullptr && gs->status == GoStatus::kRunning && ms.p != kNoP) {
      // Inside an open STW observation of this goroutine: a real syscall of it.
      EmitGoSyscallBegin(r.m, r.ts, encoder::kNoStack);
      ++stats_.syscalls;
    }
    return;  // else already in this syscall (a restarted one enters again)
  }
  if (ms.g != kNoG) {
    const GoState *cur = st_.G(ms.g);
    if (cur == nullptr || cur->status != GoStatus::kSyscall) {
      ++stats_.records_discarded;  // the M runs an STW observation of another goroutine
      return;
    }
    SparseSyscallEnd(r.m, r.ts, ms.g);  // its exit was lost
  }
  if (const GoState *gs = st_.G(g)) {
    // Still in a syscall on another thread (that exit was lost), or observed running there.
    if (gs->status != GoStatus::kSyscall) {
      ++stats_.records_discarded;
      return;
    }
    SparseSyscallEnd(gs->m, r.ts, g);
  }
  // A syscall's entry comes with its exit (ProbePlan::syscall_pair): one that began
  // before this generation is written as beginning at its start.
  Count(w_.GoCreateSyscall(r.m, Ts(r.m, std::max(r.ts, gen_start_ts_)), g));
  GoState &gs = st_.gs[g];
  gs.status = GoStatus::kSyscall;
  gs.m = r.m;
  gs.seq = 0;
  gs.seq_gen = w_.generation();
  ms.g = g;
  ++stats_.syscalls;
}

void Model::SparseSyscallEnd(ThreadId m, std::uint64_t ts, Goid g) {
  MState &ms = st_.M(m);
  GoState *gs = st_.G(ms.g);
  if (ms.g == kNoG || (Valid(g) && ms.g != g) || gs == nullptr || gs->status != GoStatus::kSyscall) {
    ++stats_.records_discarded;  // an exit whose entry came before the capture
    return;
  }
  const ProcState *ps = st_.P(ms.p);
  if (ps != nullptr && ps->status == ProcStatus::kSyscall && ps->m == m) {
    EmitGoSyscallEnd(m, ts);  // the STW goroutine's own syscall
    return;
  }
  Count(w_.GoDestroySyscall(m, Ts(m, ts)));
  st_.gs.erase(ms.g);
  ms.g = kNoG;
}

void Model::SparseObserve(const Record &r) {
  const Goid g = r.g;
  const ProcId p = r.p;
  MState &ms = st_.M(r.m);
  const GoState *cur = st_.G(ms.g);
  const bool open = ms.g == g && cur != nullptr && cur->status == GoStatus::kRunning && ms.p == p;
  if (!open) {
    // STWEnd only ends a range this model opened; anything else needs the record's P and G.
    if (r.kind == RecordKind::kSTWEnd || !Valid(g) || p < 0) {
      ++stats_.records_discarded;
      return;
    }
    if (cur != nullptr && cur->status == GoStatus::kSyscall) SparseSyscallEnd(r.m, r.ts, ms.g);  // lost exit
    if (ms.g != kNoG) {
      ++stats_.records_discarded;  // another goroutine's STW observation holds this M
      return;
    }
    if (const GoState *gs = st_.G(g)) {
      if (gs->status != GoStatus::kSyscall) {
        ++stats_.records_discarded;
        return;
      }
      SparseSyscallEnd(gs->m, r.ts, g);
    }
    const ProcState *ps = st_.P(p);
    if (ps != nullptr && ps->status != ProcStatus::kIdle && ps->m != r.m) {
      ++stats_.records_discarded;  // P held by another thread's open STW observation
      return;
    }
    if (ms.p != kNoP && ms.p != p) EmitProcStop(r.m, r.ts);
    if (ms.p != p) {
      if (ps == nullptr)
        EmitProcStatus(encoder::kNoThread, r.ts, p, ProcStatus::kIdle);
      else
        EnsureStatusP(r.m, r.ts, p, ps->status);
      EmitProcStart(r.m, r.ts, p);
    }
    const std::uint64_t t = Ts(r.m, r.ts);
    Count(w_.GoCreate(r.m, t, g, encoder::kNoStack, encoder::kNoStack));
    GoState &ng = st_.gs[g];
    ng = GoState{};
    ng.status = GoStatus::kRunnable;
    ng.seq_gen = w_.generation();
    EmitGoStart(r.m, r.ts, g);
    ++stats_.sparse_observations;
  }
  if (r.kind == RecordKind::kProcsChange)
    OnProcsChange(r);
  else
    OnGc(r);
  if (gc_.stw_g == g) return;  // inside an STW range: G stays on its M until STWEnd
  const std::uint64_t t = Ts(r.m, r.ts);
  Count(w_.GoDestroy(r.m, t));
  st_.gs.erase(g);
  ms.g = kNoG;
  EmitProcStop(r.m, r.ts);
}

// The P a state sample is written on: the lowest idle one the trace knows, else (first
// generation only) the lowest id below GOMAXPROCS it has not stated yet: a status then
// introduces it, as for an observation's P. Every later generation starts with a status
// of every P below GOMAXPROCS (StartGenerationStatuses), and a P stated mid-generation
// after the first would be one the reader never knew. kNoP when every known P is held
// (each by an open STW observation).
ProcId Model::SparseIdleP() {
  ProcId best = kNoP;
  for (const auto &[id, ps] : st_.ps)
    if (ps.status == ProcStatus::kIdle && (st_.gomaxprocs <= 0 || id < st_.gomaxprocs) && (best == kNoP || id < best))
      best = id;
  if (best != kNoP || !FirstGeneration()) return best;
  const ProcId n = st_.gomaxprocs > 0 ? st_.gomaxprocs : 1;
  for (ProcId id = 0; id < n; ++id)
    if (st_.P(id) == nullptr) return id;
  return kNoP;
}

void Model::SparseStateSample(const Record &r) {
  const std::string_view category = r.text2.empty() ? std::string_view("gotraced: goroutine states") : r.text2.view();
  const ThreadId m = kStateSampleM;
  const Goid g = kStateSampleG;
  const MState &ms = st_.M(m);  // (the emitters below may add Ms: not used after them)
  const ProcId p = SparseIdleP();
  if (p == kNoP || ms.g != kNoG || ms.p != kNoP || st_.G(g) != nullptr) {
    ++stats_.state_samples_dropped;
    return;
  }
  // Sampled after the drain that a cut may have ended the generation at: never before it.
  const std::uint64_t ts = std::max(r.ts, gen_start_ts_);
  if (st_.P(p) == nullptr) EmitProcStatus(encoder::kNoThread, ts, p, ProcStatus::kIdle);
  EmitProcStart(m, ts, p);
  // The goroutine's name in go tool trace: what the log is.
  static constexpr std::array<encoder::Frame, 1> kStates = {
      encoder::Frame{.pc = 1, .func = "gotraced.goroutineStates", .file = "gotraced", .line = 0}};
  static constexpr std::array<encoder::Frame, 1> kNote = {
      encoder::Frame{.pc = 2, .func = "gotraced.note", .file = "gotraced", .line = 0}};
  const encoder::StackId start = w_.InternStack(r.text2.empty() ? kStates : kNote);
  Count(w_.GoCreate(m, Ts(m, ts), g, start, encoder::kNoStack));
  // In a full model a note's goroutine is one more GoCreate in the file: counted, so the
  // summary's "goroutines created" is the file's (suite 65 checks it); level low's
  // pieces are not goroutines of the program and were never counted.
  if (!opt_.sparse && !r.text2.empty()) ++stats_.goroutines_created;
  GoState &ng = st_.gs[g];
  ng = GoState{};
  ng.status = GoStatus::kRunnable;
  ng.seq_gen = w_.generation();
  EmitGoStart(m, ts, g);
  Count(w_.UserLog(m, Ts(m, ts), 0, category, r.text.view(), encoder::kNoStack));
  Count(w_.GoDestroy(m, Ts(m, ts)));
  st_.gs.erase(g);
  st_.M(m).g = kNoG;
  EmitProcStop(m, ts);
  if (r.text2.empty()) ++stats_.state_samples;
}

}  // namespace gotraced::model
