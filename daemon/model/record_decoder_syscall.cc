// The syscall half of RecordDecoder (record_decoder.h, docs/model.md §3.1-3.2 rows
// GoSyscallBegin .. ProcSteal): syscall entries, exits and the steals of a syscall's P,
// and the exits whose fast/slow outcome a later record of the thread decides.
#include "daemon/model/record_decoder.h"
#include "daemon/model/syscall_names.h"

#include <algorithm>
#include <optional>

namespace gotraced::model {
namespace {

// handoffp's callers that take a P out of a syscall (see kHandoffP below).
bool IsSyscallSteal(std::string_view caller) {
  return caller == "runtime.retake" || caller == "runtime.forEachP" || caller == "runtime.forEachPInternal";
}

}  // namespace

std::uint64_t RecordDecoder::OldestHeldTs() const {
  std::uint64_t oldest = 0;
  auto take = [&oldest](std::uint64_t ts) {
    if (ts && (oldest == 0 || ts < oldest)) oldest = ts;
  };
  for (const auto &[tid, r] : held_release_) take(r.ts);
  for (const auto &[tid, pe] : pending_exit_) take(pe.ts);
  return oldest;
}

// Go <= 1.25: the P a record shows its thread with and that P's syscalltick: m.p's
// (CALL records read it; a GSTATUS record only at syscall transitions, else 0), or m.oldp's
// at a syscall's own record (m.p is 0 in a syscall). tick 0: not read.
bool RecordDecoder::RecordP(const capture::RecordView &v, ProcId &p, std::uint32_t &tick) {
  const gt_go_ctx *c = v.go_ctx();
  if (c == nullptr) return false;
  tick = c->p_syscalltick;
  if (c->p_id >= 0) {
    p = c->p_id;
    return true;
  }
  const gt_call_record *call = v.call();
  if (call == nullptr || !(call->flags & GT_CALL_DEREF_OLDP) || call->ctx.m_oldp == 0) return false;
  p = static_cast<ProcId>(static_cast<std::int32_t>(call->deref[0]));
  tick = static_cast<std::uint32_t>(call->deref[3]);
  return true;
}

// Go <= 1.25: the thread took P back out of another M's syscall in exitsyscallfast (its
// CAS on m.oldp, exitsyscallfast_reacquired: ProcSteal(pp, true) + ProcStart, then
// exitsyscall's GoSysExit(lostP) + GoStart) at some time before this record, after the
// P had gone through other hands since its sys_exit. Stamped at this record's time: the
// P's last holder wrote its syscall entry before it (that is why the P was _Psyscall),
// so no earlier time is known to be after it.
void RecordDecoder::EmitStealBack(const capture::RecordView &v, ProcId p, Goid g, std::vector<Record> &out) {
  for (auto &[tid, other] : pending_fast_)
    if (tid != v.tid() && other.legacy && other.base.p == p) other.taken = true;
  MarkSyscallPTaken(p);
  // The victim's sys_exit may have found m.oldp taken and written this steal itself
  // (steal_written_: this thread's CAS won while the victim was in its syscall): written
  // twice, the second waited for P in a syscall, held this M's queue, and P's next holder
  // overtook it (go1.23 HTTP bench: "P 1 held by M" and two more).
  if (!steal_written_.erase(p)) {
    Record st = Base(v, RecordKind::kProcSteal);
    st.target_p = p;
    st.victim_m = 0;  // the model knows which M's syscall holds it
    st.g = g;
    Emit(out, std::move(st));
  }
  Record ps = Base(v, RecordKind::kProcStart);
  ps.p = kNoP;
  ps.target_p = p;
  ps.g = g;
  Emit(out, std::move(ps));
  Record eb = Base(v, RecordKind::kGoSyscallEndBlocked);
  eb.p = p;
  eb.g = g;
  Emit(out, std::move(eb));
  Record gs = Base(v, RecordKind::kGoStart);
  gs.p = p;
  gs.g = kNoG;
  gs.target_g = g;
  Emit(out, std::move(gs));
}

// The thread's record after a Go 1.26 (or <= 1.25 sys_exit) fast exit held in PendingFast
// decides it; false: this record is consumed (exitsyscall's own casgstatus, still waiting).
bool RecordDecoder::ResolvePendingFast(const capture::RecordView &v, std::vector<Record> &out) {
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
      return false;
    }
    if (SameSyscallExitAgain(v, pf->second.gp)) {
      ++stats_.ignored;
      return false;
    }
    // The thread's P: Go <= 1.25's next syscall entry shows it as m.oldp (m.p is 0 there).
    ProcId rp = kNoP;
    std::uint32_t rtick = 0;
    const bool has_p = RecordP(v, rp, rtick);
    const std::int64_t pid = has_p ? rp : -1;
    PendingFast &p = pf->second;
    const bool lost = c != nullptr && ((gsr && Classify(gsr->ctx.caller_pc) == Site::kExitSyscallSlow) ||
                                       (pid >= 0 && pid != p.base.p) ||
                                       (pid < 0 && c->curg && c->curg_goid == p.base.g));
    if (lost) {
      // Go <= 1.25: another M's exit (its CAS on the same m.oldp) may have taken the P
      // out of this syscall, and written that steal (p.taken); and a P this thread did not
      // hold in its syscall (the exit of a syscall whose P was retaken before: !kept) is
      // no one's to steal from this thread. Otherwise the steal was not seen: write it.
      if (!p.legacy || (p.kept && !p.taken)) {
        Record st = p.base;
        st.kind = RecordKind::kProcSteal;
        st.target_p = p.base.p;
        st.victim_m = p.base.m;
        Emit(out, std::move(st));
        if (p.legacy) steal_written_.insert(p.base.p);  // the stealer's handoffp may follow
      }
      in_syscall_.erase(p.gp);
      pending_exit_[v.tid()] = {p.base.g, p.base.ts};
      ++stats_.exits_no_p;
    } else if (p.legacy && p.taken && pid == p.base.p) {
      // Go <= 1.25: another M's exit took the P out of this syscall (its CAS on the same
      // stale m.oldp won first: p.taken), yet the thread holds it now with no acquirep
      // before (an idle P's path, probed: the branch above): its own CAS won later, on
      // the P in that other M's next syscall — the steal-back, whatever the record's
      // tick says (a GSTATUS record away from a syscall reads none). Written as a fast
      // exit, the P was back on this M before the other M's ProcSteal of it from this
      // syscall could apply (seen on go1.19's HTTP server: that steal then forced, "P
      // running on M, not in a syscall").
      in_syscall_.erase(p.gp);
      ++stats_.exits_retaken;
      EmitStealBack(v, p.base.p, p.base.g, out);
    } else if (p.legacy && pid == p.base.p && rtick != 0 && rtick != PTickAfterWin(p)) {
      // Go <= 1.25: the thread holds its old P, but the P's syscalltick says other
      // syscall exits happened on it since this thread's sys_exit (each exit's ++,
      // exitsyscallfast_reacquired's, retake's): the CAS lost to another M holding the
      // same stale m.oldp (the kernel preempted this thread between sys_exit and its CAS),
      // and this thread took the P back later from that M's next syscall.
      in_syscall_.erase(p.gp);
      ++stats_.exits_retaken;
      EmitStealBack(v, p.base.p, p.base.g, out);
    } else {
      if (p.legacy && !p.kept) {  // this exit takes the P out of its holder's syscall
        for (auto &[tid, other] : pending_fast_)
          if (tid != v.tid() && other.legacy && other.base.p == p.base.p) other.taken = true;
        in_syscall_.erase(p.gp);
        MarkSyscallPTaken(p.base.p);
      }
      EmitFastExit(p, out);
    }
    pending_fast_.erase(pf);
  }
  return true;
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
    if (call->ctx.curg_goid == pe.g && SameSyscallExitAgain(v, call->ctx.curg)) {
      ++stats_.ignored;  // not the thread's next syscall: the same one's exit again
      skip_current_ = true;
      return;
    }
    if (site && site->role == probes::ProbeRole::kAcquireP) {
      // The plan probes acquirepNoTrace: this is exitsyscallTryGetP's P. Decode it (the
      // ProcStart), then the runtime's GoSysExit(true) + GoStart right after it. All three
      // carry this record's time: their order is the M's queue order (Model::Push keeps
      // records of equal time in the order written), so no time is made up for them.
      pending_exit_.erase(it);
      ++stats_.deferred;
      DecodeCall(v, out);
      const ProcId p = static_cast<ProcId>(static_cast<std::int64_t>(call->deref[0]));
      Record eb = Base(v, RecordKind::kGoSyscallEndBlocked);
      eb.p = p;
      eb.g = pe.g;
      Emit(out, std::move(eb));
      Record st = Base(v, RecordKind::kGoStart);
      st.p = p;
      st.g = kNoG;
      st.target_g = pe.g;
      Emit(out, std::move(st));
      skip_current_ = true;
      return;
    }
  }
  if (c != nullptr && c->p_id < 0) {
    // Go <= 1.25: the thread is in its next syscall with m.oldp = P: between the two it
    // got P back by exitsyscallfast's CAS on m.oldp (an idle P would have shown its
    // acquirep, a slow exit exitsyscall0's casgstatus), which takes P out of the syscall
    // of the M that had it since (retake's handoff gave it on): the steal-back.
    ProcId rp = kNoP;
    std::uint32_t rtick = 0;
    if (const gt_call_record *call = v.call(); call && (call->flags & GT_CALL_DEREF_OLDP) && RecordP(v, rp, rtick)) {
      pending_exit_.erase(it);
      ++stats_.deferred;
      in_syscall_.erase(call->ctx.curg);
      EmitStealBack(v, rp, pe.g, out);
    }
    return;
  }
  if (c == nullptr) return;  // still without a P: keep waiting
  pending_exit_.erase(it);
  ++stats_.deferred;
  if (cfg_.go_minor <= 25 && SyscallHolder(c->p_id, v.tid())) {
    // Go <= 1.25: the thread holds a P that another thread's syscall holds, and no
    // acquirep came before (an idle P is taken by pidleget + acquirep, probed, above):
    // exitsyscallfast's CAS on m.oldp won while that P was _Psyscall in the other M's
    // syscall (its handoff had given the P on, and the new holder entered a syscall),
    // and exitsyscallfast_reacquired wrote GoSysBlock(pp) for it: the steal-back, as
    // when this record is the thread's next syscall entry (above). Written as a plain
    // ProcStart, the P was "still held" by the other M (seen on go1.19's HTTP server:
    // a forEachP handoff, the P's next holder in a syscall, this thread's CAS).
    in_syscall_.erase(c->curg);
    EmitStealBack(v, c->p_id, pe.g, out);
    return;
  }
  // The P was acquired somewhere between the exit's entry and this record; the events
  // carry this record's time and come before its own (the M's queue order): stamping them
  // at the exit's entry could put the ProcStart before the previous owner's ProcStop.
  (void)pe.ts;
  Record ps = Base(v, RecordKind::kProcStart);
  ps.p = kNoP;
  ps.g = pe.g;
  ps.target_p = c->p_id;
  Emit(out, std::move(ps));
  Record eb = Base(v, RecordKind::kGoSyscallEndBlocked);
  eb.p = c->p_id;
  eb.g = pe.g;
  Emit(out, std::move(eb));
  Record st = Base(v, RecordKind::kGoStart);
  st.p = c->p_id;
  st.g = kNoG;
  st.target_g = pe.g;
  Emit(out, std::move(st));
}

