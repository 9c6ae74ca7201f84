// User annotations (runtime/trace tasks, regions, logs): one GT_REC_USER record per hit,
// the CALL record's fields plus the Go strings the plan named in the cookie
// (proto/records.h), copied with bounded reads. Nothing is interpreted here: which
// register holds a task id, a mode or a string is the plan's (daemon/probes/) and the
// decoder's (daemon/model/record_decoder_user.cc) business. Stands on its own.
#pragma once

#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_read.bpf.h"
#include "bpf/gt_go_ctx.bpf.h"
#include "bpf/gt_stack.bpf.h"
#include "bpf/gt_record.bpf.h"
#include "bpf/gt_call.bpf.h"

// The runtime's "in-process tracer on" flag: runtime address (load bias applied) and size
// (1 or 8; 0 = unknown). Set by the daemon before load (ProbePlan::user_tracing_flag_*).
const volatile __u64 gt_user_tracing_addr = 0;
const volatile __u32 gt_user_tracing_size = 0;

// Copies the Go string (ptr, len) into dst (GT_USER_STR_MAX bytes); returns len.
static __always_inline __u32 user_copy_str(__u8 *dst, __u64 ptr, __u64 len) {
  if (!ptr || !len) return 0;
  __u64 n = len < GT_USER_STR_MAX ? len : GT_USER_STR_MAX;
  // Bound for the verifier (n in [1, GT_USER_STR_MAX]).
  asm volatile("" : "+r"(n));
  if (n < 1 || n > GT_USER_STR_MAX) return 0;
  if (bpf_probe_read_user(dst, n, (const void *)ptr) != 0) count_fault();
  return len > 0xffffffffull ? 0xffffffffu : (__u32)len;
}

// args[n-1], args[n] for a cookie nibble n in 1..5 (0: none).
static __always_inline void user_str_regs(const __u64 *args, __u32 nib, __u64 *ptr, __u64 *len) {
  *ptr = 0;
  *len = 0;
  if (nib >= 1 && nib <= 5) {
    *ptr = args[(nib - 1) & 7];
    *len = args[nib & 7];
  }
}

// The body of a USER record from the scratch (GT_EMIT's FILL).
#define GT_FILL_USER(r, seq, stack) fill_user(s, r, seq, stack)
static __always_inline void fill_user(struct scratch *s, struct gt_user_record *r, __u32 seq, bool stack) {
  __u64 cookie = s->regs.cookie;
  fill_header(&r->call.h, GT_REC_USER, seq);
  __builtin_memcpy(&r->call.ctx, &s->c, sizeof(s->c));
  r->call.probe_id = site_probe_id(s);
  r->call.flags = site_flags(s);
  r->call.args[0] = s->regs.r[GT_REG_AX];
  r->call.args[1] = s->regs.r[GT_REG_BX];
  r->call.args[2] = s->regs.r[GT_REG_CX];
  r->call.args[3] = s->regs.r[GT_REG_DI];
  r->call.args[4] = s->regs.r[GT_REG_SI];
  r->call.args[5] = s->regs.r[GT_REG_R8];
  r->call.deref[0] = r->call.deref[1] = r->call.deref[2] = r->call.deref[3] = 0;
  if (gt_user_tracing_addr && (cookie & GT_USER_COOKIE_CTX_ARG1)) {
    // deref[0] = the flag, deref[1] = 1: it was read (StartRegion/Logf sites only).
    r->call.deref[0] = gt_user_tracing_size == 1 ? rdf8(gt_user_tracing_addr, 0) : rd64(gt_user_tracing_addr);
    r->call.deref[1] = 1;
  }
  r->call.has_stack = stack;
  __builtin_memset(r->call.pad, 0, sizeof(r->call.pad));
  __builtin_memset(&r->call.labels_id, 0, sizeof(r->call.labels_id));
  __builtin_memset(r->ctx_words, 0, sizeof(r->ctx_words));
  r->ctx_val0 = 0;
  __u64 bx = s->regs.r[GT_REG_BX];
  if ((cookie & GT_USER_COOKIE_CTX_ARG1) && bx) {
    if (bpf_probe_read_user(r->ctx_words, sizeof(r->ctx_words), (const void *)bx) != 0) count_fault();
    else r->ctx_val0 = rd64(r->ctx_words[5]);
  }
  __u64 p0, l0, p1, l1;
  user_str_regs(r->call.args, (cookie >> GT_USER_COOKIE_STR0_SHIFT) & 0xf, &p0, &l0);
  user_str_regs(r->call.args, (cookie >> GT_USER_COOKIE_STR1_SHIFT) & 0xf, &p1, &l1);
  r->str_len[0] = user_copy_str(r->str[0], p0, l0);
  r->str_len[1] = user_copy_str(r->str[1], p1, l1);
}

// A global function: verified once per program.
__noinline int gt_user_emit(struct scratch *s, __u32 want_stack) {
  if (!s) return 0;
  GT_EMIT(struct gt_user_record, GT_FILL_USER, cpu_counters(), want_stack, s->tail.nframes, &s->tail, s->pcs);
}

static __always_inline int user_site(struct pt_regs *ctx) {
  struct scratch *s = uprobe_begin(ctx);
  if (!s) return 0;
  if (morestack_pending(s)) {
    struct gt_cpu_counters *cc = cpu_counters();
    if (cc) __sync_fetch_and_add(&cc->morestack_skips, 1);
    return 0;
  }
  bool walked = go_ctx_and_stack(s, 0, site_flags(s) & GT_CALL_STACK);
  return gt_user_emit(s, walked);
}
