// The one definition of every record that crosses from BPF to user space.
// Included by bpf/*.bpf.c (with vmlinux.h types) and by daemon/ (with <cstdint>).
// Plain fixed-width fields only; every record starts with struct gt_record_header.
//
// Rules of this wire (see docs/probe-plan.md for which probe writes which record):
//  * BPF captures raw values and never interprets them: pointers, register arguments,
//    struct fields read at offsets the daemon put in .rodata, raw return addresses.
//    Mapping statuses / call sites / PCs to trace events is the daemon's job.
//  * A record is a fixed-size body, optionally followed by a stack tail
//    (struct gt_stack_tail + nframes u64 PCs). The ring-buffer sample is at least
//    sizeof(body) + sizeof(gt_stack_tail) + 8*nframes bytes (the BPF side rounds the
//    reservation up to a size class, so trailing bytes beyond nframes are garbage).
//  * Timestamps: bpf_ktime_get_ns() = CLOCK_MONOTONIC, the clock of Go's nanotime().
//    Every runtime probe fires BEFORE the probed function body runs (entry sites) or
//    after it finished (RET sites), so for one goroutine its transitions' timestamps are
//    in causal order even when they come from different threads: casgstatus(gp, A, B)
//    on thread 1 fires before its CAS, which happens before thread 2 can observe B and
//    call casgstatus(gp, B, C), which fires later.
//  * The timestamp is read AFTER the ring-buffer reservation, so once the consumer has
//    drained everything reserved before instant T, every later record has ts > T (the
//    capture layer uses that as a sort watermark, see daemon/capture/ring_consumer.h).
//  * Records of one thread (tid) are in program order in the ring. Across threads,
//    order by ts.
#pragma once

#ifdef __BPF__
typedef __u8 gt_u8;
typedef __u16 gt_u16;
typedef __u32 gt_u32;
typedef __u64 gt_u64;
typedef __s32 gt_s32;
typedef __s64 gt_s64;
#else
#include <stdint.h>
typedef uint8_t gt_u8;
typedef uint16_t gt_u16;
typedef uint32_t gt_u32;
typedef uint64_t gt_u64;
typedef int32_t gt_s32;
typedef int64_t gt_s64;
#endif

// Version of this layout; the daemon refuses a BPF object built with another.
// 1: hello only. 2: Go runtime capture (gstatus/call/sched/syscall/task records).
// 3: sched_switch records are the kernel view's (OFF/ON halves).
// 4: gt_gstatus_record.labels (the g's pprof label pointer, issue 34).
// 5: the words that identify the label set (gt_labels_id) with every labels pointer, and
//    the labels of a CPU sample's goroutine.
// 6: GT_REC_SYS_SWITCH (level low's syscalls from sched_switch, issue 28).
#define GT_PROTO_VERSION 6

// Most frames a stack tail carries. Go's tracer keeps at most traceStackSize = 128
// (runtime/tracestack.go, 1.21+: trace.go), including the skipped ones.
#define GT_MAX_FRAMES 128

enum gt_record_kind {
  GT_REC_NONE = 0,
  GT_REC_HELLO = 1,         // build-path self test: one record per exec of a traced pid
  GT_REC_GSTATUS = 2,       // struct gt_gstatus_record: runtime.casgstatus(gp, old, new) hit
  GT_REC_CALL = 3,          // struct gt_call_record: any other runtime probe site of the plan
  GT_REC_SCHED_SWITCH = 4,  // struct gt_sched_switch_record: a target thread went on/off CPU
  GT_REC_SYS_ENTER = 5,     // struct gt_syscall_record: raw_syscalls/sys_enter in the target
  GT_REC_SYS_EXIT = 6,      // struct gt_syscall_record: raw_syscalls/sys_exit in the target
  GT_REC_TASK_EXIT = 7,     // struct gt_task_record: sched_process_exit of a target thread
  GT_REC_EXEC = 8,          // struct gt_task_record: sched_process_exec in the target tgid
  GT_REC_TASK_NEW = 9,      // struct gt_task_record: task_newtask (new thread) in the target
  GT_REC_USER = 11,         // struct gt_user_record: a runtime/trace annotation site (tasks,
                            // regions, logs); 12 is reserved for user annotations too
  GT_REC_CPU_SAMPLE = 10,   // struct gt_cpu_sample_record: a CPU-clock perf sample of a target thread
  GT_REC_KSYS_ENTER = 13,   // struct gt_syscall_record: the kernel view's goroutine syscall entry
  GT_REC_KSYS_EXIT = 14,    // struct gt_syscall_record: ... and its exit (bpf/gt_kernel_syscall.bpf.h)
  GT_REC_SYS_SAMPLE = 15,   // struct gt_sys_sample_record: a sampled goroutine syscall (bpf/gt_sys_sample.bpf.h)
  GT_REC_SYS_SWITCH = 16,   // struct gt_sys_switch_record: a goroutine syscall seen off CPU (bpf/gt_sys_switch.bpf.h)
  GT_REC_KIND_COUNT
};