// The syscall CALL roles (entry, exit, the steals of a syscall's P); false: not one of them.
bool RecordDecoder::DecodeSyscallCall(const capture::RecordView &v, const probes::ProbeSite &site,
                                      std::vector<std::uint64_t> &pcs, std::vector<Record> &out) {
  const gt_call_record &c = *v.call();
  switch (site.role) {
    case probes::ProbeRole::kReleaseP: {
      // Held only where the runtime hands the P off before the casgstatus: Go 1.26+
      // entersyscallblock ("(1) trace, (2) handoff, (3) _Gsyscall switch"). Go <= 1.25
      // switches first (casgstatus, then systemstack(entersyscallblock_handoff):
      // GoSysCall, handoffp(releasep()); go1.22/go1.23 proc.go), so the casgstatus record
      // was already decoded and this ProcStop is written now: held, it waited for the
      // thread's NEXT syscall entry, which then got this one's time and P (go1.22 gc
      // workload: gcBgMarkStartWorkers' second notetsleepg written at the first one's
      // handoff, its own lost to a "transition not captured" repair).
      if (cfg_.go_minor >= 26 && Innermost(c.ctx.caller_pc).starts_with("runtime.entersyscallblock") &&
          !HasRole(probes::ProbeRole::kEnterSyscallBlock)) {
        held_release_[v.tid()] = Base(v, RecordKind::kProcStop);  // see DecodeSyscallGstatus
        return true;
      }
      Emit(out, Base(v, RecordKind::kProcStop));
      return true;
    }
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
          return true;
        }
      }
      Record r = Base(v, RecordKind::kGoSyscallBegin);
      // The sys_enter tracepoint's syscall number (args[3]) and first argument (args[4]),
      // for the kernel view's syscall regions (model_kernel_syscall.cc): value = nr + 1.
      if (c.flags & GT_CALL_FROM_TRACEPOINT) {
        // ... and the goroutine's g.labels (args[5], bpf/gt_syscall_tp.bpf.h): a set that
        // pprof.Do put on it since it started is named before its syscall.
        if (cfg_.plan != nullptr && cfg_.plan->offsets.g_labels >= 0) {
          Record l = Base(v, RecordKind::kGoLabels);
          l.value = c.args[5];
          l.value2 = LabelsId(cfg_.go_minor, c.args[5], c.labels_id);
          l.flag = true;
          Emit(out, std::move(l));
        }
        r.value = c.args[3] + 1;
        r.value2 = c.args[4];
        r.text = FdName(static_cast<std::int64_t>(c.args[3]), c.args[4]);  // kernel_view_decoder.cc
      }
      // Go <= 1.25 cleared m.p in entersyscall: the syscall's P is m.oldp.
      if ((c.flags & GT_CALL_DEREF_OLDP) && c.ctx.p_id < 0 && c.ctx.m_oldp != 0)
        r.p = static_cast<ProcId>(static_cast<std::int32_t>(c.deref[0]));
      if (site.kind != probes::SiteKind::kCall || (c.flags & GT_CALL_STACK_FROM_ARGS)) {
        auto at = std::find(pcs.begin(), pcs.end(), c.args[0]);
        if (at != pcs.end()) pcs.erase(pcs.begin(), at);
      }
      r.stack = std::move(pcs);
      r.stack_skip = 1;
      if (r.p != kNoP) {
        MarkSyscallPTaken(r.p);  // a P is in one syscall at a time
        steal_written_.erase(r.p);  // a steal of it from now on is a new one
      }
      in_syscall_[c.ctx.curg] = {v.tid(), r.p};
      entry_tick_[v.tid()] = c.ctx.p_syscalltick;
      const ProcId entry_p = r.p;
      if (auto early = early_steal_.find(r.p); r.p != kNoP && early != early_steal_.end()) {
        // Go <= 1.25: a handoffp of this P found no syscall to take it from (its record
        // came first), and this entry finds the P no longer _Psyscall, its tick at or past
        // the one that steal left: the thread was preempted between entersyscall and the
        // kernel's sys_enter, and retake/forEachP took the P meanwhile. That steal is this
        // syscall's (the model applies it after this entry: ProcSteal waits for a P in a
        // syscall); the exit must not write another (seen on go1.19's HTTP server: the
        // exit's own steal then found the P with its next holder, "P running on M"). The
        // P's next holder may have made syscalls on it meanwhile (go1.23): their entries
        // read it _Psyscall and leave the steal waiting, and the tick has moved on. A steal
        // waits 50 ms at most (a syscall whose entry predates the attach has none).
        constexpr std::uint64_t kPsyscall = 2;
        constexpr std::uint64_t kEarlyStealWaitNs = 50'000'000;
        if (v.ts() > early->second.ts + kEarlyStealWaitNs) {
          early_steal_.erase(early);
        } else if ((c.flags & GT_CALL_DEREF_OLDP) &&
                   ((c.deref[1] != kPsyscall && c.deref[3] >= early->second.tick) ||
                    c.deref[3] + 1 == early->second.tick)) {
          // (Or the entry read the P still _Psyscall at the tick retake's ++ left one
          // behind: the handoffp record was delivered first from another CPU, go1.23.)
          in_syscall_[c.ctx.curg].p = kNoP;
          early_steal_.erase(early);
        }
      }
      Emit(out, std::move(r));
      if (auto held = gcwait_steal_.find(v.tid()); held != gcwait_steal_.end()) {
        // entersyscall_gcwait took this syscall's P before its sys_enter: the steal, after
        // the entry as the runtime writes it, when this entry reads that P at or past the
        // tick the steal left (the restarted world may have given it on meanwhile);
        // otherwise the held steal was another syscall's, whose entry wrote no record.
        const GcStopSteal st = held->second;
        gcwait_steal_.erase(held);
        if (entry_p == st.p && entry_p != kNoP && (c.flags & GT_CALL_DEREF_OLDP) && c.deref[3] >= st.tick_after)
          DecodeSyscallSteal(v, st.p, st.tick_after, out);
      }
      return true;
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
      return true;
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
        return true;
      }
      if (c.flags & GT_CALL_DEREF_OLDP) {
        // Go <= 1.25 (the sys_exit tracepoint, or a CALL of exitsyscall): m.p is 0 and
        // the syscall's P is m.oldp, deref = {id, status, m, syscalltick}. exitsyscallfast
        // gets it back iff it is still _Psyscall (its CAS): then GoSyscallEnd, or, if its
        // tick moved (it was taken and given back), the "lost and regained" events; the
        // thread's next record, or a steal of that P before it, decides (PendingFast).
        // Otherwise the exit waits for a P like a 1.26 slow one (PendingExit).
        constexpr std::uint64_t kPsyscall = 2;
        // (A steal decoded since the entry does not decide it: the P may be in another
        // M's syscall now, which this exit's CAS takes it from; PendingFast::kept says.)
        if (c.ctx.m_oldp != 0 && c.deref[1] == kPsyscall) {
          PendingFast pf;
          pf.base = Base(v, RecordKind::kGoSyscallEnd);
          pf.base.p = static_cast<ProcId>(static_cast<std::int32_t>(c.deref[0]));
          pf.p_tick = static_cast<std::uint32_t>(c.deref[3]);
          pf.kept = pf.p_tick == c.ctx.m_syscalltick;
          pf.legacy = true;
          pf.gp = c.ctx.curg;
          pf.steal_from_holder = true;
          pending_fast_[v.tid()] = std::move(pf);
          return true;
        }
        // m.oldp is no longer _Psyscall: someone took it out of this syscall. Unless a
        // steal of it was decoded since the entry (sys->second.p cleared), the stealer
        // is between its CAS and its record (retake and forEachP CAS, write ProcSteal,
        // ++syscalltick, then call handoffp, probed at its entry: seen 20 us after this
        // sys_exit and after this thread's acquirep of another P; the stop-the-world's
        // probe, kSTWSyscallSteal, also comes after its CAS): write the steal here, on this
        // thread; the stealer's record then finds the P idle.
        if (c.ctx.m_oldp != 0 && sys != in_syscall_.end() &&
            sys->second.p == static_cast<ProcId>(static_cast<std::int32_t>(c.deref[0])) &&
            !TakenByWaitingExit(sys->second.p, c.deref[1], c.deref[2])) {
          const ProcId st_p = sys->second.p;
          Record st = Base(v, RecordKind::kProcSteal);
          st.target_p = st_p;
          st.victim_m = v.tid();
          Emit(out, std::move(st));
          steal_written_.insert(st_p);  // the stealer's handoffp, if it comes, is this steal
          ++stats_.exits_self_stolen;
        }
        in_syscall_.erase(c.ctx.curg);
        ++stats_.exits_no_p;
        pending_exit_[v.tid()] = {g, v.ts()};
        return true;
      }
      if (c.ctx.p_id < 0 || stolen) {
        in_syscall_.erase(c.ctx.curg);
        ++stats_.exits_no_p;
        pending_exit_[v.tid()] = {g, v.ts()};
        return true;
      }
      // m.syscalltick is p.syscalltick as reentersyscall copied it: the entry record's
      // value when we saw the entry, else the M field when the plan reads it.
      PendingFast pf;
      pf.base = Base(v, RecordKind::kGoSyscallEnd);
      pf.kept = entry_tick ? *entry_tick == c.ctx.p_syscalltick
                           : (c.ctx.m_syscalltick == 0 || c.ctx.m_syscalltick == c.ctx.p_syscalltick);
      pf.gp = c.ctx.curg;
      pending_fast_[v.tid()] = std::move(pf);
      return true;
    }
    case probes::ProbeRole::kSyscallReleaseP: {
      // Go 1.26 syscallingThread.releaseP(state): s = {gp, mp, pp, status} in RAX, RBX,
      // RCX, RDI. trace.ProcSteal(s.pp) from the thread doing it (sysmon, STW, or the
      // syscalling thread itself in exitsyscallTryGetP).
      auto it = in_syscall_.find(c.args[0]);
      if (it == in_syscall_.end() || it->second.p < 0) {
        ++stats_.unusable;
        return true;
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
      return true;
    }
    case probes::ProbeRole::kHandoffP:
      // Go <= 1.25: retake (sysmon) and forEachP (a safe-point function for every P, e.g.
      // the GC's mcache flush) CAS a _Psyscall P to _Pidle, write ProcSteal (legacy:
      // GoSysBlock + ProcStop), ++syscalltick, then handoffp(pp) (proc.go retake; forEachP,
      // 1.22+ forEachPInternal): deref[3] is the tick after. The other callers hand off
      // their own P: no steal.
      if (!IsSyscallSteal(Innermost(c.ctx.caller_pc))) {
        ++stats_.ignored;
        return true;
      }
      DecodeSyscallSteal(v, static_cast<ProcId>(static_cast<std::int64_t>(c.deref[0])), c.deref[3], out);
      return true;
    case probes::ProbeRole::kSTWSyscallSteal:
      // Go <= 1.25 stopTheWorldWithSema: the same steal, CAS _Psyscall -> _Pgcstop, probed
      // right after the CAS, before its `pp.syscalltick++` (stw_steal_site.h).
      DecodeSyscallSteal(v, static_cast<ProcId>(static_cast<std::int64_t>(c.deref[0])), c.deref[3] + 1, out);
      return true;
    case probes::ProbeRole::kEnterSyscallGCStop: {
      // Go <= 1.25 entersyscall_gcwait: a thread entering a syscall while the world stops
      // gives it its own P (m.oldp, just set _Psyscall): the same CAS to _Pgcstop, the
      // runtime's steal written after its GoSyscallBegin (reentersyscall, proc.go). With
      // that entry decoded (casgstatus' entry probe, cgocall's CALL site) the steal is
      // decoded now; from the tracepoints the entry is the kernel's sys_enter, after this
      // probe: held until it (gcwait_steal_).
      const ProcId p = static_cast<ProcId>(static_cast<std::int64_t>(c.deref[0]));
      auto sys = in_syscall_.find(c.ctx.curg);
      if (sys != in_syscall_.end() && sys->second.tid == v.tid() && sys->second.p == p)
        DecodeSyscallSteal(v, p, c.deref[3] + 1, out);
      else
        gcwait_steal_[v.tid()] = {p, c.deref[3] + 1};
      return true;
    }
    default:
      return false;
  }
}

