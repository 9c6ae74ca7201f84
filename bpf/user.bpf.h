// User annotations (runtime/trace tasks, regions, logs): included by gotrace.bpf.c, whose
// gt_call hands a hit over when the site's cookie has GT_USER_COOKIE_USER. Writes one
// GT_REC_USER record: the CALL record's fields plus the Go strings the plan named in the
// cookie (proto/records.h), copied with bounded reads. Nothing is interpreted here: which
// register holds a task id, a mode or a string is the plan's (daemon/probes/) and the
// decoder's (daemon/model/user_decoder.cc) business.
#pragma once

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

// args[n-1], args[n] for a cookie nibble n in 1..5 (0: none). From the copies in the
// record, with constant indices: the verifier refuses a computed offset into ctx.
static __always_inline void user_str_regs(const __u64 *args, __u32 nib, __u64 *ptr, __u64 *len) {
  *ptr = 0;
  *len = 0;
  if (nib == 1) { *ptr = args[0]; *len = args[1]; }
  else if (nib == 2) { *ptr = args[1]; *len = args[2]; }
  else if (nib == 3) { *ptr = args[2]; *len = args[3]; }
  else if (nib == 4) { *ptr = args[3]; *len = args[4]; }
  else if (nib == 5) { *ptr = args[4]; *len = args[5]; }
}

static __noinline int user_hit(struct pt_regs *ctx, __u64 cookie) {
  struct gt_cpu_counters *cc = cpu_counters();
  struct site st = {.probe_id = (__u32)(cookie & 0xffff), .flags = (__u32)((cookie >> 16) & 0xffff)};
  struct gt_go_ctx c;
  read_go_ctx(ctx, st.flags, false, &c);

  struct stack_result sr = {};
  bool want_stack = st.flags & GT_CALL_STACK;
  if (want_stack) walk_curg(ctx, st.flags, &c, &sr);
  want_stack = want_stack && sr.tail.source != GT_STACK_NONE;

  const __u32 body = sizeof(struct gt_user_record);
  __u32 cap = 0, seq = 0;
  struct gt_user_record *r = reserve_go_record(cc, body, want_stack, sr.tail.nframes, &cap, &seq);
  if (!r) return 0;
  fill_header(&r->call.h, GT_REC_USER, seq);
  __builtin_memcpy(&r->call.ctx, &c, sizeof(c));
  r->call.probe_id = st.probe_id;
  r->call.flags = st.flags;
  r->call.args[0] = ctx->ax;
  r->call.args[1] = ctx->bx;
  r->call.args[2] = ctx->cx;
  r->call.args[3] = ctx->di;
  r->call.args[4] = ctx->si;
  r->call.args[5] = ctx->r8;
  r->call.deref[0] = r->call.deref[1] = r->call.deref[2] = r->call.deref[3] = 0;
  if (gt_user_tracing_addr && (cookie & GT_USER_COOKIE_CTX_ARG1)) {
    // deref[0] = the flag, deref[1] = 1: it was read (StartRegion/Logf sites only).
    r->call.deref[0] = gt_user_tracing_size == 1 ? rdf8(gt_user_tracing_addr, 0) : rd64(gt_user_tracing_addr);
    r->call.deref[1] = 1;
  }
  r->call.has_stack = want_stack;
  __builtin_memset(r->call.pad, 0, sizeof(r->call.pad));
  __builtin_memset(r->ctx_words, 0, sizeof(r->ctx_words));
  r->ctx_val0 = 0;
  if ((cookie & GT_USER_COOKIE_CTX_ARG1) && ctx->bx) {
    if (bpf_probe_read_user(r->ctx_words, sizeof(r->ctx_words), (const void *)ctx->bx) != 0) count_fault();
    else r->ctx_val0 = rd64(r->ctx_words[5]);
  }
  __u64 p0, l0, p1, l1;
  user_str_regs(r->call.args, (cookie >> GT_USER_COOKIE_STR0_SHIFT) & 0xf, &p0, &l0);
  user_str_regs(r->call.args, (cookie >> GT_USER_COOKIE_STR1_SHIFT) & 0xf, &p1, &l1);
  r->str_len[0] = user_copy_str(r->str[0], p0, l0);
  r->str_len[1] = user_copy_str(r->str[1], p1, l1);
  if (want_stack) put_stack(r, body, cap, &sr);
  bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
  return 0;
}
