// The dispatch of the kernel-wide hooks (bpf/gt_host.bpf.c): one set of programs per
// daemon on the syscall, scheduler, task and CPU-sample hooks, which hand each event of a
// watched process to the programs of that process's recordings by tail call. Shared by
// bpf/gt_host_maps.bpf.h and daemon/capture/host_hooks.cc.
//
// Why: a program attached to sys_enter runs at every syscall of the host, to test its
// tgid. One program per recording made every syscall of every process pay ~170 ns per
// watched process (issue 28: getppid 280 ns with no daemon, 1,992 ns with 10 watched);
// one dispatcher pays one hash lookup whatever the number watched.
//
//   gt_host_tgids[tgid] = struct gt_host_heads: per hook, the first recording slot of
//                         that process (GT_HOST_NONE: none), so a recording may skip a hook;
//   gt_host_next[hook * GT_HOST_SLOTS + slot] = the next slot of the same process on that
//                         hook (a process has several recordings during an escalation);
//   gt_hp_<hook>[slot]  = the recording's program for the hook (a prog array per hook).
#pragma once

#include "proto/records.h"

// Recordings that can be loaded at once (watched processes, their standbys, escalations),
// slots 1 .. GT_HOST_SLOTS-1: 0 is "none", so that the maps' zeroed entries mean none.
#define GT_HOST_SLOTS 1024
#define GT_HOST_NONE 0u

enum gt_host_hook {
  GT_HOOK_SYS_ENTER = 0,
  GT_HOOK_SYS_EXIT = 1,
  GT_HOOK_SCHED_PREV = 2,  // sched_switch, for the thread going off CPU
  GT_HOOK_SCHED_NEXT = 3,  // sched_switch, for the thread coming on CPU
  GT_HOOK_WAKEUP = 4,
  GT_HOOK_TASK_EXIT = 5,
  GT_HOOK_EXEC = 6,
  GT_HOOK_TASK_NEW = 7,
  GT_HOOK_CPU = 8,  // the CPU-sample perf events
  GT_HOOKS = 9,
};

struct gt_host_heads {
  gt_u32 head[GT_HOOKS];
};
