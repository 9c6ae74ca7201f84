// The maps and the .rodata configuration every gotrace program shares, and the
// per-thread scratch the uprobe programs work in. Included once per object (by
// gotrace.bpf.c through the other gt_*.bpf.h headers); stands on its own.
#pragma once

#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "proto/bpf_config.h"
#include "proto/records.h"
#include "bpf/gt_host_maps.bpf.h"

const volatile struct gt_bpf_config cfg = {};

// Moved by every procresize hit (cfg.p_id_cache): the threads' cached P ids from before
// it are stale, as a P freed by a shrink and made again may have its address reused.
__u32 gt_p_epoch = 0;

// The traced process (0: the traced_tgids map). In .bss, not .rodata: a loaded object is
// handed to the next process of the same executable when its process exits (capture.cc,
// ObjectReuse), and the daemon writes the new tgid here before attaching anything.
__u32 gt_target_tgid = 0;

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 32 << 20);  // resized by the daemon before load
} events SEC(".maps");

// Per-CPU counters (struct gt_cpu_counters, proto/records.h). Updated with atomic adds:
// uprobe programs run preemptibly (migrate_disable, not preempt_disable: kernel/trace/
// trace_uprobe.c __uprobe_perf_func), so two hits can interleave on one CPU.
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct gt_cpu_counters);
} counters SEC(".maps");

// Traced tgids for the tracepoints when gt_target_tgid == 0 (several processes).
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1024);
  __type(key, __u32);
  __type(value, __u8);
} traced_tgids SEC(".maps");

// Window sizes of the copies a hit makes (bpf_probe_read_user costs ~50-70 ns here and a
// few hundred bytes hardly more than 8: docs/probe-plan.md §7): GT_SWIN bytes of a
// goroutine stack per read, GT_GWIN bytes of a g from g.m on (struct gview).
#define GT_SWIN 512
#define GT_GWIN 320
#define GT_GSLOTS 4   // g copies: R14's g, m->curg, casgstatus' gp, (none)
#define GT_GSLOT_NONE 3
// The gs a hit reads (struct gview, scratch.views): each has its copy in the slot of
// the same number.
#define GT_VIEW_SELF 0
#define GT_VIEW_CURG 1
#define GT_VIEW_GP 2
#define GT_NVIEWS 4  // a power of two: indices are masked

// State of one stack walk (gt_stack.bpf.h walk_step says why it lives in the map value).
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

// A copy of GT_GWIN bytes of one g (gt_read.bpf.h gview_load). `slot` names the copy in
// scratch.gwin (GT_GSLOT_NONE: no copy, every field read on its own): an index, not a
// pointer, because the view itself lives in the map value.
struct gview {
  __u64 g;
  __u32 slot;
  __u32 pad;
};

// m.waitTraceSkip and m.waitTraceBlockReason (runtime2.go `type m`).
struct mwait {
  __u64 reason;
  __u64 skip;
};

// The registers a hit reads, saved once from the uprobe's pt_regs with constant offsets
// (the verifier refuses a computed offset into ctx): r[GT_REG_*] (proto/records.h) plus
// the ones with roles of their own.
struct gt_regs {
  __u64 r[16];  // GT_REG_AX .. GT_REG_R15 (r[0] = 0)
  __u64 r14;    // the running g (Go ABIInternal)
  __u64 sp, bp;
  __u64 ip;     // the probed instruction (GT_SITE_AT_CALL sites)
  __u64 cookie; // the attach cookie (probe id | flags << 16 | hi << 32)
};

