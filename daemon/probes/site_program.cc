#include "daemon/probes/site_program.h"

namespace gotraced::probes {

const char *SiteProgram(const ProbeSite &s) {
  const bool stack = s.flags & GT_CALL_STACK;
  // Written by the syscall tracepoints, not a uprobe (syscall_sites.h).
  if (s.via_tracepoint) return s.role == ProbeRole::kExitSyscall ? "gt_sys_exit" : "gt_sys_enter";
  // Sweep brackets by the bracket role of the site (flags), whatever the probe role.
  if (s.flags & GT_CALL_SWEEP_OPEN) return "gt_sweep_open";
  if (s.flags & GT_CALL_SWEEP_CLOSE) return "gt_sweep_close";
  if (s.flags & GT_CALL_SWEEP_IN) return "gt_sweep_span";  // its stack is decided per bracket
  switch (s.role) {
    case ProbeRole::kCasgstatus: return "gt_casgstatus";
    case ProbeRole::kAcquireP:
    case ProbeRole::kReleaseP:
    case ProbeRole::kHandoffP:
    case ProbeRole::kSyscallReleaseP:
    case ProbeRole::kSTWSyscallSteal:
    case ProbeRole::kEnterSyscallGCStop:
      if (!stack) return "gt_proc";
      break;
    case ProbeRole::kEnterSyscall:
    case ProbeRole::kEnterSyscallBlock:
    case ProbeRole::kExitSyscall: return stack ? "gt_syscall_enter" : "gt_syscall_exit";
    case ProbeRole::kGCStart:
    case ProbeRole::kGCDone:
    case ProbeRole::kSTWStart:
    case ProbeRole::kSTWDone:
    case ProbeRole::kGCHeapUpdate:
    case ProbeRole::kGCHeapReset:
    case ProbeRole::kGCHeapGoal:
    case ProbeRole::kGCDrain:
    case ProbeRole::kGCAssist: return stack ? "gt_gc_stack" : "gt_gc";
    case ProbeRole::kProcResize:
    case ProbeRole::kPreemptPark:
      if (stack) return "gt_sched_stack";
      break;
    case ProbeRole::kUserTaskCreate:
    case ProbeRole::kUserTaskEnd:
    case ProbeRole::kUserRegion:
    case ProbeRole::kUserLog:
    case ProbeRole::kUserStartRegion:
    case ProbeRole::kUserLogf: return "gt_user";
    default: break;
  }
  // A site outside its class's usual shape: the generic programs.
  return stack ? "gt_sched_stack" : "gt_runtime";
}

std::set<std::string> PlanPrograms(const ProbePlan &plan) {
  std::set<std::string> out;
  for (const ProbeSite &s : plan.sites) out.insert(SiteProgram(s));
  return out;
}

}  // namespace gotraced::probes
