// The two BPF programs gotraced-uprobe-cost attaches to one Go function: an empty one
// (the bare cost of the uprobe trap: what every probe hit pays whether or not it records,
// shared/docs/design.md "Performance model") and one that writes a 32-byte record to a
// ring buffer with BPF_RB_NO_WAKEUP (what a recording probe adds on top; the consumer
// drains on a timer, like gotraced's). No vmlinux.h: a uprobe context is opaque here.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
  __uint(type, BPF_MAP_TYPE_RINGBUF);
  __uint(max_entries, 8 << 20);
} records SEC(".maps");

struct cost_record {
  __u64 ts_ns;
  __u64 pid_tgid;
  __u64 cpu;
  __u64 seq;
};

SEC("uprobe")
int empty_probe(void *ctx) { return 0; }

SEC("uprobe")
int record_probe(void *ctx) {
  struct cost_record *r = bpf_ringbuf_reserve(&records, sizeof(*r), 0);
  if (!r) return 0;
  r->ts_ns = bpf_ktime_get_ns();
  r->pid_tgid = bpf_get_current_pid_tgid();
  r->cpu = bpf_get_smp_processor_id();
  r->seq = 0;
  bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
  return 0;
}
