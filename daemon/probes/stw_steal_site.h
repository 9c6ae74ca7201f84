// Go <= 1.25's stop-the-world takes every P that is in a syscall (proc.go
// stopTheWorldWithSema: `if s == _Psyscall && atomic.Cas(&pp.status, s, _Pgcstop)`, then the
// tracer's GoSysBlock + ProcStop (1.19-1.21) or ProcSteal(pp, false) (1.22-1.25), then
// `pp.syscalltick++`) without calling anything the plan probes. The syscall's own exit
// cannot tell that steal from a retake's when its thread is between sys_exit and
// exitsyscallfast's CAS (docs/probe-plan.md §3.6), so the plan probes the steal itself:
// the Jcc of the tracer test right after a successful CAS, reached whether or not the
// target traces itself, with the P's register (kSTWSyscallSteal).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "daemon/probes/probe_plan.h"

namespace gotraced::probes {

struct StwStealSite {
  uint64_t vaddr = 0;  // the Jcc
  uint32_t p_reg = 0;  // GT_REG_* holding pp there (the CAS's base register)
  int32_t line = -1;   // its source line
};

// The site in runtime.stopTheWorldWithSema, given p.status and p.syscalltick's offsets:
// the function's only LOCK CMPXCHGL on `status(P)`, its success path (SETE F; TEST F, F;
// JE/JNE, following JMPs), and on it the next Jcc, whose taken branch is `INCL
// syscalltick(P)` (the tracer off) and before which nothing writes P. nullopt + *why
// otherwise.
std::optional<StwStealSite> FindStwStealSite(const gobin::GoBinary &bin, int32_t p_status_off,
                                             int32_t p_syscalltick_off, std::string *why);

// Appends the kSTWSyscallSteal site (Go <= 1.25), or a note saying why not.
void AddStwStealSite(const gobin::GoBinary &bin, const gobin::RuntimeLayout &layout, ProbePlan &plan);

}  // namespace gotraced::probes
