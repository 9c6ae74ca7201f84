// Level low's long syscalls from sched_switch (`--syscalls-by switch`, cfg.sys_switch;
// docs/probe-plan.md §10 "Syscalls from sched_switch"). A syscall that lasts the
// threshold (1 ms) almost always puts its thread off CPU, so the kernel's own switch says
// when it went to sleep and when it came back: no program runs on any syscall, and each
// context switch of the host pays the dispatcher's lookup (bpf/gt_host.bpf.c), a watched
// thread's switch a few more loads. Called by gt_sched_prev / gt_sched_next
// (bpf/gt_kernel.bpf.h). Stands on its own.
//
// Switch-out of a thread of the target (prev is current: its TLS is readable): its
// registers saved at its last kernel entry (bpf_task_pt_regs) name the syscall it is in,
// orig_ax, while pt_regs->ax still holds the -ENOSYS that the syscall entry stored there
// (arch/x86/entry/entry_64.S entry_SYSCALL_64 pushes it; do_syscall_64 overwrites it with
// the return value): an interrupt or fault taken in user mode leaves a vector or an error
// code in orig_ax and the user's rax in ax, so a thread preempted in Go code is not taken
// for one in a syscall. The same filters as the tracepoint path then: the user IP in Go
// text outside the runtime's own sleeps (go_syscall_ip: runtime.futex, usleep, osyield),
// and the TLS g in _Gsyscall (g0's netpoll epoll_pwait is not a goroutine's). The thread
// notes the syscall in its task storage.
//
// Switch-in: a thread with a note writes one GT_REC_SYS_SWITCH if it was off CPU for
// cfg.sys_min_us or more, else counts it (short_syscalls), provided it has not switched out
// since its note (the note keeps the thread's context-switch count, nvcsw + nivcsw, which
// __schedule raises before the tracepoint): a switch-in that no program saw (the tracepoint
// does not reach BPF for every switch; on this project's VM a whole class of switches from
// tasks outside the container never shows, to perf either) leaves the note standing while
// the thread runs on, leaves the syscall and goes off CPU again for something that is not
// one; the next switch-in seen would then write one syscall from the first switch-out to
// it, overlapping the goroutine's next syscalls on other threads (suite 46, go1.19: "tried
// to create goroutine in syscall that already exists"). Such a note is dropped. Capture only: the record is the
// switch-out's view and the switch-in's time; the daemon makes the syscall of them.
// A thread preempted in a syscall (prev_state 0, runnable) is noted too: it was in the
// syscall all that time. What this cannot see: a syscall that lasts without leaving the
// CPU (computes in the kernel), one whose sleeps are each shorter than the threshold, and
// the on-CPU prefix before the first sleep (the start is the switch-out).
#pragma once

#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_record.bpf.h"

#define GT_SW_GSCAN 0x1000  // runtime2.go _Gscan
#define GT_SW_GSYSCALL 3    // runtime2.go _Gsyscall
#define GT_SW_ENOSYS 38     // pt_regs->ax during a syscall: -ENOSYS

struct gt_sys_switch {
  __u64 off_ts;  // 0: no note
  __u64 nr, arg0, g, goid;
  __u64 nsw;  // the thread's nvcsw + nivcsw at the switch-out (this switch counted)
  __u32 prev_state;
};

// Context switches of t so far: __schedule raises one of them at every switch-out, before
// trace_sched_switch (kernel/sched/core.c), and at no other time.
static __always_inline __u64 sys_switch_count(struct task_struct *t) { return t->nvcsw + t->nivcsw; }

struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct gt_sys_switch);
} sys_switch_map SEC(".maps");

static __always_inline void sys_switch_out(struct task_struct *prev, __u32 prev_state) {
  if (!cfg.tls_g_off || cfg.g_atomicstatus < 0) return;
  struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(prev);
  if (!regs) return;
  long nr = regs->orig_ax;
  if (nr < 0 || regs->ax != (unsigned long)-GT_SW_ENOSYS || !go_syscall_ip(regs->ip)) return;
  __u64 fsbase = prev->thread.fsbase, g = 0, goid = 0;
  __u32 status = 0;
  if (!fsbase || bpf_probe_read_user(&g, 8, (void *)(fsbase + (__s64)cfg.tls_g_off)) || !g) return;
  if (bpf_probe_read_user(&status, 4, (void *)(g + cfg.g_atomicstatus))) return;
  if ((status & ~GT_SW_GSCAN) != GT_SW_GSYSCALL) return;
  if (cfg.g_goid >= 0) bpf_probe_read_user(&goid, 8, (void *)(g + cfg.g_goid));
  struct gt_sys_switch *n = bpf_task_storage_get(&sys_switch_map, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!n) return;
  n->nr = nr;
  n->arg0 = regs->di;
  n->g = g;
  n->goid = goid;
  n->prev_state = prev_state;
  n->nsw = sys_switch_count(prev);
  n->off_ts = bpf_ktime_get_ns();
}

static __always_inline void sys_switch_in(struct task_struct *next) {
  struct gt_sys_switch *n = bpf_task_storage_get(&sys_switch_map, next, 0, 0);
  if (!n || !n->off_ts) return;
  __u64 off = n->off_ts;
  n->off_ts = 0;
  if (n->nsw != sys_switch_count(next)) return;  // it ran since (a switch-in not seen): stale
  struct gt_cpu_counters *cc = cpu_counters();
  if (bpf_ktime_get_ns() - off < (__u64)cfg.sys_min_us * 1000) {
    if (cc) __sync_fetch_and_add(&cc->short_syscalls, 1);
    return;
  }
  __u32 seq = 0;
  struct gt_sys_switch_record *r = reserve_record(cc, sizeof(*r), &seq);
  if (!r) return;
  fill_header(&r->h, GT_REC_SYS_SWITCH, seq);
  r->h.tgid = next->tgid;
  r->h.tid = next->pid;
  r->off_ts = off;
  r->nr = n->nr;
  r->arg0 = n->arg0;
  r->g = n->g;
  r->goid = n->goid;
  r->prev_state = n->prev_state;
  r->pad = 0;
  bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}