// Per thread, in task storage: everything a uprobe hit works on. Not per-CPU and not on
// the BPF stack: a uprobe program can be preempted (PREEMPT, PREEMPT_LAZY: the default
// from Linux 6.16), and a second hit on the same CPU would then overwrite a per-CPU
// buffer, or a per-CPU JIT private stack (x86, 6.13+: used by any function whose own
// stack is >= 64 bytes), in the middle of the first (docs/preemption.md). A thread runs
// one uprobe hit at a time, so its own storage cannot be shared. Every function of a
// uprobe program keeps its own stack under 64 bytes for the same reason (selftest checks).
struct scratch {
  struct gt_regs regs;
  struct gt_go_ctx c;
  struct gview views[GT_NVIEWS];  // GT_VIEW_SELF: R14's g, GT_VIEW_CURG: m->curg, GT_VIEW_GP: casgstatus' gp
  struct mwait mw;
  struct gt_stack_tail tail;
  __u64 spill[2];
  // Per thread: the m of the last g seen in R14 that was not m->curg (g0 or gsignal).
  // Those gs belong to one m for its whole life (runtime2.go `type m`: g0, gsignal;
  // allocm sets them once) and an m runs on one thread until it exits (extra Ms of cgo
  // callbacks move between threads, hence the check against R14), so a hit in the
  // scheduler (casgstatus from execute, park_m, ready, goexit0: all on g0) takes m from
  // here instead of a copy of g0. Task storage dies with the thread.
  __u64 mc_g, mc_m;
  // The sweep bracket the thread is in (GT_CALL_SWEEP_*: bit 0 open, bit 1 a span was
  // recorded inside). A bracket (mgcsweep.go deductSweepCredit, mcentral.go cacheSpan,
  // mheap.go reclaim) runs on one M, which stays on its thread, without yielding it, so
  // the thread's flag is the P's pp.trace.maySweep (traceruntime.go GCSweepStart/Done).
  __u32 sweep;
  // The thread's last P and its id (cfg.p_id_cache), valid while pc_epoch is gt_p_epoch.
  __u32 pc_epoch;
  __u64 pc_p;
  __s32 pc_id;
  __u32 pad;
  // Capture level low (cfg.sys_pair): the thread's goroutine syscall entered at this time
  // (bpf_ktime_get_ns), written with its exit's record; 0 = none seen.
  __u64 sys_enter_ts;
  __u64 deref[4];  // a CALL record's deref[] before the record is reserved
  __u64 tmp[8];  // small multi-field reads (m's curg/p/oldp/id window, p's id..syscalltick)
  __u64 lwin[12];  // a label set's identity: [0..3] the words, [4..11] a read (gt_labels.bpf.h)
  struct gt_gstatus_record gs;  // a GSTATUS record's body before the record is reserved
  __u64 pcs[GT_MAX_FRAMES];
  struct walk w;
  __u8 swin[GT_SWIN + 16];           // +16: a masked frame offset's 16 bytes stay inside
  __u8 gwin[GT_GSLOTS][512 + 8];     // offsets masked to 511
  __u8 gwin_tail[GT_GWIN];           // gview_load's second-page read may end past the last slot
  __u8 mwin[GT_MWIN + 8];            // one copy of m (cfg.m_big_len; offsets masked to 1023)
};

struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct scratch);
} scratch_map SEC(".maps");

static __always_inline struct gt_cpu_counters *cpu_counters(void) {
  __u32 zero = 0;
  return bpf_map_lookup_elem(&counters, &zero);
}

// Cold path only: a failed read of target memory.
static __always_inline void count_fault(void) {
  struct gt_cpu_counters *cc = cpu_counters();
  if (cc) __sync_fetch_and_add(&cc->read_faults, 1);
}

// The end of this recording's program on a kernel-wide hook: on to the next recording of
// the same process (bpf/gt_host_maps.bpf.h). Returns only when there is none.
#define GT_NEXT(ctx, progs, hook) gt_host_chain(ctx, &progs, hook, cfg.host_slot)

static __always_inline bool tgid_traced(__u32 tgid) {
  const __u32 target = gt_target_tgid;
  if (target) return tgid == target;
  return bpf_map_lookup_elem(&traced_tgids, &tgid) != NULL;
}

// The syscall filters' first cut by the user IP of the SYSCALL (gt_syscall_tp.bpf.h,
// gt_kernel_syscall.bpf.h): in Go text, and not in one of the runtime's own syscall
// functions that never enter through entersyscall (cfg.sys_skip*: runtime.futex,
// runtime.usleep, runtime.osyield), whose syscalls then cost no read of the target.
static __always_inline bool go_syscall_ip(__u64 ip) {
  if (ip < cfg.go_text_lo || ip >= cfg.go_text_hi) return false;
  if (ip >= cfg.sys_skip_lo && ip < cfg.sys_skip_hi) return false;
  if (ip >= cfg.sys_skip2_lo && ip < cfg.sys_skip2_hi) return false;
  return !(ip >= cfg.sys_skip3_lo && ip < cfg.sys_skip3_hi);
}
