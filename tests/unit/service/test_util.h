// Helpers shared by the service tests: a directory of the test's own
// (tests/unit/common/test_dir.h), tracecheck (Go's parser) on bytes
// (tests/unit/common/tracecheck_runner.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/unit/common/test_dir.h"
#include "tests/unit/common/tracecheck_runner.h"

namespace gotraced::service::testing {

// A directory of the test's own, removed by the destructor (tests/unit/common/test_dir.h).
using TempDir = testutil::TestDir;

using testutil::CheckResult;
using testutil::TracecheckPath;
// tracecheck on bytes written to <ProcessTestDir>/gotraced-service-tests/<name>.trace.
inline CheckResult RunTracecheck(const std::vector<std::uint8_t> &bytes, const std::string &name) {
  return testutil::RunTracecheck(bytes, name, "gotraced-service-tests");
}

}  // namespace gotraced::service::testing
