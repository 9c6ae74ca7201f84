// The Go context of a uprobe hit (struct gt_go_ctx: g, m, curg, p and their ids), read
// from the registers saved in the thread's scratch. Stands on its own.
#pragma once

#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_read.bpf.h"

// A register by offset in pt_regs, loaded in asm so that the offset stays a constant in
// the instruction (clang may otherwise fold several ctx loads into one at a computed
// offset, which the verifier refuses: "dereference of modified ctx ptr").
#define GT_CTX_LOAD(ctx, field)                                                              \
  ({                                                                                         \
    __u64 v_;                                                                                \
    asm volatile("%[v] = *(u64 *)(%[c] + %[o])"                                              \
                 : [v] "=r"(v_)                                                              \
                 : [c] "r"(ctx), [o] "i"(__builtin_offsetof(struct pt_regs, field)));        \
    v_;                                                                                      \
  })

// Copies what a hit reads of the registers into s->regs (and the cookie), once.
static __always_inline void save_regs(struct pt_regs *ctx, struct scratch *s) {
  struct gt_regs *r = &s->regs;
  r->r[GT_REG_NONE] = 0;
  r->r[GT_REG_AX] = GT_CTX_LOAD(ctx, ax);
  r->r[GT_REG_BX] = GT_CTX_LOAD(ctx, bx);
  r->r[GT_REG_CX] = GT_CTX_LOAD(ctx, cx);
  r->r[GT_REG_DX] = GT_CTX_LOAD(ctx, dx);
  r->r[GT_REG_SI] = GT_CTX_LOAD(ctx, si);
  r->r[GT_REG_DI] = GT_CTX_LOAD(ctx, di);
  r->r[GT_REG_R8] = GT_CTX_LOAD(ctx, r8);
  r->r[GT_REG_R9] = GT_CTX_LOAD(ctx, r9);
  r->r[GT_REG_R10] = GT_CTX_LOAD(ctx, r10);
  r->r[GT_REG_R11] = GT_CTX_LOAD(ctx, r11);
  r->r[GT_REG_R12] = GT_CTX_LOAD(ctx, r12);
  r->r[GT_REG_R13] = GT_CTX_LOAD(ctx, r13);
  r->r[GT_REG_R15] = GT_CTX_LOAD(ctx, r15);
  r->r[14] = r->r[15] = 0;
  r->r14 = GT_CTX_LOAD(ctx, r14);
  r->sp = GT_CTX_LOAD(ctx, sp);
  r->bp = GT_CTX_LOAD(ctx, bp);
  r->ip = GT_CTX_LOAD(ctx, ip);
  r->cookie = bpf_get_attach_cookie(ctx);
}

static __always_inline __u32 site_flags(const struct scratch *s) { return (__u32)((s->regs.cookie >> 16) & 0xffff); }
static __always_inline __u32 site_probe_id(const struct scratch *s) { return (__u32)(s->regs.cookie & 0xffff); }

// True when an entry+4 site's JBE to morestack will be taken: the function will be
// re-entered from its start after the stack grows and this site hit again.
static __always_inline bool morestack_pending(struct scratch *s) {
  __u32 flags = site_flags(s);
  if (!(flags & (GT_CALL_CHECK_MORESTACK | GT_CALL_CHECK_MORESTACK_R12))) return false;
  __s32 off = cfg.g_stackguard0;
  if (off >= 0 && (flags & GT_CALL_GUARD_STACKGUARD1)) off += 8;  // stackguard1 follows stackguard0
  __u64 guard = rdf64(s->regs.r14, off);
  __u64 v = (flags & GT_CALL_CHECK_MORESTACK_R12) ? s->regs.r[GT_REG_R12] : s->regs.sp;
  return v <= guard;
}

// Options of gt_go_ctx.
#define GT_CTX_SYS 0x1       // also m.oldp, m.syscalltick, p.syscalltick
#define GT_CTX_BLOCK 0x2     // also m.waitTraceSkip/BlockReason into s->mw
#define GT_CTX_PC_LATER 0x4  // caller_pc comes from the stack walk when it starts from the
                             // registers (pcs[0] is the same word): left 0 when R14 is m->curg
