// Go <= 1.25's stop-the-world takes every P that is in a syscall without calling anything
// the plan probes: stopTheWorldWithSema (proc.go: `if s == _Psyscall &&
// atomic.Cas(&pp.status, s, _Pgcstop)`, then the tracer's GoSysBlock + ProcStop (1.19-1.21)
// or ProcSteal(pp, false) (1.22-1.25), then `pp.syscalltick++`), and a thread entering a
// syscall while the world stops, on its own P (entersyscall_gcwait: the same CAS, GoSysBlock
// + ProcStop or ProcSteal(pp, true), `pp.syscalltick++`). The syscall's exit cannot tell
// such a steal from a retake's when its thread is between sys_exit and exitsyscallfast's
// CAS (docs/probe-plan.md §3.6), so the plan probes the steals themselves: the Jcc of the
// tracer test right after a successful CAS, reached whether or not the target traces
// itself, with the P's register (kSTWSyscallSteal, kEnterSyscallGCStop).
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

// The site in `function` (stopTheWorldWithSema or entersyscall_gcwait), given p.status and
// p.syscalltick's offsets: the function's only LOCK CMPXCHGL on `status(P)`, its success
// path (SETE F; TEST F, F; JE/JNE, following JMPs), and on it the next Jcc, whose taken
// branch (the tracer off) reaches `pp.syscalltick++` before any other branch and before
// which nothing writes P. nullopt + *why otherwise.
std::optional<StwStealSite> FindStwStealSite(const gobin::GoBinary &bin, const char *function, int32_t p_status_off,
                                             int32_t p_syscalltick_off, std::string *why);

// Appends the sites of both functions (Go <= 1.25), or a note per
// function saying why not.
void AddStwStealSites(const gobin::GoBinary &bin, const gobin::RuntimeLayout &layout, ProbePlan &plan);

}  // namespace gotraced::probes