// Go <= 1.25: a steal of P out of a syscall by another thread (retake's or forEachP's
// handoffp, or the stop-the-world's CAS), with P's syscalltick after the stealer's ++.
void RecordDecoder::DecodeSyscallSteal(const capture::RecordView &v, ProcId p, std::uint64_t tick_after,
                                       std::vector<Record> &out) {
  Record r = Base(v, RecordKind::kProcSteal);
  r.target_p = p;
  r.victim_m = 0;  // the model knows which M the P's syscall is on
  if (steal_written_.contains(r.target_p)) {
    bool pending = false;  // an exit still waiting on this P: decided below, as before
    for (const auto &[tid, pf] : pending_fast_) pending = pending || pf.base.p == r.target_p;
    if (!pending) {
      // The exiting thread wrote this steal already (steal_written_).
      steal_written_.erase(r.target_p);
      ++stats_.ignored;
      return;
    }
  }
  const bool holder = SyscallHolder(r.target_p, 0);
  MarkSyscallPTaken(r.target_p);
  // Taken between the syscall's return (sys_exit) and exitsyscallfast's CAS: that
  // exit is a slow one after all.
  if (const std::optional<std::uint32_t> victim = HandoffVictim(r.target_p, tick_after)) {
    PendingFast &pf = pending_fast_.find(*victim)->second;
    pending_exit_[*victim] = {pf.base.g, pf.base.ts};
    in_syscall_.erase(pf.gp);
    pending_fast_.erase(*victim);
    ++stats_.exits_no_p;
  } else if (!holder) {
    early_steal_[r.target_p] = {static_cast<std::uint32_t>(tick_after), v.ts()};  // its entry may follow
  }
  Emit(out, std::move(r));
}

