#include "daemon/probes/version_support.h"

#include <fmt/format.h>

#include "daemon/gobin/buildinfo.h"

namespace gotraced::probes {

VersionVerdict ClassifyGoVersion(const gobin::GoVersion &v) {
  if (!v.known()) return {VersionSupport::kUnsupported, "unknown Go version (no build info): cannot choose a probe plan"};
  const std::string name = fmt::format("go{}.{}.{}", v.major, v.minor, v.patch);
  if (v.major != 1)
    return {VersionSupport::kUnsupported, fmt::format("{}: only Go 1.x runtimes are understood by this gotraced", name)};
  if (v.minor < kRegisterAbiMinor)
    return {VersionSupport::kUnsupported,
            fmt::format("Go 1.{} is not supported ({}): it passes arguments on the stack, and gotraced's probes read "
                        "the register ABI of Go 1.{}+ (tested: Go 1.{} to 1.{})",
                        v.minor, name, kRegisterAbiMinor, kOldestKnownMinor, kNewestKnownMinor)};
  if (v.minor >= kOldestKnownMinor && v.minor <= kNewestKnownMinor) return {VersionSupport::kKnown, ""};
  return {VersionSupport::kUntested,
          fmt::format("{} is outside the Go versions this gotraced was written for and tested on (1.{} to 1.{}): "
                      "traced because every required probe site and offset was found and the start-up self-check passed",
                      name, kOldestKnownMinor, kNewestKnownMinor)};
}

}  // namespace gotraced::probes
