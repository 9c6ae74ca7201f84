// gotrace: the capture programs. They copy raw values out of a Go process into the ring
// buffer and decide nothing: which sites exist, what their registers mean and which
// struct offsets to read all come from the daemon (daemon/probes/, .rodata `cfg` and
// the attach cookie). Record layouts: proto/records.h.
//
// One program per site class; the daemon attaches each probe-plan site to the program
// of its class (daemon/probes/site_program.h) and loads only the programs its plan
// names. Shared code is in self-contained headers:
//   gt_maps.bpf.h    maps, .rodata config, the per-thread scratch
//   gt_read.bpf.h    reads of target memory (fields, g and m windows)
//   gt_go_ctx.bpf.h  saved registers and the Go context of a hit (g, m, curg, p)
//   gt_stack.bpf.h   frame-pointer walks of m->curg
//   gt_record.bpf.h  ring records: reservation, header, stack tail
//   gt_gstatus.bpf.h / gt_call.bpf.h / gt_user.bpf.h / gt_kernel.bpf.h / gt_cpu.bpf.h /
//   gt_syscall_tp.bpf.h / gt_kernel_syscall.bpf.h
//                    the bodies of the site classes
//   gt_sys_hooks.bpf.h  the one program per syscall tracepoint that runs those bodies
//   gt_host_maps.bpf.h  the dispatch of the kernel-wide hooks: the tracepoint and CPU-sample
//                    programs here are attached nowhere; the daemon's dispatcher
//                    (bpf/gt_host.bpf.c) jumps to them for the watched process's events
//
// Verifier budget (docs/preemption.md, `gotraced selftest`): every program far below the
// 1M processed-instruction limit on the oldest supported kernel, and every function of a
// uprobe program with its own stack under 64 bytes, so the x86 JIT never moves it to the
// per-CPU private stack (Linux 6.13+), which preemption could share. Work state lives in
// the thread's scratch (task storage) instead; the heavy parts are global functions
// (gt_go_ctx, gt_walk_curg, gt_*_emit), verified once each.
//
// Cost matters more than anything here (shared/docs/perf-anchors.md): a uprobe hit is
// ~1 us on an emulated instruction; each bpf_probe_read_user adds tens of ns; the ring's
// default wakeup adds 1.7-9 us, so every submit uses BPF_RB_NO_WAKEUP and the daemon
// drains on a timer.
#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_gstatus.bpf.h"
#include "bpf/gt_call.bpf.h"
#include "bpf/gt_user.bpf.h"
#include "bpf/gt_kernel.bpf.h"
#include "bpf/gt_syscall_tp.bpf.h"
#include "bpf/gt_kernel_syscall.bpf.h"
#include "bpf/gt_sys_hooks.bpf.h"
#include "bpf/gt_cpu.bpf.h"
#include "bpf/gt_sys_sample.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

// ---- goroutine status changes: runtime.casgstatus(gp, oldval, newval) entry ----------
SEC("uprobe")
int gt_casgstatus(struct pt_regs *ctx) {
  struct scratch *s = uprobe_begin(ctx);
  if (!s) return 0;
  return gt_gstatus_hit(s);
}

// ---- P events: acquirep/acquirepNoTrace, releasep, handoffp, syscallingThread.releaseP
SEC("uprobe")
int gt_proc(struct pt_regs *ctx) { return call_site(ctx, false); }

// ---- syscalls on Go >= 1.26: reentersyscall (with its stack), exitsyscall ------------
SEC("uprobe")
int gt_syscall_enter(struct pt_regs *ctx) { return call_site(ctx, true); }
SEC("uprobe")
int gt_syscall_exit(struct pt_regs *ctx) { return call_site(ctx, false); }

// ---- GC and STW: cycle start/end, STW start/end, heap, mark workers, assists ----------
SEC("uprobe")
int gt_gc(struct pt_regs *ctx) { return call_site(ctx, false); }
SEC("uprobe")
int gt_gc_stack(struct pt_regs *ctx) { return call_site(ctx, true); }

// ---- other scheduler sites with a stack: procresize (GOMAXPROCS), preemptPark ---------
SEC("uprobe")
int gt_sched_stack(struct pt_regs *ctx) { return call_site(ctx, true); }
// Any other runtime site a future plan adds (no class of its own yet).
SEC("uprobe")
int gt_runtime(struct pt_regs *ctx) { return call_site(ctx, false); }

// ---- sweep brackets ---------------------------------------------------------------
SEC("uprobe")
int gt_sweep_open(struct pt_regs *ctx) { return sweep_site(ctx, GT_CALL_SWEEP_OPEN); }
SEC("uprobe")
int gt_sweep_span(struct pt_regs *ctx) { return sweep_site(ctx, GT_CALL_SWEEP_IN); }
SEC("uprobe")
int gt_sweep_close(struct pt_regs *ctx) { return sweep_site(ctx, GT_CALL_SWEEP_CLOSE); }

// ---- user annotations: runtime/trace tasks, regions, logs -----------------------------
SEC("uprobe")
int gt_user(struct pt_regs *ctx) { return user_site(ctx); }
