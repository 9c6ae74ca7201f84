// The dispatch maps of the kernel-wide hooks (proto/host_hooks.h says what each holds).
// Declared by the daemon's dispatcher object (bpf/gt_host.bpf.c), which creates them, and
// by every recording's object (bpf/gotrace.bpf.c), which is loaded with the dispatcher's
// maps in their place (daemon/capture/host_hooks.cc ShareMaps) so that its programs can
// hand the event on to the next recording of the same process. Stands on its own.
#pragma once

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "proto/host_hooks.h"

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, GT_HOST_SLOTS);
  __type(key, __u32);
  __type(value, struct gt_host_heads);
} gt_host_tgids SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, GT_HOOKS * GT_HOST_SLOTS);
  __type(key, __u32);
  __type(value, __u32);
} gt_host_next SEC(".maps");

#define GT_HOST_PROG_ARRAY(name)                      \
  struct {                                            \
    __uint(type, BPF_MAP_TYPE_PROG_ARRAY);            \
    __uint(max_entries, GT_HOST_SLOTS);               \
    __type(key, __u32);                               \
    __type(value, __u32);                             \
  } name SEC(".maps")

GT_HOST_PROG_ARRAY(gt_hp_sys_enter);
GT_HOST_PROG_ARRAY(gt_hp_sys_exit);
GT_HOST_PROG_ARRAY(gt_hp_sched_prev);
GT_HOST_PROG_ARRAY(gt_hp_sched_next);
GT_HOST_PROG_ARRAY(gt_hp_wakeup);
GT_HOST_PROG_ARRAY(gt_hp_task_exit);
GT_HOST_PROG_ARRAY(gt_hp_exec);
GT_HOST_PROG_ARRAY(gt_hp_task_new);
GT_HOST_PROG_ARRAY(gt_hp_cpu);

// sched_switch's one lookup (bpf/gt_host.bpf.c gt_host_sched_switch): per CPU, the thread
// it last switched to and that thread's process's heads on the two sched_switch hooks,
// looked up then. That thread is prev at the CPU's next switch, so its heads are known
// without a second lookup; the recording programs on prev's chain read next_head here too
// (bpf/gt_kernel.bpf.h gt_sched_prev). Written only by the dispatcher.
struct gt_host_oncpu {
  __u32 pid;        // the thread switched to (0 with the idle task, as at load)
  __u32 prev_head;  // its process's first slot on GT_HOOK_SCHED_PREV, as of that switch
  __u32 next_head;  // ... on GT_HOOK_SCHED_NEXT (for that switch's next)
  __u32 pad;
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct gt_host_oncpu);
} gt_host_oncpu SEC(".maps");

// The first slot of `tgid` on `hook`, GT_HOST_NONE when it has none.
static __always_inline __u32 gt_host_head(__u32 tgid, __u32 hook) {
  struct gt_host_heads *h = bpf_map_lookup_elem(&gt_host_tgids, &tgid);
  if (!h || hook >= GT_HOOKS) return GT_HOST_NONE;
  return h->head[hook];
}

// After slot `slot`'s program on `hook`: the next recording of the same process, if any.
// Returns only when there is none (a tail call does not return).
static __always_inline void gt_host_chain(void *ctx, void *progs, __u32 hook, __u32 slot) {
  __u32 k = hook * GT_HOST_SLOTS + slot;
  __u32 *next = bpf_map_lookup_elem(&gt_host_next, &k);
  if (next && *next != GT_HOST_NONE) bpf_tail_call(ctx, progs, *next);
}
