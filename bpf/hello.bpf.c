// Build-path self test: proves vmlinux.h + clang + bpftool skeleton + libbpf load and
// attach work on this kernel. Captures one record per sched_process_exec of a watched
// pid (or of any process when watch_pid is 0). It captures; it does not interpret.
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "proto/records.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 watch_pid = 0;

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 64 * 1024);
} events SEC(".maps");

SEC("tracepoint/sched/sched_process_exec")
int hello_exec(void *ctx) {
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  __u32 tgid = pid_tgid >> 32;
  if (watch_pid && tgid != watch_pid) return 0;
  struct gt_hello_record *r = bpf_ringbuf_reserve(&events, sizeof(*r), 0);
  if (!r) return 0;
  r->h.ts_ns = bpf_ktime_get_ns();
  r->h.tgid = tgid;
  r->h.tid = (__u32)pid_tgid;
  r->h.kind = GT_REC_HELLO;
  r->h.cpu = bpf_get_smp_processor_id();
  r->h.seq = 0;
  r->value = GT_PROTO_VERSION;
  bpf_ringbuf_submit(r, 0);
  return 0;
}
