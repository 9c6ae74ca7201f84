// Helpers shared by the service tests: temp dirs, tracecheck (Go's parser) on bytes
// (tests/unit/common/tracecheck_runner.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/unit/common/tracecheck_runner.h"

namespace gotraced::service::testing {

// A fresh directory under /tmp, removed by the destructor.
struct TempDir {
  TempDir();
  ~TempDir();
  std::string path;
  std::string File(const std::string &name) const { return path + "/" + name; }
};

using testutil::CheckResult;
using testutil::TracecheckPath;
// tracecheck on bytes written to <tmp>/gotraced-service-tests/<name>.trace.
inline CheckResult RunTracecheck(const std::vector<std::uint8_t> &bytes, const std::string &name) {
  return testutil::RunTracecheck(bytes, name, "gotraced-service-tests");
}

}  // namespace gotraced::service::testing
