// The kernel view's goroutine syscalls for Go <= 1.25 (docs/kernel-view.md "Syscalls"):
// there the trace's syscall events come from the casgstatus uprobe at entersyscall /
// exitsyscall, which knows nothing of the syscall itself. These two tracepoint programs
// write, for a goroutine's syscall only, what the kernel knows: its number and first
// argument at sys_enter, its return value at sys_exit (GT_REC_KSYS_ENTER / _EXIT,
// struct gt_syscall_record). The daemon matches them to the uprobe's GoSyscallBegin by
// thread and time (model_kernel_syscall.cc); nothing is interpreted here. Stands on its
// own.
//
// Which syscalls: the filter of bpf/gt_syscall_tp.bpf.h (a traced thread, the user IP in
// Go text but not in runtime.futex, the thread's TLS g in _Gsyscall: set by entersyscall
// before the SYSCALL instruction, left by exitsyscall after it, on every Go version). Go
// 1.26+, and 1.19-1.25 on kernels with uprobe multi links (unless
// GOTRACED_LEGACY_SYSCALL_TP=0), get the same from their own syscall tracepoint records:
// cfg.ksys is 0 there.
#pragma once

#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_read.bpf.h"
#include "bpf/gt_record.bpf.h"

#define GT_KSYS_GSCAN 0x1000  // runtime2.go _Gscan
#define GT_KSYS_GSYSCALL 3    // runtime2.go _Gsyscall

// Whether the current thread's syscall is one of a goroutine of the target (above). The
// tgid test first: these programs run at every syscall of the host.
static __always_inline bool gt_ksys_goroutine(struct pt_regs *regs) {
  if (!cfg.ksys || !cfg.tls_g_off || cfg.g_atomicstatus < 0) return false;
  if (!tgid_traced(bpf_get_current_pid_tgid() >> 32)) return false;
  if (!go_syscall_ip(BPF_CORE_READ(regs, ip))) return false;
  struct task_struct *task = bpf_get_current_task_btf();
  __u64 fsbase = BPF_CORE_READ(task, thread.fsbase);
  if (!fsbase) return false;
  __u64 g = rd64(fsbase + (__s64)cfg.tls_g_off);
  return g && (rdf32(g, cfg.g_atomicstatus) & ~GT_KSYS_GSCAN) == GT_KSYS_GSYSCALL;
}

static __always_inline int gt_ksys_emit(__u16 kind, __s64 id, __s64 val) {
  __u32 seq = 0;
  struct gt_syscall_record *r = reserve_record(cpu_counters(), sizeof(*r), &seq);
  if (!r) return 0;
  fill_header(&r->h, kind, seq);
  r->id = id;
  r->ret = val;
  r->arg1 = 0;
  bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
  return 0;
}

// (bpf/gt_sys_hooks.bpf.h runs these when cfg.ksys.)
static __always_inline int ksys_enter(struct pt_regs *regs, long id) {
  if (!gt_ksys_goroutine(regs)) return 0;
  return gt_ksys_emit(GT_REC_KSYS_ENTER, id, BPF_CORE_READ(regs, di));  // arg0: the fd of read, write ...
}

static __always_inline int ksys_exit(struct pt_regs *regs, long ret) {
  if (!gt_ksys_goroutine(regs)) return 0;
  // A restarted syscall (-ERESTART*) exits here and enters again: the daemon keeps the
  // first entry and the last exit.
  return gt_ksys_emit(GT_REC_KSYS_EXIT, BPF_CORE_READ(regs, orig_ax), ret);
}