// Go <= 1.25: the thread whose exit retake/forEachP's handoffp of P (its syscalltick read
// after their `pp.syscalltick++`, proc.go retake) took the P from, among the exits still
// deciding fast or slow. Several may name P: one whose P another exit took back since
// (`taken`: its CAS lost already, it waits for its own next record) is the syscall of an
// earlier holder, not this one's (seen on go1.19: sysmon's steal assigned to such a stale
// exit left the real victim's exit fast, and the P in two syscalls at once). The victim
// is the exit whose P tick at sys_exit is the one retake incremented.
std::optional<std::uint32_t> RecordDecoder::HandoffVictim(ProcId p, std::uint64_t tick_after) const {
  std::optional<std::uint32_t> any;
  for (const auto &[tid, pf] : pending_fast_) {
    if (pf.taken || pf.base.p != p) continue;
    if (static_cast<std::uint64_t>(pf.p_tick) + 1 == tick_after) return tid;
    if (!any) any = tid;
  }
  return any;
}

// A sys_exit record of goroutine gp on a thread whose exit of gp's syscall was decoded and
// no entry since: the same syscall returning again. Seen on go1.23's HTTP bench (two
// sys_exit records 27 us apart, both -EAGAIN, no sys_enter between; consistent with a
// signal delivered at the syscall's return, whose rt_sigreturn from the handler returns
// the saved result with g still _Gsyscall). Read as the thread's next syscall entry, it
// made a steal-back of a P no one held ("P running on M, not in a syscall" + 3).
bool RecordDecoder::SameSyscallExitAgain(const capture::RecordView &v, std::uint64_t gp) const {
  const gt_call_record *call = v.call();
  if (call == nullptr || !(call->flags & GT_CALL_FROM_TRACEPOINT) || call->ctx.curg != gp) return false;
  const probes::ProbeSite *site = cfg_.plan ? cfg_.plan->site(call->probe_id) : nullptr;
  return site != nullptr && site->role == probes::ProbeRole::kExitSyscall;
}

