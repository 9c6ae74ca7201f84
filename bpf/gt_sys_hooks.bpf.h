// The recording's one program on each syscall tracepoint, run by the daemon's dispatcher
// (bpf/gt_host.bpf.c) for a syscall of the watched process only. What it writes is the
// .rodata's choice, made before load (the verifier drops the rest): the raw records of
// --syscall-tracepoints (cfg.raw_sys, gt_kernel.bpf.h), the kernel view's goroutine
// syscalls (cfg.ksys, gt_kernel_syscall.bpf.h), the goroutine syscalls of the plan
// (cfg.sys_tp, gt_syscall_tp.bpf.h). Then on to the next recording of the process.
// Stands on its own.
#pragma once

#include "bpf/gt_maps.bpf.h"
#include "bpf/gt_kernel.bpf.h"
#include "bpf/gt_kernel_syscall.bpf.h"
#include "bpf/gt_syscall_tp.bpf.h"

SEC("tp_btf/sys_enter")
int BPF_PROG(gt_sys_enter, struct pt_regs *regs, long id) {
  if (cfg.raw_sys) raw_sys_enter(regs, id);
  if (cfg.ksys) ksys_enter(regs, id);
  if (cfg.sys_tp) go_sys_enter(regs, id);
  GT_NEXT(ctx, gt_hp_sys_enter, GT_HOOK_SYS_ENTER);
  return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(gt_sys_exit, struct pt_regs *regs, long ret) {
  if (cfg.raw_sys) raw_sys_exit(regs, ret);
  if (cfg.ksys) ksys_exit(regs, ret);
  if (cfg.sys_tp) go_sys_exit(regs, ret);
  GT_NEXT(ctx, gt_hp_sys_exit, GT_HOOK_SYS_EXIT);
  return 0;
}
