// See record_decoder.h and docs/model.md §3 (the decoding table, with the runtime call
// each row stands for).
#include "daemon/model/record_decoder.h"

#include "daemon/model/cpu_sample.h"
#include "daemon/procmem/label_identity.h"

#include <algorithm>
#include <array>
#include <optional>

namespace gotraced::model {

std::uint64_t LabelsId(int go_minor, std::uint64_t ptr, const gt_labels_id &id) {
  if (ptr == 0) return 0;
  const procmem::LabelIdWords w{id.w[0], id.w[1], id.w[2], id.w[3]};
  return procmem::LabelSetId(procmem::LabelReprFor(go_minor), w);
}
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

// runtime2.go status values (gstatus_table.h).
using gstatus::kGdead;
using gstatus::kGscan;
using gstatus::kGwaiting;

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// The traceBlockReasonStrings entry the decoder writes itself (preemptPark).
constexpr std::string_view kBlockPreempted = "preempted";

}  // namespace

RecordDecoder::RecordDecoder(DecoderConfig cfg) : cfg_(std::move(cfg)) {}

std::string_view RecordDecoder::Innermost(std::uint64_t pc) {
  names_.clear();
  if (cfg_.func_chain && pc) cfg_.func_chain(pc, names_);
  return names_.empty() ? std::string_view() : names_.front();
}

