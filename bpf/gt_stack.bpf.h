// Stack walks of m->curg by frame pointers, as runtime.traceStack would walk them
// (runtime/tracestack.go), into the thread's scratch. Stands on its own.
#pragma once

#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_read.bpf.h"
#include "bpf/gt_go_ctx.bpf.h"

// Copies GT_SWIN bytes of stack at `base` into s->swin. A stack's frames are a few dozen
// bytes each, so one copy usually holds the whole chain of a goroutine parked in the
// runtime (or most of it); the frame-pointer chain only goes up, so when it leaves the
// copy the next copy starts at the frame it reached.
static __always_inline void swin_load(struct scratch *s, __u64 base) {
  struct walk *w = &s->w;
  w->win_len = 0;
  if (w->no_win || !base) return;
  if (bpf_probe_read_user(s->swin, GT_SWIN, (const void *)base) != 0) {
    w->no_win = 1;
    return;
  }
  w->base = base;
  w->win_len = GT_SWIN;
}

// Offset of `addr` in the copy when `len` bytes from it are inside, else -1.
static __always_inline __s64 swin_off(const struct walk *w, __u64 addr, __u32 len) {
  if (w->win_len < len || addr < w->base || addr - w->base > w->win_len - len) return -1;
  __u64 off = addr - w->base;
  asm volatile("%[o] &= 511" : [o] "+r"(off));
  _Static_assert(GT_SWIN == 512, "the mask above");
  return (__s64)off;
}

// *(u64 *)addr from the copy, else read on its own.
static __always_inline __u64 swin_word(struct scratch *s, __u64 addr) {
  __s64 off = swin_off(&s->w, addr, 8);
  if (off >= 0) return *(__u64 *)(s->swin + (off & 511));
  return rd64(addr);
}

// One frame of runtime.fpTracebackPCs: pc = [fp+8], fp = [fp]. The slot comes from the
// loop index, not from a counter: the verifier (6.8+) checks bpf_loop callbacks until
// their state converges, and a precisely tracked counter never does. For the same reason
// the walk's state lives in the map value (s->w), not on the stack: what is loaded from
// a map is an unknown scalar to the verifier, so the window offsets and frame pointers
// of one iteration are not carried precisely into the next.
static long walk_step(__u32 idx, void *arg) {
  struct scratch *s = *(struct scratch **)arg;
  struct walk *w = &s->w;
  __u64 fp = w->fp;
  if (!fp) return 1;
  __u32 i = w->start + idx;
  if (i >= GT_MAX_FRAMES) return 1;
  __s64 off = swin_off(w, fp, 16);
  if (off < 0) {
    swin_load(s, fp);
    off = swin_off(w, fp, 16);
  }
  if (off < 0) {
    if (bpf_probe_read_user(s->swin, 16, (const void *)fp) != 0) {
      w->win_len = 0;
      w->flags |= GT_STACK_FAULT;
      return 1;
    }
    w->base = fp;
    w->win_len = 16;
    off = 0;
  }
  __u8 *p = s->swin + (off & 511);
  __u64 next = *(__u64 *)p, ret = *(__u64 *)(p + 8);
  // Mask in asm as well as check: clang drops a C mask it can prove redundant and then
  // indexes with a copy of i taken before the check, which the verifier rejects.
  __u64 slot = i;
  asm volatile("%[s] &= 127" : [s] "+r"(slot));
  _Static_assert(GT_MAX_FRAMES == 128, "the mask above");
  s->pcs[slot] = ret;
  w->n = i + 1;
  if (next && next <= fp) {
    w->flags |= GT_STACK_LOOP;
    return 1;
  }
  w->fp = next;
  return 0;
}

// Follows the chain prepared in s->w (fp, start, n) for up to cfg.max_frames pcs and
// closes s->tail (nframes, flags).
static __always_inline void walk_chain(struct scratch *s, __u32 start) {
  struct walk *w = &s->w;
  w->start = start;
  w->n = start;
  __u32 max = cfg.max_frames;
  if (max > GT_MAX_FRAMES) max = GT_MAX_FRAMES;
  struct scratch *arg = s;
  if (max > start) bpf_loop(max - start, walk_step, &arg, 0);
  __u32 n = w->n;
  __u8 wflags = w->flags;
  if (w->fp && n >= max) wflags |= GT_STACK_TRUNCATED;
  s->tail.nframes = n;
  s->tail.flags = wflags;
}

