// Reproducer for the x86 JIT's per-CPU private stack shared by preempted uprobe
// programs (docs/preemption.md). Two uprobe programs do the same thing: fill a
// 128-byte buffer with the current thread id, spend a few microseconds (bpf_loop),
// and check that the buffer still holds the thread id. `big_stack` keeps the buffer on
// its BPF stack (128 bytes >= BPF_PRIV_STACK_MIN_SIZE, so on Linux 6.13+ the JIT puts its
// frame on a per-CPU private stack); `task_scratch` keeps it in task storage, which is
// what bpf/gotrace.bpf.c does. A mismatch means another task ran the same program on
// the same CPU while this one was preempted, and overwrote its frame. Nothing is
// dereferenced from the buffer, so a clobber is counted, never followed.
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

const volatile __u32 spin = 2000;  // bpf_loop iterations per hit (a few microseconds)

struct counts {
  __u64 hits;
  __u64 clobbered;
};

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 2);  // 0: big_stack, 1: task_scratch
  __type(key, __u32);
  __type(value, struct counts);
} results SEC(".maps");

struct buf {
  __u64 w[16];
};
struct {
  __uint(type, BPF_MAP_TYPE_TASK_STORAGE);
  __uint(map_flags, BPF_F_NO_PREALLOC);
  __type(key, int);
  __type(value, struct buf);
} scratch SEC(".maps");

static long spin_cb(__u32 i, void *ctx) { return 0; }

static __always_inline void count(__u32 which, bool bad) {
  struct counts *c = bpf_map_lookup_elem(&results, &which);
  if (!c) return;
  __sync_fetch_and_add(&c->hits, 1);
  if (bad) __sync_fetch_and_add(&c->clobbered, 1);
}

SEC("uprobe")
int big_stack(struct pt_regs *ctx) {
  volatile __u64 w[16];
  __u64 tid = (__u32)bpf_get_current_pid_tgid();
  for (int i = 0; i < 16; i++) w[i] = tid;
  bpf_loop(spin, spin_cb, NULL, 0);
  bool bad = false;
  for (int i = 0; i < 16; i++) bad |= w[i] != tid;
  count(0, bad);
  return 0;
}

SEC("uprobe")
int task_scratch(struct pt_regs *ctx) {
  // Two live values across the bpf_loop call (b, tid), held in callee-saved registers:
  // the frame stays far under 64 bytes (selftest-style check: stack_guard_tests).
  struct buf *b = bpf_task_storage_get(&scratch, bpf_get_current_task_btf(), 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
  if (!b) return 0;
  __u64 tid = (__u32)bpf_get_current_pid_tgid();
  b->w[0] = tid;
  b->w[15] = tid;
  bpf_loop(spin, spin_cb, NULL, 0);
  count(1, b->w[0] != tid || b->w[15] != tid);
  return 0;
}
