// Records of bpf/exec_watch.bpf.c, read by daemon/service/exec_watch.cc: one per process
// that execs a new program or exits, so `gotraced serve` attaches to matching processes
// as they start and detaches when they end. Same typedef rules as proto/records.h.
#pragma once

#ifdef __BPF__
typedef __u32 gt_ew_u32;
typedef __u64 gt_ew_u64;
typedef __s64 gt_ew_s64;
#else
#include <stdint.h>
typedef uint32_t gt_ew_u32;
typedef uint64_t gt_ew_u64;
typedef int64_t gt_ew_s64;
#endif

enum gt_exec_watch_kind {
  GT_EW_EXEC = 1,  // sched_process_exec: tgid now runs a new program
  GT_EW_EXIT = 2,  // sched_process_exit of the thread-group leader (tid == tgid)
};

// Key of the exec_skip map: the file a process runs after exec (current->mm->exe_file's
// inode), as the kernel holds it. dev is the kernel's internal dev_t (major << 20 |
// minor), not stat's st_dev encoding; the change time makes a file rewritten in place
// (same dev and inode) a new key, so a verdict never outlives the bytes it judged.
struct gt_exe_key {
  gt_ew_u64 dev;
  gt_ew_u64 ino;
  gt_ew_s64 ctime_sec;
  gt_ew_u32 ctime_nsec;
  gt_ew_u32 pad;  // zero: the key is hashed as bytes
};

#define GT_EW_FILENAME 256

struct gt_exec_watch_record {
  gt_ew_u64 ts_ns;  // bpf_ktime_get_ns() (CLOCK_MONOTONIC)
  gt_ew_u32 tgid;
  gt_ew_u32 kind;   // enum gt_exec_watch_kind
  // GT_EW_EXEC only (zero else): the executable's identity, and the path exec was given
  // (the tracepoint's filename, NUL-terminated, cut at GT_EW_FILENAME - 1; in the
  // process's mount namespace, relative to its cwd, a script's where exe is its
  // interpreter). Serve judges a process gone before it looked by the file at that path
  // only when that file's identity is `exe`.
  struct gt_exe_key exe;
  char filename[GT_EW_FILENAME];
};