struct gt_record_header {
  gt_u64 ts_ns;  // bpf_ktime_get_ns (CLOCK_MONOTONIC), read after the ring reservation
  gt_u32 tgid;   // process id
  gt_u32 tid;    // thread id (for runtime probes: the M's procid)
  gt_u16 kind;   // enum gt_record_kind
  gt_u16 cpu;    // bpf_get_smp_processor_id()
  // Per-CPU sequence number: +1 for every record this CPU tried to write, including the
  // ones lost because the ring was full. A gap in one CPU's sequence = records lost at
  // exactly that point of that CPU's stream (0 in the hello record).
  gt_u32 seq;
};

// ---------------------------------------------------------------------------------
// Go context, read at every runtime probe from R14 (ABIInternal: the running g).
// Fields that cannot be read (nil pointer, fault) are 0, ids -1.
struct gt_go_ctx {
  gt_u64 g;          // R14: the g whose stack the probe runs on. g0 (m.g0) on the system
                     // stack (mcall/systemstack: park_m, execute, newproc1, ready...),
                     // gsignal in signal handlers, the user goroutine otherwise.
  gt_u64 m;          // g->m (the M; the thread is h.tid)
  gt_u64 curg;       // m->curg: the user goroutine this M runs (0 when none)
  gt_u64 curg_goid;  // curg->goid (0 when curg == 0)
  gt_u64 p;          // m->p: the P this M holds (0 when none)
  gt_s64 m_id;       // m->id (-1 when m == 0)
  gt_s32 p_id;       // p->id (-1 when p == 0)
  gt_u32 p_status;   // p->status, raw runtime value (_Pidle=0, _Prunning=1, _Psyscall=2, ...);
                     // GT_P_STATUS_UNREAD when p.id came from the thread's cache (bpf_config.h p_id_cache)
  gt_u64 caller_pc;  // the return address into the probed function's caller: *(u64*)SP
                     // (entry, entry+4 and RET sites), *(u64*)(RBP+8) at
                     // GT_SITE_FRAME_READY sites.
  gt_u64 sp;         // SP at the probe
  gt_u64 m_oldp;     // m->oldp (the P held before a syscall; exitsyscall's lostP check)
  gt_u32 m_syscalltick;  // m->syscalltick (copied from p at entersyscall)
  gt_u32 p_syscalltick;  // p->syscalltick (0 when no P)
};

// How the PCs of a stack tail were obtained.
enum gt_stack_source {
  GT_STACK_NONE = 0,     // no stack (plan did not ask, or no goroutine to walk)
  // Walked on the stack the probe runs on (R14 == m->curg): pcs[0] = *(u64*)SP (the
  // return address into the probed function's caller), then the frame-pointer chain
  // from RBP (pc = [fp+8], fp = [fp]). At every site we probe, RBP is still the
  // caller's frame pointer (entry / entry+4 before PUSHQ BP; RET after POPQ BP).
  GT_STACK_REGS = 1,
  // Walked from m->curg->sched: pcs[0] = sched.pc, then the chain from sched.bp. This is
  // what runtime.traceStack does when called on g0 (mcall/systemstack) or for a g that
  // is not running (runtime/tracestack.go "case (1)/(2)").
  GT_STACK_SCHED = 2,
  // Walked from m->curg->syscallpc / syscallbp (Go >= 1.23, curg->syscallsp != 0):
  // traceStack's "case (3)".
  GT_STACK_SYSCALL = 3,
  // CPU samples (GT_REC_CPU_SAMPLE): pcs[0] = the thread's user IP (an instruction, not a
  // return address), then the frame-pointer chain from the user RBP, as the kernel's
  // perf_callchain_user walks it (bpf_get_stack with BPF_F_USER_STACK).
  GT_STACK_USER = 4,
  // CPU samples taken while the thread was in a VDSO call (m.vdsoSP != 0): the walk of
  // runtime/proc.go sigprof's "VDSO call" case, from the frame of the assembly function
  // that made the call (nanotime1, time·now, vgetrandom1: each has a frame, so its saved
  // RBP and return address are the two words below m.vdsoSP). pcs[0] = that return
  // address (= m.vdsoPC when the frame is where we expect), then the chain.
  // sched_sp_word = m.vdsoPC, for the daemon to check pcs[0] against.
  GT_STACK_VDSO = 5,
  // (GT_STACK_SYSCALL in a CPU sample: the thread was in a cgo call, m.ncgo > 0 and
  // curg.syscallsp != 0: pcs[0] = curg.syscallpc, then the chain from curg.syscallbp,
  // or curg.sched.bp before 1.23 (asmcgocall's gosave_systemstack_switch saves
  // cgocall's RBP there), as sigprof's "cgo call" case walks from syscallpc/syscallsp.)
};

