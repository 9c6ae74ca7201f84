// gotrace: the capture programs. They copy raw values out of a Go process into the ring
// buffer and decide nothing: which sites exist, what their registers mean and which
// struct offsets to read all come from the daemon (daemon/probes/, .rodata `cfg` and
// the attach cookie). Record layouts: proto/records.h.
//
// Cost matters more than anything here (shared/docs/perf-anchors.md): a uprobe hit is
// ~1 us on an emulated instruction; each bpf_probe_read_user adds tens of ns; the ring's
// default wakeup adds 1.7-9 us, so every submit uses BPF_RB_NO_WAKEUP and the daemon
// drains on a timer.
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "proto/bpf_config.h"
#include "proto/records.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile struct gt_bpf_config cfg = {};

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 32 << 20);  // resized by the daemon before load
} events SEC(".maps");

// Per-CPU counters (struct gt_cpu_counters, proto/records.h).
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct gt_cpu_counters);
} counters SEC(".maps");

// Traced tgids for the tracepoints when cfg.target_tgid == 0 (several processes).
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1024);
  __type(key, __u32);
  __type(value, __u8);
} traced_tgids SEC(".maps");

// Scratch for the stack walk and the window copies (too big for the 512-byte BPF stack).
// A bpf_probe_read_user costs ~50-70 ns here and a few hundred bytes cost hardly more
// than 8 (docs/probe-plan.md §7), so the hot path copies windows: GT_SWIN bytes of a
// goroutine stack per read (the frame-pointer chain is followed inside the copy), and
// GT_GWIN bytes of a g from g.m on (struct gview).
#define GT_SWIN 512
#define GT_GWIN 320
// State of one stack walk (bpf/gotrace.bpf.c walk_step says why it is in the map value).
struct walk {
  __u64 fp;
  __u64 base;     // user address of swin[0]
  __u32 win_len;  // bytes valid in swin from base (0: none)
  __u32 start;    // pcs already filled before the chain (0 or 1)
  __u32 n;        // pcs filled so far
  __u8 flags;     // GT_STACK_*
  __u8 no_win;    // a window copy faulted (end of a mapping): per-frame reads from then on
  __u8 pad[2];
};
struct scratch {
  __u64 pcs[GT_MAX_FRAMES];
  struct walk w;
  __u8 swin[GT_SWIN + 16];    // +16: a masked frame offset's 16 bytes stay inside
  __u8 gwin[3][512 + 8];      // R14's g, m->curg, casgstatus' gp (offsets masked to 511)
  __u8 gwin_tail[GT_GWIN];    // gview_load's second-page read may end past gwin[2]'s 520
  __u8 mwin[GT_MWIN + 8];     // one copy of m (cfg.m_big_len; offsets masked to 1023)
};
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct scratch);
} scratch_map SEC(".maps");

// Per thread: the m of the last g seen in R14 that was not m->curg (g0 or gsignal). Those
// gs belong to one m for its whole life (runtime2.go `type m`: g0, gsignal; allocm sets
// them once), and an m runs on one thread until it exits (extra Ms of cgo callbacks move
// between threads, hence the check against R14 rather than trusting the thread alone),
// so on a hit in the scheduler (casgstatus from execute, park_m, ready, goexit0: all on
// g0) m comes from here instead of a copy of g0. Task storage is freed with the thread,
// so a reused tid starts empty.
struct m_cache {
  __u64 g;
  __u64 m;
};
struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct m_cache);
} m_cache_map SEC(".maps");

// Per thread: the sweep bracket the thread is in (GT_CALL_SWEEP_*: bit 0 open, bit 1 a
// span was recorded inside). A bracket (mgcsweep.go deductSweepCredit, mcentral.go
// cacheSpan, mheap.go reclaim) runs on one M, which stays on its thread, without
// yielding it (mallocing / acquirem), so the thread's flag is the P's
// pp.trace.maySweep of traceruntime.go GCSweepStart/GCSweepDone.
struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, __u32);
} sweep_map SEC(".maps");

static __always_inline struct gt_cpu_counters *cpu_counters(void) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(&counters, &zero);
}

// Cold path only: a failed read of target memory.
static __always_inline void count_fault(void) {
  struct gt_cpu_counters *cc = cpu_counters();
  if (cc) cc->read_faults++;
}

// Reads of target memory are global (non-inlined, separately verified) functions: with
// ~25 reads per hit, each with its own failure branch, an inlined version makes the
// verifier explore too many paths. A failed read returns 0 (the helper zeroes the
// destination) and counts a fault.
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
        // negative", gt_casgstatus), and no caller reads 2 bytes.
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

// A copy of GT_GWIN bytes of one g, from offset cfg.g_m: in every supported layout that
// span holds what the hot path reads of a g (runtime2.go `type g`: m, sched, syscallsp/
// pc/bp, atomicstatus, goid, waitreason, syncSafePoint, parentGoid, gopc; e.g. go1.26:
// m at 48 .. gopc at 288). One read instead of up to ten; a field outside the copy, or a
// g whose copy faulted, is read on its own (same value, same fault accounting).
// There is no "copy failed" flag to branch on (a flag known 0 on one path and 1 on the
// other multiplies the verifier's states): a failed copy is zeroed by the helper, a nil g
// gets a zeroed copy, and a field of either reads 0, as a failed single read would.
struct gview {
  __u64 g;
  __u8 *buf;  // scratch gwin slot; NULL: no copy, every field read on its own
};

