// Helpers shared by the service tests: temp dirs, tracecheck (Go's parser) on bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gotraced::service::testing {

// A fresh directory under /tmp, removed by the destructor.
struct TempDir {
  TempDir();
  ~TempDir();
  std::string path;
  std::string File(const std::string &name) const { return path + "/" + name; }
};

struct CheckResult {
  int exit_code = -1;
  std::string json, errors, path;
  bool ok() const { return exit_code == 0; }
};
// $GOTRACED_BUILD/tools/tracecheck (built on demand by scripts/build-tools.sh); "" if it
// cannot be had.
std::string TracecheckPath();
CheckResult RunTracecheck(const std::vector<std::uint8_t> &bytes, const std::string &name);

}  // namespace gotraced::service::testing