// Flags of struct gt_stack_tail.
#define GT_STACK_TRUNCATED 0x1  // the walk stopped at GT_MAX_FRAMES (or the plan's limit)
#define GT_STACK_FAULT 0x2      // a read of the chain failed before fp reached 0
#define GT_STACK_LOOP 0x4       // the chain did not go up the stack (fp <= previous fp)

// Follows a record body when the record carries a stack.
struct gt_stack_tail {
  gt_u16 nframes;  // number of valid pcs[] entries (raw return addresses, leaf first)
  gt_u8 source;    // enum gt_stack_source
  gt_u8 flags;     // GT_STACK_*
  gt_u8 sync_safe_point;  // GT_STACK_SCHED: curg->syncSafePoint (Go >= 1.24; 0 before)
  gt_u8 pad[3];
  gt_u64 sched_sp_word;  // GT_STACK_SCHED only: *(u64*)curg->sched.sp. Go >= 1.24
                         // traceStack inserts it as the 2nd PC when gp.syncSafePoint
                         // (stopped in morestack, issue 68090); the daemon decides.
  gt_u64 stack_g;        // the goroutine walked (m->curg), 0 for NONE
  // gt_u64 pcs[nframes] follows.
};

// ---------------------------------------------------------------------------------
// The words that identify a pprof label set, copied with its pointer (g.labels) where the
// pointer is read: the daemon reads the set a few ms later, when a set the goroutine has
// dropped may have been freed and its memory reused by anything, so it reads these words
// again after the set and drops a set whose words changed (daemon/procmem/label_reader.h).
// Copied as they are, 0 where a read failed or no pointer:
//   w[0], w[1]: the words at the pointer (w[1] only when cfg.labels_id_head is 16; with
//               cfg.labels_id_w1_at_w3, the first word of what w[3] points to instead);
//   w[2], w[3]: the words at w[0] + cfg.labels_id_off[0] and w[0] + cfg.labels_id_off[1]
//               (w[3] 0 when the span between cannot be read).
// Which of them belong to the set, per runtime/pprof's representation, is the daemon's
// (daemon/procmem/label_identity.h).
struct gt_labels_id {
  gt_u64 w[4];
};