// The sys_enter tracepoint's syscall is rt_sigreturn (args[3], the kernel's number): the
// return from a signal handler, through the runtime's sa_restorer (runtime.sigreturn,
// 1.21+ sigreturn__sigaction), which the filter takes for a goroutine's syscall whenever
// the signal came while the g was _Gsyscall (sigtramp puts the g back in TLS before it
// returns).
bool RecordDecoder::SignalReturnEntry(const capture::RecordView &v) const {
  const gt_call_record *call = v.kind() == GT_REC_CALL ? v.call() : nullptr;
  if (call == nullptr || !(call->flags & GT_CALL_FROM_TRACEPOINT)) return false;
  const probes::ProbeSite *site = cfg_.plan ? cfg_.plan->site(call->probe_id) : nullptr;
  return site != nullptr && site->role == probes::ProbeRole::kEnterSyscall &&
         SyscallReturnsFromSignal(static_cast<std::int64_t>(call->args[3]));
}

// True: v is no goroutine syscall's record, but a signal handler's rt_sigreturn (its entry,
// or the exit that follows it on the thread when the signal came outside a syscall).
// Inside one (the thread's syscall entry decoded, no exit since), the entry is nothing
// and its exit stays: the interrupted syscall's result as the return restores it (-EINTR
// ...). Outside, in entersyscall after _Gsyscall or in exitsyscall before _Grunning, it is
// no syscall at all: read as one, a SIGURG (the GC's preemption) that came after
// exitsyscallfast won its P back (m.p set) decided the exit waiting on that P and opened
// a syscall on it; the goroutine's next switch found the P "still in a syscall", the next
// steal of it "P running on M, not in a syscall" (go1.23, GC every 5 ms beside three
// goroutines in 1 ms nanosleeps: 4 repairs from one such record; 2-4 rt_sigreturn entries
// per 4 s recording). Its exit, the kernel's next record of the thread if the return
// lands in Go text, is dropped with it; the thread's next record of any other kind ends
// the wait (a return into the vDSO writes no exit).
bool RecordDecoder::SignalReturn(const capture::RecordView &v) {
  if (v.kind() != GT_REC_CALL && v.kind() != GT_REC_GSTATUS) return false;
  if (!signal_return_.empty() && signal_return_.erase(v.tid())) {
    const gt_call_record *call = v.kind() == GT_REC_CALL ? v.call() : nullptr;
    const probes::ProbeSite *site = call && cfg_.plan ? cfg_.plan->site(call->probe_id) : nullptr;
    if (site != nullptr && site->role == probes::ProbeRole::kExitSyscall && (call->flags & GT_CALL_FROM_TRACEPOINT))
      return true;
  }
  if (!SignalReturnEntry(v)) return false;
  const gt_call_record &c = *v.call();
  auto open = in_syscall_.find(c.ctx.curg);
  const bool in_syscall = open != in_syscall_.end() && open->second.tid == v.tid() &&
                          pending_fast_.find(v.tid()) == pending_fast_.end() &&
                          pending_exit_.find(v.tid()) == pending_exit_.end();
  if (!in_syscall) signal_return_.insert(v.tid());
  return true;
}

