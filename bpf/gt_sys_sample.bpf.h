// The syscall sampler (capture level low, `--syscalls-by sample`): a sleepable task
// iterator the daemon runs every few ms over the target's threads (the iterator link's
// pid filter, Linux 6.1+: only that process's threads are visited). It costs the target
// nothing per syscall: no program runs on sys_enter/sys_exit, so neither the target's
// syscalls nor any other process's take the kernel's slow path (docs/cost.md).
//
// For each thread: the syscall it is in is pt_regs.orig_ax of the registers saved at
// its last kernel entry (bpf_task_pt_regs), from Go text outside the runtime's own
// sleeps (go_syscall_ip, as the tracepoint path's filter), and its goroutine is the TLS g
// (fsbase + tls_g_off, read with bpf_copy_from_user_task: the iterator runs in the
// daemon, not in the target) when that g is in _Gsyscall, which entersyscall sets before
// the SYSCALL and exitsyscall clears after it (runtime/proc.go, Go 1.19-1.27). A thread
// back in user space keeps the registers of its last entry, so orig_ax alone would name
// a finished syscall; the _Gsyscall test leaves only the few hundred ns between the
// SYSCALL's return and exitsyscall's CAS. The record carries what the daemon needs to
// tell one long syscall from two (nvcsw, state); deciding that is the daemon's
// (daemon/model/record_decoder_sys_sample.cc). Stands on its own.
#pragma once

#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_record.bpf.h"

#define GT_SAMPLE_GSCAN 0x1000   // runtime2.go _Gscan
#define GT_SAMPLE_GSYSCALL 3     // runtime2.go _Gsyscall

static __always_inline int sys_sample_emit(struct task_struct *t, long nr, __u64 arg0, __u64 g, __u64 goid,
                                           __u32 gstatus) {
  struct gt_cpu_counters *cc = cpu_counters();
  __u32 seq = 0;
  struct gt_sys_sample_record *r = reserve_record(cc, sizeof(*r), &seq);
  if (!r) return 0;
  fill_header(&r->h, GT_REC_SYS_SAMPLE, seq);
  r->h.tgid = gt_target_tgid;
  r->h.tid = t ? t->pid : 0;
  r->nr = nr;
  r->arg0 = arg0;
  r->g = g;
  r->goid = goid;
  r->nvcsw = t ? t->nvcsw : 0;
  r->state = t ? t->__state : 0;
  r->gstatus = gstatus;
  bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
  return 0;
}

SEC("iter.s/task")
int gt_sys_sample(struct bpf_iter__task *ctx) {
  struct task_struct *t = ctx->task;
  if (!t) return sys_sample_emit(NULL, -1, 0, 0, 0, 0);  // the end of this sweep
  if (t->tgid != gt_target_tgid || !cfg.tls_g_off || cfg.g_atomicstatus < 0) return 0;
  // A thread that is not asleep proves nothing (it may have made several syscalls since
  // the last sweep: sys_sample_tracker.h), and reading its g costs two copies from the
  // target's memory (~1-3 us each): only sleeping threads are looked at.
  if (t->__state == 0) return 0;
  struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);
  if (!regs) return 0;
  long nr = regs->orig_ax;
  if (nr < 0 || !go_syscall_ip(regs->ip)) return 0;
  __u64 fsbase = t->thread.fsbase, g = 0, goid = 0;
  __u32 status = 0;
  if (!fsbase || bpf_copy_from_user_task(&g, sizeof(g), (void *)(fsbase + (__s64)cfg.tls_g_off), t, 0) || !g)
    return 0;
  if (bpf_copy_from_user_task(&status, sizeof(status), (void *)(g + cfg.g_atomicstatus), t, 0)) return 0;
  if ((status & ~GT_SAMPLE_GSCAN) != GT_SAMPLE_GSYSCALL) return 0;
  if (cfg.g_goid >= 0) bpf_copy_from_user_task(&goid, sizeof(goid), (void *)(g + cfg.g_goid), t, 0);
  return sys_sample_emit(t, nr, regs->di, g, goid, status);
}