// ---------------------------------------------------------------------------------
// GT_REC_GSTATUS: one hit of runtime.casgstatus(gp *g, oldval, newval uint32), the choke
// point of nearly every G transition (runtime/proc.go). ABIInternal args: RAX = gp,
// RBX = oldval, RCX = newval. The probe sits at the function's first instruction
// (PUSHQ BP on Go >= 1.21: emulated, ~1 us), so nothing of the transition has happened
// yet when this is recorded.
// Optional field groups: the plan chooses per transition which ones are read
// (ProbePlan::gstatus_groups, GT_READ_* in proto/bpf_config.h); the others are 0.
//   CREATE  (old == _Gdead): startpc, gopc, parent_goid, p_goidcache, p_goidcacheend
//   BLOCK   (old or new == _Gwaiting): waitreason, m_block_reason, m_trace_skip
//   SYSCALL (old or new == _Gsyscall): gp_m, gp_syscallsp, ctx.m_oldp,
//           ctx.m_syscalltick, ctx.p_syscalltick
//   SPILL   (_Gwaiting -> _Grunnable): caller_spill
//   LABELS  (new == _Grunning): labels
struct gt_gstatus_record {
  struct gt_record_header h;
  struct gt_go_ctx ctx;
  gt_u64 gp;           // arg0: the g whose status changes
  gt_u64 goid;         // gp->goid at probe time. NOTE for _Gdead -> _Grunnable|_Gwaiting
                       // (newproc1): Go <= 1.23 assigns newg.goid AFTER this casgstatus,
                       // so goid is stale (previous owner of a reused g, or 0); the real
                       // id is p_goidcache (when p_goidcache != p_goidcacheend; else the
                       // next batch from sched.goidgen), see docs/probe-plan.md. Go 1.26+
                       // assigns it before: goid is right.
  gt_u32 oldval;       // arg1 (raw, may carry _Gscan 0x1000)
  gt_u32 newval;       // arg2
  gt_u64 gp_m;         // gp->m
  gt_u64 startpc;      // gp->startpc (the go statement's function)
  gt_u64 gopc;         // gp->gopc (PC of the go statement in the creator)
  gt_u64 parent_goid;  // gp->parentGoid (Go >= 1.21; 0 before)
  gt_u64 p_goidcache;     // m->p->goidcache  (0 when no P)
  gt_u64 p_goidcacheend;  // m->p->goidcacheend
  gt_u64 gp_syscallsp;    // gp->syscallsp (non-zero while gp is in a syscall)
  gt_u8 waitreason;       // gp->waitreason (set by gopark before park_m's casgstatus)
  gt_u8 m_block_reason;   // m->waitTraceBlockReason (1.21+; m->waittraceev before): the
                          // trace block reason gopark was given (1.22+: traceBlockReason)
  gt_u8 m_trace_skip;     // m->waitTraceSkip: gopark's traceskip
  gt_u8 has_stack;        // 1 when a gt_stack_tail follows
  gt_u32 probe_id;        // index of the site in the probe plan (attach cookie)
  // The caller's ABIInternal argument spill slots: the two words above the caller's
  // return address (caller_fp+16, caller_fp+24; caller_fp = RBP at the site, or [RBP] at
  // GT_SITE_FRAME_READY sites). Meaningful only where the plan verified the caller
  // spills there: runtime.ready(gp, traceskip, next) stores traceskip in slot 1 before
  // calling casgstatus (ProbePlan::ready_traceskip_spilled), which is GoUnblock's skip.
  gt_u64 caller_spill[2];
  // gp->labels (runtime2.go `labels unsafe.Pointer // profiler labels`): the pointer
  // runtime/pprof's SetGoroutineLabels stored, copied as is (0: none, or not read). What
  // it points to (a map, or a sorted slice from Go 1.24) is read by the daemon
  // (daemon/procmem/label_set.h), cached by pointer.
  gt_u64 labels;
  struct gt_labels_id labels_id;  // with labels (LABELS group and labels != 0), else 0
  // struct gt_stack_tail + pcs follow when has_stack.
};

// ---------------------------------------------------------------------------------
// GT_REC_CALL: a hit of any other probe site of the plan (acquirep, releasep, handoffp,
// procresize, reentersyscall, exitsyscall, preemptPark, gcStart, STW ...). What the
// site means, and what its argument registers hold, is in the plan entry probe_id
// (daemon/probes/probe_plan.h); BPF only copies.
// Flags (attach cookie bits 16..31, echoed here) say which extra reads were made:
#define GT_CALL_STACK 0x1      // walk m->curg's stack (a gt_stack_tail follows)
#define GT_CALL_ARG0_G 0x2     // arg0 is a *g: deref = {goid, atomicstatus, waitreason, m}
#define GT_CALL_ARG0_P 0x4     // arg0 is a *p: deref = {id, status, m, syscalltick}
#define GT_CALL_ARG0_M 0x8     // arg0 is a *m: deref = {id, procid, curg, p}
#define GT_CALL_CHECK_MORESTACK 0x10  // entry+4 site: drop the hit when SP <= g->stackguard0
                                      // (the JBE to morestack will be taken and the function
                                      // re-entered from its start; the re-entry is recorded)
#define GT_CALL_CHECK_MORESTACK_R12 0x20  // same, for big frames: the prologue compares
                                          // R12 = SP - framesize (LEAQ -x(SP), R12)
#define GT_SITE_FRAME_READY 0x40  // the site is after PUSHQ BP / MOVQ BP,x(SP); LEAQ x(SP),BP:
                                  // RBP is the function's own frame, so caller_pc = [RBP+8]
                                  // and a REGS walk starts at fp = RBP (pcs[0] = [RBP+8])
