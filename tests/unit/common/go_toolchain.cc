#include "tests/unit/common/go_toolchain.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

namespace gotraced::testutil {
namespace {

// The first line `cmd` prints on stdout ("" when it fails).
std::string FirstLine(const std::string &cmd) {
  std::unique_ptr<FILE, int (*)(FILE *)> p(::popen(cmd.c_str(), "r"), ::pclose);
  if (!p) return {};
  char buf[4096];
  std::string line = std::fgets(buf, sizeof buf, p.get()) ? buf : "";
  if (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

// `go env GOROOT` under a GOTOOLCHAIN, when that toolchain reports `version`.
std::string GoEnvRoot(const std::string &toolchain, const std::string &version) {
  const std::string go = "GOTOOLCHAIN=" + toolchain + " go env";
  const std::string have = FirstLine(go + " GOVERSION 2>/dev/null");
  if (have != version && have.rfind(version + ".", 0) != 0) return {};
  return FirstLine(go + " GOROOT 2>/dev/null");
}

}  // namespace

std::string GoRoot(const std::string &version) {
  // As go_for (tests/lib/suite.sh): Debian's packaged releases, trixie's unpacked by
  // scripts/fetch-debian-go.sh, the machine's go, and the toolchain module of a release
  // newer than it.
  static const std::map<std::string, std::string> kToolchain = {{"go1.26", "local"}, {"go1.27", "go1.27.3"}};
  if (auto it = kToolchain.find(version); it != kToolchain.end()) return GoEnvRoot(it->second, version);
  std::string root;
  if (version == "go1.19" || version == "go1.21" || version == "go1.22" || version == "go1.23") {
    root = "/usr/lib/go-" + version.substr(2);  // golang-1.NN-go's GOROOT
  } else if (version == "go1.24" || version == "go1.25") {
    const char *cache = std::getenv("GOTRACED_GO_CACHE");
    root = std::string(cache && *cache ? cache : "/var/cache/gotraced-go") + "/" + version;
  } else {
    return {};
  }
  return ::access((root + "/bin/go").c_str(), X_OK) == 0 ? root : "";
}

}  // namespace gotraced::testutil