#define GT_CTX_PC_NONE 0x8   // caller_pc left 0 (the caller reads it with other words)
#define GT_CTX_SELF_LOADED 0x10  // view GT_VIEW_SELF already holds a fresh copy of R14's g
                                 // (the syscall tracepoints read its status from it)

// m.curg, m.p, m.id (and m.oldp with `sys`) into s->c without the big copy of m: one
// 64-byte read at cfg.m_win_off when they fit it (runtime2.go `type m`: adjacent in every
// supported Go), else one read each. s->c.m_id holds the raw m.id until gt_go_ctx ends.
static __always_inline void read_m_fields(struct scratch *s, __u64 m, bool sys) {
  struct gt_go_ctx *c = &s->c;
  if (cfg.m_win_off >= 0) {
    __u64 *w = s->tmp;
    __builtin_memset(w, 0, 64);
    if (m && bpf_probe_read_user(w, 64, (const void *)(m + cfg.m_win_off)) != 0) count_fault();
    c->curg = w[((cfg.m_curg - cfg.m_win_off) >> 3) & 7];
    c->p = w[((cfg.m_p - cfg.m_win_off) >> 3) & 7];
    c->m_id = w[((cfg.m_id - cfg.m_win_off) >> 3) & 7];
    c->m_oldp = w[((cfg.m_oldp - cfg.m_win_off) >> 3) & 7];
  } else {
    c->curg = rdf64(m, cfg.m_curg);
    c->p = rdf64(m, cfg.m_p);
    c->m_id = rdf64(m, cfg.m_id);
    c->m_oldp = sys ? rdf64(m, cfg.m_oldp) : 0;
  }
}