#define GT_CALL_GUARD_STACKGUARD1 0x80  // the prologue compares against g->stackguard1
                                        // (16+8(R14): //go:systemstack functions)
// deref = {id, status, m, syscalltick} of m->oldp (the P a Go <= 1.25 syscall left: m.p is
// 0 until exitsyscall), as GT_CALL_ARG0_P reads a P. (0x100 was GT_CALL_ARG0_SPAN.)
#define GT_CALL_DEREF_OLDP 0x100
#define GT_CALL_SPAN_REGS 0x200  // the span and its freed-object count are in registers named
                                 // by cookie bits 48..51 (span) and 52..55 (count)
                                 // (GT_REG_*): deref = {npages, the count register (raw),
                                 // allocCount, elemsize} of that span
// Sweep brackets (docs/probe-plan.md §3.9): a per-thread flag (task storage) is set at the
// bracket's start site and cleared at its end site, so that hits the runtime's tracer
// would not count (spans swept outside a bracket: bgsweep) write no record.
#define GT_CALL_SWEEP_OPEN 0x400   // opens the thread's bracket; writes no record
#define GT_CALL_SWEEP_IN 0x800     // recorded only inside an open bracket; with GT_CALL_STACK,
                                   // the stack is walked for the bracket's first such hit only
#define GT_CALL_SWEEP_CLOSE 0x1000 // closes the bracket; recorded only when a GT_CALL_SWEEP_IN
                                   // hit was recorded inside it
// The stack is walked from the argument registers as a syscall's: pcs[0] = RAX, then the
// chain from RCX, the first copy at RBX (source GT_STACK_SYSCALL). For the
// reentersyscall(pc, sp, bp) call of cgocallbackg, and for the syscall tracepoints,
// which put curg's syscallpc/syscallsp/syscallbp there (bpf/gt_syscall_tp.bpf.h).
#define GT_CALL_STACK_FROM_ARGS 0x2000
// The site is a `CALL rel32` inside the caller (probes/syscall_sites.h): the record is the
// one the callee's entry would write. caller_pc = the call's return address (the site's
// IP + 5; uprobe handlers see IP = the probed instruction), a walk from the registers
// starts with it and follows the chain from RBP (the caller's own frame pointer), and
// ready's spill slots are above RBP.
#define GT_SITE_AT_CALL 0x4000
// The record was written by a syscall tracepoint (bpf/gt_syscall_tp.bpf.h), standing for
// the plan site it names: at the kernel's syscall entry / exit of a goroutine in
// _Gsyscall, instead of a uprobe at entersyscall / exitsyscall. At sys_enter, args[5]
// holds the goroutine's g.labels (0 when not read: --no-labels).
#define GT_CALL_FROM_TRACEPOINT 0x8000
// Register numbers of GT_CALL_SPAN_REGS (cookie nibbles): 0 = none.
enum gt_reg {
  GT_REG_NONE = 0, GT_REG_AX, GT_REG_BX, GT_REG_CX, GT_REG_DX, GT_REG_SI, GT_REG_DI, GT_REG_R8,
  GT_REG_R9, GT_REG_R10, GT_REG_R11, GT_REG_R12, GT_REG_R13, GT_REG_R15,
};
#define GT_SPAN_REG_COOKIE_SHIFT 48
#define GT_NFREED_REG_COOKIE_SHIFT 52
// GT_CALL_ARG0_P at a site inside a function body (Go <= 1.25 stopTheWorldWithSema's steal
// of a P in a syscall, probes/stw_steal_site.h): the P is in the register named by cookie
// bits 48..51 (GT_REG_*); 0 = RAX, the first argument at an entry site.
#define GT_ARG0_REG_COOKIE_SHIFT 48
// The flag bits above also apply to GSTATUS sites (cookie bits 16..31 of casgstatus).

struct gt_call_record {
  struct gt_record_header h;
  struct gt_go_ctx ctx;
  gt_u32 probe_id;   // index of the site in the probe plan (attach cookie bits 0..15)
  gt_u32 flags;      // GT_CALL_* (attach cookie bits 16..31)
  gt_u64 args[6];    // RAX, RBX, RCX, RDI, RSI, R8 at the site: ABIInternal integer args
                     // 1..6 at entry sites, results at RET sites
  gt_u64 deref[4];   // fields read through arg0 per GT_CALL_ARG0_* (else 0)
  gt_u8 has_stack;   // 1 when a gt_stack_tail follows
  gt_u8 pad[7];
  // GT_CALL_FROM_TRACEPOINT at sys_enter: the set at args[5] (g.labels), else 0.
  struct gt_labels_id labels_id;
  // struct gt_stack_tail + pcs follow when has_stack.
};

