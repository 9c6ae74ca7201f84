// AnalysisCache: the per-executable work of a recording — the binary's analysis
// (gobin::GoBinary: ELF, build info, pclntab, symbols), its runtime layout, and the probe
// plans made from them per PlanOptions — done once per distinct executable and shared by
// every process of it (issue 28: serve attaching 100 processes of one binary redid it per
// process, ~2/3 of an attach's CPU). Keyed by the file's identity (device, inode, size,
// mtime of what /proc/PID/exe resolves to), so a rebuilt or replaced binary is analysed
// again. Keeps the last kEntries executables. Thread-safe (serve attaches from several
// threads); what it hands out is const and shared.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/result.h"
#include "daemon/gobin/runtime_layout.h"
#include "daemon/probes/probe_plan.h"

namespace gotraced::capture {

struct BinaryPlan {
  std::shared_ptr<const gobin::GoBinary> bin;
  gobin::RuntimeLayout layout;
  probes::ProbePlan plan;
  bool cached = false;  // the binary's analysis was already there
};

// The analysis of the executable at `path` and its plan for `po` (the options as given
// to probes::PlanFor), from the cache or made now.
gobin::Result<BinaryPlan> CachedBinaryPlan(const std::string &path, const probes::PlanOptions &po);

inline constexpr std::size_t kAnalysisCacheEntries = 16;

}  // namespace gotraced::capture