// Fills s->c (and views GT_VIEW_SELF, GT_VIEW_CURG: copies of R14's g and m->curg for later reads; s->mw
// with GT_CTX_BLOCK). A global function, verified once whatever its caller: `opts`
// (GT_CTX_*) is a scalar here. Both ways of reading m end with the same kinds of values
// (unknown scalars) and no flag says which way was taken, so the verifier can merge them.
// Values go straight into s->c rather than locals: this function's own BPF stack stays
// under 64 bytes (gt_maps.bpf.h says why).
__noinline int gt_go_ctx(struct scratch *s, __u32 opts) {
  if (!s) return 0;
  __u64 g = s->regs.r14;
  struct gt_go_ctx *c = &s->c;
  c->g = g;
  c->m_syscalltick = 0;
  bool cached = g && s->mc_g == g;
  if (opts & GT_CTX_SELF_LOADED) {
    cached = false;
    c->m = gv_read(s, GT_VIEW_SELF, cfg.g_m, 8);
  } else if (cached) {
    c->m = s->mc_m;
    s->views[GT_VIEW_SELF].g = g;
    s->views[GT_VIEW_SELF].slot = GT_GSLOT_NONE;  // nothing else of a g0 is read; any read goes to the target
  } else {
    gview_load(s, GT_VIEW_SELF, g, 0);
    c->m = gv_read(s, GT_VIEW_SELF, cfg.g_m, 8);
  }
  if (cfg.m_win_off >= 0 && cfg.m_big_len && (opts & (GT_CTX_SYS | GT_CTX_BLOCK))) {
    // curg, p, oldp, id, syscalltick and the wait-trace pair in one read. With m == 0 the
    // read fails and the helper zeroes the copy: every field reads 0, as a failed single
    // read would (only a real m's failure is a fault).
    if (bpf_probe_read_user(s->mwin, cfg.m_big_len, (const void *)(c->m + cfg.m_win_off)) != 0 && c->m)
      count_fault();
    c->curg = mw_read(s, cfg.m_curg, 8);
    c->p = mw_read(s, cfg.m_p, 8);
    c->m_id = mw_read(s, cfg.m_id, 8);
    c->m_oldp = mw_read(s, cfg.m_oldp, 8);
    c->m_syscalltick = (__u32)mw_read(s, cfg.m_syscalltick, 4);
    if (opts & GT_CTX_BLOCK) {
      s->mw.reason = cfg.m_wait_trace_block_reason >= 0 ? mw_read(s, cfg.m_wait_trace_block_reason, 1) : 0;
      s->mw.skip = cfg.m_wait_trace_skip >= 0 ? mw_read(s, cfg.m_wait_trace_skip, 8) : 0;
    }
  } else {
    read_m_fields(s, c->m, opts & GT_CTX_SYS);
    if (opts & GT_CTX_SYS) c->m_syscalltick = rdf32(c->m, cfg.m_syscalltick);
    if (opts & GT_CTX_BLOCK)
      read_pair(s, c->m, cfg.m_wait_trace_block_reason, cfg.m_wait_trace_skip, &s->mw.reason, &s->mw.skip);
  }
  if (!(opts & GT_CTX_SYS)) {
    c->m_oldp = 0;
    c->m_syscalltick = 0;
  }
  if (c->curg == g) {
    s->views[GT_VIEW_CURG] = s->views[GT_VIEW_SELF];
  } else {
    gview_load(s, GT_VIEW_CURG, c->curg, 1);
    if (c->m && !cached) {
      s->mc_g = g;
      s->mc_m = c->m;
    }
  }
  c->curg_goid = gv_read(s, GT_VIEW_CURG, cfg.g_goid, 8);
  c->m_id = c->m ? c->m_id : -1;
  // p.syscalltick is 20 bytes after p.id in every supported layout (runtime2.go `type
  // p`: id, status, link, schedtick, syscalltick): a hit that wants it reads the three in
  // one copy.
  __s32 tick_rel = cfg.p_syscalltick - cfg.p_id;
  c->p_syscalltick = 0;
  __u64 p = c->p;
  if (cfg.p_id_status_adjacent && (opts & GT_CTX_SYS) && p && tick_rel >= 8 && tick_rel <= 28 && !(tick_rel & 3)) {
    __u32 *pw = (__u32 *)s->tmp;
    __builtin_memset(pw, 0, 32);
    if (bpf_probe_read_user(pw, 32, (const void *)(p + cfg.p_id)) != 0) count_fault();
    c->p_id = (__s32)pw[0];
    c->p_status = pw[1];
    c->p_syscalltick = pw[(tick_rel >> 2) & 7];
  } else {
    if (cfg.p_id_cache && !(opts & GT_CTX_SYS) && p && p == s->pc_p && s->pc_epoch == gt_p_epoch) {
      c->p_id = s->pc_id;  // p.id never changes (bpf_config.h p_id_cache): no read
      c->p_status = GT_P_STATUS_UNREAD;
    } else if (cfg.p_id_status_adjacent) {
      __u64 idst = gt_read(p, cfg.p_id, 8);
      c->p_id = p ? (__s32)(__u32)idst : -1;
      c->p_status = (__u32)(idst >> 32);
    } else {
      c->p_id = p ? (__s32)rdf32(p, cfg.p_id) : -1;
      c->p_status = rdf32(p, cfg.p_status);
    }
    if (opts & GT_CTX_SYS) c->p_syscalltick = rdf32(p, cfg.p_syscalltick);
  }
  if (cfg.p_id_cache && p && c->p_id >= 0) {
    s->pc_epoch = gt_p_epoch;
    s->pc_p = p;
    s->pc_id = c->p_id;
  }
  __u32 flags = site_flags(s);
  if ((opts & GT_CTX_PC_NONE) || ((opts & GT_CTX_PC_LATER) && c->curg == g))
    c->caller_pc = 0;
  else if (flags & GT_SITE_AT_CALL)
    c->caller_pc = s->regs.ip + 5;
  else if (flags & GT_SITE_FRAME_READY)
    c->caller_pc = rd64(s->regs.bp + 8);
  else
    c->caller_pc = rd64(s->regs.sp);
  c->sp = s->regs.sp;
  return 0;
}