// ---------------------------------------------------------------------------------
// GT_REC_SCHED_SWITCH: the kernel view (docs/kernel-view.md, bpf/gt_kernel.bpf.h). A thread
// of a traced tgid going off CPU while its M runs a goroutine (m->curg != 0: a thread in
// the scheduler or parked has none, and writes nothing), and the same thread coming back
// on CPU. One record per direction; the ON record carries what the kernel did in between
// (the wake-up instant), kept per thread in task storage, so no record is written at the
// wake-up itself.
#define GT_SCHED_OFF 0
#define GT_SCHED_ON 1
#define GT_THROTTLE_UNKNOWN 0xff  // the kernel has no cfs_rq throttle_count (no CFS bandwidth)
struct gt_sched_switch_record {
  struct gt_record_header h;  // tid: the traced thread; ts: the switch
  gt_u64 off_ts;       // ON: the ts of this thread's OFF record (its switch-out)
  gt_u64 wake_ts;      // ON: first sched_wakeup of the thread after off_ts (0: none, it was
                       // never asleep: preempted, yielded or throttled)
  gt_u64 curg;         // OFF: m->curg read from the thread's TLS g (raw pointer)
                       // ON after a throttled OFF: the next expiry of the CPU quota's period
                       // timer (ns, CLOCK_MONOTONIC; 0: no quota found), see gt_quota_period
  gt_u32 prev_state;   // OFF: sched_switch's prev_state (TASK_RUNNING 0, TASK_INTERRUPTIBLE 1,
                       // TASK_UNINTERRUPTIBLE 2, ... include/linux/sched.h)
                       // ON after a throttled OFF: the quota's period (ns)
  gt_u32 other_tid;    // the thread on the other side of the switch (OFF: next, ON: prev)
  gt_u32 other_tgid;
  gt_u8 dir;           // GT_SCHED_OFF / GT_SCHED_ON
  gt_u8 preempt;       // OFF: sched_switch's preempt argument (an involuntary switch)
  gt_u8 throttle;      // OFF: prev->se.cfs_rq->throttle_count > 0 (its cgroup, or one above,
                       // is throttled by its CPU quota), GT_THROTTLE_UNKNOWN
  gt_u8 pad;
};

// GT_REC_SYS_ENTER / GT_REC_SYS_EXIT: raw_syscalls in a traced tgid (optional: attached
// only when the plan asks, they fire for runtime-internal syscalls too: futex, epoll...).
// GT_REC_KSYS_ENTER / GT_REC_KSYS_EXIT: the same fields, for goroutine syscalls only (a
// thread whose g is in _Gsyscall, from Go text), Go <= 1.25 with the kernel view
// (bpf/gt_kernel_syscall.bpf.h): the number, fd and byte count of the syscall that the
// casgstatus uprobe's GoSyscallBegin stands for.
struct gt_syscall_record {
  struct gt_record_header h;
  gt_s64 id;      // syscall number (x86-64)
  gt_s64 ret;     // SYS_EXIT: return value; SYS_ENTER: arg0
  gt_u64 arg1;    // SYS_ENTER: args[1]; SYS_EXIT: 0
};

// GT_REC_SYS_SAMPLE: the syscall sampler (bpf/gt_sys_sample.bpf.h, capture level low).
// Every few ms the daemon runs a task iterator over the target's threads; each thread
// found in a syscall made from Go text whose g (TLS) is in _Gsyscall writes one record,
// and the sweep ends with one record of tid 0. The same syscall seen in consecutive
// sweeps (same thread, g, number and voluntary-switch count) is one long syscall; the
// decoder (daemon/model/record_decoder_sys_sample.cc) makes it a syscall event.
struct gt_sys_sample_record {
  struct gt_record_header h;  // tid: the thread in the syscall (0: end of a sweep); ts: read
  gt_s64 nr;       // pt_regs orig_ax: the syscall number (x86-64)
  gt_u64 arg0;     // pt_regs di: its first argument (an fd for read, write, epoll_pwait...)
  gt_u64 g;        // the thread's g, from its TLS
  gt_u64 goid;     // g.goid
  gt_u64 nvcsw;    // task->nvcsw: voluntary context switches, unchanged while one sleep lasts
  gt_u32 state;    // task->__state (0: running, 1: interruptible sleep, 2: uninterruptible)
  gt_u32 gstatus;  // g.atomicstatus
};

