// The .rodata configuration of bpf/gotrace.bpf.c: set by the daemon (probes/) before
// the object is loaded, read by the BPF programs as constants (the verifier sees the
// frozen values, so there are no map lookups for offsets on the hot path).
#pragma once

#include "proto/records.h"

// A struct offset the target's Go version does not have: the BPF side writes 0.
#define GT_OFF_NONE (-1)

struct gt_bpf_config {
  // Not read by the programs: the traced tgid is gt_target_tgid in .bss (bpf/gt_maps.bpf.h),
  // which the daemon rewrites when it hands a loaded object to another process. Kept so
  // that the layout does not move.
  gt_u32 target_tgid;
  gt_u32 max_frames;   // <= GT_MAX_FRAMES
  gt_u8 stack_prefers_syscall;  // traceStack uses gp.syscall{pc,bp} when syscallsp != 0 (1.23+)
  gt_u8 pad0[3];
  gt_u16 stack_for_old[16];  // casgstatus: bit `new` of [old] => walk a stack
  // runtime.g
  gt_s32 g_stackguard0, g_m, g_sched_pc, g_sched_sp, g_sched_bp;
  gt_s32 g_syscallsp, g_syscallpc, g_syscallbp;
  gt_s32 g_atomicstatus, g_goid, g_waitreason, g_parent_goid, g_gopc, g_startpc;
  // runtime.m
  gt_s32 m_id, m_procid, m_curg, m_p, m_oldp, m_syscalltick;
  gt_s32 m_wait_trace_block_reason, m_wait_trace_skip;
  // runtime.p
  gt_s32 p_id, p_status, p_m, p_syscalltick, p_goidcache, p_goidcacheend;
  // Appended fields.
  gt_s32 g_sync_safe_point;  // bool g.syncSafePoint (1.24+)
  // casgstatus: which optional field groups to read for transition [old][new]
  // (GT_READ_*; each read costs ~50 ns here). Used when gstatus_groups_set != 0, else
  // everything is read.
  gt_u8 gstatus_groups_set;
  gt_u8 pad1[3];
  gt_u8 gstatus_groups[16][16];
  // One 64-byte read of m at m_win_off covers m.curg, m.p, m.oldp and m.id (adjacent in
  // runtime2.go of every supported Go); -1: read them one by one.
  gt_s32 m_win_off;
  // p.status follows p.id (4 bytes later): one 8-byte read.
  gt_u8 p_id_status_adjacent;
  gt_u8 pad2[3];
  // runtime.mspan (GT_CALL_SPAN_REGS sites: (*sweepLocked).sweep).
  gt_s32 span_npages, span_nelems, span_alloc_count, span_elemsize;
  // CPU samples outside Go code (bpf/gotrace_cpu.bpf.h cpu_ext_start): runtime.m's
  // vdsoSP, vdsoPC (8 bytes each) and ncgo (int32), and where the thread's g is in its TLS
  // (the g of the thread = *(fsbase + tls_g_off); 0: unknown, those samples keep the
  // frame-pointer walk from the interrupted registers).
  gt_s32 m_vdso_sp, m_vdso_pc, m_ncgo;
  gt_s32 tls_g_off;
  // Bytes of one copy of m from m_win_off that also holds m.syscalltick and
  // m.waitTraceSkip/waitTraceBlockReason (when the Go version has them), for hits that
  // read those too (casgstatus around _Gwaiting/_Gsyscall, every call site): one read of
  // m instead of two or three (go1.26: 184..792, 608 bytes; go1.22: 192..956). 0: the
  // span is unaligned or over GT_MWIN bytes, read those fields on their own.
  gt_u32 m_big_len;
  // Goroutine syscalls from the raw_syscalls tracepoints (bpf/gt_syscall_tp.bpf.h), when
  // sys_tp != 0 (and the kernel view's, when ksys != 0): a syscall made from Go text [go_text_lo, go_text_hi) (runtime addresses)
  // outside [sys_skip_lo, sys_skip_hi) (runtime.futex: entersyscallblock's futex sleep,
  // whose syscall the runtime traces at entersyscallblock itself) by a thread whose g
  // (TLS) is in _Gsyscall writes a CALL record as the plan site sys_enter_probe_id /
  // sys_exit_probe_id would have (reentersyscall / exitsyscall entry). 2: Go <= 1.25, the
  // records also carry m.oldp's P (GT_CALL_DEREF_OLDP).
  gt_u8 sys_tp;
  // 1: sys_enter walks the goroutine's stack (GoSyscallBegin's); 0: capture level low,
  // whose syscalls are written without one (model_sparse.cc: GoCreateSyscall has none).
  gt_u8 sys_enter_stack;
  // 1 (capture level low): one record per syscall. sys_enter only notes its time in the
  // thread's scratch; sys_exit's record carries it in args[1] (0: the entry was not seen).
  gt_u8 sys_pair;
  // 1: the kernel view's goroutine syscall records (bpf/gt_kernel_syscall.bpf.h, Go <= 1.25
  // whose syscalls come from uprobes): the same filter as sys_tp (Go text outside
  // [sys_skip_lo, sys_skip_hi), TLS g in _Gsyscall), one small record at each end.
  gt_u8 ksys;
  gt_u32 sys_enter_probe_id, sys_exit_probe_id;
  // With sys_pair (capture level low): a syscall shorter than this many microseconds
  // writes nothing, and its thread's g is not even read (sys_enter notes the time only;
  // sys_exit reads the g of those that lasted). 0: every goroutine syscall is written.
  // Counted per CPU (gt_cpu_counters.short_syscalls).
  gt_u32 sys_min_us;
  gt_u64 go_text_lo, go_text_hi, sys_skip_lo, sys_skip_hi;
  // More of the runtime's own syscall functions, skipped like runtime.futex: runtime.usleep
  // (sysmon's sleeps, thousands per second on a busy server; runqgrab) and
  // runtime.osyield (sched_yield). Neither is ever made through entersyscall. [0, 0): none.
  gt_u64 sys_skip2_lo, sys_skip2_hi, sys_skip3_lo, sys_skip3_hi;
  // 1: a casgstatus hit that reads no syscall fields takes p.id from the thread's cache
  // of its last P (scratch pc_*) instead of a read of the target: a P's id never changes,
  // and Ps are made only in runtime.procresize (a stopped world), whose site
  // (procresize_probe_id) moves the program's P epoch and so empties every cache. Set
  // only when the plan probes procresize. ctx.p_status is then not read (GT_P_STATUS_UNREAD).
  gt_u8 p_id_cache;
  gt_u8 pad3[3];
  gt_u32 procresize_probe_id;
  // This recording's slot in the dispatch of the kernel-wide hooks (proto/host_hooks.h):
  // its tracepoint and CPU-sample programs run when the daemon's dispatcher jumps to them,
  // and jump on to the next recording of the same process.
  gt_u32 host_slot;
  // 1: raw_syscalls records of every syscall of the target (--syscall-tracepoints:
  // GT_REC_SYS_ENTER / _EXIT).
  gt_u8 raw_sys;
  // 1: the kernel view's off-CPU records (sched_switch, sched_wakeup).
  gt_u8 sched_view;
  // 1 (capture level low, `--syscalls-by switch`): goroutine syscalls from sched_switch
  // (bpf/gt_sys_switch.bpf.h): a thread off CPU in one for sys_min_us or more writes
  // GT_REC_SYS_SWITCH at its switch-in; no program on any syscall.
  gt_u8 sys_switch;
  gt_u8 pad4[1];
  // runtime.g's labels (unsafe.Pointer, every supported Go), read at casgstatus hits whose
  // groups have GT_READ_LABELS; -1: not read (--no-labels).
  gt_s32 g_labels;
  // Where the two words that identify a label set beyond its pointer lie, as offsets from
  // the first word at g.labels (proto/records.h gt_labels_id; the daemon chooses them per
  // Go version: daemon/procmem/label_identity.h). 0 <= [0] < [1], 8-aligned, [1] - [0] <= 48.
  gt_s32 labels_id_off[2];
  // Bytes of the set's first object to copy at g.labels: 8 or 16 (no more than it holds: a
  // read past it may reach a page nothing has touched yet, which BPF cannot fault in).
  gt_s32 labels_id_head;
  // 1: w[1] is the first word of what w[3] points to (a map version's first bucket: its
  // tophash bytes, which a bucket reused by anything else no longer holds); the head is 8.
  gt_s32 labels_id_w1_at_w3;
  gt_u8 pad5[4];
};

// gt_go_ctx.p_status of a hit that took p.id from the thread's cache (p_id_cache).
#define GT_P_STATUS_UNREAD 0xffffffffu

// Size of the scratch copy of m that m_big_len may use (bpf/gotrace.bpf.c).
#define GT_MWIN 1024

#define GT_READ_CREATE 0x1   // startpc, gopc, parent_goid, p_goidcache(end)
#define GT_READ_BLOCK 0x2    // waitreason, m_block_reason, m_trace_skip
#define GT_READ_SYSCALL 0x4  // gp_syscallsp, gp_m, ctx.m_oldp, ctx.m_syscalltick, ctx.p_syscalltick
#define GT_READ_SPILL 0x8    // caller_spill
#define GT_READ_LABELS 0x10  // labels (gp->labels: the pprof label set's pointer)
