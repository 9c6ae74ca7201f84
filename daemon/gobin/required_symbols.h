// The runtime functions the probe plan needs (a first list: gobin B and the probes
// engineer refine it from probes/). `gotraced inspect` reports each as found or missing.
#pragma once

#include <string>
#include <vector>

#include "daemon/gobin/buildinfo.h"

namespace gotraced::gobin {

struct RequiredFunction {
  std::string name;
  int min_minor = 0;  // needed only from Go 1.<min_minor> on (0 = always)
  int max_minor = 0;  // needed only up to Go 1.<max_minor> (0 = no upper bound)
};

inline std::vector<RequiredFunction> RequiredRuntimeFunctionsDetailed() {
  return {
      {"runtime.casgstatus"},     {"runtime.execute"},
      {"runtime.newproc1"},       {"runtime.gopark"},
      {"runtime.park_m"},
      // goready is inlined into its callers from Go 1.21 on (not in the pclntab of any
      // 1.21-1.27 binary here; 1.20 not checked): runtime.ready is the probe point there.
      {"runtime.goready", 0, 20},
      {"runtime.ready"},          {"runtime.goexit1"},
      {"runtime.goexit0"},        {"runtime.gdestroy", 22},
      {"runtime.entersyscall"},   {"runtime.reentersyscall"},
      {"runtime.exitsyscall"},    {"runtime.entersyscallblock"},
      {"runtime.acquirep"},       {"runtime.releasep"},
      {"runtime.procresize"},     {"runtime.gcStart"},
      {"runtime.stopTheWorldWithSema"}, {"runtime.startTheWorldWithSema"},
      {"runtime.schedule"},       {"runtime.mstart1"},
  };
}

// Names only, for callers that do not care about versions.
inline std::vector<std::string> RequiredRuntimeFunctions() {
  std::vector<std::string> out;
  for (const auto &f : RequiredRuntimeFunctionsDetailed()) out.push_back(f.name);
  return out;
}

// The subset that applies to Go version v.
inline std::vector<RequiredFunction> RequiredRuntimeFunctionsFor(const GoVersion &v) {
  std::vector<RequiredFunction> out;
  for (auto &f : RequiredRuntimeFunctionsDetailed()) {
    if (v.known() && f.min_minor && v.minor < f.min_minor) continue;
    if (v.known() && f.max_minor && v.minor > f.max_minor) continue;
    out.push_back(f);
  }
  return out;
}

}  // namespace gotraced::gobin