// GT_REC_SYS_SWITCH: level low's syscalls from sched_switch (bpf/gt_sys_switch.bpf.h,
// `--syscalls-by switch`). A thread of the target switched out while in a syscall made
// from Go text, its g (TLS) in _Gsyscall, notes what it was in; switched back in after
// at least cfg.sys_min_us, it writes this one record (shorter: counted, short_syscalls).
// The decoder (RecordDecoder::DecodeSysSwitch) makes it a syscall of [off_ts, h.ts_ns].
struct gt_sys_switch_record {
  struct gt_record_header h;  // tid: the thread; ts: its switch-in (the syscall ends just after)
  gt_u64 off_ts;   // its switch-out in the syscall (the syscall began its on-CPU prefix before)
  gt_s64 nr;       // pt_regs orig_ax at the switch-out: the syscall number (x86-64)
  gt_u64 arg0;     // pt_regs di: its first argument (an fd for read, write ...)
  gt_u64 g;        // the thread's g, from its TLS, at the switch-out
  gt_u64 goid;     // g.goid
  gt_u32 prev_state;  // sched_switch's prev_state (0: preempted in the syscall, runnable)
  gt_u32 pad;
};

// GT_REC_TASK_EXIT / GT_REC_EXEC / GT_REC_TASK_NEW.
struct gt_task_record {
  struct gt_record_header h;
  gt_u32 other_tid;     // TASK_NEW: the new thread's tid; EXEC: old tid (the pid that exec'd)
  gt_s32 exit_code;     // TASK_EXIT: task->exit_code (raw wait status bits)
  gt_u8 group_dead;     // TASK_EXIT: 1 when this was the last thread of the tgid
  gt_u8 pad[7];
};

// ---------------------------------------------------------------------------------
// GT_REC_CPU_SAMPLE: a PERF_COUNT_SW_CPU_CLOCK event (one per CPU, period 1e9/hz ns)
// fired while a thread of a traced tgid was on that CPU (bpf/gotrace_cpu.bpf.h). h.tid is
// the sampled thread (the M: m.procid). Registers are the thread's USER registers
// (task_pt_regs: the interrupted ones when the sample hit user mode, the ones saved at
// kernel entry when it hit a syscall or fault). The daemon knows each M's P and current
// G from its model (docs/probe-plan.md §9); of the Go runtime BPF reads only where a
// sample outside Go code starts its stack (the tail's source: GT_STACK_SYSCALL for a cgo
// call, GT_STACK_VDSO, else GT_STACK_USER from these registers).
struct gt_cpu_sample_record {
  struct gt_record_header h;
  gt_u64 ip;           // user RIP
  gt_u64 sp;           // user RSP
  gt_u64 bp;           // user RBP
  gt_u64 r14;          // user R14 (the running g in Go ABIInternal code; anything elsewhere)
  gt_u64 sp_words[2];  // *(u64*)sp, *(u64*)(sp+8): the return address while the leaf has
                       // no frame of its own in RBP (function entry, after PUSHQ BP, a
                       // frameless leaf, at RET); the daemon decides with pcsp (0 on fault)
  gt_u8 kernel;        // 1 when the sample interrupted the thread in kernel mode
  gt_u8 pad[3];
  // What sigprof reports (runtime/proc.go: gprof = gp.m.curg, pp = gp.m.p), read from the
  // thread's g in TLS: m.p's id (-1 when none or unreadable) and m.curg's goid (0 when
  // none: the scheduler on g0). Capture level "low" has no scheduling records to tell.
  gt_s32 p_id;
  gt_u64 curg_goid;
  // m.curg's g.labels (runtime/pprof's set, as in gt_gstatus_record; 0: none, or not read:
  // --no-labels) and its identity: a set that pprof.Do put on a goroutine that neither
  // blocks nor yields nor makes a syscall before dropping it is seen only here (issue 34).
  gt_u64 labels;
  struct gt_labels_id labels_id;
  // struct gt_stack_tail (source GT_STACK_USER) + pcs always follow.
};

