// exec/exit notifications for `gotraced serve` (daemon/service/exec_watch.cc): one small
// record per program start and per process end, for every process; matching against the
// configured watch rules happens in user space. Record layout: proto/exec_watch.h.
#include "vmlinux.h"
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

static __always_inline void emit(__u32 tgid, __u32 kind) {
  struct gt_exec_watch_record *r = bpf_ringbuf_reserve(&exec_events, sizeof(*r), 0);
  if (!r) {
    __u32 k = 0;
    __u64 *lost = bpf_map_lookup_elem(&exec_lost, &k);
    if (lost) __sync_fetch_and_add(lost, 1);
    return;
  }
  r->ts_ns = bpf_ktime_get_ns();
  r->tgid = tgid;
  r->kind = kind;
  bpf_ringbuf_submit(r, 0);
}

SEC("tracepoint/sched/sched_process_exec")
int exec_watch_exec(void *ctx) {
  emit(bpf_get_current_pid_tgid() >> 32, GT_EW_EXEC);
  return 0;
}

// Fires for every exiting thread; only the group leader's exit ends the process for us
// (a Go program's leader thread never exits before the others: runtime.main calls exit).
SEC("tracepoint/sched/sched_process_exit")
int exec_watch_exit(void *ctx) {
  __u64 id = bpf_get_current_pid_tgid();
  if ((__u32)id != (__u32)(id >> 32)) return 0;
  emit(id >> 32, GT_EW_EXIT);
  return 0;
}
