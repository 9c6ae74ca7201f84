// exec/exit notifications for `gotraced serve` (daemon/service/exec_watch.cc): one small
// record per program start and per process end that can matter to serve; matching against
// the configured watch rules happens in user space. Record layout: proto/exec_watch.h.
//
// What is not sent (issue 28: serve's main thread woke, and read /proc, for every exec
// and exit of the host; 56 us of serve CPU per exec, most of the BPF side's 5-28 us per
// run was the ring wake-up):
//   exits   of every process but those serve named in `watched` (pids it is about to
//           look at, and its targets);
//   execs   of an executable serve found it can never trace (not a Go program): its
//           file's identity is in `exec_skip`, an LRU map, so a miss only costs a wake.
// A process in `watched` gets its execs through whatever it runs (a target that execs a
// shell ends its recording by that record).
#include "vmlinux.h"
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include "proto/exec_watch.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 256 * 1024);
} exec_events SEC(".maps");

// Records the ring buffer had no room for (the daemon then rescans /proc).
struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} exec_lost SEC(".maps");

// Execs not sent because exec_skip named their executable (per CPU: no shared line).
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, __u64);
} exec_filtered SEC(".maps");

// tgids serve wants every exec and exit of (filled and emptied by serve).
struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16384);
  __type(key, __u32);
  __type(value, __u8);
} watched SEC(".maps");

// Executables serve will never trace (filled by serve after a first look).
struct {
  __uint(type, BPF_MAP_TYPE_LRU_HASH);
  __uint(max_entries, 4096);
  __type(key, struct gt_exe_key);
  __type(value, __u8);
} exec_skip SEC(".maps");

// struct inode's change time across kernels: a timespec64 i_ctime (<= 6.5), __i_ctime
// (6.6-6.10), then i_ctime_sec + i_ctime_nsec (6.11+). Nanoseconds are < 2^30: the bits
// above are not the time.
struct inode___ctime_ts {
  struct timespec64 i_ctime;
} __attribute__((preserve_access_index));
struct inode___ctime_priv {
  struct timespec64 __i_ctime;
} __attribute__((preserve_access_index));
struct inode___ctime_split {
  time64_t i_ctime_sec;
  u32 i_ctime_nsec;
} __attribute__((preserve_access_index));

// A reserved record, or NULL (counted lost).
static __always_inline struct gt_exec_watch_record *reserve(__u32 tgid, __u32 kind) {
  struct gt_exec_watch_record *r = bpf_ringbuf_reserve(&exec_events, sizeof(*r), 0);
  if (!r) {
    __u32 k = 0;
    __u64 *lost = bpf_map_lookup_elem(&exec_lost, &k);
    if (lost) __sync_fetch_and_add(lost, 1);
    return 0;
  }
  r->ts_ns = bpf_ktime_get_ns();
  r->tgid = tgid;
  r->kind = kind;
  return r;
}

// The identity of the file the current process now runs; false if it has none.
static __always_inline bool exe_key(struct gt_exe_key *k) {
  struct task_struct *task = (struct task_struct *)bpf_get_current_task();
  struct inode *inode = BPF_CORE_READ(task, mm, exe_file, f_inode);
  if (!inode) return false;
  k->dev = BPF_CORE_READ(inode, i_sb, s_dev);
  k->ino = BPF_CORE_READ(inode, i_ino);
  if (bpf_core_field_exists(struct inode___ctime_split, i_ctime_sec)) {
    struct inode___ctime_split *i = (void *)inode;
    k->ctime_sec = BPF_CORE_READ(i, i_ctime_sec);
    // 6.13+ keeps a flag in the top bit (I_CTIME_QUERIED, multigrain timestamps).
    k->ctime_nsec = BPF_CORE_READ(i, i_ctime_nsec) & 0x3fffffff;
  } else if (bpf_core_field_exists(struct inode___ctime_priv, __i_ctime)) {
    struct inode___ctime_priv *i = (void *)inode;
    k->ctime_sec = BPF_CORE_READ(i, __i_ctime.tv_sec);
    k->ctime_nsec = BPF_CORE_READ(i, __i_ctime.tv_nsec);
  } else {
    struct inode___ctime_ts *i = (void *)inode;
    k->ctime_sec = BPF_CORE_READ(i, i_ctime.tv_sec);
    k->ctime_nsec = BPF_CORE_READ(i, i_ctime.tv_nsec);
  }
  return true;
}

SEC("tracepoint/sched/sched_process_exec")
int exec_watch_exec(struct trace_event_raw_sched_process_exec *ctx) {
  __u32 tgid = bpf_get_current_pid_tgid() >> 32;
  struct gt_exe_key k = {};
  const bool have_key = exe_key(&k);
  if (have_key && !bpf_map_lookup_elem(&watched, &tgid) && bpf_map_lookup_elem(&exec_skip, &k)) {
    __u32 z = 0;
    __u64 *n = bpf_map_lookup_elem(&exec_filtered, &z);
    if (n) *n += 1;
    return 0;
  }
  struct gt_exec_watch_record *r = reserve(tgid, GT_EW_EXEC);
  if (!r) return 0;
  r->exe = k;
  // __data_loc: the low 16 bits are the string's offset from the record's start.
  const __u32 loc = ctx->__data_loc_filename;
  if (bpf_probe_read_kernel_str(r->filename, sizeof(r->filename), (char *)ctx + (loc & 0xffff)) < 0)
    r->filename[0] = 0;
  bpf_ringbuf_submit(r, 0);
  return 0;
}

// Fires for every exiting thread; only the group leader's exit ends the process for us
// (a Go program's leader thread never exits before the others: runtime.main calls exit),
// and only a process serve named in `watched` is reported.
SEC("tracepoint/sched/sched_process_exit")
int exec_watch_exit(void *ctx) {
  __u64 id = bpf_get_current_pid_tgid();
  __u32 tgid = id >> 32;
  if ((__u32)id != tgid) return 0;
  if (!bpf_map_lookup_elem(&watched, &tgid)) return 0;
  struct gt_exec_watch_record *r = reserve(tgid, GT_EW_EXIT);
  if (!r) return 0;
  __builtin_memset(&r->exe, 0, sizeof(r->exe));
  r->filename[0] = 0;
  bpf_ringbuf_submit(r, 0);
  return 0;
}
