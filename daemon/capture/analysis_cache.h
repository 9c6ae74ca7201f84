// AnalysisCache: the per-executable work of a recording — the binary's analysis
// (gobin::GoBinary: ELF, build info, pclntab, symbols), its runtime layout, and the probe
// plans made from them per PlanOptions — done once per distinct executable and shared by
// every process of it (issue 28: serve attaching 100 processes of one binary redid it per
// process, ~2/3 of an attach's CPU). Keyed by the identity of the file the process runs
// (ExecutableKeyOf, read through /proc/PID/exe), never by its path: two containers' /app/svc
// may be two different programs, and one program has a different path in each
// container. A rebuilt or replaced binary is analysed again. Keeps the last kEntries
// executables. Thread-safe (serve attaches from several threads); what it hands out is
// const and shared.
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

// What the cache knows an executable by. With a Go build ID (cmd/go's buildid: a hash of
// the build's inputs and output): "go:<build id>:<size>:<mtime>", so the same binary in
// two containers is one entry although each overlay mount gives it another device and
// inode (size and mtime tell a binary rewritten after its build, by strip or objcopy,
// from the original; image layers keep mtimes). Without one: "file:<dev>:<inode>:<size>:
// <mtime>". `path` is read as given: /proc/PID/exe names the file the process runs
// even when the path it was started from now holds another.
gobin::Result<std::string> ExecutableKeyOf(const std::string &path);

// The analysis of the executable at `path` and its plan for `po` (the options as given
// to probes::PlanFor), from the cache (under `key`, ExecutableKeyOf) or made now.
gobin::Result<BinaryPlan> CachedBinaryPlan(const std::string &key, const std::string &path,
                                           const probes::PlanOptions &po);

inline constexpr std::size_t kAnalysisCacheEntries = 16;

}  // namespace gotraced::capture
