// See record_decoder.h and docs/model.md §3 (the decoding table, with the runtime call
// each row stands for).
#include "daemon/model/record_decoder.h"

#include "daemon/model/cpu_sample.h"

#include <algorithm>
#include <array>
#include <optional>

namespace gotraced::model {
namespace {

// A record's stack in a vector from the pool (stack_pool.h), given back when the decoder
// returns without moving it into a model record (an ignored transition).
struct PooledPcs {
  PooledPcs(StackPool *p, std::span<const std::uint64_t> pcs)
      : pool(p), v(p ? p->Take(pcs) : std::vector<std::uint64_t>(pcs.begin(), pcs.end())) {}
  ~PooledPcs() {
    if (pool) pool->Give(std::move(v));
  }
  PooledPcs(const PooledPcs &) = delete;
  PooledPcs &operator=(const PooledPcs &) = delete;
  StackPool *pool;
  std::vector<std::uint64_t> v;
};

// runtime2.go status values (unchanged 1.19-1.27; _Gdeadextra is 11 in 1.26+).
constexpr std::uint32_t kGidle = 0, kGrunnable = 1, kGrunning = 2, kGsyscall = 3, kGwaiting = 4, kGdead = 6,
                        kGdeadextra = 11, kGscan = 0x1000;

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// traceGoStopReasonStrings (runtime/traceruntime.go).
constexpr std::string_view kStopGosched = "runtime.Gosched";
constexpr std::string_view kStopPreempted = "preempted";
// traceBlockReasonStrings entries the decoder writes itself.
constexpr std::string_view kBlockPreempted = "preempted";
constexpr std::string_view kBlockDebugCall = "wait for debug call";

}  // namespace

RecordDecoder::RecordDecoder(DecoderConfig cfg) : cfg_(std::move(cfg)) {}

std::string_view RecordDecoder::Innermost(std::uint64_t pc) {
  names_.clear();
  if (cfg_.func_chain && pc) cfg_.func_chain(pc, names_);
  return names_.empty() ? std::string_view() : names_.front();
}

// The casgstatus call sites of runtime/proc.go (and coro.go, debugcall.go, mgc*.go,
// stack.go, trace.go), by the function that contains the call. Go 1.22-1.27.
RecordDecoder::Site RecordDecoder::Classify(std::uint64_t caller_pc) {
  auto it = sites_.find(caller_pc);
  if (it != sites_.end()) return it->second;
  Innermost(caller_pc);
  Site s = Site::kUnknown;
  std::string_view f = names_.empty() ? std::string_view() : names_.front();
  // The physical function around an inlined goschedImpl tells Gosched from preemption.
  auto outer_has = [&](std::string_view n) { return std::find(names_.begin(), names_.end(), n) != names_.end(); };
  if (f == "runtime.newproc1") s = Site::kNewproc1;
  else if (f == "runtime.execute") s = Site::kExecute;
  else if (f == "runtime.park_m") s = Site::kParkM;
  else if (f == "runtime.goschedImpl") {
    if (outer_has("runtime.gopreempt_m")) s = Site::kGopreempt;
    else if (outer_has("runtime.gosched_m") || outer_has("runtime.goschedguarded_m")) s = Site::kGosched;
    else s = Site::kGoschedImpl;
  } else if (f == "runtime.goyield_m") s = Site::kGoyield;
  else if (f == "runtime.gdestroy" || f == "runtime.goexit0") s = Site::kGdestroy;
  else if (f == "runtime.reentersyscall" || f == "runtime.entersyscallblock") s = Site::kEnterSyscall;
  else if (f == "runtime.exitsyscall") s = Site::kExitSyscall;
  else if (f == "runtime.exitsyscall0" || f == "runtime.exitsyscallNoP") s = Site::kExitSyscallSlow;
  else if (f == "runtime.ready") s = Site::kReady;
  else if (f == "runtime.findRunnable" || f == "runtime.findrunnable" || f == "runtime.injectglist" ||
           StartsWith(f, "runtime.(*gcControllerState).findRunnableGCWorker"))
    s = Site::kUnparkNoSkip;
  else if (StartsWith(f, "runtime.debugCallWrap")) s = Site::kDebugCall;
  else if (f == "runtime.coroswitch_m") s = Site::kCoroswitch;
  else if (f == "runtime.needm") s = Site::kNeedm;
  else if (f == "runtime.dropm") s = Site::kDropm;
  else if (f == "runtime.casGToWaiting" || f == "runtime.casGToWaitingForSuspendG" || f == "runtime.newstack" ||
           f == "runtime.oneNewExtraM" || f == "runtime.gcMarkTermination" || f == "runtime.gcBgMarkWorker" ||
           f == "runtime.markroot" || f == "runtime.gcAssistAlloc1" || f == "runtime.stopTheWorldWithSema" ||
           f == "runtime.forEachP" || f == "runtime.traceAdvance" || f == "runtime.writeheapdump_m" ||
           f == "runtime.findGoroutineLeaks" || f == "runtime.malg" || f == "runtime.allocm")
    s = Site::kIgnore;  // transitions the tracer never reports (isWaitingForSuspendG etc.)
  if (s == Site::kUnknown) ++stats_.unclassified_callers[std::string(f.empty() ? "?" : f)];
  sites_.emplace(caller_pc, s);
  return s;
}

Record RecordDecoder::Base(const capture::RecordView &v, RecordKind k) const {
  Record r;
  r.ts = v.ts();
  r.m = v.tid();
  r.kind = k;
  if (const gt_go_ctx *c = v.go_ctx()) {
    r.p = c->p_id >= 0 ? c->p_id : kNoP;
    r.g = c->curg ? c->curg_goid : kNoG;
  }
  return r;
}

void RecordDecoder::Emit(std::vector<Record> &out, Record r) {
  ++stats_.emitted;
  out.push_back(std::move(r));
}

bool RecordDecoder::HasRole(probes::ProbeRole role) const {
  if (!cfg_.plan) return false;
  for (const probes::ProbeSite &s : cfg_.plan->sites)
    if (s.role == role) return true;
  return false;
}

void RecordDecoder::TrimSyscallEntry(std::vector<std::uint64_t> &pcs) {
  std::size_t n = 0;
  while (n < pcs.size()) {
    std::string_view f = Innermost(pcs[n]);
    if (f != "runtime.reentersyscall" && f != "runtime.entersyscall" && f != "runtime.entersyscallblock" &&
        f != "runtime.systemstack_switch" && f != "runtime.casgstatus")
      break;
    ++n;
  }
  pcs.erase(pcs.begin(), pcs.begin() + static_cast<std::ptrdiff_t>(n));
}

// GoUnblock's skip is ready()'s traceskip argument (runtime/proc.go ready ->
// trace.GoUnpark(gp, traceskip)), set by each goready caller so the stack starts at the
// user-facing API (chansend1, closechan's caller, selectgo, ...). With a runtime.ready
// probe in the plan it is exact; otherwise it is estimated from the stack (docs/model.md
// §3.3): skip the leading runtime internals of the wakeup path.
std::uint32_t RecordDecoder::UnblockSkip(std::uint32_t tid, const std::vector<std::uint64_t> &pcs) {
  auto it = ready_skip_.find(tid);
  if (it != ready_skip_.end()) {
    std::uint32_t s = it->second;
    ready_skip_.erase(it);
    return s;
  }
  static constexpr std::array<std::string_view, 15> kInternal = {
      "runtime.closechan",
      "runtime.systemstack_switch", "runtime.goready",      "runtime.goready.func1",   "runtime.ready",
      "runtime.readyWithTime",      "runtime.send",         "runtime.recv",            "runtime.chansend",
      "runtime.chanrecv",           "runtime.semrelease1",  "runtime.netpollgoready",  "runtime.goroutineReady",
      "runtime.notifyListNotifyAll", "runtime.notifyListNotifyOne"};
  std::uint32_t skip = 0;
  std::vector<std::string_view> chain;
  for (std::uint64_t pc : pcs) {
    names_.clear();
    if (cfg_.func_chain) cfg_.func_chain(pc, names_);
    if (names_.empty()) return skip;
    for (std::string_view n : names_) {
      bool internal = std::find(kInternal.begin(), kInternal.end(), n) != kInternal.end() ||
                      StartsWith(n, "sync.runtime_") || StartsWith(n, "internal/sync.runtime_");
      if (!internal) return skip;
      ++skip;
    }
  }
  return skip;
}

void RecordDecoder::Decode(const capture::RecordView &v, std::vector<Record> &out) {
  if (!v.valid()) return;
  ++stats_.records;
  if (held_queue_.empty()) {
    final_out_ = &out;
    DecodeRecord(v, out);
    final_out_ = nullptr;
    return;
  }
  // A thread with a create still waiting for its goid: its records queue behind it.
  const bool held_before = held_queue_.count(v.tid()) != 0;
  std::vector<Record> mine;
  final_out_ = &out;
  DecodeRecord(v, mine);
  final_out_ = nullptr;
  std::vector<Record> &dst = held_before && held_queue_.count(v.tid()) ? held_queue_[v.tid()].recs : out;
  if (&dst != &out) held_queue_[v.tid()].gp.resize(held_queue_[v.tid()].gp.size() + mine.size(), 0);
  for (Record &r : mine) dst.push_back(std::move(r));
}

void RecordDecoder::ResolveCreate(std::uint64_t gp, Goid goid) {
  auto h = held_creates_.find(gp);
  if (h == held_creates_.end()) return;
  const std::uint32_t tid = h->second;
  held_creates_.erase(h);
  for (auto it = held_by_p_.begin(); it != held_by_p_.end();)
    it = it->second == gp ? held_by_p_.erase(it) : std::next(it);
  auto q = held_queue_.find(tid);
  if (q == held_queue_.end()) return;
  for (std::size_t i = 0; i < q->second.gp.size(); ++i) {
    if (q->second.gp[i] == gp) {
      q->second.recs[i].target_g = goid;
      q->second.gp[i] = 0;
      break;
    }
  }
  FlushQueue(tid, *final_out_, false);
}

// Writes the thread's queued records up to its first create still without a goid (all of
// them, unresolved creates dropped, with drop_unresolved: the end of the capture).
void RecordDecoder::FlushQueue(std::uint32_t tid, std::vector<Record> &out, bool drop_unresolved) {
  auto q = held_queue_.find(tid);
  if (q == held_queue_.end()) return;
  HeldQueue &hq = q->second;
  std::size_t n = 0;
  for (; n < hq.recs.size(); ++n) {
    if (hq.gp[n] != 0) {
      if (!drop_unresolved) break;
      held_creates_.erase(hq.gp[n]);
      continue;
    }
    out.push_back(std::move(hq.recs[n]));
  }
  if (n == hq.recs.size()) {
    held_queue_.erase(q);
    return;
  }
  hq.recs.erase(hq.recs.begin(), hq.recs.begin() + static_cast<std::ptrdiff_t>(n));
  hq.gp.erase(hq.gp.begin(), hq.gp.begin() + static_cast<std::ptrdiff_t>(n));
}

void RecordDecoder::DecodeRecord(const capture::RecordView &v, std::vector<Record> &out) {
  if (v.kind() == GT_REC_SCHED_SWITCH) return DecodeKernelSwitch(v, out);  // kernel_view_decoder.cc
  if (v.kind() == GT_REC_KSYS_ENTER || v.kind() == GT_REC_KSYS_EXIT) return DecodeKernelSyscall(v, out);
  if (v.kind() == GT_REC_GSTATUS || v.kind() == GT_REC_CALL) {
    if (const gt_go_ctx *c = v.go_ctx(); c != nullptr && c->m != 0) {
      auto [it, fresh] = m_thread_.try_emplace(c->m, v.tid());
      if (!fresh && it->second != v.tid()) {
        ++stats_.m_thread_changes;
        it->second = v.tid();
      }
    }
  }
  if (cfg_.cpu_samples) {  // CPU samples (cpu_sample_decoder.cc); not runtime transitions
    if (const gt_go_ctx *c = v.go_ctx(); c != nullptr && c->curg != 0) cpu_profiled_tids_.insert(v.tid());
    if (v.kind() == GT_REC_CPU_SAMPLE) {
      // Sparse: a thread that never syscalls shows no runtime record; a sample with a
      // goroutine (m.curg) is of a thread the runtime profiles (sysmon has none).
      if (cfg_.sparse && v.cpu_sample()->curg_goid != 0) cpu_profiled_tids_.insert(v.tid());
      if (cpu_profiled_tids_.count(v.tid()) != 0)
        DecodeCpuSample(v, cfg_, out);
      else
        ++stats_.cpu_samples_unprofiled;
      return;
    }
  }
  if (!pending_fast_.empty() && v.go_ctx() != nullptr) {  // runtime records only (not sched_switch)
    auto pf = pending_fast_.find(v.tid());
    if (pf != pending_fast_.end()) {
      // The exit went through with the P it had at the entry unless this record shows the
      // thread without it (exitsyscallNoP, or another P): then the P was taken after the
      // entry by a steal we did not see. Write that steal on the thread itself (a
      // self-steal: the reader accepts it while the P is in the syscall) and continue as
      // a slow exit.
      const gt_go_ctx *c = v.go_ctx();
      const gt_gstatus_record *gsr = v.gstatus();
      // exitsyscall's own casgstatus: its fast CAS failed because someone holds the
      // goroutine's scan bit — a steal in progress (setBlockOnExitSyscall, whose releaseP
      // record may come next) or a stack scan. Not yet a sign either way: keep waiting.
      if (gsr && cfg_.go_minor >= 26 && Classify(gsr->ctx.caller_pc) == Site::kExitSyscall) {
        ++stats_.ignored;
        return;
      }
      // The thread's P: Go <= 1.25's next syscall entry shows it as m.oldp (m.p is 0 there).
      std::int64_t pid = c != nullptr ? c->p_id : -1;
      if (const gt_call_record *call = v.call();
          call && (call->flags & GT_CALL_DEREF_OLDP) && pid < 0 && call->ctx.m_oldp != 0)
        pid = static_cast<std::int32_t>(call->deref[0]);
      const bool lost = c != nullptr && ((gsr && Classify(gsr->ctx.caller_pc) == Site::kExitSyscallSlow) ||
                                         (pid >= 0 && pid != pf->second.base.p) ||
                                         (pid < 0 && c->curg && c->curg_goid == pf->second.base.g));
      if (lost) {
        Record st = pf->second.base;
        st.kind = RecordKind::kProcSteal;
        st.target_p = pf->second.base.p;
        st.victim_m = pf->second.base.m;
        Emit(out, st);
        in_syscall_.erase(pf->second.gp);
        pending_exit_[v.tid()] = {pf->second.base.g, pf->second.base.ts};
        ++stats_.exits_no_p;
      } else {
        EmitFastExit(pf->second, out);
      }
      pending_fast_.erase(pf);
    }
  }
  if (!pending_exit_.empty() && pending_exit_.count(v.tid())) ResolvePendingExit(v, out);
  if (skip_current_) {
    skip_current_ = false;  // already decoded by ResolvePendingExit
    return;
  }
  if (!assisting_.empty()) GcAssistEnd(v, out);  // record_decoder_gc.cc
  if (!mark_term_.empty()) GcMarkTermEnd(v, out);  // record_decoder_gc.cc
  switch (v.kind()) {
    case GT_REC_GSTATUS: DecodeGstatus(v, out); break;
    case GT_REC_CALL: DecodeCall(v, out); break;
    case GT_REC_USER: DecodeUser(v, out); break;  // record_decoder_user.cc
    default: ++stats_.ignored; break;  // raw syscalls, task records: not trace events
  }
}

// Go 1.26 exitsyscall, slow path (no P at entry): exitsyscallTryGetP either re-takes the
// old P (releaseP: ProcSteal, recorded) or an idle one (acquirepNoTrace: not probed), then
// writes ProcStart + GoSyscallEndBlocked + GoStart; or it fails and exitsyscallNoP writes
// GoSyscallEndBlocked (its casgstatus is recorded). The thread's next record says which.
void RecordDecoder::ResolvePendingExit(const capture::RecordView &v, std::vector<Record> &out) {
  auto it = pending_exit_.find(v.tid());
  const PendingExit pe = it->second;
  const gt_go_ctx *c = v.go_ctx();
  if (const gt_gstatus_record *gs = v.gstatus()) {
    if (Classify(gs->ctx.caller_pc) == Site::kExitSyscallSlow) {
      pending_exit_.erase(it);  // exitsyscallNoP: decoded normally
      return;
    }
    // exitsyscall's casgstatus after a failed fast CAS (the stealer held the scan bit):
    // the M may still show the P it is about to lose; the exit is decided after it.
    if (cfg_.go_minor >= 26 && Classify(gs->ctx.caller_pc) == Site::kExitSyscall) return;
  }
  if (const gt_call_record *call = v.call()) {
    const probes::ProbeSite *site = cfg_.plan ? cfg_.plan->site(call->probe_id) : nullptr;
    if (site && site->role == probes::ProbeRole::kSyscallReleaseP) return;  // self-steal first
    if (site && site->role == probes::ProbeRole::kAcquireP) {
      // The plan probes acquirepNoTrace: this is exitsyscallTryGetP's P. Decode it (the
      // ProcStart), then the runtime's GoSysExit(true) + GoStart right after it.
      pending_exit_.erase(it);
      ++stats_.deferred;
      DecodeCall(v, out);
      Record eb = Base(v, RecordKind::kGoSyscallEndBlocked);
      eb.ts = v.ts() + 1;
      eb.p = static_cast<ProcId>(static_cast<std::int64_t>(call->deref[0]));
      eb.g = pe.g;
      Emit(out, eb);
      Record st = Base(v, RecordKind::kGoStart);
      st.ts = v.ts() + 2;
      st.p = eb.p;
      st.g = kNoG;
      st.target_g = pe.g;
      Emit(out, st);
      skip_current_ = true;
      return;
    }
  }
  if (c == nullptr || c->p_id < 0) return;  // still without a P: keep waiting
  pending_exit_.erase(it);
  ++stats_.deferred;
  // The P was acquired somewhere between the exit's entry and this record; the events
  // are stamped just before this record: stamping them at the exit's entry could put the
  // ProcStart before the previous owner's ProcStop of that P.
  (void)pe.ts;
  const std::uint64_t t = v.ts() > 3 ? v.ts() - 3 : v.ts();
  Record ps = Base(v, RecordKind::kProcStart);
  ps.ts = t;
  ps.p = kNoP;
  ps.g = pe.g;
  ps.target_p = c->p_id;
  Emit(out, ps);
  Record eb = Base(v, RecordKind::kGoSyscallEndBlocked);
  eb.ts = t + 1;
  eb.p = c->p_id;
  eb.g = pe.g;
  Emit(out, eb);
  Record st = Base(v, RecordKind::kGoStart);
  st.ts = t + 2;
  st.p = c->p_id;
  st.g = kNoG;
  st.target_g = pe.g;
  Emit(out, st);
}

void RecordDecoder::DecodeGstatus(const capture::RecordView &v, std::vector<Record> &out) {
  const gt_gstatus_record &gs = *v.gstatus();
  const std::uint32_t oldv = gs.oldval & ~kGscan, newv = gs.newval & ~kGscan;
  if (!held_creates_.empty()) {
    auto h = held_creates_.find(gs.gp);
    if (h != held_creates_.end() && gs.goid != 0 && !(oldv == kGdead && newv != kGdead))
      ResolveCreate(gs.gp, gs.goid);
  }
  const Site site = Classify(gs.ctx.caller_pc);
  PooledPcs held(cfg_.stack_pool, v.stack());
  std::vector<std::uint64_t> &pcs = held.v;
  const bool sched_stack = v.stack_tail() && v.stack_tail()->source == GT_STACK_SCHED;

  switch (site) {
    case Site::kNewproc1: {
      // newproc1: casgstatus(newg, _Gdead, _Grunnable | _Gwaiting) -> trace.GoCreate(newg,
      // newg.startpc, parked): stack(2) of the creator on the system stack
      // ([systemstack_switch, newproc] skipped).
      if (oldv != kGdead || (newv != kGrunnable && newv != kGwaiting)) {
        ++stats_.ignored;
        return;
      }
      Goid id = gs.goid;
      if (cfg_.go_minor < 24) {
        // Go <= 1.23 assigns newg.goid after this casgstatus, from the P's goid cache.
        if (gs.p_goidcache != 0 && gs.p_goidcache != gs.p_goidcacheend) {
          id = gs.p_goidcache;
          // This P's previous create refilled its cache and took the batch's first id.
          constexpr std::uint64_t kGoidCacheBatch = 16;  // runtime/proc.go _GoidCacheBatch
          auto hp = gs.ctx.p_id >= 0 ? held_by_p_.find(gs.ctx.p_id) : held_by_p_.end();
          if (hp != held_by_p_.end() && gs.p_goidcacheend > kGoidCacheBatch &&
              gs.p_goidcacheend - kGoidCacheBatch < gs.p_goidcache)
            ResolveCreate(hp->second, gs.p_goidcacheend - kGoidCacheBatch);
        } else {
          id = kNoG;
        }
      }
      Record r = Base(v, RecordKind::kGoCreate);
      r.target_g = id;
      r.value = gs.startpc;
      r.flag = newv == kGwaiting;
      r.stack = std::move(pcs);
      // Go 1.19 unwinds with gcallers (logical frames from gp.sched, skip 2: trace.go
      // traceGoCreate): [systemstack_switch, newproc, <go statement's function>]; our
      // frame-pointer walk from sched.bp has no newproc (systemstack pushes no frame),
      // so one skip less. 1.21+ walk frame pointers in-process too (traceStackID).
      r.stack_skip = cfg_.go_minor <= 19 ? 1 : 2;
      if (id == kNoG) {
        // Refilled cache: the id shows up in a later record of this g. The thread's later
        // records wait behind this create (Decode).
        ++stats_.emitted;
        HeldQueue &hq = held_queue_[v.tid()];
        hq.recs.push_back(std::move(r));
        hq.gp.push_back(gs.gp);
        held_creates_[gs.gp] = v.tid();
        if (gs.ctx.p_id >= 0) held_by_p_[gs.ctx.p_id] = gs.gp;
        return;
      }
      Emit(out, std::move(r));
      return;
    }
    case Site::kExecute: {
      // execute: casgstatus(gp, _Grunnable, _Grunning) -> trace.GoStart().
      if (oldv != kGrunnable || newv != kGrunning) break;
      Record r = Base(v, RecordKind::kGoStart);
      r.target_g = gs.goid;
      r.g = kNoG;  // execute sets m.curg = gp before the CAS; the M had no goroutine
      Emit(out, std::move(r));
      return;
    }
    case Site::kParkM: {
      if (oldv == kGrunning && newv == kGwaiting) {
        // park_m: trace.GoPark(mp.waitTraceBlockReason, mp.waitTraceSkip), stack from
        // gp.sched (traceStack on g0).
        Record r = Base(v, RecordKind::kGoBlock);
        r.g = gs.goid;
        r.reason = gs.m_block_reason < cfg_.block_reasons.size() ? std::string_view(cfg_.block_reasons[gs.m_block_reason])
                                                                 : std::string_view("unspecified");
        // Go <= 1.21 writes no stack for traceskip 0 (trace.go traceEventLocked: skip 0 is
        // "no stack", e.g. gcBgMarkWorker's idle park); 1.22+'s traceStack(0) is the
        // whole stack.
        if (cfg_.go_minor <= 21 && gs.m_trace_skip == 0) pcs.clear();
        r.stack = std::move(pcs);
        r.stack_skip = gs.m_trace_skip;
        Emit(out, std::move(r));
        return;
      }
      if (oldv == kGwaiting && newv == kGrunnable) {
        // park_m, waitunlockf said no: trace.GoUnpark(gp, 2), then execute(gp).
        Record r = Base(v, RecordKind::kGoUnblock);
        r.target_g = gs.goid;
        r.g = kNoG;
        Emit(out, std::move(r));
        return;
      }
      break;
    }
    case Site::kGoschedImpl:
    case Site::kGosched:
    case Site::kGopreempt:
    case Site::kGoyield:
    case Site::kDebugCall: {
      if (site == Site::kDebugCall && oldv == kGwaiting && newv == kGrunnable) {
        Record r = Base(v, RecordKind::kGoUnblock);  // debugCallWrap1: GoUnpark(callingG, 0)
        r.target_g = gs.goid;
        r.stack = std::move(pcs);
        Emit(out, std::move(r));
        return;
      }
      if (site == Site::kDebugCall && oldv == kGrunning && newv == kGwaiting) {
        Record r = Base(v, RecordKind::kGoBlock);  // debugCallWrap: GoPark(traceBlockDebugCall, 1)
        r.g = gs.goid;
        r.reason = kBlockDebugCall;
        r.stack = std::move(pcs);
        r.stack_skip = 1;
        Emit(out, std::move(r));
        return;
      }
      if (oldv != kGrunning || newv != kGrunnable) break;
      // goschedImpl(gp, preempted): trace.GoPreempt() / GoSched() -> GoStop, stack(0) on
      // Go 1.26+ (traceruntime.go GoStop), stack(1) on 1.22/1.23.
      std::string_view reason = kStopPreempted;
      if (site == Site::kGosched || site == Site::kDebugCall) {
        reason = kStopGosched;
      } else if (site == Site::kGoschedImpl && !pcs.empty()) {
        // Not inlined: tell gosched_m from gopreempt_m by where the goroutine stopped
        // (gp.sched.pc is in runtime.Gosched / goschedguarded for a yield, or in
        // goschedIfBusy, 1.21+ proc.go: mcall(gosched_m), the background sweeper's yield).
        std::string_view top = Innermost(pcs[0]);
        if (top == "runtime.Gosched" || top == "runtime.goschedguarded" || top == "runtime.goschedIfBusy")
          reason = kStopGosched;
      }
      Record r = Base(v, RecordKind::kGoStop);
      r.g = gs.goid;
      r.reason = reason;
      if (cfg_.go_minor >= 24 && sched_stack && reason == kStopPreempted && !pcs.empty() &&
          Innermost(pcs[0]) != "runtime.asyncPreempt2") {
        // Stopped in morestack (synchronous preemption): traceStack inserts
        // *(gp.sched.sp) as the second PC (gp.syncSafePoint, go.dev/issue/68090).
        pcs.insert(pcs.begin() + 1, v.stack_tail()->sched_sp_word);
      }
      r.stack = std::move(pcs);
      r.stack_skip = cfg_.go_minor >= 26 ? 0 : 1;
      Emit(out, std::move(r));
      return;
    }
    case Site::kGdestroy: {
      // goexit1 writes GoEnd before mcall(goexit0); gdestroy's casgstatus(gp, _Grunning,
      // _Gdead) is the first probed point after it.
      if (oldv != kGrunning || newv != kGdead) break;
      Record r = Base(v, RecordKind::kGoEnd);
      r.g = gs.goid;
      Emit(out, std::move(r));
      return;
    }
    case Site::kEnterSyscall: {
      if (oldv != kGrunning || newv != kGsyscall) break;
      const bool from_block = StartsWith(Innermost(gs.ctx.caller_pc), "runtime.entersyscallblock");
      if (cfg_.go_minor >= 26 && (!from_block || HasRole(probes::ProbeRole::kEnterSyscallBlock))) {
        // Go 1.26 reentersyscall writes GoSyscallBegin at its entry (CALL kEnterSyscall);
        // its casgstatus only runs for synctest bubbles: a duplicate.
        ++stats_.ignored;
        return;
      }
      // reentersyscall / entersyscallblock: GoSysCall's stack(1) is taken from
      // gp.syscallpc/syscallbp (1.23+) or from systemstack_switch with skip 4 (1.22, three
      // runtime frames in between): both are the walk from syscallpc's frame, skip 1.
      Record r = Base(v, RecordKind::kGoSyscallBegin);
      r.g = gs.goid;
      TrimSyscallEntry(pcs);
      r.stack = std::move(pcs);
      r.stack_skip = 1;
      // Go 1.22 entersyscallblock (only notetsleepg calls it): GoSysCall's hard-coded skip
      // 4 (trace2runtime.go, counted for entersyscall -> reentersyscall) starts one frame
      // further out from its systemstack(entersyscallblock_handoff): the stack starts at
      // notetsleepg's caller's caller (seen: gcBgMarkStartWorkers' GoSyscallBegin begins at
      // gcStart; fidelity gc workload, go1.22).
      if (cfg_.go_minor == 22 && from_block) r.stack_skip = 2;
      auto held = held_release_.find(v.tid());
      if (held != held_release_.end()) {
        // Go 1.26+ entersyscallblock: GoSysCall, then handoffp(releasep()) [ProcStop], then
        // this casgstatus. Write them in the runtime's order (only 1.26+ holds, kReleaseP).
        r.ts = held->second.ts > 0 ? held->second.ts - 1 : 0;
        r.p = held->second.p;
      }
      syscall_p_[v.tid()] = r.p;
      in_syscall_[gs.gp] = {v.tid(), r.p};
      Emit(out, std::move(r));
      if (held != held_release_.end()) {
        Emit(out, std::move(held->second));
        held_release_.erase(held);
      }
      return;
    }
    case Site::kExitSyscall: {
      if (oldv != kGsyscall || newv != kGrunning) break;
      if (cfg_.go_minor >= 26) {
        ++stats_.ignored;  // covered by the exitsyscall CALL record
        return;
      }
      // Go <= 1.25 exitsyscall fast path, after exitsyscallfast got a P and
      // p.syscalltick++: lostP = oldp != p || m.syscalltick != p.syscalltick (before ++).
      in_syscall_.erase(gs.gp);
      ProcId entry_p = kNoP;
      if (auto it = syscall_p_.find(v.tid()); it != syscall_p_.end()) {
        entry_p = it->second;
        syscall_p_.erase(it);
      }
      const ProcId p = gs.ctx.p_id >= 0 ? gs.ctx.p_id : kNoP;
      const bool lost = p != entry_p || gs.ctx.p_syscalltick != gs.ctx.m_syscalltick + 1;
      if (!lost) {
        Record r = Base(v, RecordKind::kGoSyscallEnd);
        r.g = gs.goid;
        Emit(out, std::move(r));
        return;
      }
      if (p == entry_p && p != kNoP) {
        // exitsyscallfast_reacquired: ProcSteal(self) + ProcStart.
        Record st = Base(v, RecordKind::kProcSteal);
        st.target_p = p;
        st.victim_m = v.tid();
        st.g = gs.goid;
        Emit(out, st);
        Record ps = Base(v, RecordKind::kProcStart);
        ps.target_p = p;
        ps.g = gs.goid;
        Emit(out, ps);
      }
      Record eb = Base(v, RecordKind::kGoSyscallEndBlocked);
      eb.g = gs.goid;
      Emit(out, eb);
      Record r = Base(v, RecordKind::kGoStart);
      r.target_g = gs.goid;
      r.g = kNoG;
      Emit(out, std::move(r));
      return;
    }
    case Site::kExitSyscallSlow: {
      // exitsyscall0 (<= 1.25: _Gsyscall -> _Grunnable) / exitsyscallNoP (1.26+:
      // _Grunning -> _Grunnable): trace.GoSysExit(true) without a P.
      if (newv != kGrunnable) break;
      in_syscall_.erase(gs.gp);
      syscall_p_.erase(v.tid());
      Record r = Base(v, RecordKind::kGoSyscallEndBlocked);
      r.g = gs.goid;
      r.p = kNoP;
      Emit(out, std::move(r));
      return;
    }
    case Site::kReady:
    case Site::kUnparkNoSkip: {
      if (oldv != kGwaiting || newv != kGrunnable) break;
      Record r = Base(v, RecordKind::kGoUnblock);
      r.target_g = gs.goid;
      if (site == Site::kReady) {
        // ready(gp, traceskip, next) spilled its arguments to its ABI slots before calling
        // casgstatus when the plan verified it on this binary: exact traceskip.
        if (cfg_.plan && cfg_.plan->ready_traceskip_spilled && gs.caller_spill[0] == gs.gp)
          r.stack_skip = static_cast<std::uint32_t>(gs.caller_spill[1]);
        else
          r.stack_skip = UnblockSkip(v.tid(), pcs);
      }
      r.stack = std::move(pcs);
      Emit(out, std::move(r));
      return;
    }
    case Site::kNeedm: {
      if (newv != kGsyscall) break;
      Record r = Base(v, RecordKind::kGoCreateSyscall);
      r.target_g = gs.goid;
      r.g = kNoG;
      Emit(out, std::move(r));
      return;
    }
    case Site::kDropm: {
      if (oldv != kGsyscall || (newv != kGdead && newv != kGdeadextra)) break;
      Record r = Base(v, RecordKind::kGoDestroySyscall);
      r.g = gs.goid;
      Emit(out, std::move(r));
      return;
    }
    case Site::kCoroswitch:  // see docs/model.md §6: coroutine switches mostly bypass casgstatus
    case Site::kIgnore:
      ++stats_.ignored;
      return;
    case Site::kUnknown:
      ++stats_.unclassified;
      return;
  }
  (void)kGidle;
  ++stats_.ignored;  // a transition of a known site the tracer does not report
}

void RecordDecoder::DecodeCall(const capture::RecordView &v, std::vector<Record> &out) {
  const gt_call_record &c = *v.call();
  const probes::ProbeSite *site = cfg_.plan ? cfg_.plan->site(c.probe_id) : nullptr;
  if (site == nullptr) {
    ++stats_.unusable;
    return;
  }
  PooledPcs held(cfg_.stack_pool, v.stack());
  std::vector<std::uint64_t> &pcs = held.v;
  switch (site->role) {
    case probes::ProbeRole::kEnterSyscall: {
      // Go 1.26 reentersyscall(pc, sp, bp) entry: GoSysCall writes stack(1) from
      // gp.syscallpc = pc, gp.syscallbp = bp. Our walk at entry starts at the return address
      // into entersyscall; the runtime's starts at `pc`, found further up.
      // The same record comes from the sys_enter tracepoint (GT_CALL_FROM_TRACEPOINT,
      // probes/syscall_sites.h), whose walk starts at syscallpc already, and from CALL
      // sites of entersyscall (cgocall: the walk starts at the call's return address,
      // which is entersyscall's syscallpc).
      if (c.flags & GT_CALL_FROM_TRACEPOINT) {
        auto open = in_syscall_.find(c.ctx.curg);
        if (open != in_syscall_.end() && open->second.tid == v.tid()) {
          // Entered again with no exit in between: a syscall restarted after a signal
          // handler (its first exit wrote no record, bpf/gt_syscall_tp.bpf.h).
          ++stats_.ignored;
          return;
        }
      }
      Record r = Base(v, RecordKind::kGoSyscallBegin);
      // The sys_enter tracepoint's syscall number (args[3]) and first argument (args[4]),
      // for the kernel view's syscall regions (model_kernel_syscall.cc): value = nr + 1.
      if (c.flags & GT_CALL_FROM_TRACEPOINT) {
        r.value = c.args[3] + 1;
        r.value2 = c.args[4];
        r.text = FdName(static_cast<std::int64_t>(c.args[3]), c.args[4]);  // kernel_view_decoder.cc
      }
      // Go <= 1.25 cleared m.p in entersyscall: the syscall's P is m.oldp.
      if ((c.flags & GT_CALL_DEREF_OLDP) && c.ctx.p_id < 0 && c.ctx.m_oldp != 0)
        r.p = static_cast<ProcId>(static_cast<std::int32_t>(c.deref[0]));
      if (site->kind != probes::SiteKind::kCall || (c.flags & GT_CALL_STACK_FROM_ARGS)) {
        auto at = std::find(pcs.begin(), pcs.end(), c.args[0]);
        if (at != pcs.end()) pcs.erase(pcs.begin(), at);
      }
      r.stack = std::move(pcs);
      r.stack_skip = 1;
      in_syscall_[c.ctx.curg] = {v.tid(), r.p};
      entry_tick_[v.tid()] = c.ctx.p_syscalltick;
      Emit(out, std::move(r));
      return;
    }
    case probes::ProbeRole::kEnterSyscallBlock: {
      // entersyscallblock entry: gp.syscallpc = caller PC = *(SP), syscallbp = RBP: our
      // walk is the runtime's; stack(1). The P is handed off next (releasep: ProcStop).
      Record r = Base(v, RecordKind::kGoSyscallBegin);
      TrimSyscallEntry(pcs);
      r.stack = std::move(pcs);
      r.stack_skip = 1;
      in_syscall_[c.ctx.curg] = {v.tid(), r.p};
      Emit(out, std::move(r));
      return;
    }
    case probes::ProbeRole::kExitSyscall: {
      // Go 1.26 exitsyscall entry. With the P still wired: GoSysExit(false) when
      // pp.syscalltick == m.syscalltick, else ProcSteal(self) + ProcStart +
      // GoSysExit(true) + GoStart — decided after the CAS (PendingFast). Without a P:
      // resolved by the thread's next record (PendingExit).
      const Goid g = c.ctx.curg ? c.ctx.curg_goid : kNoG;
      if (cfg_.kernel_view && !cfg_.sparse && (c.flags & GT_CALL_FROM_TRACEPOINT)) {
        // The kernel view's byte count: sys_exit's return value (args[0]), before the
        // exit's own record, which may wait for the thread's next one (PendingFast).
        Record k = Base(v, RecordKind::kKernelSyscallExit);
        k.value = c.args[0];
        Emit(out, std::move(k));
      }
      std::optional<std::uint32_t> entry_tick;
      if (auto t = entry_tick_.find(v.tid()); t != entry_tick_.end()) {
        entry_tick = t->second;
        entry_tick_.erase(t);
      }
      // A steal of this syscall's P already decoded (syscallingThread.releaseP, whose
      // probe can fire before this entry while the unwiring lands after it: the M still
      // shows the P here; seen with cgo calls on 1.26): the exit is a slow one.
      auto sys = in_syscall_.find(c.ctx.curg);
      const bool stolen = sys != in_syscall_.end() && sys->second.p == kNoP;
      if (cfg_.sparse) {
        if (sys != in_syscall_.end()) in_syscall_.erase(sys);
        // One record per syscall (ProbePlan::syscall_pair): its entry time is args[1].
        if (cfg_.plan && cfg_.plan->syscall_pair && (c.flags & GT_CALL_FROM_TRACEPOINT) && c.args[1] != 0 &&
            c.args[1] <= v.ts()) {
          Record b = Base(v, RecordKind::kGoSyscallBegin);
          b.ts = c.args[1];
          Emit(out, std::move(b));
        }
        Emit(out, Base(v, RecordKind::kGoSyscallEnd));
        return;
      }
      if (c.flags & GT_CALL_DEREF_OLDP) {
        // Go <= 1.25 (the sys_exit tracepoint, or a CALL of exitsyscall): m.p is 0 and
        // the syscall's P is m.oldp, deref = {id, status, m, syscalltick}. exitsyscallfast
        // gets it back iff it is still _Psyscall (its CAS): then GoSyscallEnd, or, if its
        // tick moved (it was taken and given back), the "lost and regained" events; the
        // thread's next record, or a steal of that P before it, decides (PendingFast).
        // Otherwise the exit waits for a P like a 1.26 slow one (PendingExit).
        constexpr std::uint64_t kPsyscall = 2;
        if (c.ctx.m_oldp != 0 && c.deref[1] == kPsyscall && !stolen) {
          PendingFast pf;
          pf.base = Base(v, RecordKind::kGoSyscallEnd);
          pf.base.p = static_cast<ProcId>(static_cast<std::int32_t>(c.deref[0]));
          pf.kept = static_cast<std::uint32_t>(c.deref[3]) == c.ctx.m_syscalltick;
          pf.gp = c.ctx.curg;
          pf.steal_from_holder = true;
          pending_fast_[v.tid()] = std::move(pf);
          return;
        }
        in_syscall_.erase(c.ctx.curg);
        ++stats_.exits_no_p;
        pending_exit_[v.tid()] = {g, v.ts()};
        return;
      }
      if (c.ctx.p_id < 0 || stolen) {
        in_syscall_.erase(c.ctx.curg);
        ++stats_.exits_no_p;
        pending_exit_[v.tid()] = {g, v.ts()};
        return;
      }
      // m.syscalltick is p.syscalltick as reentersyscall copied it: the entry record's
      // value when we saw the entry, else the M field when the plan reads it.
      PendingFast pf;
      pf.base = Base(v, RecordKind::kGoSyscallEnd);
      pf.kept = entry_tick ? *entry_tick == c.ctx.p_syscalltick
                           : (c.ctx.m_syscalltick == 0 || c.ctx.m_syscalltick == c.ctx.p_syscalltick);
      pf.gp = c.ctx.curg;
      pending_fast_[v.tid()] = std::move(pf);
      return;
    }
    case probes::ProbeRole::kSyscallReleaseP: {
      // Go 1.26 syscallingThread.releaseP(state): s = {gp, mp, pp, status} in RAX, RBX,
      // RCX, RDI. trace.ProcSteal(s.pp) from the thread doing it (sysmon, STW, or the
      // syscalling thread itself in exitsyscallTryGetP).
      auto it = in_syscall_.find(c.args[0]);
      if (it == in_syscall_.end() || it->second.p < 0) {
        ++stats_.unusable;
        return;
      }
      Record r = Base(v, RecordKind::kProcSteal);
      r.target_p = it->second.p;
      r.victim_m = it->second.tid;
      it->second.p = kNoP;
      auto pf = pending_fast_.find(r.victim_m);
      if (pf != pending_fast_.end() && pf->second.gp == c.args[0]) {
        // Taken between exitsyscall's entry and its CAS: the exit is a slow one.
        PendingExit pe{pf->second.base.g, pf->second.base.ts};
        pending_fast_.erase(pf);
        pending_exit_[static_cast<std::uint32_t>(r.victim_m)] = pe;
        ++stats_.exits_no_p;
        in_syscall_.erase(c.args[0]);  // the exit is seen: the goroutine's next entry is a new syscall
      }
      Emit(out, std::move(r));
      return;
    }
    case probes::ProbeRole::kHandoffP: {
      // Go <= 1.25: retake CASes a _Psyscall P to _Pidle, writes ProcSteal, then
      // handoffp(pp). Only the retake caller is a steal.
      if (Innermost(c.ctx.caller_pc) != "runtime.retake") {
        ++stats_.ignored;
        return;
      }
      Record r = Base(v, RecordKind::kProcSteal);
      r.target_p = static_cast<ProcId>(static_cast<std::int64_t>(c.deref[0]));
      r.victim_m = 0;  // the model knows which M the P's syscall is on
      // Taken between the syscall's return (sys_exit) and exitsyscallfast's CAS: that
      // exit is a slow one after all.
      for (auto &[tid, pf] : pending_fast_) {
        if (pf.base.p != r.target_p) continue;
        pending_exit_[tid] = {pf.base.g, pf.base.ts};
        in_syscall_.erase(pf.gp);
        pending_fast_.erase(tid);
        ++stats_.exits_no_p;
        break;
      }
      Emit(out, std::move(r));
      return;
    }
    case probes::ProbeRole::kAcquireP: {
      // acquirep(pp): ProcStart after wirep. deref[0] = pp.id (GT_CALL_ARG0_P).
      Record r = Base(v, RecordKind::kProcStart);
      r.target_p = static_cast<ProcId>(static_cast<std::int64_t>(c.deref[0]));
      Emit(out, std::move(r));
      return;
    }
    case probes::ProbeRole::kReleaseP: {
      // Held only where the runtime hands the P off before the casgstatus: Go 1.26+
      // entersyscallblock ("(1) trace, (2) handoff, (3) _Gsyscall switch"). Go <= 1.25
      // switches first (casgstatus, then systemstack(entersyscallblock_handoff):
      // GoSysCall, handoffp(releasep()); go1.22/go1.23 proc.go), so the casgstatus record
      // was already decoded and this ProcStop is written now: held, it waited for the
      // thread's NEXT syscall entry, which then got this one's time and P (go1.22 gc
      // workload: gcBgMarkStartWorkers' second notetsleepg written at the first one's
      // handoff, its own lost to a "transition not captured" repair).
      if (cfg_.go_minor >= 26 && StartsWith(Innermost(c.ctx.caller_pc), "runtime.entersyscallblock") &&
          !HasRole(probes::ProbeRole::kEnterSyscallBlock)) {
        held_release_[v.tid()] = Base(v, RecordKind::kProcStop);  // see DecodeGstatus
        return;
      }
      Emit(out, Base(v, RecordKind::kProcStop));
      return;
    }
    case probes::ProbeRole::kProcResize: {
      // procresize(nprocs): trace.Gomaxprocs(nprocs), stack(1) from the system stack.
      Record r = Base(v, RecordKind::kProcsChange);
      r.value = c.args[0] & 0xffffffffu;
      r.stack = std::move(pcs);
      r.stack_skip = 1;
      Emit(out, std::move(r));
      return;
    }
    case probes::ProbeRole::kPreemptPark: {
      // preemptPark(gp): trace.GoPark(traceBlockPreempted, 0) (suspendG's preemption).
      Record r = Base(v, RecordKind::kGoBlock);
      if (c.deref[0]) r.g = c.deref[0];
      // Go <= 1.21: traceGoPark(traceEvGoBlock, 0), a generic block (reason "").
      r.reason = cfg_.go_minor <= 21 ? std::string_view("") : kBlockPreempted;
      if (const gt_stack_tail *t = v.stack_tail();
          t && t->source == GT_STACK_SCHED && t->sync_safe_point && !pcs.empty()) {
        // Stopped in morestack (newstack: gp.syncSafePoint = true; if gp.preemptStop
        // { preemptPark(gp) }): the function has not pushed its frame pointer yet, so
        // sched.bp is its caller's and the walk skips that caller; traceStack inserts
        // *(gp.sched.sp) as the second PC (tracestack.go, go.dev/issue/68090, Go 1.24+;
        // the flag reads 0 before). Seen on goroutines a GC stack scan stops
        // (suspendG), e.g. [makeslice, <caller missing>, ...].
        pcs.insert(pcs.begin() + 1, t->sched_sp_word);
      }
      // No stack on Go <= 1.23: 1.19/1.21's traceGoPark(traceEvGoBlock, 0) is skip 0,
      // which traceEventLocked writes as "no stack"; 1.22/1.23 preemptPark calls dropg()
      // before trace.GoPark, so traceStack finds no m.curg. 1.26/1.27 dropg after
      // GoPark: a stack (1.24/1.25 not checked: no toolchain here, treated as 1.26).
      if (cfg_.go_minor <= 23) pcs.clear();
      r.stack = std::move(pcs);
      r.stack_skip = 0;
      Emit(out, std::move(r));
      return;
    }
    default:
      if (DecodeGcCall(v, site->role, pcs, out)) return;  // record_decoder_gc.cc
      ++stats_.ignored;
      return;
  }
}

void RecordDecoder::EmitFastExit(const PendingFast &pf, std::vector<Record> &out) {
  in_syscall_.erase(pf.gp);
  if (pf.kept) {
    ++stats_.exits_fast;
    Emit(out, pf.base);
    return;
  }
  ++stats_.exits_retaken;
  Record st = pf.base;
  st.kind = RecordKind::kProcSteal;
  st.target_p = pf.base.p;
  st.victim_m = pf.steal_from_holder ? 0 : pf.base.m;  // 0: the model knows the P's syscall M
  Emit(out, st);
  Record ps = pf.base;
  ps.kind = RecordKind::kProcStart;
  ps.target_p = pf.base.p;
  ps.p = kNoP;
  Emit(out, ps);
  Record eb = pf.base;
  eb.kind = RecordKind::kGoSyscallEndBlocked;
  Emit(out, eb);
  Record gs = pf.base;
  gs.kind = RecordKind::kGoStart;
  gs.target_g = pf.base.g;
  gs.g = kNoG;
  Emit(out, gs);
}

void RecordDecoder::Flush(std::vector<Record> &out) {
  while (!held_queue_.empty()) FlushQueue(held_queue_.begin()->first, out, true);
  held_creates_.clear();
  held_by_p_.clear();
  for (auto &[tid, pf] : pending_fast_) EmitFastExit(pf, out);
  pending_fast_.clear();
  // A pending slow syscall exit that no later record resolved stays unresolved: the
  // goroutine is left in its syscall rather than guessed.
  pending_exit_.clear();
}

}  // namespace gotraced::model
