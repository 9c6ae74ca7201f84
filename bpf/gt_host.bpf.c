// gt_host: the daemon's one set of programs on the kernel-wide hooks (proto/host_hooks.h
// says why). Each looks the current process up and jumps (bpf_tail_call) to the program
// of its first recording, which does the work and jumps to the next recording's; every
// other process pays the lookup and nothing else. Decides nothing: which process has
// which recordings is the daemon's (daemon/capture/host_hooks.cc).
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "bpf/gt_host_maps.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

static __always_inline int dispatch(void *ctx, void *progs, __u32 tgid, __u32 hook) {
  __u32 head = gt_host_head(tgid, hook);
  if (head != GT_HOST_NONE) bpf_tail_call(ctx, progs, head);
  return 0;
}

static __always_inline __u32 current_tgid(void) { return bpf_get_current_pid_tgid() >> 32; }

SEC("tp_btf/sys_enter")
int BPF_PROG(gt_host_sys_enter, struct pt_regs *regs, long id) {
  return dispatch(ctx, &gt_hp_sys_enter, current_tgid(), GT_HOOK_SYS_ENTER);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(gt_host_sys_exit, struct pt_regs *regs, long ret) {
  return dispatch(ctx, &gt_hp_sys_exit, current_tgid(), GT_HOOK_SYS_EXIT);
}

// Two processes meet here: the recordings of prev's (whose last one goes on to next's:
// bpf/gt_kernel.bpf.h), else those of next's. One hash lookup per switch, next's: prev is
// the thread this CPU switched to last time, whose heads that switch looked up and left in
// gt_host_oncpu. When the CPU is running a thread it was not seen to switch to (the
// tracepoint does not reach BPF for every switch, and nothing is known at load), prev is
// looked up. A recording that joins while its thread runs sees that thread's switches from
// the next switch-in on.
SEC("tp_btf/sched_switch")
int BPF_PROG(gt_host_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
             unsigned int prev_state) {
  __u32 zero = 0;
  struct gt_host_oncpu *c = bpf_map_lookup_elem(&gt_host_oncpu, &zero);
  if (!c) return 0;
  __u32 prev_head = c->prev_head;
  if (c->pid != prev->pid) prev_head = gt_host_head(prev->tgid, GT_HOOK_SCHED_PREV);
  __u32 next_tgid = next->tgid;
  struct gt_host_heads *h = bpf_map_lookup_elem(&gt_host_tgids, &next_tgid);
  c->pid = next->pid;
  c->prev_head = h ? h->head[GT_HOOK_SCHED_PREV] : GT_HOST_NONE;
  c->next_head = h ? h->head[GT_HOOK_SCHED_NEXT] : GT_HOST_NONE;
  if (prev_head != GT_HOST_NONE) bpf_tail_call(ctx, &gt_hp_sched_prev, prev_head);
  if (c->next_head != GT_HOST_NONE) bpf_tail_call(ctx, &gt_hp_sched_next, c->next_head);
  return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(gt_host_sched_wakeup, struct task_struct *p) {
  return dispatch(ctx, &gt_hp_wakeup, BPF_CORE_READ(p, tgid), GT_HOOK_WAKEUP);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(gt_host_task_exit, struct task_struct *p) {
  return dispatch(ctx, &gt_hp_task_exit, BPF_CORE_READ(p, tgid), GT_HOOK_TASK_EXIT);
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(gt_host_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm) {
  return dispatch(ctx, &gt_hp_exec, BPF_CORE_READ(p, tgid), GT_HOOK_EXEC);
}

SEC("tp_btf/task_newtask")
int BPF_PROG(gt_host_task_new, struct task_struct *task, u64 clone_flags) {
  return dispatch(ctx, &gt_hp_task_new, BPF_CORE_READ(task, tgid), GT_HOOK_TASK_NEW);
}

SEC("perf_event")
int gt_host_cpu_sample(struct bpf_perf_event_data *ctx) {
  __u32 tgid = current_tgid();
  if (!tgid) return 0;  // the idle task
  return dispatch(ctx, &gt_hp_cpu, tgid, GT_HOOK_CPU);
}
