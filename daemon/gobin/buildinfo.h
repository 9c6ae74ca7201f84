// BuildInfo: the Go version, module info and build settings embedded in .go.buildinfo —
// the same answer as `go version -m BINARY`.
// Authority: $GOROOT/src/debug/buildinfo/buildinfo.go (readRawBuildInfo: the 32-byte
// header "\xff Go buildinf:", pointer size, flags; flagsVersionInl = inline varint
// strings since Go 1.18, else two pointers to Go string headers) and
// src/runtime/debug/mod.go (ParseBuildInfo: the "go/path/mod/dep/=>/build" lines).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/gobin/result.h"

namespace gotraced::gobin {

class ElfFile;

// "go1.21.13" -> {1, 21, 13}; "go1.22rc1" -> {1, 22, 0, "rc1"}; "devel ..." -> {0,0,0}.
struct GoVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  std::string suffix;  // "rc1", "beta2", " X:..." experiments text etc.
  static GoVersion Parse(std::string_view go_version);
  bool AtLeast(int maj, int min) const { return major > maj || (major == maj && minor >= min); }
  bool known() const { return major > 0; }
};

struct GoModule {
  std::string path;
  std::string version;
  std::string sum;
  // Set when replaced ("=>" line): the replacement module.
  std::optional<std::string> replace_path, replace_version, replace_sum;
};

struct BuildSetting {
  std::string key;
  std::string value;
};

struct BuildInfo {
  std::string go_version;  // exactly as embedded, e.g. "go1.26.8" or "go1.27.3 X:nocoverageredesign"
  GoVersion version;       // parsed go_version
  std::string mod_info;    // raw module info text (sentinels removed)
  std::string path;        // main package path ("path" line), e.g. "command-line-arguments"
  std::optional<GoModule> main;  // "mod" line
  std::vector<GoModule> deps;    // "dep" lines
  std::vector<BuildSetting> settings;  // "build" lines in order: -compiler, CGO_ENABLED, ...

  // The value of a build setting ("CGO_ENABLED", "-trimpath", "-ldflags", "-buildmode"...).
  std::optional<std::string> Setting(std::string_view key) const;
  // The lines `go version -m` prints after "PATH: VERSION" (tab-indented, "\n"-ended),
  // so a test can compare byte for byte.
  std::string FormatModInfoLikeGoVersionM() const;
};

// Reads .go.buildinfo (by section, else by scanning the first writable PT_LOAD for the
// magic as debug/buildinfo does). Errors: "no .go.buildinfo", "malformed .go.buildinfo: ...".
Result<BuildInfo> ReadBuildInfo(const ElfFile &elf);

}  // namespace gotraced::gobin
