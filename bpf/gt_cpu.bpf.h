// CPU samples (gotraced --cpu-hz N): SEC("perf_event") gt_cpu_sample. Stands on its own.
//
// The daemon opens one PERF_COUNT_SW_CPU_CLOCK event per CPU (pid -1, period 1e9/N ns)
// and attaches this program to each (daemon/capture/cpu_sampler.cc says why per CPU and
// not per thread). It fires N times per second per CPU; when the thread on the CPU
// belongs to a traced tgid it writes one GT_REC_CPU_SAMPLE (proto/records.h): the
// thread's user registers and its user stack by frame pointers. Like the runtime's own
// profiler, which samples each thread's CPU time with a SIGPROF timer
// (runtime/signal_unix.go setThreadCPUProfiler, timer_create(CLOCK_THREAD_CPUTIME_ID)),
// a thread gets about N samples per CPU second, user and kernel time alike.
//
// Which M, P and goroutine the sample belongs to is the daemon's model's knowledge
// (daemon/model/model_cpu.cc); the record also carries m.curg's goid and m.p's id as read
// here, for capture level "low", which has no scheduling records, and m.curg's pprof
// label set pointer (with its identity, gt_labels.bpf.h): 3 more reads when it has one. What is read of the Go runtime here is only where the
// runtime's own profiler would START the stack when the thread is outside Go code
// (cpu_ext_start below); the daemon decides what the stack means.

#pragma once

#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_read.bpf.h"
#include "bpf/gt_stack.bpf.h"
#include "bpf/gt_record.bpf.h"
#include "bpf/gt_labels.bpf.h"

// Scratch for bpf_get_stack and the walk, per CPU and separate from the uprobes' per-thread
// scratch: a perf_event program runs in a hard interrupt (it cannot be preempted, and
// the kernel does not nest it: bpf_prog_active), possibly on top of a uprobe program of
// the same thread, whose scratch it must not touch. One map for every recording of the
// daemon (daemon/capture/host_hooks.cc ShareMaps), as no two of them run at once on a CPU.
struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct scratch);
} cpu_scratch SEC(".maps");

// Where runtime/proc.go sigprof (Go 1.21-1.27; 1.19 the same cases through
// gentraceback) starts the sample's traceback when the thread is not in Go code, read
// from the thread's m (its g from TLS: R14 is anything in C code):
//   * a cgo call (m.ncgo > 0, m.curg.syscallpc and syscallsp set by entersyscall in
//     runtime/cgocall.go cgocall): curg's stack from syscallpc, i.e. the Go frames that
//     lead to the call. The C code runs on g0's stack with whatever it keeps in RBP, so
//     the interrupted registers lead nowhere. (m.cgoCallers, the C frames sigprof puts
//     first, is only filled by a SetCgoTraceback handler: not read.)
//   * a VDSO call (m.vdsoSP != 0, set by nanotime1 / time·now / vgetrandom1 in
//     sys_linux_amd64.s, time_linux_amd64.s): from m.vdsoPC, the caller of the assembly
//     function; the runtime's stack has neither the VDSO nor that function.
// Walks the frame-pointer chain from there into s->pcs and returns true; false when
// neither case holds (or the offsets are unknown): the caller then walks from the
// interrupted registers.
static __always_inline bool cpu_ext_start(struct task_struct *task, struct scratch *s) {
  if (!cfg.tls_g_off || cfg.g_m < 0 || cfg.m_curg < 0 || cfg.m_vdso_sp < 0 || cfg.m_vdso_pc < 0 || cfg.m_ncgo < 0)
    return false;
  __u64 fsbase = BPF_CORE_READ(task, thread.fsbase);
  if (!fsbase) return false;
  __u64 g = rd64(fsbase + (__s64)cfg.tls_g_off);
  __u64 m = rdf64(g, cfg.g_m);
  if (!m) return false;
  struct walk *w = &s->w;
  __builtin_memset(w, 0, sizeof(*w));
  __u32 start;
  __u64 curg = rdf64(m, cfg.m_curg);
  __s32 ncgo = (__s32)rdf32(m, cfg.m_ncgo);
  __u64 syscallsp = 0, syscallpc = 0;
  if (ncgo > 0 && curg) {
    syscallsp = rdf64(curg, cfg.g_syscallsp);
    syscallpc = rdf64(curg, cfg.g_syscallpc);
  }
  if (syscallsp && syscallpc) {
    s->tail.source = GT_STACK_SYSCALL;
    s->tail.stack_g = curg;
    s->pcs[0] = syscallpc;
    w->fp = cfg.g_syscallbp >= 0 ? rdf64(curg, cfg.g_syscallbp) : rdf64(curg, cfg.g_sched_bp);
    start = 1;
  } else {
    __u64 vdso_sp = rdf64(m, cfg.m_vdso_sp);
    if (!vdso_sp) return false;
    s->tail.source = GT_STACK_VDSO;
    s->tail.stack_g = g;
    s->tail.sched_sp_word = rdf64(m, cfg.m_vdso_pc);
    w->fp = vdso_sp - 16;
    start = 0;
  }
  walk_chain(s, start);
  return true;
}

