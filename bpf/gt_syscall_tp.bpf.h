// Goroutine syscalls seen by the kernel: tp_btf sys_enter / sys_exit programs that write
// the CALL records the uprobes at reentersyscall / exitsyscall entry wrote before (Go
// 1.26+), without a uprobe trap per syscall (~0.8 us each here; a tracepoint program
// ~0.1-0.3 us). Stands on its own.
//
// Which syscalls: those of a traced thread whose user IP is in Go text (C code's syscalls
// in a cgo call are not the goroutine's; the cgo call itself is probed at its
// entersyscall / exitsyscall calls, probes/call_sites.h) but not in runtime.futex (the
// runtime's futex sleep inside entersyscallblock, traced there), and whose g (the
// thread's TLS word: R14 means nothing in C or ABI0 code) is in _Gsyscall: the runtime
// sets that status in entersyscall before the SYSCALL instruction and leaves it in
// exitsyscall after it, for the goroutine only (g0 and gsignal are never _Gsyscall).
// So sys_enter stands for entersyscall's GoSyscallBegin (~0.1-0.3 us later) and sys_exit
// for exitsyscall's entry (~0.1 us earlier), with the same context the uprobes read: the
// M, its P and their syscall ticks. The stack is curg's from syscallpc/syscallbp, which
// entersyscall saved (traceStack's own case for a goroutine in a syscall).
//
// A syscall the kernel restarts after a signal handler (sys_exit with -ERESTARTSYS,
// -ERESTARTNOINTR or -ERESTART_RESTARTBLOCK: Go installs its handlers with SA_RESTART)
// enters again without returning to Go: its first exit is not the goroutine's, no record.
#pragma once

#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_read.bpf.h"
#include "bpf/gt_go_ctx.bpf.h"
#include "bpf/gt_stack.bpf.h"
#include "bpf/gt_record.bpf.h"
#include "bpf/gt_call.bpf.h"
#include "bpf/gt_labels.bpf.h"

#define GT_GSCAN 0x1000   // runtime2.go _Gscan
#define GT_GSYSCALL 3     // runtime2.go _Gsyscall

// The thread's scratch with the registers a CALL record needs, for a syscall of a
// goroutine of the target; NULL for any other syscall.
static __always_inline struct scratch *go_syscall_begin(struct pt_regs *regs, __u32 probe_id, __u32 flags) {
  if (!cfg.sys_tp || !cfg.tls_g_off || cfg.g_atomicstatus < 0) return NULL;
  if (!tgid_traced(bpf_get_current_pid_tgid() >> 32)) return NULL;
  if (!go_syscall_ip(BPF_CORE_READ(regs, ip))) return NULL;
  struct task_struct *task = bpf_get_current_task_btf();
  __u64 fsbase = BPF_CORE_READ(task, thread.fsbase);
  if (!fsbase) return NULL;
  __u64 g = rd64(fsbase + (__s64)cfg.tls_g_off);
  if (!g) return NULL;
  struct scratch *s = bpf_task_storage_get(&scratch_map, task, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!s) {
    struct gt_cpu_counters *cc = cpu_counters();
    if (cc) __sync_fetch_and_add(&cc->lost, 1);
    return NULL;
  }
  // The status from the copy of the g that gt_go_ctx reads m and the rest from next
  // (GT_CTX_SELF_LOADED): one read of the target less per goroutine syscall end.
  gview_load(s, GT_VIEW_SELF, g, 0);
  if ((gv_read(s, GT_VIEW_SELF, cfg.g_atomicstatus, 4) & ~GT_GSCAN) != GT_GSYSCALL) return NULL;
  __builtin_memset(&s->regs, 0, sizeof(s->regs));
  s->lwin[0] = s->lwin[1] = s->lwin[2] = s->lwin[3] = 0;  // no label set unless sys_enter reads one
  s->regs.r14 = g;
  s->regs.sp = BPF_CORE_READ(regs, sp);
  s->regs.bp = BPF_CORE_READ(regs, bp);
  // Go <= 1.25 (sys_tp 2): m.p is 0 in a syscall; its P is m.oldp's, read with the record.
  if (cfg.sys_tp == 2) flags |= GT_CALL_DEREF_OLDP;
  s->regs.cookie = (__u64)probe_id | ((__u64)(flags | GT_CALL_FROM_TRACEPOINT) << 16);
  return s;
}