static __always_inline void gview_load(struct gview *v, __u64 g, __u8 *buf) {
  v->g = g;
  v->buf = buf;
  if (!buf || cfg.g_m < 0) return;
  if (!g) {
    __builtin_memset(buf, 0, GT_GWIN);
    return;
  }
  __u64 src = g + (__u64)cfg.g_m;
  __u64 first = 4096 - (src & 4095);  // bytes of the copy on src's page
  if (first >= GT_GWIN) {
    if (bpf_probe_read_user(buf, GT_GWIN, (const void *)src) != 0) count_fault();
    return;
  }
  // The copy crosses a page boundary: read each page on its own. A g fresh from malg
  // (newproc1 on Go <= 1.21 allocates it just before the Gdead->Grunnable casgstatus)
  // can end on a page nothing has written yet; the helper cannot fault it in, so one
  // read across the boundary would fail as a whole and zero fields that newproc1 did
  // write (startpc, gopc). Untouched memory reads 0 here, which is what those fields
  // hold, so the second read's failure is not counted as a fault.
  if (bpf_probe_read_user(buf, (__u32)first, (const void *)src) != 0) count_fault();
  bpf_probe_read_user(buf + first, (__u32)(GT_GWIN - first), (const void *)(src + first));
}

static __always_inline __u64 gv_read(const struct gview *v, __s32 off, __u32 size) {
  if (v->buf && cfg.g_m >= 0 && off >= cfg.g_m && off - cfg.g_m <= GT_GWIN - (__s32)size) {
    __u64 rel = (__u64)(off - cfg.g_m);
    asm volatile("%[r] &= 511" : [r] "+r"(rel));
    if (size == 8) return *(__u64 *)(v->buf + rel);
    if (size == 4) return *(__u32 *)(v->buf + rel);
    return *(__u8 *)(v->buf + rel);
  }
  return gt_read(v->g, off, size);
}

static __always_inline bool tgid_traced(__u32 tgid) {
  if (cfg.target_tgid) return tgid == cfg.target_tgid;
  return bpf_map_lookup_elem(&traced_tgids, &tgid) != NULL;
}

