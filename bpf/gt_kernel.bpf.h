// Kernel tracepoints of the traced processes (pid-filtered): scheduling, syscalls, thread
// and process lifecycle. tp_btf programs run with the kernel's per-program recursion
// check (kernel/trace/bpf_trace.c __bpf_trace_run), and use no scratch. Stands on its own.
#pragma once

#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_record.bpf.h"
#include "bpf/gt_sys_switch.bpf.h"

// ---- The kernel view (docs/kernel-view.md): off-CPU intervals of goroutines' threads ----
// Per thread, between its OFF record and its ON record: when it went off CPU and the first
// wake-up since. Task storage dies with the thread; `armed` says an OFF record was written,
// so that the ON half (and the wake-up) writes nothing for the switches of idle Ms.
struct gt_ksched {
  __u64 off_ts;
  __u64 wake_ts;
  __u32 armed;
  __u32 throttled;  // the OFF record had throttle == 1
};

struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct gt_ksched);
} ksched_map SEC(".maps");

// m->curg of the running thread (prev at sched_switch is current: its mm and fsbase are
// the ones user reads see): TLS g -> g.m -> m.curg. 0 for a thread with no goroutine (the
// scheduler on g0 has dropped curg: runtime/proc.go dropg; stopm, findRunnable), a thread
// of another program, or a read that faulted.
static __always_inline __u64 gt_thread_curg(struct task_struct *t) {
  if (!cfg.tls_g_off || cfg.g_m < 0 || cfg.m_curg < 0) return 0;
  __u64 fsbase = BPF_CORE_READ(t, thread.fsbase), g = 0, m = 0, curg = 0;
  if (!fsbase || bpf_probe_read_user(&g, 8, (void *)(fsbase + (__s64)cfg.tls_g_off)) || !g) return 0;
  if (bpf_probe_read_user(&m, 8, (void *)(g + cfg.g_m)) || !m) return 0;
  if (bpf_probe_read_user(&curg, 8, (void *)(m + cfg.m_curg))) return 0;
  return curg;
}

// Whether t's CFS run queue (its cgroup's, on this CPU) or one above it is throttled by
// the CPU quota (kernel/sched/fair.c: throttle_count is raised for a throttled cfs_rq's
// whole subtree, cgroup v1 cpu.cfs_quota_us and v2 cpu.max alike). Needs
// CONFIG_FAIR_GROUP_SCHED (se.cfs_rq) and CONFIG_CFS_BANDWIDTH (throttle_count).
static __always_inline __u8 gt_throttled(struct task_struct *t) {
  if (!bpf_core_field_exists(t->se.cfs_rq) || !bpf_core_field_exists(struct cfs_rq, throttle_count))
    return GT_THROTTLE_UNKNOWN;
  struct cfs_rq *cq = BPF_CORE_READ(t, se.cfs_rq);
  if (!cq) return 0;
  return BPF_CORE_READ(cq, throttle_count) > 0;
}

// The CPU quota's period timer of the nearest task group above t with a quota (struct
// cfs_bandwidth: kernel/sched/fair.c start_cfs_bandwidth arms period_timer, CLOCK_MONOTONIC
// absolute, hrtimer_forward'ed by one period at each expiry, where throttled run queues
// get their runtime back: distribute_cfs_runtime -> unthrottle_cfs_rq). *expires = its next
// expiry (ns, the clock of bpf_ktime_get_ns), *period = the period (ns); both 0 when no
// group up to 4 levels has a quota. The daemon puts the unthrottle at the period boundary
// before the switch-in.
static __always_inline void gt_quota_period(struct task_struct *t, __u64 *expires, __u64 *period) {
  *expires = 0;
  *period = 0;
  if (!bpf_core_field_exists(t->se.cfs_rq) || !bpf_core_field_exists(struct cfs_rq, tg) ||
      !bpf_core_field_exists(struct task_group, cfs_bandwidth))
    return;
  struct task_group *tg = BPF_CORE_READ(t, se.cfs_rq, tg);
  for (int i = 0; i < 4 && tg; i++) {
    if (BPF_CORE_READ(tg, cfs_bandwidth.quota) != ~0ULL) {  // RUNTIME_INF: no quota here
      *expires = BPF_CORE_READ(tg, cfs_bandwidth.period_timer.node.expires);
      *period = BPF_CORE_READ(tg, cfs_bandwidth.period);
      return;
    }
    tg = BPF_CORE_READ(tg, parent);
  }
}

