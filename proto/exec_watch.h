// Records of bpf/exec_watch.bpf.c, read by daemon/service/exec_watch.cc: one per process
// that execs a new program or exits, so `gotraced serve` attaches to matching processes
// as they start and detaches when they end. Same typedef rules as proto/records.h.
#pragma once

#ifdef __BPF__
typedef __u32 gt_ew_u32;
typedef __u64 gt_ew_u64;
#else
#include <stdint.h>
typedef uint32_t gt_ew_u32;
typedef uint64_t gt_ew_u64;
#endif

enum gt_exec_watch_kind {
  GT_EW_EXEC = 1,  // sched_process_exec: tgid now runs a new program
  GT_EW_EXIT = 2,  // sched_process_exit of the thread-group leader (tid == tgid)
};

struct gt_exec_watch_record {
  gt_ew_u64 ts_ns;  // bpf_ktime_get_ns() (CLOCK_MONOTONIC)
  gt_ew_u32 tgid;
  gt_ew_u32 kind;   // enum gt_exec_watch_kind
};
