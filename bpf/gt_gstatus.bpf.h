// runtime.casgstatus(gp *g, oldval, newval uint32): one GT_REC_GSTATUS record per
// goroutine status change. Stands on its own.
#pragma once

#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_read.bpf.h"
#include "bpf/gt_go_ctx.bpf.h"
#include "bpf/gt_stack.bpf.h"
#include "bpf/gt_record.bpf.h"
#include "bpf/gt_labels.bpf.h"

// ready's traceskip (GT_READ_SPILL, read by the daemon from the caller's spill slots
// [caller_fp+16] and [caller_fp+24]) and caller_pc ([SP]) at a site that is not frame-
// ready: BP is still the caller's frame pointer, so the three words are one frame apart
// on one stack (go1.26 runtime.ready's frame: a few dozen bytes) and one copy from SP
// holds them all. Runs after the walk, so s->swin is free again. A frame larger than the
// copy reads them one by one.
static __always_inline void read_pc_spill(struct scratch *s) {
  __u64 sp = s->regs.sp, bp = s->regs.bp;
  __u64 len = bp + 32 - sp;
  if (bp > sp && len < GT_SWIN) {
    asm volatile("%[l] &= 511" : [l] "+r"(len));
    if (bpf_probe_read_user(s->swin, len, (const void *)sp) != 0) count_fault();
    s->c.caller_pc = *(__u64 *)s->swin;
    __u64 a = len - 16, b = len - 8;
    asm volatile("%[a] &= 511" : [a] "+r"(a));
    asm volatile("%[b] &= 511" : [b] "+r"(b));
    s->spill[0] = *(__u64 *)(s->swin + a);
    s->spill[1] = *(__u64 *)(s->swin + b);
    return;
  }
  s->c.caller_pc = rd64(sp);
  s->spill[0] = s->spill[1] = 0;
  if (bp && bpf_probe_read_user(s->spill, sizeof(s->spill), (const void *)(bp + 16)) != 0) count_fault();
}

// Copies the body built in s->gs behind a fresh header (GT_EMIT's FILL).
#define GT_FILL_GSTATUS(r, seq, stack) fill_gstatus(s, r, seq, stack)
static __always_inline void fill_gstatus(struct scratch *s, struct gt_gstatus_record *r, __u32 seq, bool stack) {
  s->gs.has_stack = stack;
  __builtin_memcpy(r, &s->gs, sizeof(*r));
  fill_header(&r->h, GT_REC_GSTATUS, seq);
}

__noinline int gt_gstatus_emit(struct scratch *s, __u32 want_stack) {
  if (!s) return 0;
  GT_EMIT(struct gt_gstatus_record, GT_FILL_GSTATUS, cpu_counters(), want_stack, s->tail.nframes, &s->tail, s->pcs);
}

