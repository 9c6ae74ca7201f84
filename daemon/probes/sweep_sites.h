// GC sweep sites of the probe plan (docs/probe-plan.md §3.9 "Sweeps"): the runtime writes
// a sweep lazily (traceruntime.go GCSweepStart / GCSweepSpan / GCSweepDone), so the plan
// probes the brackets' own code, not a function entry.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "daemon/probes/probe_plan.h"

namespace gotraced::probes {

// One `traceAcquire()` / `if trace.enabled` test in a bracket function, matched to the
// tracer call it guards.
struct SweepTestSite {
  ProbeRole role;     // kGCSweepStart, kGCSweepDone or kGCSweepChunk
  std::string function;
  uint64_t vaddr;     // the Jcc right after the load/compare of the tracer flag
  int32_t line;       // the guarded call's source line (for `inspect` and the tests)
};

// The test sites of deductSweepCredit, (*mcentral).cacheSpan, (*mheap).reclaim and
// (*mheap).reclaimChunk, given the link-time address of the tracer's flag (gobin
// GlobalId::kTraceEnabled). Empty + *why when the code is not what the plan expects
// (every bracket must have exactly one Start test and its Done tests).
std::vector<SweepTestSite> FindSweepTestSites(const gobin::GoBinary &bin, uint64_t trace_flag_vaddr,
                                              std::string *why);

// The span site: the Jcc of sweep's `if traceEnabled()` before `reclaimed += nfreed *
// s.elemsize` (mgcsweep.go (*sweepLocked).sweep), and the registers (GT_REG_*) that hold
// the span and nfreed there.
struct SweepReclaimSite {
  uint64_t vaddr;
  uint32_t span_reg, nfreed_reg;
  int32_t line;
};
std::optional<SweepReclaimSite> FindSweepReclaimSite(const gobin::GoBinary &bin, uint64_t trace_flag_vaddr,
                                                     int32_t elemsize_off, std::string *why);

// Appends the sweep sites (kGCSweepStart/Span/Done/Chunk), all or none: without one of
// them the ranges would be wrong, so a note says sweeps are not recorded instead.
// stacks: GCSweepBegin gets its stack (GT_CALL_STACK on the span site, walked at a
// bracket's first span only) when the prefix of SweepBeginStack is found.
void AddSweepSites(const gobin::GoBinary &bin, const gobin::RuntimeLayout &layout, bool stacks, ProbePlan &plan);

// The return addresses that precede sweep's caller in GCSweepBegin's in-process stack
// (ProbePlan::sweep_begin_prefix) and the logical frames to drop after them; nullopt
// when the code is not the expected shape (then no stack).
struct SweepBeginStack {
  std::vector<uint64_t> prefix;
  uint32_t skip = 0;
};
std::optional<SweepBeginStack> FindSweepBeginStack(const gobin::GoBinary &bin, int go_minor, std::string *why);

}  // namespace gotraced::probes