// ---------------------------------------------------------------------------------
// GT_REC_USER: a hit of a user-annotation site (ProbeRole kUser*: runtime/trace's
// runtime half trace_userTaskCreate/userTaskEnd/userRegion/userLog, and the package
// functions that return early when tracing is off, StartRegion and Logf). It is a
// gt_call_record (ctx, argument registers, optional stack) plus up to two Go strings
// copied from the target. Which registers hold the strings is the plan's choice, passed
// in attach cookie bits 32..47 (GT_USER_COOKIE_*): BPF copies, the daemon interprets.
#define GT_USER_STR_MAX 128  // bytes copied per string (longer ones are cut; len says)
// A cookie nibble names one string: 0 = none; 1..5 = the string header (ptr, len) is in
// args[n-1], args[n] (ABIInternal registers RAX, RBX, RCX, RDI, RSI, R8).
#define GT_USER_COOKIE_STR0_SHIFT 32
#define GT_USER_COOKIE_STR1_SHIFT 36
// Cookie bit 40: arg1 (RBX) is the data word of a context.Context: copy the first 6
// words it points to into ctx_words (a *context.valueCtx is {Context, key, val}) and the
// word that ctx_words[5] (val's data pointer) points to into ctx_val0.
#define GT_USER_COOKIE_CTX_ARG1 (1ull << 40)
// Cookie bit 41: the site is a user-annotation site (gt_call writes a GT_REC_USER).
#define GT_USER_COOKIE_USER (1ull << 41)
// At sites with GT_USER_COOKIE_CTX_ARG1 (StartRegion, Logf), call.deref[1] = 1 when the
// runtime's "tracer on" flag was read (its address is in bpf/user.bpf.h's .rodata) and
// call.deref[0] = its value: package runtime/trace calls the runtime from these functions
// only while tracing is on.

struct gt_user_record {
  struct gt_call_record call;  // call.h.kind = GT_REC_USER; call.has_stack as in CALL
  gt_u32 str_len[2];           // full lengths from the string headers (0 when none)
  gt_u64 ctx_words[6];         // GT_USER_COOKIE_CTX_ARG1 only, else 0
  gt_u64 ctx_val0;             // *(u64*)ctx_words[5], else 0
  gt_u8 str[2][GT_USER_STR_MAX];  // the first min(str_len, GT_USER_STR_MAX) bytes
  // struct gt_stack_tail + pcs follow when call.has_stack.
};

// Per-CPU counters (BPF_MAP_TYPE_PERCPU_ARRAY "counters", one entry). Per CPU so the hot
// path never does a locked add on a cache line shared by all CPUs; the daemon sums them.
struct gt_cpu_counters {
  gt_u64 seq;              // every record attempt on this CPU (the header's seq)
  gt_u64 lost;             // attempts whose ring reservation failed
  gt_u64 hits;             // uprobe program invocations (all runtime sites)
  gt_u64 morestack_skips;  // entry+4 hits dropped because morestack will re-enter
  gt_u64 filtered;         // uprobe hits from a process other than the target
  gt_u64 read_faults;      // bpf_probe_read_user failures
  // Capture level low (cfg.sys_min_us): syscalls of the target's threads shorter than the
  // threshold, not written (goroutines' and the runtime's own alike: which one it was is
  // only read for those that lasted).
  gt_u64 short_syscalls;
};

struct gt_hello_record {
  struct gt_record_header h;
  gt_u64 value;
};

#ifndef __BPF__
// Compile-time layout checks for the daemon side (the BPF side is checked by the
// skeleton's own struct layout assertions).
#ifdef __cplusplus
static_assert(sizeof(struct gt_record_header) == 24, "header layout");
static_assert(sizeof(struct gt_go_ctx) == 88, "go ctx layout");
static_assert(sizeof(struct gt_stack_tail) == 24, "stack tail layout");
static_assert(sizeof(struct gt_gstatus_record) % 8 == 0, "gstatus layout");
static_assert(sizeof(struct gt_call_record) % 8 == 0, "call layout");
static_assert(sizeof(struct gt_user_record) % 8 == 0, "user layout");
static_assert(sizeof(struct gt_cpu_sample_record) == 128, "cpu sample layout");
static_assert(sizeof(struct gt_sched_switch_record) == 64, "sched switch layout");
static_assert(sizeof(struct gt_sys_sample_record) == 72, "sys sample layout");
static_assert(sizeof(struct gt_sys_switch_record) == 72, "sys switch layout");
#endif
#endif