static __always_inline int cpu_sample(struct bpf_perf_event_data *ctx) {
  __u64 pid_tgid = bpf_get_current_pid_tgid();
  __u32 tgid = pid_tgid >> 32;
  if (!tgid || !tgid_traced(tgid)) return 0;

  // The user registers whatever mode the sample hit: for a user thread task_pt_regs is
  // the frame saved at kernel entry (x86-64: the top of the task's kernel stack), which
  // is the interrupted context itself when the interrupt came from user mode.
  struct task_struct *task = bpf_get_current_task_btf();
  struct pt_regs *uregs = (struct pt_regs *)bpf_task_pt_regs(task);
  if (!uregs) return 0;
  __u64 ip = uregs->ip, sp = uregs->sp, bp = uregs->bp, r14 = uregs->r14;
  // Interrupted in the kernel: the interrupted IP is a kernel address (x86-64: upper half).
  // (Not ctx->regs.cs: the verifier allows only 8-byte loads of the perf_event context.)
  __u8 kernel = (__u64)ctx->regs.ip >> 63;

  __u32 zero = 0;
  struct scratch *s = bpf_map_lookup_elem(&cpu_scratch, &zero);
  if (!s) return 0;
  __builtin_memset(&s->tail, 0, sizeof(s->tail));
  __u32 n;
  if (cpu_ext_start(task, s)) {
    n = s->tail.nframes;
    if (n > GT_MAX_FRAMES) n = GT_MAX_FRAMES;
  } else {
    // pcs[0] = user IP, then [fp+8] up the chain from the user RBP until fp is no longer
    // a user address (Go ends a goroutine's chain with fp = 0: runtime/asm_amd64.s gogo).
    // Capped by kernel.perf_event_max_stack (127 by default).
    long got = bpf_get_stack(ctx, s->pcs, sizeof(s->pcs), BPF_F_USER_STACK);
    n = got > 0 ? (__u32)got / 8 : 0;
    if (n > GT_MAX_FRAMES) n = GT_MAX_FRAMES;
    s->tail.nframes = n;
    s->tail.source = GT_STACK_USER;
    s->tail.flags = got < 0 ? GT_STACK_FAULT : (n == GT_MAX_FRAMES ? GT_STACK_TRUNCATED : 0);
  }

  __u64 w[2] = {};
  if (bpf_probe_read_user(w, sizeof(w), (const void *)sp) != 0) w[0] = w[1] = 0;
  // sigprof's gp.m.curg and gp.m.p (runtime/proc.go), from the g in TLS (R14 is anything
  // outside Go code): 4 reads at N Hz per CPU (7 when curg has a label set).
  __s32 p_id = -1;
  __u64 goid = 0, labels = 0;
  if (cfg.tls_g_off && cfg.g_m >= 0 && cfg.m_curg >= 0 && cfg.g_goid >= 0) {
    __u64 fsbase = BPF_CORE_READ(task, thread.fsbase);
    __u64 tg = fsbase ? rd64(fsbase + (__s64)cfg.tls_g_off) : 0;
    __u64 tm = tg ? rdf64(tg, cfg.g_m) : 0;
    if (tm) {
      __u64 curg = rdf64(tm, cfg.m_curg);
      if (curg) goid = rdf64(curg, cfg.g_goid);
      // Its pprof label set (--no-labels: g_labels -1), and the words that identify it.
      if (curg && cfg.g_labels >= 0) labels = rdf64(curg, cfg.g_labels);
      __u64 pp = cfg.m_p >= 0 ? rdf64(tm, cfg.m_p) : 0;
      if (pp && cfg.p_id >= 0) p_id = (__s32)rdf32(pp, cfg.p_id);
    }
  }
  gt_labels_id(s, labels);

#define GT_FILL_CPU(r, seq, stack)              \
  do {                                          \
    fill_header(&(r)->h, GT_REC_CPU_SAMPLE, seq); \
    (r)->ip = ip;                               \
    (r)->sp = sp;                               \
    (r)->bp = bp;                               \
    (r)->r14 = r14;                             \
    (r)->sp_words[0] = w[0];                    \
    (r)->sp_words[1] = w[1];                    \
    (r)->kernel = kernel;                       \
    __builtin_memset((r)->pad, 0, sizeof((r)->pad)); \
    (r)->p_id = p_id;                           \
    (r)->curg_goid = goid;                      \
    (r)->labels = labels;                       \
    (r)->labels_id.w[0] = s->lwin[0];           \
    (r)->labels_id.w[1] = s->lwin[1];           \
    (r)->labels_id.w[2] = s->lwin[2];           \
    (r)->labels_id.w[3] = s->lwin[3];           \
  } while (0)
  GT_EMIT(struct gt_cpu_sample_record, GT_FILL_CPU, cpu_counters(), true, n, &s->tail, s->pcs);
}

// Run by the daemon's dispatcher (bpf/gt_host.bpf.c) for a sample of a watched process,
// or attached to perf events of its own when the dispatcher samples at another rate
// (daemon/capture/host_hooks.h).
SEC("perf_event")
int gt_cpu_sample(struct bpf_perf_event_data *ctx) {
  cpu_sample(ctx);
  GT_NEXT(ctx, gt_hp_cpu, GT_HOOK_CPU);
  return 0;
}
