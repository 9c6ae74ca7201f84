// Reads of target memory: single fields (gt_read), windows of a g (struct gview) and of
// an m, and field pairs. Stands on its own.
#pragma once

#include "bpf/gt_maps.bpf.h"

// A global (non-inlined, separately verified) function: with ~25 reads per hit, each with
// its own failure branch, an inlined version makes the verifier explore too many paths.
// A failed read returns 0 (the helper zeroes the destination) and counts a fault.
__noinline __u64 gt_read(__u64 base, __s64 off, __u32 size) {
  __u64 v = 0;
  long err;
  if (!base || off < 0) return 0;
  if (size == 8)
    err = bpf_probe_read_user(&v, 8, (const void *)(base + off));
  else if (size == 4)
    err = bpf_probe_read_user(&v, 4, (const void *)(base + off));
  else  // 1 byte for any other size. No size-2 case: with one, clang merged the three
        // calls into a variable-size read that the verifier refuses ("R2 min value is
        // negative"), and no caller reads 2 bytes.
    err = bpf_probe_read_user(&v, 1, (const void *)(base + off));
  if (err) {
    count_fault();
    return 0;
  }
  return v;
}

static __always_inline __u64 rd64(__u64 addr) { return gt_read(addr, 0, 8); }
static __always_inline __u64 rdf64(__u64 base, __s32 off) { return gt_read(base, off, 8); }
static __always_inline __u32 rdf32(__u64 base, __s32 off) { return (__u32)gt_read(base, off, 4); }
static __always_inline __u8 rdf8(__u64 base, __s32 off) { return (__u8)gt_read(base, off, 1); }

static __always_inline __u8 *gslot(struct scratch *s, __u32 slot) {
  __u64 i = slot;
  asm volatile("%[i] &= 3" : [i] "+r"(i));
  _Static_assert(GT_GSLOTS == 4, "the mask above");
  return s->gwin[i];
}

// A copy of GT_GWIN bytes of one g, from offset cfg.g_m: in every supported layout that
// span holds what the hot path reads of a g (runtime2.go `type g`: m, sched, syscallsp/
// pc/bp, atomicstatus, goid, waitreason, syncSafePoint, parentGoid, gopc; e.g. go1.26:
// m at 48 .. gopc at 288). One read instead of up to ten; a field outside the copy, or a
// g whose copy faulted, is read on its own (same value, same fault accounting).
// A failed copy is zeroed by the helper and a nil g gets a zeroed copy, so a field of
// either reads 0, as a failed single read would (no flag to branch on: a flag known 0 on
// one path and 1 on the other multiplies the verifier's states).
static __always_inline struct gview *gview_at(struct scratch *s, __u32 view) {
  __u64 i = view;
  asm volatile("%[i] &= 3" : [i] "+r"(i));
  _Static_assert(GT_NVIEWS == 4, "the mask above");
  return &s->views[i];
}

// Global functions (verified once per program, not once per call site): a hit makes up to
// a dozen g reads, and each inlined one doubled the paths the verifier walked.
__noinline int gview_load(struct scratch *s, __u32 view, __u64 g, __u32 slot) {
  if (!s) return 0;
  struct gview *v = gview_at(s, view);
  v->g = g;
  v->slot = slot;
  if (slot == GT_GSLOT_NONE || cfg.g_m < 0) return 0;
  __u8 *buf = gslot(s, slot);
  if (!g) {
    __builtin_memset(buf, 0, GT_GWIN);
    return 0;
  }
  __u64 src = g + (__u64)cfg.g_m;
  __u64 first = 4096 - (src & 4095);  // bytes of the copy on src's page
  if (first >= GT_GWIN) {
    if (bpf_probe_read_user(buf, GT_GWIN, (const void *)src) != 0) count_fault();
    return 0;
  }
  // The copy crosses a page boundary: read each page on its own. A g fresh from malg
  // (newproc1 on Go <= 1.21 allocates it just before the Gdead->Grunnable casgstatus)
  // can end on a page nothing has written yet; the helper cannot fault it in, so one
  // read across the boundary would fail as a whole and zero fields that newproc1 did
  // write (startpc, gopc). Untouched memory reads 0 here, which is what those fields
  // hold, so the second read's failure is not counted as a fault.
  if (bpf_probe_read_user(buf, (__u32)first, (const void *)src) != 0) count_fault();
  bpf_probe_read_user(buf + first, (__u32)(GT_GWIN - first), (const void *)(src + first));
  return 0;
}

__noinline __u64 gv_read(struct scratch *s, __u32 view, __s32 off, __u32 size) {
  if (!s) return 0;
  const struct gview *v = gview_at(s, view);
  if (v->slot != GT_GSLOT_NONE && cfg.g_m >= 0 && off >= cfg.g_m && off - cfg.g_m <= GT_GWIN - (__s32)size) {
    __u64 rel = (__u64)(off - cfg.g_m);
    asm volatile("%[r] &= 511" : [r] "+r"(rel));
    __u8 *buf = gslot(s, v->slot);
    if (size == 8) return *(__u64 *)(buf + rel);
    if (size == 4) return *(__u32 *)(buf + rel);
    return *(__u8 *)(buf + rel);
  }
  return gt_read(v->g, off, size);
}

// Two fields of one struct in one 16-byte read when they are 8 bytes apart
// (m.waitTraceSkip/waitTraceBlockReason, p.goidcache/goidcacheend in runtime2.go), else
// one read each. Each value is 8 bytes from its offset (the caller keeps the low bytes
// it needs: little endian).
static __always_inline void read_pair(struct scratch *s, __u64 base, __s32 a, __s32 b, __u64 *va, __u64 *vb) {
  __s32 lo = a < b ? a : b, hi = a < b ? b : a;
  if (base && lo >= 0 && hi - lo == 8) {
    __u64 *w = s->tmp;  // not on the BPF stack (gt_maps.bpf.h)
    w[0] = w[1] = 0;
    if (bpf_probe_read_user(w, 16, (const void *)(base + lo)) != 0) count_fault();
    *va = w[a == lo ? 0 : 1];
    *vb = w[b == lo ? 0 : 1];
    return;
  }
  *va = rdf64(base, a);
  *vb = rdf64(base, b);
}

// A field of the m copy in s->mwin (cfg.m_big_len bytes from cfg.m_win_off).
static __always_inline __u64 mw_read(const struct scratch *s, __s32 off, __u32 size) {
  __u64 rel = (__u64)(off - cfg.m_win_off);
  asm volatile("%[r] &= 1023" : [r] "+r"(rel));
  _Static_assert(GT_MWIN == 1024, "the mask above");
  if (size == 8) return *(const __u64 *)(s->mwin + rel);
  if (size == 4) return *(const __u32 *)(s->mwin + rel);
  return *(const __u8 *)(s->mwin + rel);
}