// Capture level low (cfg.sys_pair): a thread of the target entering a syscall from Go
// text notes the time, and nothing is read from the target. Whose syscall it was (the
// TLS g in _Gsyscall) is read at sys_exit, where the thread is still in it, and with a
// threshold (cfg.sys_min_us) only for the syscalls that lasted: most syscalls of a server
// are short (a loopback read or write: microseconds), and the g reads and the record of
// each are what the level's cost per request is made of.
static __always_inline int note_syscall_entry(struct pt_regs *regs) {
  if (!cfg.sys_tp || !tgid_traced(bpf_get_current_pid_tgid() >> 32)) return 0;
  if (!go_syscall_ip(BPF_CORE_READ(regs, ip))) return 0;
  struct scratch *s = bpf_task_storage_get(&scratch_map, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (s) s->sys_enter_ts = bpf_ktime_get_ns();
  return 0;
}

// The other half, at sys_exit: the entry time of the thread's syscall if it lasted
// cfg.sys_min_us or more (then its g is read and its record written), GT_SYS_SKIP if not
// (a shorter one is counted, no more). The noted time is used up either way. One whose
// entry was not seen (made before the attach) is written, with entry time 0, only
// without a threshold.
#define GT_SYS_SKIP (~0ULL)
static __always_inline __u64 syscall_entry_if_lasted(void) {
  if (!cfg.sys_tp || !tgid_traced(bpf_get_current_pid_tgid() >> 32)) return GT_SYS_SKIP;
  struct scratch *s = bpf_task_storage_get(&scratch_map, bpf_get_current_task_btf(), 0, 0);
  __u64 t0 = s ? s->sys_enter_ts : 0;
  if (!t0) return cfg.sys_min_us ? GT_SYS_SKIP : 0;
  s->sys_enter_ts = 0;
  if (bpf_ktime_get_ns() - t0 >= (__u64)cfg.sys_min_us * 1000) return t0;
  struct gt_cpu_counters *cc = cpu_counters();
  if (cc) __sync_fetch_and_add(&cc->short_syscalls, 1);
  return GT_SYS_SKIP;
}

// sys_enter of a goroutine's syscall (bpf/gt_sys_hooks.bpf.h runs it when cfg.sys_tp).
static __always_inline int go_sys_enter(struct pt_regs *regs, long id) {
  if (cfg.sys_pair) return note_syscall_entry(regs);  // the exit writes its one record
  struct scratch *s = go_syscall_begin(regs, cfg.sys_enter_probe_id,
                                       cfg.sys_enter_stack ? GT_CALL_STACK | GT_CALL_STACK_FROM_ARGS : 0);
  if (!s) return 0;
  gt_go_ctx(s, GT_CTX_SYS | GT_CTX_PC_NONE | GT_CTX_SELF_LOADED);
  // The goroutine's pprof label set pointer (args[5]), from the copy of its g gt_go_ctx
  // made: a set pprof.Do put on it while it ran is named at its syscall (issue 34).
  s->regs.r[GT_REG_R8] = cfg.g_labels >= 0 ? gv_read(s, GT_VIEW_CURG, cfg.g_labels, 8) : 0;
  gt_labels_id(s, s->regs.r[GT_REG_R8]);  // and the words that identify the set (labels_id)
  if (!cfg.sys_enter_stack) {
    // Capture level low: the goroutine and its context only (no walk, no stack tail).
    s->regs.r[GT_REG_DI] = (__u64)id;
    s->regs.r[GT_REG_SI] = BPF_CORE_READ(regs, di);  // its first argument (below)
    return gt_call_emit(s, 0);
  }
  // reentersyscall(pc, sp, bp)'s arguments, as entersyscall saved them in the g: from the
  // copy of the g gt_go_ctx made (the goroutine is m->curg), not three more reads.
  s->regs.r[GT_REG_AX] = gv_read(s, GT_VIEW_CURG, cfg.g_syscallpc, 8);
  s->regs.r[GT_REG_BX] = gv_read(s, GT_VIEW_CURG, cfg.g_syscallsp, 8);
  // Before 1.23 the g has no syscallbp: the frame pointer of the function that called
  // entersyscall is the first one of the chain from the SYSCALL's RBP at or above
  // syscallsp (frames below it are that function's callees: RawSyscall6, when not
  // inlined; 1.19's frameless asm syscall.Syscall leaves RBP as it found it).
  if (cfg.g_syscallbp >= 0) {
    s->regs.r[GT_REG_CX] = gv_read(s, GT_VIEW_CURG, cfg.g_syscallbp, 8);
  } else {
    __u64 fp = s->regs.bp, sp = s->regs.r[GT_REG_BX];
    for (int i = 0; i < 3 && fp && fp < sp; i++) fp = rd64(fp);
    s->regs.r[GT_REG_CX] = fp;
  }
  s->regs.r[GT_REG_DI] = (__u64)id;
  // The syscall's first argument (an fd for read, write ...): the kernel view names what
  // the syscall waited on from it (docs/kernel-view.md).
  s->regs.r[GT_REG_SI] = BPF_CORE_READ(regs, di);
  gt_walk_curg(s);  // GT_CALL_STACK_FROM_ARGS: the walk from the three registers above
  return gt_call_emit(s, s->tail.source != GT_STACK_NONE);
}

static __always_inline int go_sys_exit(struct pt_regs *regs, long ret) {
  // -ERESTARTSYS, -ERESTARTNOINTR, -ERESTART_RESTARTBLOCK: entered again (see above).
  if (ret == -512 || ret == -513 || ret == -516) return 0;
  __u64 t0 = 0;
  if (cfg.sys_pair && (t0 = syscall_entry_if_lasted()) == GT_SYS_SKIP) return 0;
  struct scratch *s = go_syscall_begin(regs, cfg.sys_exit_probe_id, 0);
  if (!s) return 0;
  s->regs.r[GT_REG_AX] = (__u64)ret;
  if (cfg.sys_pair) s->regs.r[GT_REG_BX] = t0;  // args[1]: when it entered
  go_ctx_and_stack(s, GT_CTX_SYS | GT_CTX_PC_NONE | GT_CTX_SELF_LOADED, false);
  return gt_call_emit(s, 0);
}
