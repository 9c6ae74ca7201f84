// Kernel tracepoints of the traced processes (pid-filtered): scheduling, syscalls, thread
// and process lifecycle. tp_btf programs run with the kernel's per-program recursion
// check (kernel/trace/bpf_trace.c __bpf_trace_run), and use no scratch. Stands on its own.
#pragma once

#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_record.bpf.h"

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
