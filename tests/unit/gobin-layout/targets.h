// Test binaries: tests/gobin-layouts/prog built by each Go toolchain in four link modes
// (build_targets.sh, run once per test process; cached and flock'ed).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "daemon/gobin/go_binary.h"

namespace gotraced::gobin::testing {

// "go1.19", "go1.21", "go1.22", "go1.23", "go1.24", "go1.25", "go1.26", "go1.27".
const std::vector<std::string> &AllVersions();

// Path of OUT/<version>/<mode> (mode: plain, stripped, pie, pie-stripped); "" with
// *why set when the toolchain is missing or the build failed.
std::string TargetPath(const std::string &version, const std::string &mode, std::string *why);

// Opens it; nullptr with *why set.
std::unique_ptr<GoBinary> OpenTarget(const std::string &version, const std::string &mode, std::string *why);

}  // namespace gotraced::gobin::testing

// Skips the current test (saying why) when the target could not be built; fails it when
// the target exists but GoBinary::Open rejects it.
#define GOBIN_OPEN_OR_SKIP(var, version, mode)                                                     \
  std::string var##_why;                                                                          \
  const std::string var##_path = ::gotraced::gobin::testing::TargetPath(version, mode, &var##_why); \
  if (var##_path.empty()) GTEST_SKIP() << var##_why;                                              \
  auto var##_r = ::gotraced::gobin::GoBinary::Open(var##_path);                                   \
  ASSERT_TRUE(var##_r) << var##_path << ": " << var##_r.error();                                  \
  std::unique_ptr<::gotraced::gobin::GoBinary> var = std::move(*var##_r)
