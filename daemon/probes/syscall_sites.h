// Syscalls from the kernel's syscall tracepoints (docs/probe-plan.md §3.6 "From the
// tracepoints"): on Go 1.26+ the plan's reentersyscall / exitsyscall entry sites are not
// uprobed; bpf/gt_syscall_tp.bpf.h writes their records at sys_enter / sys_exit of a
// goroutine in _Gsyscall, which saves a uprobe trap at both ends of every syscall.
//
// What the tracepoints cannot see is probed where it is called: the runtime's own calls
// of entersyscall / reentersyscall / exitsyscall that are not around a SYSCALL in Go text
//   * runtime.cgocall: entersyscall() ... asmcgocall (C code) ... exitsyscall();
//   * runtime.cgocallbackg: exitsyscall() on entry from C, reentersyscall(savedpc,
//     savedsp, savedbp) on the way back;
//   * runtime.notetsleepg: entersyscallblock() (its casgstatus is probed) ... futex
//     (skipped by the tracepoints: cfg.sys_skip) ... exitsyscall().
// Each is a uprobe on the CALL instruction (emulated by the kernel), with the role of the
// function it calls, so the decoder reads it as it read the function's entry.
#pragma once

#include "daemon/probes/probe_plan.h"

namespace gotraced::probes {

// Switches `plan` (Go 1.26+, kEnterSyscall / kExitSyscall sites present, the TLS g
// offset known) to tracepoint syscalls: marks those two sites via_tracepoint, fills the
// text ranges the BPF side filters by and adds the call sites above. Returns false (and
// a note in the plan) when the binary's code is not what this expects; the plan then
// keeps the uprobes.
bool UseSyscallTracepoints(const gobin::GoBinary &bin, ProbePlan &plan);

// Capture level "low" (PlanOptions::sched_probes off): adds a sys_enter and a sys_exit
// site (via_tracepoint, no uprobe) to a plan that has neither casgstatus nor the syscall
// uprobes, for any Go version: the tracepoints' filter is the g's _Gsyscall status, which
// entersyscall sets before the SYSCALL on every version (through casgstatus on <= 1.25).
// The runtime's own calls (cgocall, notetsleepg) are not probed: a cgo call is not seen.
// Returns false (a note in the plan) when the TLS g offset or runtime.futex is unknown.
bool UseSyscallTracepointsOnly(const gobin::GoBinary &bin, ProbePlan &plan);

// The kernel view (PlanOptions::sched_switch) of a plan whose goroutine syscalls come from
// uprobes (Go <= 1.25 at capture levels full and sched): the sys_enter / sys_exit programs
// of bpf/gt_kernel_syscall.bpf.h name each goroutine syscall, its fd and its byte count,
// with the filter of the tracepoint syscalls. Returns false (a note) when the TLS g offset,
// g.atomicstatus or runtime.futex is unknown, or the plan's syscalls already come from the
// tracepoints (which carry all of it).
bool UseKernelViewSyscalls(const gobin::GoBinary &bin, ProbePlan &plan);

}  // namespace gotraced::probes
