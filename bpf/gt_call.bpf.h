// Runtime sites other than casgstatus (P events, syscalls on Go >= 1.26, GC and STW,
// sweep, GOMAXPROCS, preemption): one GT_REC_CALL record per hit. Stands on its own.
#pragma once

#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_read.bpf.h"
#include "bpf/gt_go_ctx.bpf.h"
#include "bpf/gt_stack.bpf.h"
#include "bpf/gt_record.bpf.h"

// Counts the hit, drops it outside the target (uprobes are attached per pid, so this
// should stay 0), and saves the registers into the thread's scratch. NULL: no record.
static __always_inline struct scratch *uprobe_begin(struct pt_regs *ctx) {
  struct gt_cpu_counters *cc = cpu_counters();
  if (cc) __sync_fetch_and_add(&cc->hits, 1);
  const __u32 target = gt_target_tgid;
  if (target && (__u32)(bpf_get_current_pid_tgid() >> 32) != target) {
    if (cc) __sync_fetch_and_add(&cc->filtered, 1);
    return NULL;
  }
  struct scratch *s =
      bpf_task_storage_get(&scratch_map, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!s) {
    // No memory for the thread's scratch: the record is lost, and counted as such.
    if (cc) __sync_fetch_and_add(&cc->lost, 1);
    return NULL;
  }
  save_regs(ctx, s);
  return s;
}

// GT_CALL_SPAN_REGS: deref = {npages, the count register, allocCount, elemsize}. The
// three mspan fields lie within 128 bytes of npages in every supported layout
// (mheap.go `type mspan`: npages, ..., allocCount, spanclass, ..., elemsize): one copy.
static __always_inline void read_span_regs(struct scratch *s, __u64 *deref) {
  __u64 cookie = s->regs.cookie;
  __u64 span = s->regs.r[(cookie >> GT_SPAN_REG_COOKIE_SHIFT) & 15];
  deref[1] = s->regs.r[(cookie >> GT_NFREED_REG_COOKIE_SHIFT) & 15];
  __s32 base = cfg.span_npages;
  __s32 ra = cfg.span_alloc_count - base, re = cfg.span_elemsize - base;
  if (span && base >= 0 && ra >= 0 && ra <= 126 && re >= 0 && re <= 120) {
    __u8 *w = s->swin;  // free: the walk, if any, has been copied out already
    __builtin_memset(w, 0, 128);
    if (bpf_probe_read_user(w, 128, (const void *)(span + base)) != 0) count_fault();
    __u64 oa = (__u64)ra, oe = (__u64)re;
    asm volatile("%[o] &= 127" : [o] "+r"(oa));
    asm volatile("%[o] &= 127" : [o] "+r"(oe));
    deref[0] = *(__u64 *)w;
    deref[2] = *(__u16 *)(w + oa);
    deref[3] = *(__u64 *)(w + oe);
    return;
  }
  deref[0] = rdf64(span, cfg.span_npages);
  deref[2] = (__u16)rdf32(span, cfg.span_alloc_count);  // a uint16 followed by more fields
  deref[3] = rdf64(span, cfg.span_elemsize);
}

// deref = {p.id, p.status, p.m, p.syscalltick} of the P in a0: one 64-byte copy from
// p.id when the four fit it (runtime2.go `type p`: id, status, link, schedtick,
// syscalltick, sysmontick, m; go1.26: m at id+56), else false and the caller reads them
// one by one. acquirep's P (gt_proc, a few thousand hits/s on a busy server) was four
// reads of ~50-70 ns each.
static __always_inline bool read_p_window(struct scratch *s, __u64 p, __u64 *deref) {
  __s32 rs = cfg.p_status - cfg.p_id, rm = cfg.p_m - cfg.p_id, rt = cfg.p_syscalltick - cfg.p_id;
  if (!p || cfg.p_id < 0 || cfg.p_status < 0 || cfg.p_m < 0 || cfg.p_syscalltick < 0) return false;
  if (rs < 0 || rs > 60 || rt < 0 || rt > 60 || rm < 0 || rm > 56) return false;
  __u8 *w = (__u8 *)s->tmp;  // not on the BPF stack (gt_maps.bpf.h)
  __builtin_memset(w, 0, 64);
  if (bpf_probe_read_user(w, 64, (const void *)(p + cfg.p_id)) != 0) count_fault();
  __u64 os = (__u64)rs, om = (__u64)rm, ot = (__u64)rt;
  asm volatile("%[o] &= 63" : [o] "+r"(os));
  asm volatile("%[o] &= 63" : [o] "+r"(om));
  asm volatile("%[o] &= 63" : [o] "+r"(ot));
  _Static_assert(sizeof(((struct scratch *)0)->tmp) == 64, "the masks above");
  deref[0] = *(__u32 *)w;
  deref[1] = *(__u32 *)(w + os);
  deref[2] = *(__u64 *)(w + om);
  deref[3] = *(__u32 *)(w + ot);
  return true;
}