// Returns the record's ts (0: the ring was full, the record is lost and counted).
static __always_inline __u64 gt_sched_emit(struct task_struct *t, __u32 tgid, struct task_struct *other, __u8 dir,
                                          __u64 a, __u64 b, __u64 curg, __u32 state, __u8 preempt, __u8 thr) {
  __u32 seq = 0;
  struct gt_sched_switch_record *r = reserve_record(cpu_counters(), sizeof(*r), &seq);
  if (!r) return 0;
  fill_header(&r->h, GT_REC_SCHED_SWITCH, seq);
  __u64 ts = r->h.ts_ns;
  r->h.tgid = tgid;
  r->h.tid = BPF_CORE_READ(t, pid);
  r->off_ts = a;
  r->wake_ts = b;
  r->curg = curg;
  r->prev_state = state;
  r->other_tid = BPF_CORE_READ(other, pid);
  r->other_tgid = BPF_CORE_READ(other, tgid);
  r->dir = dir;
  r->preempt = preempt;
  r->throttle = thr;
  r->pad = 0;
  bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
  return ts;
}

// prev_state is the 4th argument since Linux 5.18 (include/trace/events/sched.h
// sched_switch; fbd705a0c618), so every supported kernel (6.1+) has it. The daemon's
// dispatcher (bpf/gt_host.bpf.c) runs these for the recordings of the thread going off CPU
// (gt_sched_prev), then for those of the one coming on (gt_sched_next). Two users, each
// the .rodata's choice: the kernel view (cfg.sched_view) and level low's syscalls
// (cfg.sys_switch, bpf/gt_sys_switch.bpf.h).
SEC("tp_btf/sched_switch")
int BPF_PROG(gt_sched_prev, bool preempt, struct task_struct *prev, struct task_struct *next,
             unsigned int prev_state) {
  __u32 prev_tgid = BPF_CORE_READ(prev, tgid);
  if (cfg.sys_switch && tgid_traced(prev_tgid)) sys_switch_out(prev, prev_state);
  if (cfg.sched_view && tgid_traced(prev_tgid)) {
    __u64 curg = gt_thread_curg(prev);
    if (curg) {
      struct gt_ksched *k = bpf_task_storage_get(&ksched_map, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
      if (k) {
        // The ON record names this record by its ts; a lost OFF record arms nothing.
        const __u8 thr = gt_throttled(prev);
        k->wake_ts = 0;
        k->throttled = thr == 1;
        k->off_ts = gt_sched_emit(prev, prev_tgid, next, GT_SCHED_OFF, 0, 0, curg, prev_state, preempt, thr);
        k->armed = k->off_ts != 0;
      }
    }
  }
  GT_NEXT(ctx, gt_hp_sched_prev, GT_HOOK_SCHED_PREV);
  // The last recording of prev's process: on to those of next's, whose head the
  // dispatcher looked up for this switch (bpf/gt_host_maps.bpf.h gt_host_oncpu).
  __u32 zero = 0;
  struct gt_host_oncpu *c = bpf_map_lookup_elem(&gt_host_oncpu, &zero);
  if (c && c->next_head != GT_HOST_NONE) bpf_tail_call(ctx, &gt_hp_sched_next, c->next_head);
  return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(gt_sched_next, bool preempt, struct task_struct *prev, struct task_struct *next,
             unsigned int prev_state) {
  __u32 next_tgid = BPF_CORE_READ(next, tgid);
  if (cfg.sys_switch && tgid_traced(next_tgid)) sys_switch_in(next);
  if (cfg.sched_view && tgid_traced(next_tgid)) {
    struct gt_ksched *k = bpf_task_storage_get(&ksched_map, next, 0, 0);
    if (k && k->armed) {
      k->armed = 0;
      __u64 expires = 0, period = 0;
      if (k->throttled) gt_quota_period(next, &expires, &period);
      gt_sched_emit(next, next_tgid, prev, GT_SCHED_ON, k->off_ts, k->wake_ts, expires, (__u32)period, 0, 0);
    }
  }
  GT_NEXT(ctx, gt_hp_sched_next, GT_HOOK_SCHED_NEXT);
  return 0;
}

// The wake-up of an armed thread (blocked off CPU while its M ran a goroutine): only its
// instant, for the ON record (the run-queue wait is ON's ts minus this).
SEC("tp_btf/sched_wakeup")
int BPF_PROG(gt_sched_wakeup, struct task_struct *p) {
  if (cfg.sched_view && tgid_traced(BPF_CORE_READ(p, tgid))) {
    struct gt_ksched *k = bpf_task_storage_get(&ksched_map, p, 0, 0);
    if (k && k->armed && !k->wake_ts) k->wake_ts = bpf_ktime_get_ns();
  }
  GT_NEXT(ctx, gt_hp_wakeup, GT_HOOK_WAKEUP);
  return 0;
}

// --syscall-tracepoints: every syscall of the target, raw (the sys_enter / sys_exit
// programs of bpf/gt_sys_hooks.bpf.h call these when cfg.raw_sys is set).
static __always_inline void raw_sys_emit(__u16 kind, __s64 id, __s64 val, __s64 arg1) {
  if (!tgid_traced(bpf_get_current_pid_tgid() >> 32)) return;
  __u32 seq = 0;
  struct gt_syscall_record *r = reserve_record(cpu_counters(), sizeof(*r), &seq);
  if (!r) return;
  fill_header(&r->h, kind, seq);
  r->id = id;
  r->ret = val;
  r->arg1 = arg1;
  bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
}

static __always_inline void raw_sys_enter(struct pt_regs *regs, long id) {
  raw_sys_emit(GT_REC_SYS_ENTER, id, BPF_CORE_READ(regs, di), BPF_CORE_READ(regs, si));
}

static __always_inline void raw_sys_exit(struct pt_regs *regs, long ret) {
  raw_sys_emit(GT_REC_SYS_EXIT, BPF_CORE_READ(regs, orig_ax), ret, 0);
}

static __always_inline void emit_task(__u16 kind, __u32 tgid, __u32 tid, __u32 other, __s32 code, __u8 dead) {
  __u32 seq = 0;
  struct gt_task_record *r = reserve_record(cpu_counters(), sizeof(*r), &seq);
  if (!r) return;
  fill_header(&r->h, kind, seq);
  r->h.tgid = tgid;
  r->h.tid = tid;
  r->other_tid = other;
  r->exit_code = code;
  r->group_dead = dead;
  __builtin_memset(r->pad, 0, sizeof(r->pad));
  // Lifecycle records are rare and the session waits for them: wake the consumer.
  bpf_ringbuf_submit(r, 0);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(gt_task_exit, struct task_struct *p) {
  __u32 tgid = BPF_CORE_READ(p, tgid);
  if (tgid_traced(tgid)) {
    // signal->live reaches 0 when the last thread of the group exits (kernel/exit.c
    // do_exit: group_dead = atomic_dec_and_test(&tsk->signal->live)), before this
    // tracepoint fires.
    int live = BPF_CORE_READ(p, signal, live.counter);
    emit_task(GT_REC_TASK_EXIT, tgid, BPF_CORE_READ(p, pid), 0, BPF_CORE_READ(p, exit_code), live == 0);
  }
  GT_NEXT(ctx, gt_hp_task_exit, GT_HOOK_TASK_EXIT);
  return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(gt_exec, struct task_struct *p, pid_t old_pid, struct linux_binprm *bprm) {
  __u32 tgid = BPF_CORE_READ(p, tgid);
  if (tgid_traced(tgid)) emit_task(GT_REC_EXEC, tgid, BPF_CORE_READ(p, pid), old_pid, 0, 0);
  GT_NEXT(ctx, gt_hp_exec, GT_HOOK_EXEC);
  return 0;
}

SEC("tp_btf/task_newtask")
int BPF_PROG(gt_task_new, struct task_struct *task, u64 clone_flags) {
  __u32 tgid = BPF_CORE_READ(task, tgid);
  if (tgid_traced(tgid)) emit_task(GT_REC_TASK_NEW, tgid, (__u32)bpf_get_current_pid_tgid(), BPF_CORE_READ(task, pid), 0, 0);
  GT_NEXT(ctx, gt_hp_task_new, GT_HOOK_TASK_NEW);
  return 0;
}