// Go <= 1.25: a sys_exit found its m.oldp P `status` (not _Psyscall) with p.m = `holder_m`:
// _Prunning under the M of a thread whose own exit, still deciding fast or slow, names P:
// that exit's CAS on its stale m.oldp took P out of this syscall, and its resolution
// writes the steal (EmitFastExit's steal from the holder, or the steal-back). Seen on the
// go1.23 HTTP bench when this sys_exit's record was decoded before that thread's next
// one (another CPU's ring): both wrote it ("P 1 in a syscall on M .., not on M ..", three
// more). Decoded in the other order, that resolution clears this syscall's P first.
bool RecordDecoder::TakenByWaitingExit(ProcId p, std::uint64_t status, std::uint64_t holder_m) const {
  constexpr std::uint64_t kPrunning = 1;
  if (status != kPrunning || holder_m == 0) return false;
  auto t = m_thread_.find(holder_m);
  if (t == m_thread_.end()) return false;
  auto pf = pending_fast_.find(t->second);
  return pf != pending_fast_.end() && pf->second.legacy && pf->second.base.p == p;
}

// Go <= 1.25: P is in the syscall of a thread other than `except` (its entry decoded, no
// steal of it since).
bool RecordDecoder::SyscallHolder(ProcId p, std::uint32_t except) const {
  if (p < 0) return false;
  for (const auto &[gp, sys] : in_syscall_)
    if (sys.p == p && sys.tid != except) return true;
  return false;
}

