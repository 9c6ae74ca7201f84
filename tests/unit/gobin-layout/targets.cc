#include "tests/unit/gobin-layout/targets.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>

namespace gotraced::gobin::testing {

namespace {

std::string TargetsDir() {
  if (const char *b = std::getenv("GOTRACED_BUILD")) return std::string(b) + "/gobin-targets";
  return std::string(GOTRACED_BINARY_DIR) + "/gobin-targets";
}

// Runs build_targets.sh once per process; its output says which toolchain is skipped.
int BuildOnce() {
  static std::once_flag once;
  static int rc = 0;
  std::call_once(once, [] {
    std::string cmd = "bash '" + std::string(GOTRACED_SOURCE_DIR) + "/tests/gobin-layouts/build_targets.sh' '" +
                      TargetsDir() + "' >&2";
    rc = std::system(cmd.c_str());
  });
  return rc;
}

}  // namespace

const std::vector<std::string> &AllVersions() {
  static const std::vector<std::string> v = {"go1.19", "go1.21", "go1.22", "go1.23", "go1.24", "go1.25", "go1.26", "go1.27"};
  return v;
}

std::string TargetPath(const std::string &version, const std::string &mode, std::string *why) {
  if (BuildOnce() != 0) {
    *why = "tests/gobin-layouts/build_targets.sh failed (see stderr)";
    return "";
  }
  std::string p = TargetsDir() + "/" + version + "/" + mode;
  if (!std::filesystem::exists(p)) {
    *why = version + " target not built (toolchain missing? see build_targets.sh output): " + p;
    return "";
  }
  return p;
}

std::unique_ptr<GoBinary> OpenTarget(const std::string &version, const std::string &mode, std::string *why) {
  std::string p = TargetPath(version, mode, why);
  if (p.empty()) return nullptr;
  auto b = GoBinary::Open(p);
  if (!b) {
    *why = p + ": " + b.error();
    return nullptr;
  }
  return std::move(*b);
}

}  // namespace gotraced::gobin::testing