// The body of the record in s->gs for field groups `groups` (the spill slots, context
// and views are read). A global function, verified once; its own stack stays small.
__noinline int gt_gstatus_body(struct scratch *s, __u32 groups) {
  if (!s) return 0;
  struct gt_gstatus_record *r = &s->gs;
  __builtin_memcpy(&r->ctx, &s->c, sizeof(s->c));
  r->gp = s->regs.r[GT_REG_AX];
  r->goid = gv_read(s, GT_VIEW_GP, cfg.g_goid, 8);
  r->oldval = (__u32)s->regs.r[GT_REG_BX];
  r->newval = (__u32)s->regs.r[GT_REG_CX];
  if (groups & GT_READ_CREATE) {
    r->startpc = gv_read(s, GT_VIEW_GP, cfg.g_startpc, 8);
    r->gopc = gv_read(s, GT_VIEW_GP, cfg.g_gopc, 8);
    r->parent_goid = gv_read(s, GT_VIEW_GP, cfg.g_parent_goid, 8);
    read_pair(s, s->c.p, cfg.p_goidcache, cfg.p_goidcacheend, &r->p_goidcache, &r->p_goidcacheend);
  } else {
    r->startpc = r->gopc = r->parent_goid = r->p_goidcache = r->p_goidcacheend = 0;
  }
  if (groups & GT_READ_SYSCALL) {
    r->gp_m = gv_read(s, GT_VIEW_GP, cfg.g_m, 8);
    r->gp_syscallsp = gv_read(s, GT_VIEW_GP, cfg.g_syscallsp, 8);
  } else {
    r->gp_m = r->gp_syscallsp = 0;
  }
  if (groups & GT_READ_BLOCK) {
    r->waitreason = (__u8)gv_read(s, GT_VIEW_GP, cfg.g_waitreason, 1);
    r->m_block_reason = (__u8)s->mw.reason;  // a uint8 (traceBlockReason)
    r->m_trace_skip = (__u8)s->mw.skip;      // an int; its low byte
  } else {
    r->waitreason = r->m_block_reason = r->m_trace_skip = 0;
  }
  // gp is in the GP view's copy (g.labels lies inside GT_GWIN in every supported layout):
  // no extra read of the target.
  r->labels = (groups & GT_READ_LABELS) ? gv_read(s, GT_VIEW_GP, cfg.g_labels, 8) : 0;
  // The words that identify the set (proto/records.h gt_labels_id): two reads, only for a
  // goroutine that has labels.
  gt_labels_id(s, r->labels);
  r->labels_id.w[0] = s->lwin[0];
  r->labels_id.w[1] = s->lwin[1];
  r->labels_id.w[2] = s->lwin[2];
  r->labels_id.w[3] = s->lwin[3];
  r->probe_id = site_probe_id(s);
  r->caller_spill[0] = s->spill[0];
  r->caller_spill[1] = s->spill[1];
  return 0;
}

// The whole hit after the registers are saved; a global function (verified once).
__noinline int gt_gstatus_hit(struct scratch *s) {
  if (!s) return 0;
  __u32 oldval = (__u32)s->regs.r[GT_REG_BX], newval = (__u32)s->regs.r[GT_REG_CX];
  // Optional field groups for this transition (plan-chosen; all when not set).
  __u32 groups = 0xff;
  if (cfg.gstatus_groups_set) groups = (oldval < 16 && newval < 16) ? cfg.gstatus_groups[oldval & 15][newval & 15] : 0xff;
  bool want_stack = false;
  if (oldval < 16 && newval < 16) want_stack = (cfg.stack_for_old[oldval & 15] >> (newval & 15)) & 1;
  // ready (GT_READ_SPILL) at an entry site: caller_pc comes with the spill slots.
  bool frame_ready = site_flags(s) & GT_SITE_FRAME_READY, at_call = site_flags(s) & GT_SITE_AT_CALL;
  bool pc_spill = (groups & GT_READ_SPILL) && !frame_ready && !at_call;
  __u32 opts = ((groups & GT_READ_SYSCALL) ? GT_CTX_SYS : 0) | ((groups & GT_READ_BLOCK) ? GT_CTX_BLOCK : 0) |
               (pc_spill ? GT_CTX_PC_NONE : 0);
  s->mw.reason = s->mw.skip = 0;
  want_stack = go_ctx_and_stack(s, opts, want_stack);

  // One copy per distinct g (R14, m->curg, gp: often the same one) serves every g field.
  __u64 gp = s->regs.r[GT_REG_AX];
  if (gp == s->c.curg)
    s->views[GT_VIEW_GP] = s->views[GT_VIEW_CURG];
  else if (gp == s->regs.r14)
    s->views[GT_VIEW_GP] = s->views[GT_VIEW_SELF];
  else
    gview_load(s, GT_VIEW_GP, gp, 2);

  s->spill[0] = s->spill[1] = 0;
  if (pc_spill) {
    read_pc_spill(s);
  } else if (groups & GT_READ_SPILL) {
    __u64 caller_fp = frame_ready && !at_call ? rd64(s->regs.bp) : s->regs.bp;
    if (caller_fp && bpf_probe_read_user(s->spill, sizeof(s->spill), (const void *)(caller_fp + 16)) != 0)
      count_fault();
  }
  gt_gstatus_body(s, groups);
  return gt_gstatus_emit(s, want_stack);
}