// Go <= 1.25: a steal of P was decoded: the goroutine whose syscall held it no longer
// does (its exit then finds no steal left to write).
void RecordDecoder::MarkSyscallPTaken(ProcId p) {
  for (auto &[gp, sys] : in_syscall_)
    if (sys.p == p) sys.p = kNoP;
}

// Consumes pf (its record is moved out): the caller drops it next.
void RecordDecoder::EmitFastExit(PendingFast &pf, std::vector<Record> &out) {
  in_syscall_.erase(pf.gp);
  if (pf.kept) {
    ++stats_.exits_fast;
    Emit(out, std::move(pf.base));
    return;
  }
  ++stats_.exits_retaken;
  Record st = pf.base;
  st.kind = RecordKind::kProcSteal;
  st.target_p = pf.base.p;
  st.victim_m = pf.steal_from_holder ? 0 : pf.base.m;  // 0: the model knows the P's syscall M
  Emit(out, std::move(st));
  Record ps = pf.base;
  ps.kind = RecordKind::kProcStart;
  ps.target_p = pf.base.p;
  ps.p = kNoP;
  Emit(out, std::move(ps));
  Record eb = pf.base;
  eb.kind = RecordKind::kGoSyscallEndBlocked;
  Emit(out, std::move(eb));
  Record gs = pf.base;
  gs.kind = RecordKind::kGoStart;
  gs.target_g = pf.base.g;
  gs.g = kNoG;
  Emit(out, std::move(gs));
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

// The casgstatus rows of syscalls (gstatus_table.h handlers): entry (with Go 1.26's held
// ProcStop of entersyscallblock), Go <= 1.25's fast exit and the exit without a P.
void RecordDecoder::DecodeSyscallGstatus(const gstatus::Row &row, const capture::RecordView &v, Record &&r,
                                         std::vector<std::uint64_t> &pcs, std::vector<Record> &out) {
  const gt_gstatus_record &gs = *v.gstatus();
  using gstatus::Handler;
  switch (row.handler) {
    case Handler::kSyscallBeginUnlessEntryProbed:
      if (HasRole(probes::ProbeRole::kEnterSyscallBlock)) {
        ++stats_.ignored;  // the entry probe wrote GoSyscallBegin (CALL kEnterSyscallBlock)
        return;
      }
      [[fallthrough]];
    case Handler::kSyscallBegin: {
      // GoSysCall's stack(1) starts at syscallpc's frame (the row's skip).
      TrimSyscallEntry(pcs);
      Attach(row, r, pcs);
      auto held_stop = held_release_.find(v.tid());
      if (held_stop != held_release_.end()) {
        // Go 1.26+ entersyscallblock: GoSysCall, then handoffp(releasep()) [ProcStop], then
        // this casgstatus. Write them in the runtime's order (only 1.26+ holds, kReleaseP),
        // both at the ProcStop's time: their order is the M's queue order.
        r.ts = held_stop->second.ts;
        r.p = held_stop->second.p;
      }
      syscall_p_[v.tid()] = r.p;
      if (r.p != kNoP) {
        MarkSyscallPTaken(r.p);  // a P is in one syscall at a time
        steal_written_.erase(r.p);
      }
      in_syscall_[gs.gp] = {v.tid(), r.p};
      Emit(out, std::move(r));
      if (held_stop != held_release_.end()) {
        Emit(out, std::move(held_stop->second));
        held_release_.erase(held_stop);
      }
      return;
    }
    case Handler::kExitSyscallFast: {
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
        Emit(out, std::move(r));  // GoSyscallEnd
        return;
      }
      if (p == entry_p && p != kNoP) {
        // exitsyscallfast_reacquired: ProcSteal(self) + ProcStart.
        Record st = Base(v, RecordKind::kProcSteal);
        st.target_p = p;
        st.victim_m = v.tid();
        st.g = gs.goid;
        Emit(out, std::move(st));
        Record ps = Base(v, RecordKind::kProcStart);
        ps.target_p = p;
        ps.g = gs.goid;
        Emit(out, std::move(ps));
      }
      Record eb = Base(v, RecordKind::kGoSyscallEndBlocked);
      eb.g = gs.goid;
      Emit(out, std::move(eb));
      Record start = Base(v, RecordKind::kGoStart);
      start.target_g = gs.goid;
      start.g = kNoG;
      Emit(out, std::move(start));
      return;
    }
    case Handler::kExitSyscallNoP:
      // trace.GoSysExit(true) without a P: the syscall's P bookkeeping ends here.
      in_syscall_.erase(gs.gp);
      syscall_p_.erase(v.tid());
      r.p = kNoP;
      Emit(out, std::move(r));
      return;
    default:
      return;
  }
}

}  // namespace gotraced::model