// Numbers one record attempt in this CPU's sequence and reserves `size` bytes; a failed
// reservation is counted as lost (the gap in seq then marks where).
static __always_inline void *reserve_record(struct gt_cpu_counters *cc, __u32 size, __u32 *seq) {
  *seq = cc ? (__u32)cc->seq++ : 0;
  void *r = bpf_ringbuf_reserve(&events, size, 0);
  if (!r && cc) cc->lost++;
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

// ---- Go context ------------------------------------------------------------------

struct site {
  __u32 probe_id;
  __u32 flags;
};

static __always_inline struct site site_of(struct pt_regs *ctx) {
  __u64 c = bpf_get_attach_cookie(ctx);
  struct site s = {.probe_id = (__u32)(c & 0xffff), .flags = (__u32)((c >> 16) & 0xffff)};
  return s;
}

// True when an entry+4 site's JBE to morestack will be taken: the function will be
// re-entered from its start after the stack grows and this site hit again.
static __always_inline bool morestack_pending(struct pt_regs *ctx, __u32 flags) {
  if (!(flags & (GT_CALL_CHECK_MORESTACK | GT_CALL_CHECK_MORESTACK_R12))) return false;
  __s32 off = cfg.g_stackguard0;
  if (off >= 0 && (flags & GT_CALL_GUARD_STACKGUARD1)) off += 8;  // stackguard1 follows stackguard0
  __u64 guard = rdf64(ctx->r14, off);
  // Both loads, then a select: the verifier rejects a computed offset into ctx, which
  // is what clang makes of `flags ? ctx->r12 : ctx->sp`.
  __u64 r12 = ctx->r12, sp = ctx->sp;
  asm volatile("" : "+r"(r12), "+r"(sp));
  __u64 v = (flags & GT_CALL_CHECK_MORESTACK_R12) ? r12 : sp;
  return v <= guard;
}

// The g copies read_go_ctx_v leaves for later reads of the same goroutines.
struct gviews {
  struct gview self;  // R14's g
  struct gview curg;  // m->curg (the same copy when curg == R14)
};

// Two fields of one struct in one 16-byte read when they are at most 8 bytes apart
// (m.waitTraceSkip/waitTraceBlockReason, p.goidcache/goidcacheend in runtime2.go),
// else one read each. Each value is 8 bytes from its offset (the caller keeps the low
// bytes it needs: little endian).
static __always_inline void read_pair(__u64 base, __s32 a, __s32 b, __u64 *va, __u64 *vb) {
  __s32 lo = a < b ? a : b, hi = a < b ? b : a;
  if (base && lo >= 0 && hi - lo == 8) {
    __u64 w[2] = {};
    if (bpf_probe_read_user(w, sizeof(w), (const void *)(base + lo)) != 0) count_fault();
    *va = w[a == lo ? 0 : 1];
    *vb = w[b == lo ? 0 : 1];
    return;
  }
  *va = rdf64(base, a);
  *vb = rdf64(base, b);
}

// m.waitTraceSkip and m.waitTraceBlockReason (runtime2.go `type m`), for a hit that
// records a block (casgstatus around _Gwaiting).
struct mwait {
  __u64 reason;
  __u64 skip;
};

// A field of the m copy in s->mwin (cfg.m_big_len bytes from cfg.m_win_off).
static __always_inline __u64 mw_read(const struct scratch *s, __s32 off, __u32 size) {
  __u64 rel = (__u64)(off - cfg.m_win_off);
  asm volatile("%[r] &= 1023" : [r] "+r"(rel));
  _Static_assert(GT_MWIN == 1024, "the mask above");
  if (size == 8) return *(const __u64 *)(s->mwin + rel);
  if (size == 4) return *(const __u32 *)(s->mwin + rel);
  return *(const __u8 *)(s->mwin + rel);
}

// m.curg, m.p, m.id (and m.oldp with `sys`) without the big copy of m: one 64-byte read
// at cfg.m_win_off when they fit it (runtime2.go `type m`: adjacent in every supported Go),
// else one read each.
static __always_inline void read_m_fields(__u64 m, bool sys, __u64 *curg, __u64 *p, __u64 *mid, __u64 *oldp) {
  if (cfg.m_win_off >= 0) {
    // One read for curg, p, oldp, id (each bpf_probe_read_user costs ~50-70 ns here).
    __u64 w[8] = {};
    if (m && bpf_probe_read_user(w, sizeof(w), (const void *)(m + cfg.m_win_off)) != 0)
      count_fault();
    *curg = w[((cfg.m_curg - cfg.m_win_off) >> 3) & 7];
    *p = w[((cfg.m_p - cfg.m_win_off) >> 3) & 7];
    *mid = w[((cfg.m_id - cfg.m_win_off) >> 3) & 7];
    *oldp = w[((cfg.m_oldp - cfg.m_win_off) >> 3) & 7];
  } else {
    *curg = rdf64(m, cfg.m_curg);
    *p = rdf64(m, cfg.m_p);
    *mid = rdf64(m, cfg.m_id);
    *oldp = sys ? rdf64(m, cfg.m_oldp) : 0;
  }
}

// s == NULL: no copies, every field read on its own (and no m cache).
// pc_later: the caller takes caller_pc from its stack walk when that starts from the
// registers (walk_curg_v: pcs[0] is the same word); caller_pc is left 0 here when R14
// is m->curg (the only case the walk starts from the registers).
// pc_none: caller_pc is left 0 in every case (the caller reads it with other words).
// block: also m.waitTraceSkip/BlockReason into *mw (left as it is otherwise). With `sys`
// or `block`, m is copied once from its window to the farthest of those fields
// (cfg.m_big_len) when the layout allows.
// Both ways of reading m end with the same kinds of values (unknown scalars), and no
// flag says which way was taken: the verifier can then merge the two paths (a flag, or a
// `m ? field : 0`, kept them apart and took gt_casgstatus past 1M instructions).
static __always_inline void read_go_ctx_v(struct pt_regs *ctx, __u32 flags, bool sys, struct gt_go_ctx *c,
                                          struct scratch *s, struct gviews *v, bool pc_later, bool pc_none,
                                          bool block, struct mwait *mw) {
  __u64 g = ctx->r14;
  struct m_cache *mc = NULL;
  if (s && g) mc = bpf_task_storage_get(&m_cache_map, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  __u64 m;
  if (mc && mc->g == g) {
    m = mc->m;
    v->self.g = g;
    v->self.buf = NULL;  // nothing else of a g0 is read; any read goes to the target
  } else {
    gview_load(&v->self, g, s ? s->gwin[0] : NULL);
    m = gv_read(&v->self, cfg.g_m, 8);
  }
  __u64 p, curg, mid, oldp = 0;
  __u32 m_tick = 0;
  if (cfg.m_win_off >= 0 && cfg.m_big_len && (sys || block) && s) {
    // curg, p, oldp, id, syscalltick and the wait-trace pair in one read: each
    // bpf_probe_read_user costs ~50-70 ns here, a few hundred bytes more hardly count.
    // With m == 0 the read fails and the helper zeroes the copy: every field reads 0, as
    // a failed single read would (only a real m's failure is a fault).
    if (bpf_probe_read_user(s->mwin, cfg.m_big_len, (const void *)(m + cfg.m_win_off)) != 0 && m) count_fault();
    curg = mw_read(s, cfg.m_curg, 8);
    p = mw_read(s, cfg.m_p, 8);
    mid = mw_read(s, cfg.m_id, 8);
    oldp = mw_read(s, cfg.m_oldp, 8);
    m_tick = (__u32)mw_read(s, cfg.m_syscalltick, 4);
    if (block) {
      mw->reason = cfg.m_wait_trace_block_reason >= 0 ? mw_read(s, cfg.m_wait_trace_block_reason, 1) : 0;
      mw->skip = cfg.m_wait_trace_skip >= 0 ? mw_read(s, cfg.m_wait_trace_skip, 8) : 0;
    }
  } else {
    read_m_fields(m, sys, &curg, &p, &mid, &oldp);
    if (sys) m_tick = rdf32(m, cfg.m_syscalltick);
    if (block) read_pair(m, cfg.m_wait_trace_block_reason, cfg.m_wait_trace_skip, &mw->reason, &mw->skip);
  }
  if (curg == g) {
    v->curg = v->self;
  } else {
    gview_load(&v->curg, curg, s ? s->gwin[1] : NULL);
    if (mc && m && mc->g != g) {
      mc->g = g;
      mc->m = m;
    }
  }
  c->g = g;
  c->m = m;
  c->curg = curg;
  c->curg_goid = gv_read(&v->curg, cfg.g_goid, 8);
  c->p = p;
  c->m_id = m ? (__s64)mid : -1;
  // p.syscalltick is 20 bytes after p.id in every supported layout (runtime2.go `type
  // p`: id, status, link, schedtick, syscalltick): a hit that wants it reads the three
  // in one copy.
  __s32 tick_rel = cfg.p_syscalltick - cfg.p_id;
  bool tick_read = false;
  __u32 p_tick = 0;
  if (cfg.p_id_status_adjacent && sys && p && tick_rel >= 8 && tick_rel <= 28 && !(tick_rel & 3)) {
    __u32 pw[8] = {};
    if (bpf_probe_read_user(pw, sizeof(pw), (const void *)(p + cfg.p_id)) != 0) count_fault();
    c->p_id = (__s32)pw[0];
    c->p_status = pw[1];
    p_tick = pw[(tick_rel >> 2) & 7];
    tick_read = true;
  } else if (cfg.p_id_status_adjacent) {
    __u64 idst = gt_read(p, cfg.p_id, 8);
    c->p_id = p ? (__s32)(__u32)idst : -1;
    c->p_status = (__u32)(idst >> 32);
  } else {
    c->p_id = p ? (__s32)rdf32(p, cfg.p_id) : -1;
    c->p_status = rdf32(p, cfg.p_status);
  }
  if (pc_none || (pc_later && curg == g))
    c->caller_pc = 0;
  else if (flags & GT_SITE_FRAME_READY)
    c->caller_pc = rd64(ctx->bp + 8);
  else
    c->caller_pc = rd64(ctx->sp);
  c->sp = ctx->sp;
  if (sys) {
    c->m_oldp = oldp;
    c->m_syscalltick = m_tick;
    c->p_syscalltick = tick_read ? p_tick : rdf32(p, cfg.p_syscalltick);
  } else {
    c->m_oldp = 0;
    c->m_syscalltick = 0;
    c->p_syscalltick = 0;
  }
}

// For sites that keep no copies (user annotation sites).
static __always_inline __attribute__((unused)) void read_go_ctx(struct pt_regs *ctx, __u32 flags, bool sys,
                                                                struct gt_go_ctx *c) {
  struct gviews v;
  struct mwait mw = {};
  read_go_ctx_v(ctx, flags, sys, c, NULL, &v, false, false, false, &mw);
}

// ---- stack walk --------------------------------------------------------------------

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

struct walk_arg {
  struct scratch *s;
};

// One frame of runtime.fpTracebackPCs: pc = [fp+8], fp = [fp]. The slot comes from the
// loop index, not from a counter: the verifier (6.8+) checks bpf_loop callbacks until
// their state converges, and a precisely tracked counter never does. For the same reason
// the walk's state lives in the map value (s->w), not on the stack: what is loaded from
// a map is an unknown scalar to the verifier, so the window offsets and frame pointers
// of one iteration are not carried precisely into the next. The frame is always taken
// from s->swin (the per-frame fallback reads its 16 bytes there too).
static long walk_step(__u32 idx, void *arg) {
  struct scratch *s = ((struct walk_arg *)arg)->s;
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

struct stack_result {
  struct gt_stack_tail tail;
  struct scratch *s;
};

// Walks m->curg's stack the way runtime.traceStack would (runtime/tracestack.go): on
// the goroutine's own stack from the registers, else from curg.syscall* or curg.sched.
// vc: a copy of curg (struct gview) for its sched/syscall fields, or NULL. The first
// stack copy starts at the lowest address the walk needs (SP, sched.sp or syscallsp),
// so the first frames and sched_sp_word come out of it.
static __always_inline void walk_curg_v(struct pt_regs *ctx, __u32 flags, const struct gt_go_ctx *c,
                                        struct stack_result *r, const struct gview *vc) {
  __u32 zero = 0;
  __builtin_memset(&r->tail, 0, sizeof(r->tail));
  struct scratch *s = bpf_map_lookup_elem(&scratch_map, &zero);
  r->s = s;
  if (!s || !c->curg) return;
  struct walk *w = &s->w;
  __builtin_memset(w, 0, sizeof(*w));
  __u64 g = c->curg;
  struct gview none = {.g = g};
  if (!vc) vc = &none;
  __u32 start = 1;
  if (ctx->r14 == g) {
    r->tail.source = GT_STACK_REGS;
    swin_load(s, ctx->sp);
    w->fp = ctx->bp;
    if (flags & GT_SITE_FRAME_READY)
      start = 0;
    else
      s->pcs[0] = swin_word(s, ctx->sp);
  } else {
    __u64 syscallsp = cfg.stack_prefers_syscall ? gv_read(vc, cfg.g_syscallsp, 8) : 0;
    if (syscallsp) {
      r->tail.source = GT_STACK_SYSCALL;
      s->pcs[0] = gv_read(vc, cfg.g_syscallpc, 8);
      __u64 fp = gv_read(vc, cfg.g_syscallbp, 8);
      w->fp = fp;
      swin_load(s, syscallsp < fp ? syscallsp : fp);
    } else {
      r->tail.source = GT_STACK_SCHED;
      s->pcs[0] = gv_read(vc, cfg.g_sched_pc, 8);
      w->fp = gv_read(vc, cfg.g_sched_bp, 8);
      __u64 sched_sp = gv_read(vc, cfg.g_sched_sp, 8);
      if (sched_sp) {
        swin_load(s, sched_sp);
        r->tail.sched_sp_word = swin_word(s, sched_sp);
      }
      r->tail.sync_safe_point = (__u8)gv_read(vc, cfg.g_sync_safe_point, 1);
    }
  }
  w->start = start;
  w->n = start;
  __u32 max = cfg.max_frames;
  if (max > GT_MAX_FRAMES) max = GT_MAX_FRAMES;
  struct walk_arg arg = {.s = s};
  if (max > start) bpf_loop(max - start, walk_step, &arg, 0);
  __u32 n = w->n;
  __u8 wflags = w->flags;
  if (w->fp && n >= max) wflags |= GT_STACK_TRUNCATED;
  r->tail.nframes = n;
  r->tail.flags = wflags;
  r->tail.stack_g = g;
}

static __always_inline __attribute__((unused)) void walk_curg(struct pt_regs *ctx, __u32 flags,
                                                              const struct gt_go_ctx *c, struct stack_result *r) {
  walk_curg_v(ctx, flags, c, r, NULL);
}

// caller_pc after a walk asked for with pc_later (read_go_ctx_v): the walk's first PC
// when it started from the registers (the word at SP, or [BP+8] at a frame-ready site:
// what read_go_ctx_v would have read), else read now.
static __always_inline void caller_pc_from_walk(struct pt_regs *ctx, __u32 flags, struct gt_go_ctx *c,
                                                const struct stack_result *r) {
  if (c->curg != ctx->r14) return;  // read_go_ctx_v read it
  if (r->tail.source == GT_STACK_REGS && r->s && r->tail.nframes > 0) {
    c->caller_pc = r->s->pcs[0];
    return;
  }
  c->caller_pc = (flags & GT_SITE_FRAME_READY) ? rd64(ctx->bp + 8) : rd64(ctx->sp);
}

// Reserves a record of `body` bytes plus a stack tail sized for `nframes` (rounded up to
// a size class so every reservation has a constant size, as the verifier requires).
// Reserves a runtime-probe record: the body alone, or the body plus a stack tail rounded
// up to a size class (each branch passes reserve_record a constant size, which the
// verifier wants for bpf_ringbuf_reserve).
static __always_inline void *reserve_go_record(struct gt_cpu_counters *cc, __u32 body, bool want_stack,
                                               __u32 nframes, __u32 *cap, __u32 *seq) {
  const __u32 tail = sizeof(struct gt_stack_tail);
  if (!want_stack) {
    *cap = 0;
    return reserve_record(cc, body, seq);
  }
  if (nframes <= 16) {
    *cap = 16;
    return reserve_record(cc, body + tail + 16 * 8, seq);
  }
  if (nframes <= 32) {
    *cap = 32;
    return reserve_record(cc, body + tail + 32 * 8, seq);
  }
  if (nframes <= 64) {
    *cap = 64;
    return reserve_record(cc, body + tail + 64 * 8, seq);
  }
  *cap = GT_MAX_FRAMES;
  return reserve_record(cc, body + tail + GT_MAX_FRAMES * 8, seq);
}

// Counts the hit; false (and counted as filtered) when a uprobe fires in a process other
// than the single target (uprobes are attached per pid, so this should stay 0).
static __always_inline bool runtime_hit(struct gt_cpu_counters *cc) {
  if (cc) cc->hits++;
  if (cfg.target_tgid && (__u32)(bpf_get_current_pid_tgid() >> 32) != cfg.target_tgid) {
    if (cc) cc->filtered++;
    return false;
  }
  return true;
}

// Copies the tail and the PCs behind a body of `body` bytes.
static __always_inline void put_stack(void *rec, __u32 body, __u32 cap, struct stack_result *r) {
  struct gt_stack_tail *t = rec + body;
  __builtin_memcpy(t, &r->tail, sizeof(*t));
  void *pcs = rec + body + sizeof(struct gt_stack_tail);
  if (!r->s) return;
  // Constant sizes per class, for the verifier. The common classes are copied with
  // plain loads and stores (a helper call costs tens of ns here, 16 word copies less).
  if (cap == 16)
    __builtin_memcpy(pcs, r->s->pcs, 16 * 8);
  else if (cap == 32)
    __builtin_memcpy(pcs, r->s->pcs, 32 * 8);
  else if (cap == 64)
    bpf_probe_read_kernel(pcs, 64 * 8, r->s->pcs);
  else
    bpf_probe_read_kernel(pcs, GT_MAX_FRAMES * 8, r->s->pcs);
}

// ready's traceskip (GT_READ_SPILL, read by the daemon from the caller's spill slots
// [caller_fp+16] and [caller_fp+24]) and caller_pc ([SP]) at a site that is not frame-
// ready: BP is still the caller's frame pointer, so the three words are one frame apart
// on one stack (go1.26 runtime.ready's frame: a few dozen bytes) and one copy from SP
// holds them all. Runs after the walk, so s->swin is free again. A frame larger than the
// copy, or no scratch, reads them one by one (as before).
static __always_inline void read_pc_spill(struct pt_regs *ctx, struct scratch *s, struct gt_go_ctx *c,
                                          __u64 spill[2]) {
  __u64 sp = ctx->sp, bp = ctx->bp;
  __u64 len = bp + 32 - sp;
  if (s && bp > sp && len < GT_SWIN) {
    asm volatile("%[l] &= 511" : [l] "+r"(len));
    if (bpf_probe_read_user(s->swin, len, (const void *)sp) != 0) count_fault();
    c->caller_pc = *(__u64 *)s->swin;
    __u64 a = len - 16, b = len - 8;
    asm volatile("%[a] &= 511" : [a] "+r"(a));
    asm volatile("%[b] &= 511" : [b] "+r"(b));
    spill[0] = *(__u64 *)(s->swin + a);
    spill[1] = *(__u64 *)(s->swin + b);
    return;
  }
  c->caller_pc = rd64(sp);
  struct {
    __u64 a, b;
  } w = {};
  if (bp && bpf_probe_read_user(&w, sizeof(w), (const void *)(bp + 16)) != 0) count_fault();
  spill[0] = w.a;
  spill[1] = w.b;
}

// ---- runtime.casgstatus(gp *g, oldval, newval uint32) -----------------------------

SEC("uprobe")
int gt_casgstatus(struct pt_regs *ctx) {
  struct gt_cpu_counters *cc = cpu_counters();
  if (!runtime_hit(cc)) return 0;
  struct site st = site_of(ctx);
  __u64 gp = ctx->ax;
  __u32 oldval = (__u32)ctx->bx, newval = (__u32)ctx->cx;

  // Optional field groups for this transition (plan-chosen; all when not set).
  __u8 groups = 0xff;
  if (cfg.gstatus_groups_set) groups = (oldval < 16 && newval < 16) ? cfg.gstatus_groups[oldval & 15][newval & 15] : 0xff;

  // One copy per distinct g (R14, m->curg, gp: often the same one) serves every g field
  // below, the stack walk's included.
  __u32 zero = 0;
  struct scratch *s = bpf_map_lookup_elem(&scratch_map, &zero);
  struct gt_go_ctx c;
  struct gviews v;
  bool want_stack = false;
  if (oldval < 16 && newval < 16) want_stack = (cfg.stack_for_old[oldval & 15] >> (newval & 15)) & 1;
  // ready (GT_READ_SPILL) at an entry site: caller_pc comes with the spill slots.
  bool pc_spill = (groups & GT_READ_SPILL) && !(st.flags & GT_SITE_FRAME_READY);
  struct mwait mw = {};
  read_go_ctx_v(ctx, st.flags, groups & GT_READ_SYSCALL, &c, s, &v, want_stack, pc_spill, groups & GT_READ_BLOCK,
                &mw);
  struct gview vgp;
  if (gp == c.curg)
    vgp = v.curg;
  else if (gp == ctx->r14)
    vgp = v.self;
  else
    gview_load(&vgp, gp, s ? s->gwin[2] : NULL);

  struct stack_result sr = {};
  if (want_stack) {
    walk_curg_v(ctx, st.flags, &c, &sr, &v.curg);
    if (!pc_spill) caller_pc_from_walk(ctx, st.flags, &c, &sr);
  }
  want_stack = want_stack && sr.tail.source != GT_STACK_NONE;
  __u64 spill[2] = {};
  if (pc_spill) {
    read_pc_spill(ctx, s, &c, spill);
  } else if (groups & GT_READ_SPILL) {
    __u64 caller_fp = (st.flags & GT_SITE_FRAME_READY) ? rd64(ctx->bp) : ctx->bp;
    if (caller_fp && bpf_probe_read_user(spill, sizeof(spill), (const void *)(caller_fp + 16)) != 0)
      count_fault();
  }

  const __u32 body = sizeof(struct gt_gstatus_record);
  __u32 cap = 0, seq = 0;
  struct gt_gstatus_record *r = reserve_go_record(cc, body, want_stack, sr.tail.nframes, &cap, &seq);
  if (!r) return 0;
  fill_header(&r->h, GT_REC_GSTATUS, seq);
  __builtin_memcpy(&r->ctx, &c, sizeof(c));
  r->gp = gp;
  r->goid = gv_read(&vgp, cfg.g_goid, 8);
  r->oldval = oldval;
  r->newval = newval;
  if (groups & GT_READ_CREATE) {
    r->startpc = gv_read(&vgp, cfg.g_startpc, 8);
    r->gopc = gv_read(&vgp, cfg.g_gopc, 8);
    r->parent_goid = gv_read(&vgp, cfg.g_parent_goid, 8);
    read_pair(c.p, cfg.p_goidcache, cfg.p_goidcacheend, &r->p_goidcache, &r->p_goidcacheend);
  } else {
    r->startpc = r->gopc = r->parent_goid = r->p_goidcache = r->p_goidcacheend = 0;
  }
  if (groups & GT_READ_SYSCALL) {
    r->gp_m = gv_read(&vgp, cfg.g_m, 8);
    r->gp_syscallsp = gv_read(&vgp, cfg.g_syscallsp, 8);
  } else {
    r->gp_m = r->gp_syscallsp = 0;
  }
  if (groups & GT_READ_BLOCK) {
    r->waitreason = (__u8)gv_read(&vgp, cfg.g_waitreason, 1);
    r->m_block_reason = (__u8)mw.reason;  // a uint8 (traceBlockReason)
    r->m_trace_skip = (__u8)mw.skip;      // an int; its low byte, as before
  } else {
    r->waitreason = r->m_block_reason = r->m_trace_skip = 0;
  }
  r->has_stack = want_stack;
  r->probe_id = st.probe_id;
  r->caller_spill[0] = spill[0];
  r->caller_spill[1] = spill[1];
  if (want_stack) put_stack(r, body, cap, &sr);
  bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
  return 0;
}

#include "bpf/user.bpf.h"  // user_hit: runtime/trace annotation sites (GT_REC_USER)

// A register by its GT_REG_* number. The verifier wants a constant offset into ctx for
// every load, and clang turns a switch of plain loads into one load at a computed
// offset: each case is its own asm load.
#define GT_CTX_LOAD(field)                                                                   \
  ({                                                                                         \
    __u64 v_;                                                                                \
    asm volatile("%[v] = *(u64 *)(%[c] + %[o])"                                              \
                 : [v] "=r"(v_)                                                              \
                 : [c] "r"(ctx), [o] "i"(__builtin_offsetof(struct pt_regs, field)));        \
    v_;                                                                                      \
  })
static __always_inline __u64 reg_of(struct pt_regs *ctx, __u32 n) {
  switch (n) {
    case GT_REG_AX: return GT_CTX_LOAD(ax);
    case GT_REG_BX: return GT_CTX_LOAD(bx);
    case GT_REG_CX: return GT_CTX_LOAD(cx);
    case GT_REG_DX: return GT_CTX_LOAD(dx);
    case GT_REG_SI: return GT_CTX_LOAD(si);
    case GT_REG_DI: return GT_CTX_LOAD(di);
    case GT_REG_R8: return GT_CTX_LOAD(r8);
    case GT_REG_R9: return GT_CTX_LOAD(r9);
    case GT_REG_R10: return GT_CTX_LOAD(r10);
    case GT_REG_R11: return GT_CTX_LOAD(r11);
    case GT_REG_R12: return GT_CTX_LOAD(r12);
    case GT_REG_R13: return GT_CTX_LOAD(r13);
    case GT_REG_R15: return GT_CTX_LOAD(r15);
    default: return 0;
  }
}

// GT_CALL_SPAN_REGS: deref = {npages, the count register, allocCount, elemsize}. The
// three mspan fields lie within 128 bytes of npages in every supported layout
// (mheap.go `type mspan`: npages, ..., allocCount, spanclass, ..., elemsize): one copy.
static __always_inline void read_span_regs(struct pt_regs *ctx, __u64 cookie, __u64 *deref) {
  __u64 span = reg_of(ctx, (cookie >> GT_SPAN_REG_COOKIE_SHIFT) & 15);
  deref[1] = reg_of(ctx, (cookie >> GT_NFREED_REG_COOKIE_SHIFT) & 15);
  __s32 base = cfg.span_npages;
  __s32 ra = cfg.span_alloc_count - base, re = cfg.span_elemsize - base;
  if (span && base >= 0 && ra >= 0 && ra <= 126 && re >= 0 && re <= 120) {
    __u8 w[128] = {};
    if (bpf_probe_read_user(w, sizeof(w), (const void *)(span + base)) != 0) count_fault();
    __u64 oa = (__u64)ra, oe = (__u64)re;
    asm volatile("%[o] &= 127" : [o] "+r"(oa));
    asm volatile("%[o] &= 127" : [o] "+r"(oe));
    __u64 np = 0, es = 0;
    __u16 ac = 0;
    __builtin_memcpy(&np, w, 8);
    if (oa <= 126) __builtin_memcpy(&ac, w + oa, 2);
    if (oe <= 120) __builtin_memcpy(&es, w + oe, 8);
    deref[0] = np;
    deref[2] = ac;
    deref[3] = es;
    return;
  }
  deref[0] = rdf64(span, cfg.span_npages);
  deref[2] = (__u16)rdf32(span, cfg.span_alloc_count);  // a uint16 followed by more fields
  deref[3] = rdf64(span, cfg.span_elemsize);
}

// ---- any other runtime site ---------------------------------------------------------

SEC("uprobe")
int gt_call(struct pt_regs *ctx) {
  struct gt_cpu_counters *cc = cpu_counters();
  if (!runtime_hit(cc)) return 0;
  struct site st = site_of(ctx);
  if (morestack_pending(ctx, st.flags)) {
    if (cc) cc->morestack_skips++;
    return 0;
  }
  __u64 cookie = bpf_get_attach_cookie(ctx);
  if (cookie & GT_USER_COOKIE_USER) return user_hit(ctx, cookie);
  bool want_stack = st.flags & GT_CALL_STACK;
  if (st.flags & (GT_CALL_SWEEP_OPEN | GT_CALL_SWEEP_IN | GT_CALL_SWEEP_CLOSE)) {
    // A span swept outside a bracket (bgsweep -> sweepone, finishsweep_m) and a bracket
    // that swept nothing yield no event (traceruntime.go GCSweepSpan: `if
    // pp.trace.maySweep`; GCSweepDone: `if pp.trace.inSweep`): no record.
    __u32 *b = bpf_task_storage_get(&sweep_map, bpf_get_current_task_btf(), 0,
                                    (st.flags & GT_CALL_SWEEP_OPEN) ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
    if (st.flags & GT_CALL_SWEEP_OPEN) {
      if (b) *b = 1;
      return 0;
    }
    if (!b || !(*b & 1)) return 0;
    if (st.flags & GT_CALL_SWEEP_CLOSE) {
      __u32 seen = *b & 2;
      *b = 0;
      if (!seen) return 0;
    } else {
      if (*b & 2) want_stack = false;  // GCSweepBegin (and its stack) is the first span's
      *b = 3;
    }
  }
  __u32 zero = 0;
  struct scratch *s = bpf_map_lookup_elem(&scratch_map, &zero);
  struct gt_go_ctx c;
  struct gviews v;
  struct mwait mw = {};
  read_go_ctx_v(ctx, st.flags, true, &c, s, &v, want_stack, false, false, &mw);

  struct stack_result sr = {};
  if (want_stack) {
    walk_curg_v(ctx, st.flags, &c, &sr, &v.curg);
    caller_pc_from_walk(ctx, st.flags, &c, &sr);
  }
  want_stack = want_stack && sr.tail.source != GT_STACK_NONE;

  const __u32 body = sizeof(struct gt_call_record);
  __u32 cap = 0, seq = 0;
  struct gt_call_record *r = reserve_go_record(cc, body, want_stack, sr.tail.nframes, &cap, &seq);
  if (!r) return 0;
  fill_header(&r->h, GT_REC_CALL, seq);
  __builtin_memcpy(&r->ctx, &c, sizeof(c));
  r->probe_id = st.probe_id;
  r->flags = st.flags;
  r->args[0] = ctx->ax;
  r->args[1] = ctx->bx;
  r->args[2] = ctx->cx;
  r->args[3] = ctx->di;
  r->args[4] = ctx->si;
  r->args[5] = ctx->r8;
  __u64 a0 = ctx->ax;
  if (st.flags & GT_CALL_ARG0_G) {
    r->deref[0] = rdf64(a0, cfg.g_goid);
    r->deref[1] = rdf32(a0, cfg.g_atomicstatus);
    r->deref[2] = rdf8(a0, cfg.g_waitreason);
    r->deref[3] = rdf64(a0, cfg.g_m);
  } else if (st.flags & GT_CALL_ARG0_P) {
    r->deref[0] = rdf32(a0, cfg.p_id);
    r->deref[1] = rdf32(a0, cfg.p_status);
    r->deref[2] = rdf64(a0, cfg.p_m);
    r->deref[3] = rdf32(a0, cfg.p_syscalltick);
  } else if (st.flags & GT_CALL_ARG0_M) {
    r->deref[0] = rdf64(a0, cfg.m_id);
    r->deref[1] = rdf64(a0, cfg.m_procid);
    r->deref[2] = rdf64(a0, cfg.m_curg);
    r->deref[3] = rdf64(a0, cfg.m_p);
  } else if (st.flags & GT_CALL_SPAN_REGS) {
    read_span_regs(ctx, cookie, r->deref);
  } else {
    r->deref[0] = r->deref[1] = r->deref[2] = r->deref[3] = 0;
  }
  r->has_stack = want_stack;
  __builtin_memset(r->pad, 0, sizeof(r->pad));
  if (want_stack) put_stack(r, body, cap, &sr);
  bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
  return 0;
}

// ---- kernel tracepoints (pid-filtered) --------------------------------------------

SEC("tp_btf/sched_switch")
int BPF_PROG(gt_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next) {
  __u32 prev_tgid = BPF_CORE_READ(prev, tgid), next_tgid = BPF_CORE_READ(next, tgid);
  bool p_in = tgid_traced(prev_tgid), n_in = tgid_traced(next_tgid);
  if (!p_in && !n_in) return 0;
  __u32 seq = 0;
  struct gt_sched_switch_record *r = reserve_record(cpu_counters(), sizeof(*r), &seq);
  if (!r) return 0;
  fill_header(&r->h, GT_REC_SCHED_SWITCH, seq);
  // The header names the traced thread (prev when traced, else next).
  r->h.tgid = p_in ? prev_tgid : next_tgid;
  r->h.tid = p_in ? BPF_CORE_READ(prev, pid) : BPF_CORE_READ(next, pid);
  r->prev_tid = BPF_CORE_READ(prev, pid);
  r->prev_tgid = prev_tgid;
  r->next_tid = BPF_CORE_READ(next, pid);
  r->next_tgid = next_tgid;
  r->prev_state = BPF_CORE_READ(prev, __state);
  r->preempt = preempt;
  r->pad = 0;
  bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
  return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(gt_sys_enter, struct pt_regs *regs, long id) {
  __u32 tgid = bpf_get_current_pid_tgid() >> 32;
  if (!tgid_traced(tgid)) return 0;
  __u32 seq = 0;
  struct gt_syscall_record *r = reserve_record(cpu_counters(), sizeof(*r), &seq);
  if (!r) return 0;
  fill_header(&r->h, GT_REC_SYS_ENTER, seq);
  r->id = id;
  r->ret = BPF_CORE_READ(regs, di);
  r->arg1 = BPF_CORE_READ(regs, si);
  bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
  return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(gt_sys_exit, struct pt_regs *regs, long ret) {
  __u32 tgid = bpf_get_current_pid_tgid() >> 32;
  if (!tgid_traced(tgid)) return 0;
  __u32 seq = 0;
  struct gt_syscall_record *r = reserve_record(cpu_counters(), sizeof(*r), &seq);
  if (!r) return 0;
  fill_header(&r->h, GT_REC_SYS_EXIT, seq);
  r->id = BPF_CORE_READ(regs, orig_ax);
  r->ret = ret;
  r->arg1 = 0;
  bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
  return 0;
}

static __always_inline int emit_task(__u16 kind, __u32 tgid, __u32 tid, __u32 other, __s32 code, __u8 dead) {
  __u32 seq = 0;
  struct gt_task_record *r = reserve_record(cpu_counters(), sizeof(*r), &seq);
  if (!r) return 0;
  fill_header(&r->h, kind, seq);
  r->h.tgid = tgid;
  r->h.tid = tid;
  r->other_tid = other;
  r->exit_code = code;
  r->group_dead = dead;
  __builtin_memset(r->pad, 0, sizeof(r->pad));
  // Lifecycle records are rare and the session waits for them: wake the consumer.
  bpf_ringbuf_submit(r, 0);
  return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(gt_task_exit, struct task_struct *p) {
  __u32 tgid = BPF_CORE_READ(p, tgid);
  if (!tgid_traced(tgid)) return 0;
  // signal->live reaches 0 when the last thread of the group exits (kernel/exit.c
  // do_exit: group_dead = atomic_dec_and_test(&tsk->signal->live)), before this
  // tracepoint fires.
  int live = BPF_CORE_READ(p, signal, live.counter);
  return emit_task(GT_REC_TASK_EXIT, tgid, BPF_CORE_READ(p, pid), 0, BPF_CORE_READ(p, exit_code), live == 0);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(gt_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm) {
  __u32 tgid = BPF_CORE_READ(p, tgid);
  if (!tgid_traced(tgid)) return 0;
  return emit_task(GT_REC_EXEC, tgid, BPF_CORE_READ(p, pid), old_pid, 0, 0);
}

SEC("tp_btf/task_newtask")
int BPF_PROG(gt_task_new, struct task_struct *task, u64 clone_flags) {
  __u32 tgid = BPF_CORE_READ(task, tgid);
  if (!tgid_traced(tgid)) return 0;
  __u64 cur = bpf_get_current_pid_tgid();
  return emit_task(GT_REC_TASK_NEW, tgid, (__u32)cur, BPF_CORE_READ(task, pid), 0, 0);
}

// ---- CPU samples (--cpu-hz): SEC("perf_event") gt_cpu_sample ----------------------
#include "bpf/gotrace_cpu.bpf.h"