// The body of a CALL record from the scratch (GT_EMIT's FILL).
#define GT_FILL_CALL(r, seq, stack) fill_call(s, r, seq, stack)
static __always_inline void fill_call(struct scratch *s, struct gt_call_record *r, __u32 seq, bool stack) {
  __u32 flags = site_flags(s);
  fill_header(&r->h, GT_REC_CALL, seq);
  __builtin_memcpy(&r->ctx, &s->c, sizeof(s->c));
  r->probe_id = site_probe_id(s);
  r->flags = flags;
  r->args[0] = s->regs.r[GT_REG_AX];
  r->args[1] = s->regs.r[GT_REG_BX];
  r->args[2] = s->regs.r[GT_REG_CX];
  r->args[3] = s->regs.r[GT_REG_DI];
  r->args[4] = s->regs.r[GT_REG_SI];
  r->args[5] = s->regs.r[GT_REG_R8];
  r->deref[0] = s->deref[0];
  r->deref[1] = s->deref[1];
  r->deref[2] = s->deref[2];
  r->deref[3] = s->deref[3];
  r->has_stack = stack;
  __builtin_memset(r->pad, 0, sizeof(r->pad));
  // A sys_enter tracepoint's label set identity (gt_labels.bpf.h); 0 for every other site.
  r->labels_id.w[0] = s->lwin[0];
  r->labels_id.w[1] = s->lwin[1];
  r->labels_id.w[2] = s->lwin[2];
  r->labels_id.w[3] = s->lwin[3];
}

// The record of one hit, from the scratch (context and, with want_stack, the walk done).
// A global function: verified once per program.
__noinline int gt_call_emit(struct scratch *s, __u32 want_stack) {
  if (!s) return 0;
  __u32 flags = site_flags(s);
  // A P read inside a function body names its register in the cookie (0: RAX).
  __u32 areg = (flags & GT_CALL_ARG0_P) ? (__u32)(s->regs.cookie >> GT_ARG0_REG_COOKIE_SHIFT) & 15 : 0;
  __u64 a0 = (flags & GT_CALL_DEREF_OLDP) ? s->c.m_oldp : s->regs.r[areg ? areg : GT_REG_AX];
  __u64 *d = s->deref;
  if (flags & GT_CALL_ARG0_G) {
    d[0] = rdf64(a0, cfg.g_goid);
    d[1] = rdf32(a0, cfg.g_atomicstatus);
    d[2] = rdf8(a0, cfg.g_waitreason);
    d[3] = rdf64(a0, cfg.g_m);
  } else if ((flags & (GT_CALL_ARG0_P | GT_CALL_DEREF_OLDP)) && read_p_window(s, a0, d)) {
    // the four in one copy
  } else if (flags & (GT_CALL_ARG0_P | GT_CALL_DEREF_OLDP)) {
    d[0] = rdf32(a0, cfg.p_id);
    d[1] = rdf32(a0, cfg.p_status);
    d[2] = rdf64(a0, cfg.p_m);
    d[3] = rdf32(a0, cfg.p_syscalltick);
  } else if (flags & GT_CALL_ARG0_M) {
    d[0] = rdf64(a0, cfg.m_id);
    d[1] = rdf64(a0, cfg.m_procid);
    d[2] = rdf64(a0, cfg.m_curg);
    d[3] = rdf64(a0, cfg.m_p);
  } else if (flags & GT_CALL_SPAN_REGS) {
    read_span_regs(s, d);
  } else {
    d[0] = d[1] = d[2] = d[3] = 0;
  }
  if (!(flags & GT_CALL_FROM_TRACEPOINT)) s->lwin[0] = s->lwin[1] = s->lwin[2] = s->lwin[3] = 0;
  GT_EMIT(struct gt_call_record, GT_FILL_CALL, cpu_counters(), want_stack, s->tail.nframes, &s->tail, s->pcs);
}

// One site class: context, stack when the class has one, record. `stack` is a constant
// of each program: the daemon attaches a site to the program of its class whose stack
// matches the site's GT_CALL_STACK (probes/program_for_site.cc).
static __always_inline int call_site(struct pt_regs *ctx, const bool stack) {
  struct scratch *s = uprobe_begin(ctx);
  if (!s) return 0;
  if (morestack_pending(s)) {
    struct gt_cpu_counters *cc = cpu_counters();
    if (cc) __sync_fetch_and_add(&cc->morestack_skips, 1);
    return 0;
  }
  // procresize may make Ps (a stopped world): the threads' cached P ids start over.
  if (cfg.p_id_cache && site_probe_id(s) == cfg.procresize_probe_id) __sync_fetch_and_add(&gt_p_epoch, 1);
  bool walked = go_ctx_and_stack(s, GT_CTX_SYS, stack);
  return gt_call_emit(s, walked);
}

// A sweep bracket's sites (GT_CALL_SWEEP_*). A span swept outside a bracket (bgsweep ->
// sweepone, finishsweep_m) and a bracket that swept nothing yield no event
// (traceruntime.go GCSweepSpan: `if pp.trace.maySweep`; GCSweepDone: `if
// pp.trace.inSweep`): no record.
static __always_inline int sweep_site(struct pt_regs *ctx, const __u32 kind) {
  struct scratch *s = uprobe_begin(ctx);
  if (!s) return 0;
  if (kind == GT_CALL_SWEEP_OPEN) {
    s->sweep = 1;
    return 0;
  }
  if (!(s->sweep & 1)) return 0;
  bool want_stack = false;
  if (kind == GT_CALL_SWEEP_CLOSE) {
    __u32 seen = s->sweep & 2;
    s->sweep = 0;
    if (!seen) return 0;
  } else {
    // GCSweepBegin (and its stack) is the bracket's first span's.
    want_stack = (site_flags(s) & GT_CALL_STACK) && !(s->sweep & 2);
    s->sweep = 3;
  }
  bool walked = go_ctx_and_stack(s, GT_CTX_SYS, want_stack);
  return gt_call_emit(s, walked);
}
