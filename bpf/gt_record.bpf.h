// Ring-buffer records: reservation with the per-CPU sequence number, the common header,
// and the stack tail behind a body. Stands on its own.
#pragma once

#include "bpf/gt_maps.bpf.h"

// Numbers one record attempt in this CPU's sequence and reserves `size` bytes; a failed
// reservation is counted as lost (the gap in seq then marks where). The sequence is an
// atomic add: two preemptible uprobe hits on one CPU still get distinct numbers.
static __always_inline void *reserve_record(struct gt_cpu_counters *cc, __u32 size, __u32 *seq) {
  *seq = cc ? (__u32)__sync_fetch_and_add(&cc->seq, 1) : 0;
  void *r = bpf_ringbuf_reserve(&events, size, 0);
  if (!r && cc) __sync_fetch_and_add(&cc->lost, 1);
  return r;
}

static __always_inline void fill_header(struct gt_record_header *h, __u16 kind, __u32 seq) {
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  h->ts_ns = bpf_ktime_get_ns();
  h->tgid = pid_tgid >> 32;
  h->tid = (__u32)pid_tgid;
  h->kind = kind;
  h->cpu = bpf_get_smp_processor_id();
  h->seq = seq;
}

// Writes one record of type TYPE: FILL(r, seq, stack) fills the body, then the stack
// tail follows when `stack` is set. Each stack size class (16, 32, 64, GT_MAX_FRAMES pcs
// for `nframes`) is its own branch, so the reservation size and the class are constants
// on every path: bpf_ringbuf_reserve wants a constant size, and the verifier must know
// the class at put_stack to bound the writes into the record (an out-parameter spilled
// as 32 bits loses that). Returns 0 from the enclosing function.
#define GT_EMIT(TYPE, FILL, cc, want_stack, nframes, tail_src, pcs_src)                     \
  do {                                                                                    \
    const __u32 body_ = sizeof(TYPE), tail_ = sizeof(struct gt_stack_tail);                \
    __u32 seq_ = 0;                                                                       \
    TYPE *r_;                                                                             \
    if (!(want_stack)) {                                                                  \
      r_ = reserve_record(cc, body_, &seq_);                                              \
      if (!r_) return 0;                                                                  \
      FILL(r_, seq_, false);                                                              \
    } else if ((nframes) <= 16) {                                                         \
      r_ = reserve_record(cc, body_ + tail_ + 16 * 8, &seq_);                             \
      if (!r_) return 0;                                                                  \
      FILL(r_, seq_, true);                                                               \
      put_stack(r_, body_, 16, tail_src, pcs_src);                                        \
    } else if ((nframes) <= 32) {                                                         \
      r_ = reserve_record(cc, body_ + tail_ + 32 * 8, &seq_);                             \
      if (!r_) return 0;                                                                  \
      FILL(r_, seq_, true);                                                               \
      put_stack(r_, body_, 32, tail_src, pcs_src);                                        \
    } else if ((nframes) <= 64) {                                                         \
      r_ = reserve_record(cc, body_ + tail_ + 64 * 8, &seq_);                             \
      if (!r_) return 0;                                                                  \
      FILL(r_, seq_, true);                                                               \
      put_stack(r_, body_, 64, tail_src, pcs_src);                                        \
    } else {                                                                              \
      r_ = reserve_record(cc, body_ + tail_ + GT_MAX_FRAMES * 8, &seq_);                  \
      if (!r_) return 0;                                                                  \
      FILL(r_, seq_, true);                                                               \
      put_stack(r_, body_, GT_MAX_FRAMES, tail_src, pcs_src);                             \
    }                                                                                     \
    bpf_ringbuf_submit(r_, BPF_RB_NO_WAKEUP);                                             \
    return 0;                                                                             \
  } while (0)

// Copies `tail` and pcs behind a body of `body` bytes (cap: the reserved size class).
static __always_inline void put_stack(void *rec, const __u32 body, const __u32 cap, const struct gt_stack_tail *tail,
                                      const __u64 *pcs_src) {
  struct gt_stack_tail *t = rec + body;
  __builtin_memcpy(t, tail, sizeof(*t));
  void *pcs = rec + body + sizeof(struct gt_stack_tail);
  // Constant sizes per class, for the verifier. The common classes are copied with plain
  // loads and stores (a helper call costs tens of ns here, 16 word copies less).
  if (cap == 16)
    __builtin_memcpy(pcs, pcs_src, 16 * 8);
  else if (cap == 32)
    __builtin_memcpy(pcs, pcs_src, 32 * 8);
  else if (cap == 64)
    bpf_probe_read_kernel(pcs, 64 * 8, pcs_src);
  else
    bpf_probe_read_kernel(pcs, GT_MAX_FRAMES * 8, pcs_src);
}