// The casgstatus call sites of runtime/proc.go (and coro.go, debugcall.go, mgc*.go,
// stack.go, trace.go), by the function that contains the call: gstatus_table.h
// kCallerSites. Cached per return address.
RecordDecoder::Site RecordDecoder::Classify(std::uint64_t caller_pc) {
  auto it = sites_.find(caller_pc);
  if (it != sites_.end()) return it->second;
  Innermost(caller_pc);
  const Site s = gstatus::SiteOf(names_);
  const std::string_view f = names_.empty() ? std::string_view() : names_.front();
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

void RecordDecoder::Emit(std::vector<Record> &out, Record &&r) {
  ++stats_.emitted;
  out.push_back(std::move(r));
}

bool RecordDecoder::HasRole(probes::ProbeRole role) const {
  if (!cfg_.plan) return false;
  for (const probes::ProbeSite &s : cfg_.plan->sites)
    if (s.role == role) return true;
  return false;
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
  DecodeRecord(v, out);
}

// The goid of a create written without one is known now: a kGoidResolved for the model,
// which holds that create's M behind it (record.h).
void RecordDecoder::ResolveCreate(std::uint64_t gp, Goid goid, std::uint64_t ts, std::vector<Record> &out) {
  if (unresolved_.erase(gp) == 0) return;
  for (auto it = held_by_p_.begin(); it != held_by_p_.end();)
    it = it->second == gp ? held_by_p_.erase(it) : std::next(it);
  Record r;
  r.ts = ts;
  r.kind = RecordKind::kGoidResolved;
  r.target_g = goid;
  r.value2 = gp;
  out.push_back(std::move(r));
}

void RecordDecoder::DecodeRecord(const capture::RecordView &v, std::vector<Record> &out) {
  if (v.kind() == GT_REC_SCHED_SWITCH) return DecodeKernelSwitch(v, out);  // kernel_view_decoder.cc
  if (v.kind() == GT_REC_KSYS_ENTER || v.kind() == GT_REC_KSYS_EXIT) return DecodeKernelSyscall(v, out);
  if (v.kind() == GT_REC_SYS_SAMPLE) return DecodeSysSample(v, out);
  if (v.kind() == GT_REC_SYS_SWITCH) return DecodeSysSwitch(v, out);
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
  if (SignalReturn(v)) {  // record_decoder_syscall.cc: no goroutine syscall
    ++stats_.ignored;
    return;
  }
  if (!pending_fast_.empty() && v.go_ctx() != nullptr && !ResolvePendingFast(v, out)) return;  // record_decoder_syscall.cc
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

Record RecordDecoder::FromRow(const gstatus::Row &row, const capture::RecordView &v, Goid goid) const {
  Record r = Base(v, row.kind);
  switch (row.subject) {
    case gstatus::Subject::kCurg: r.g = goid; break;
    case gstatus::Subject::kTarget: r.target_g = goid; break;
    case gstatus::Subject::kTargetOffM:
      r.target_g = goid;
      r.g = kNoG;
      break;
    case gstatus::Subject::kNoRecord: break;
  }
  if (row.skip != gstatus::kSkipFromArgument) r.stack_skip = row.skip;
  if (!row.reason.empty()) r.reason = row.reason;
  return r;
}

void RecordDecoder::Attach(const gstatus::Row &row, Record &r, std::vector<std::uint64_t> &pcs) {
  if (row.keep_stack) r.stack = std::move(pcs);
}

// A casgstatus hit: its row in gstatus_table.h decides (docs/model.md §3.1); the rows
// that need more than the row's fields are the handlers below.
void RecordDecoder::DecodeGstatus(const capture::RecordView &v, std::vector<Record> &out) {
  const gt_gstatus_record &gs = *v.gstatus();
  const std::uint32_t oldv = gs.oldval & ~kGscan, newv = gs.newval & ~kGscan;
  if (!unresolved_.empty() && gs.goid != 0 && !(oldv == kGdead && newv != kGdead))
    ResolveCreate(gs.gp, gs.goid, v.ts(), out);
  const Site site = Classify(gs.ctx.caller_pc);
  PooledPcs held(cfg_.stack_pool, v.stack());
  std::vector<std::uint64_t> &pcs = held.v;
  const gstatus::Row *row = gstatus::Lookup(site, oldv, newv, cfg_.go_minor);
  if (row == nullptr || row->action == gstatus::Action::kIgnore) {
    ++stats_.ignored;  // a transition the tracer does not report
    return;
  }
  if (row->action == gstatus::Action::kUnclassified) {
    ++stats_.unclassified;
    return;
  }
  Record r = FromRow(*row, v, gs.goid);
  // The pprof label set it starts with, or blocks / stops with (model_labels.cc): the
  // transitions whose records carry g.labels (probe_plan.cc GT_READ_LABELS).
  const bool labels_read = r.kind == RecordKind::kGoStart ||
                           ((r.kind == RecordKind::kGoBlock || r.kind == RecordKind::kGoStop) &&
                            oldv == gstatus::kGrunning && (newv == gstatus::kGwaiting || newv == gstatus::kGrunnable));
  if (labels_read && cfg_.plan != nullptr && cfg_.plan->offsets.g_labels >= 0) {
    r.value = gs.labels;
    r.value2 = LabelsId(cfg_.go_minor, gs.labels, gs.labels_id);
    r.flag = true;
  }
  using gstatus::Handler;
  switch (row->handler) {
    case Handler::kNone:  // Action::kEmit: the row is the whole record
      Attach(*row, r, pcs);
      Emit(out, std::move(r));
      return;
    case Handler::kCreate:
    case Handler::kCreateFromGoidCache: {
      Goid id = gs.goid;
      if (row->handler == Handler::kCreateFromGoidCache) {
        // Go <= 1.23 assigns newg.goid after this casgstatus, from the P's goid cache.
        if (gs.p_goidcache != 0 && gs.p_goidcache != gs.p_goidcacheend) {
          id = gs.p_goidcache;
          // This P's previous create refilled its cache and took the batch's first id.
          constexpr std::uint64_t kGoidCacheBatch = 16;  // runtime/proc.go _GoidCacheBatch
          auto hp = gs.ctx.p_id >= 0 ? held_by_p_.find(gs.ctx.p_id) : held_by_p_.end();
          if (hp != held_by_p_.end() && gs.p_goidcacheend > kGoidCacheBatch &&
              gs.p_goidcacheend - kGoidCacheBatch < gs.p_goidcache)
            ResolveCreate(hp->second, gs.p_goidcacheend - kGoidCacheBatch, v.ts(), out);
        } else {
          id = kNoG;
        }
      }
      r.target_g = id;
      r.value = gs.startpc;
      r.flag = newv == kGwaiting;
      Attach(*row, r, pcs);
      if (id == kNoG) {
        // Refilled cache: the id shows up in a later record of this g (ResolveCreate);
        // the model holds this thread's later records behind the create until then.
        r.value2 = gs.gp;
        unresolved_.insert(gs.gp);
        if (gs.ctx.p_id >= 0) held_by_p_[gs.ctx.p_id] = gs.gp;
      }
      Emit(out, std::move(r));
      return;
    }
    case Handler::kParkLegacy:
    case Handler::kPark:
      // park_m: trace.GoPark(mp.waitTraceBlockReason, mp.waitTraceSkip).
      r.reason = gs.m_block_reason < cfg_.block_reasons.size() ? std::string_view(cfg_.block_reasons[gs.m_block_reason])
                                                               : std::string_view("unspecified");
      // Go <= 1.21: traceskip 0 is "no stack" (trace.go traceEventLocked).
      if (row->handler == Handler::kParkLegacy && gs.m_trace_skip == 0) pcs.clear();
      r.stack_skip = gs.m_trace_skip;
      Attach(*row, r, pcs);
      Emit(out, std::move(r));
      return;
    case Handler::kGoStop:
    case Handler::kGoStopReasonFromStack: {
      if (row->handler == Handler::kGoStopReasonFromStack && !pcs.empty()) {
        // goschedImpl not inlined: tell gosched_m from gopreempt_m by where the goroutine
        // stopped (gp.sched.pc is in runtime.Gosched / goschedguarded for a yield, or in
        // goschedIfBusy, 1.21+ proc.go: mcall(gosched_m), the background sweeper's yield).
        std::string_view top = Innermost(pcs[0]);
        if (top == "runtime.Gosched" || top == "runtime.goschedguarded" || top == "runtime.goschedIfBusy")
          r.reason = gstatus::kStopGosched;
      }
      const bool sched_stack = v.stack_tail() && v.stack_tail()->source == GT_STACK_SCHED;
      if (row->sync_safe_point && sched_stack && r.reason == gstatus::kStopPreempted && !pcs.empty() &&
          Innermost(pcs[0]) != "runtime.asyncPreempt2") {
        // Stopped in morestack (synchronous preemption): traceStack inserts
        // *(gp.sched.sp) as the second PC (gp.syncSafePoint, go.dev/issue/68090).
        pcs.insert(pcs.begin() + 1, v.stack_tail()->sched_sp_word);
      }
      Attach(*row, r, pcs);
      Emit(out, std::move(r));
      return;
    }
    case Handler::kSyscallBeginUnlessEntryProbed:
    case Handler::kSyscallBegin:
    case Handler::kExitSyscallFast:
    case Handler::kExitSyscallNoP:
      DecodeSyscallGstatus(*row, v, std::move(r), pcs, out);  // record_decoder_syscall.cc
      return;
    case Handler::kReadyTraceskip:
      // ready(gp, traceskip, next) spilled its arguments to its ABI slots before calling
      // casgstatus when the plan verified it on this binary: exact traceskip.
      if (cfg_.plan && cfg_.plan->ready_traceskip_spilled && gs.caller_spill[0] == gs.gp)
        r.stack_skip = static_cast<std::uint32_t>(gs.caller_spill[1]);
      else
        r.stack_skip = UnblockSkip(v.tid(), pcs);
      Attach(*row, r, pcs);
      Emit(out, std::move(r));
      return;
  }
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
    case probes::ProbeRole::kAcquireP: {
      // acquirep(pp): ProcStart after wirep. deref[0] = pp.id (GT_CALL_ARG0_P).
      // procresize moving its goroutine's M off a P it destroys (resize_move_, below)
      // writes around that acquirep(allp[0]), 1.19-1.27: trace.GoSched() +
      // trace.ProcStop(old P) ("Pretend that we were descheduled and then scheduled again
      // to keep the trace consistent"), then trace.GoStart(). m.p is 0 at the probe
      // (cleared before it); the model knows the old P. Without them: "M still holds P",
      // then the goroutine lost at GCBegin and STWBegin (fidelity's procs workload: 4
      // repairs per shrink below the caller's P, every version).
      const bool resize = resize_move_.erase(v.tid()) != 0 && c.ctx.curg != 0;
      if (resize) {
        Record st = Base(v, RecordKind::kGoStop);
        st.reason = gstatus::kStopGosched;
        Emit(out, std::move(st));
        Emit(out, Base(v, RecordKind::kProcStop));
      }
      Record r = Base(v, RecordKind::kProcStart);
      r.target_p = static_cast<ProcId>(static_cast<std::int64_t>(c.deref[0]));
      MarkSyscallPTaken(r.target_p);  // no syscall holds a P an M acquires
      const ProcId p = r.target_p;
      Emit(out, std::move(r));
      if (resize) {
        Record gs = Base(v, RecordKind::kGoStart);
        gs.p = p;
        gs.g = kNoG;
        gs.target_g = c.ctx.curg_goid;
        Emit(out, std::move(gs));
      }
      return;
    }
    case probes::ProbeRole::kProcResize: {
      // procresize(nprocs): trace.Gomaxprocs(nprocs), stack(1) from the system stack.
      Record r = Base(v, RecordKind::kProcsChange);
      r.value = c.args[0] & 0xffffffffu;
      // Its M's P is destroyed when its id >= nprocs: the thread's next acquirep is then
      // procresize's own move to allp[0] (kAcquireP above). The record's P, not the
      // acquirep's caller: Go 1.26's probed acquirep callee returns into acquirep.
      if (c.ctx.curg != 0 && c.ctx.p_id >= 0 && static_cast<std::uint64_t>(c.ctx.p_id) >= r.value)
        resize_move_.insert(v.tid());
      else
        resize_move_.erase(v.tid());
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
      if (DecodeSyscallCall(v, *site, pcs, out)) return;  // record_decoder_syscall.cc
      if (DecodeGcCall(v, site->role, pcs, out)) return;  // record_decoder_gc.cc
      ++stats_.ignored;
      return;
  }
}

void RecordDecoder::DecodeSysSample(const capture::RecordView &v, std::vector<Record> &out) {
  const gt_sys_sample_record *s = v.sys_sample();
  if (s == nullptr) return;
  if (!sys_sample_)
    sys_sample_.emplace(cfg_.plan ? cfg_.plan->syscall_min_ns : 0, cfg_.plan ? cfg_.plan->syscall_sample_period_ns : 0);
  sampled_.clear();
  sys_sample_->Add(*s, sampled_);
  stats_.sample_sweeps = sys_sample_->sweeps();
  stats_.sample_short = sys_sample_->short_syscalls();
  for (const SampledSyscall &c : sampled_) EmitSampledSyscall(c, out);
}

void RecordDecoder::EmitSampledSyscall(const SampledSyscall &c, std::vector<Record> &out) {
  // Both halves at once, as the tracepoint path's one record per syscall (the model's
  // sparse mode: GoCreateSyscall, GoDestroySyscall); the begin is older than the record,
  // so the model, which takes records in the ring's order, cannot see an overlap with a
  // syscall of the same goroutine it has already ended: this guard does. (The capture
  // side makes none: bpf/gt_sys_switch.bpf.h drops a note its thread outlived.)
  auto [it, fresh] = syscall_end_.try_emplace(c.goid, c.end);
  if (!fresh) {
    if (c.begin < it->second) {
      ++stats_.syscall_overlaps;
      return;
    }
    it->second = c.end;
  }
  syscall_end_max_ = std::max(syscall_end_max_, c.end);
  if (syscall_end_.size() > syscall_end_prune_at_) {  // goroutines come and go: forget those idle 10 s
    std::erase_if(syscall_end_, [&](const auto &kv) { return kv.second + 10'000'000'000ull < syscall_end_max_; });
    syscall_end_prune_at_ = std::max<std::size_t>(65536, 2 * syscall_end_.size());
  }
  Record b;
  b.ts = c.begin;
  b.m = c.tid;
  b.kind = RecordKind::kGoSyscallBegin;
  b.g = static_cast<Goid>(c.goid);
  Record e = b;
  e.ts = c.end;
  e.kind = RecordKind::kGoSyscallEnd;
  Emit(out, std::move(b));
  Emit(out, std::move(e));
}

void RecordDecoder::DecodeSysSwitch(const capture::RecordView &v, std::vector<Record> &out) {
  // One syscall seen off CPU from its switch-out to its switch-in (bpf/gt_sys_switch.bpf.h
  // wrote it only if that lasted the threshold): the same syscall events as the sampler's.
  const gt_sys_switch_record *s = v.sys_switch();
  if (s == nullptr || s->goid == 0 || s->off_ts == 0 || s->off_ts > s->h.ts_ns) {
    ++stats_.ignored;
    return;
  }
  EmitSampledSyscall({s->h.tid, s->goid, s->nr, s->arg0, s->off_ts, s->h.ts_ns}, out);
}

void RecordDecoder::Flush(std::vector<Record> &out) {
  unresolved_.clear();  // the model drops their creates (Model::ProcessUpTo)
  held_by_p_.clear();
  for (auto &[tid, pf] : pending_fast_) EmitFastExit(pf, out);
  pending_fast_.clear();
  // A pending slow syscall exit that no later record resolved stays unresolved: the
  // goroutine is left in its syscall rather than guessed.
  pending_exit_.clear();
}

}  // namespace gotraced::model
