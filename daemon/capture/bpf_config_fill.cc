#include "daemon/capture/bpf_config_fill.h"

#include "daemon/procmem/label_identity.h"

#include <algorithm>
#include <cstring>
#include <utility>

namespace gotraced::capture {

void FillConfig(const probes::ProbePlan &plan, pid_t pid, gt_bpf_config *c, uint64_t load_bias) {
  std::memset(c, 0, sizeof(*c));
  const auto &o = plan.offsets;
  c->target_tgid = uint32_t(pid);
  c->max_frames = plan.max_frames > GT_MAX_FRAMES ? GT_MAX_FRAMES : plan.max_frames;
  c->stack_prefers_syscall = plan.stack_prefers_syscall;
  for (int i = 0; i < 16; i++) c->stack_for_old[i] = plan.stack_for_old[i];
  c->g_stackguard0 = o.g_stackguard0;
  c->g_m = o.g_m;
  c->g_sched_pc = o.g_sched_pc;
  c->g_sched_sp = o.g_sched_sp;
  c->g_sched_bp = o.g_sched_bp;
  c->g_syscallsp = o.g_syscallsp;
  c->g_syscallpc = o.g_syscallpc;
  c->g_syscallbp = o.g_syscallbp;
  c->g_atomicstatus = o.g_atomicstatus;
  c->g_goid = o.g_goid;
  c->g_waitreason = o.g_waitreason;
  c->g_parent_goid = o.g_parent_goid;
  c->g_gopc = o.g_gopc;
  c->g_startpc = o.g_startpc;
  c->m_id = o.m_id;
  c->m_procid = o.m_procid;
  c->m_curg = o.m_curg;
  c->m_p = o.m_p;
  c->m_oldp = o.m_oldp;
  c->m_syscalltick = o.m_syscalltick;
  c->m_wait_trace_block_reason = o.m_wait_trace_block_reason;
  c->m_wait_trace_skip = o.m_wait_trace_skip;
  c->p_id = o.p_id;
  c->p_status = o.p_status;
  c->p_m = o.p_m;
  c->p_syscalltick = o.p_syscalltick;
  c->p_goidcache = o.p_goidcache;
  c->p_goidcacheend = o.p_goidcacheend;
  c->g_sync_safe_point = o.g_sync_safe_point;
  c->span_npages = o.span_npages;
  c->span_nelems = o.span_nelems;
  c->span_alloc_count = o.span_alloc_count;
  c->span_elemsize = o.span_elemsize;
  c->m_vdso_sp = o.m_vdso_sp;
  c->m_vdso_pc = o.m_vdso_pc;
  c->m_ncgo = o.m_ncgo;
  c->g_labels = o.g_labels;
  {
    // The words that identify a label set beyond its pointer (procmem/label_identity.h).
    const procmem::LabelRepr repr = procmem::LabelReprFor(plan.go_minor);
    const auto off = procmem::LabelIdOffsets(repr);
    c->labels_id_off[0] = off[0];
    c->labels_id_off[1] = off[1];
    c->labels_id_head = procmem::LabelIdHead(repr);
    c->labels_id_w1_at_w3 = repr == procmem::LabelRepr::kMap;
  }
  c->tls_g_off = plan.tls_g_offset;
  c->gstatus_groups_set = 1;
  // m.curg, m.p, m.oldp, m.id within one 64-byte window? (bpf/gotrace.bpf.c read_go_ctx)
  c->m_win_off = -1;
  {
    int32_t lo = std::min({o.m_curg, o.m_p, o.m_oldp, o.m_id});
    int32_t hi = std::max({o.m_curg, o.m_p, o.m_oldp, o.m_id});
    bool aligned = ((o.m_curg | o.m_p | o.m_oldp | o.m_id) & 7) == 0;
    if (lo >= 0 && hi + 8 - lo <= 64 && aligned) c->m_win_off = lo;
    // The same copy stretched to m.syscalltick and the wait-trace pair (the fields of
    // the m_big_len hits): only when it starts at m_win_off and stays within GT_MWIN.
    // Sizes as the BPF side reads them: syscalltick 4 bytes, skip 8, block reason 1.
    int32_t end = hi + 8;
    bool inside = o.m_syscalltick >= 0;
    for (auto [off, size] : {std::pair{o.m_syscalltick, 4}, {o.m_wait_trace_skip, 8}, {o.m_wait_trace_block_reason, 1}}) {
      if (off < 0) continue;
      if (off < lo) inside = false;
      end = std::max(end, off + size);
    }
    if (c->m_win_off >= 0 && inside && end - lo <= GT_MWIN) c->m_big_len = uint32_t(end - lo);
  }
  c->p_id_status_adjacent = o.p_id >= 0 && o.p_status == o.p_id + 4;
  // The P id cache (bpf_config.h p_id_cache) is safe only while procresize, the one
  // place Ps are made, empties it: on only when the plan probes procresize.
  for (const auto &s : plan.sites) {
    if (s.role != probes::ProbeRole::kProcResize || s.via_tracepoint) continue;
    c->p_id_cache = o.p_id >= 0 ? 1 : 0;
    c->procresize_probe_id = s.id;
  }
  std::memcpy(c->gstatus_groups, plan.gstatus_groups, sizeof(c->gstatus_groups));
  // Syscalls from the tracepoints (probes/syscall_sites.h): the sites they stand for and
  // the ranges of runtime addresses they filter by.
  if (plan.syscall_tp) {
    for (const auto &s : plan.sites) {
      if (!s.via_tracepoint) continue;
      if (s.role == probes::ProbeRole::kExitSyscall) {
        c->sys_exit_probe_id = s.id;
      } else {
        c->sys_enter_probe_id = s.id;
        c->sys_enter_stack = (s.flags & GT_CALL_STACK) ? 1 : 0;
      }
    }
    c->sys_tp = plan.go_minor >= 26 ? 1 : 2;
    c->sys_pair = plan.syscall_pair ? 1 : 0;
    if (plan.syscall_pair)
      c->sys_min_us = static_cast<gt_u32>(std::min<uint64_t>((plan.syscall_min_ns + 999) / 1000, UINT32_MAX));
  }
  c->ksys = plan.kernel_syscalls ? 1 : 0;  // the kernel view's (syscall_sites.h UseKernelViewSyscalls)
  if (plan.syscall_tp || plan.kernel_syscalls) {
    c->go_text_lo = plan.go_text.lo + load_bias;
    c->go_text_hi = plan.go_text.hi + load_bias;
    c->sys_skip_lo = plan.sys_skip.lo + load_bias;
    c->sys_skip_hi = plan.sys_skip.hi + load_bias;
    // [0, 0) stays empty: a function the binary lacks skips nothing.
    auto more = [&](const probes::ProbePlan::Range &r, gt_u64 *lo, gt_u64 *hi) {
      if (r.hi > r.lo) *lo = r.lo + load_bias, *hi = r.hi + load_bias;
    };
    more(plan.sys_skip_more[0], &c->sys_skip2_lo, &c->sys_skip2_hi);
    more(plan.sys_skip_more[1], &c->sys_skip3_lo, &c->sys_skip3_hi);
  }
}

}  // namespace gotraced::capture
