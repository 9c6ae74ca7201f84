// Which Go versions the probe plan knows. The plan's per-version rules
// (docs/probe-plan.md) were written from, and are tested on (tests/suites/30, 50, 70),
// the runtimes of Go 1.19 to 1.27. A version outside that range is not refused for
// being new: if every required probe site and struct offset is found in the binary and
// the start-up self-check (daemon/capture/capture.h, step 6) sees consistent records, it
// is traced, with a warning; otherwise gotraced refuses and names what is missing.
#pragma once

#include <string>

namespace gotraced::gobin {
struct GoVersion;
}

namespace gotraced::probes {

// Oldest and newest Go 1.x minor the plan was written for and is tested on.
inline constexpr int kOldestKnownMinor = 19;
inline constexpr int kNewestKnownMinor = 27;
// Go 1.17 introduced the register ABI on amd64: every probe reads its arguments (gp,
// old, new; acquirep's pp; procresize's nprocs ...) from registers, so nothing older
// can be traced at all.
inline constexpr int kRegisterAbiMinor = 17;

enum class VersionSupport {
  kKnown,        // 1.19 .. 1.27
  kUntested,     // register ABI, outside the known range: allowed only if everything
                 // required is found and the self-check passes
  kUnsupported,  // refused; `why` says why
};

struct VersionVerdict {
  VersionSupport support = VersionSupport::kUnsupported;
  std::string why;  // for kUntested: the warning; for kUnsupported: the refusal
};

VersionVerdict ClassifyGoVersion(const gobin::GoVersion &v);

}  // namespace gotraced::probes