// Walks m->curg's stack (s->c.curg, its copy GT_VIEW_CURG): on the goroutine's own stack from
// the registers, else from curg.syscall* or curg.sched. The first stack copy starts at
// the lowest address the walk needs (SP, sched.sp or syscallsp), so the first frames and
// sched_sp_word come out of it. Fills s->tail and s->pcs; s->tail.source stays
// GT_STACK_NONE when there is no goroutine. A global function: verified once.
__noinline int gt_walk_curg(struct scratch *s) {
  if (!s) return 0;
  __builtin_memset(&s->tail, 0, sizeof(s->tail));
  __u64 g = s->c.curg;
  if (!g) return 0;
  struct walk *w = &s->w;
  __builtin_memset(w, 0, sizeof(*w));
  __u32 start = 1;
  if (site_flags(s) & GT_CALL_STACK_FROM_ARGS) {
    // A syscall's stack from the argument registers (proto/records.h): pc, sp, bp.
    s->tail.source = GT_STACK_SYSCALL;
    s->pcs[0] = s->regs.r[GT_REG_AX];
    __u64 fp = s->regs.r[GT_REG_CX], sp = s->regs.r[GT_REG_BX];
    w->fp = fp;
    swin_load(s, sp && sp < fp ? sp : fp);
  } else if (s->regs.r14 == g) {
    s->tail.source = GT_STACK_REGS;
    swin_load(s, s->regs.sp);
    w->fp = s->regs.bp;
    if (site_flags(s) & GT_SITE_FRAME_READY)
      start = 0;
    else if (site_flags(s) & GT_SITE_AT_CALL)
      s->pcs[0] = s->regs.ip + 5;
    else
      s->pcs[0] = swin_word(s, s->regs.sp);
  } else {
    __u64 syscallsp = cfg.stack_prefers_syscall ? gv_read(s, GT_VIEW_CURG, cfg.g_syscallsp, 8) : 0;
    if (syscallsp) {
      s->tail.source = GT_STACK_SYSCALL;
      s->pcs[0] = gv_read(s, GT_VIEW_CURG, cfg.g_syscallpc, 8);
      __u64 fp = gv_read(s, GT_VIEW_CURG, cfg.g_syscallbp, 8);
      w->fp = fp;
      swin_load(s, syscallsp < fp ? syscallsp : fp);
    } else {
      s->tail.source = GT_STACK_SCHED;
      s->pcs[0] = gv_read(s, GT_VIEW_CURG, cfg.g_sched_pc, 8);
      w->fp = gv_read(s, GT_VIEW_CURG, cfg.g_sched_bp, 8);
      __u64 sched_sp = gv_read(s, GT_VIEW_CURG, cfg.g_sched_sp, 8);
      if (sched_sp) {
        swin_load(s, sched_sp);
        s->tail.sched_sp_word = swin_word(s, sched_sp);
      }
      s->tail.sync_safe_point = (__u8)gv_read(s, GT_VIEW_CURG, cfg.g_sync_safe_point, 1);
    }
  }
  walk_chain(s, start);
  s->tail.stack_g = g;
  return 0;
}

// caller_pc after a context read with GT_CTX_PC_LATER: the walk's first PC when it
// started from the registers (the word at SP, or [BP+8] at a frame-ready site: what
// gt_go_ctx would have read), else read now.
static __always_inline void caller_pc_from_walk(struct scratch *s) {
  if (s->c.curg != s->regs.r14) return;  // gt_go_ctx read it
  if (s->tail.source == GT_STACK_REGS && s->tail.nframes > 0) {
    s->c.caller_pc = s->pcs[0];
    return;
  }
  __u32 flags = site_flags(s);
  s->c.caller_pc = (flags & GT_SITE_AT_CALL)       ? s->regs.ip + 5
                   : (flags & GT_SITE_FRAME_READY) ? rd64(s->regs.bp + 8)
                                                   : rd64(s->regs.sp);
}

// The context, then (want_stack) the walk; returns whether a stack was walked.
static __always_inline bool go_ctx_and_stack(struct scratch *s, __u32 opts, bool want_stack) {
  gt_go_ctx(s, want_stack ? (opts | GT_CTX_PC_LATER) : opts);
  if (!want_stack) return false;
  gt_walk_curg(s);
  if (!(opts & GT_CTX_PC_NONE)) caller_pc_from_walk(s);
  return s->tail.source != GT_STACK_NONE;
}
