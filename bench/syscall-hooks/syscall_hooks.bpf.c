// The programs of bench/syscall-hooks (issue 28 part 2): the same filter body at each
// place a syscall recorder can hook, so the cost of the place is all that differs.
//   tp_btf/sys_enter [+ sys_exit]   level low's syscall tracepoints (the host-wide slow
//                                   path: every task gets SYSCALL_WORK_SYSCALL_TRACEPOINT)
//   fentry [+ fexit] x64_sys_call   the dispatcher (6.9+, stable backports): a trampoline
//                                   on the fast path instead, if the kernel allows it
//   tp_btf/sched_switch             the default since session 19: nothing at a syscall
// The body is a real filter's: the current tgid looked up in a hash map; absent (a
// bystander) it returns, present (the watched process) it reads the clock and writes a
// per-CPU value, whose count the loader reads to know the program ran at every call.
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 1024);
  __type(key, __u32);   // tgid
  __type(value, __u8);
} watched SEC(".maps");

struct hit {
  __u64 ts;  // the clock at the last run of a watched process's hook
  __u64 n;   // runs for a watched process
};

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct hit);
} hits SEC(".maps");

static __always_inline int filter(void) {
  __u32 tgid = bpf_get_current_pid_tgid() >> 32;
  if (!bpf_map_lookup_elem(&watched, &tgid)) return 0;
  __u32 k = 0;
  struct hit *h = bpf_map_lookup_elem(&hits, &k);
  if (h) {
    h->ts = bpf_ktime_get_ns();
    h->n++;
  }
  return 0;
}

SEC("tp_btf/sys_enter") int tp_enter(__u64 *ctx) { return filter(); }
SEC("tp_btf/sys_exit") int tp_exit(__u64 *ctx) { return filter(); }
SEC("fentry/x64_sys_call") int disp_entry(__u64 *ctx) { return filter(); }
SEC("fexit/x64_sys_call") int disp_exit(__u64 *ctx) { return filter(); }
SEC("tp_btf/sched_switch") int on_switch(__u64 *ctx) { return filter(); }
