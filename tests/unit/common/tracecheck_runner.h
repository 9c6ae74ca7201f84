// Go's own parser as the judge of a unit test's trace: tracecheck
// ($GOTRACED_BUILD/tools/tracecheck, built on demand by scripts/build-tools.sh) run on
// bytes written to a file, its JSON summary on stdout and its complaints on stderr.
// Shared by the model and the service tests.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace gotraced::testutil {

struct CheckResult {
  int exit_code = -1;
  std::string json;    // stdout
  std::string errors;  // stderr
  std::string path;    // where the trace was written
  bool ok() const { return exit_code == 0; }
  // Integer at a top-level key, or inside a top-level object: Int("creates"),
  // Int("block_reasons", "chan receive"). -1 when the key is absent (or json is no
  // summary), 0 when the object has no such entry (its maps list only what occurred).
  long Int(std::string_view key, std::string_view sub = {}) const;
};

// Path to tracecheck; builds it once if missing. Empty (with a message on stderr) if it
// cannot be had.
std::string TracecheckPath();

// Writes bytes to <ProcessTestDir>/<dir>/<name>.trace (test_dir.h: the test process's own
// directory, removed at exit unless a test failed) and runs tracecheck on it.
CheckResult RunTracecheck(const std::vector<std::uint8_t> &bytes, const std::string &name,
                          const std::string &dir);

// The events of the trace res was run on, as Go's parser reads them (tracecheck
// --events-json: one object per event, keys in tests/tracecheck/cmd/tracecheck/eventjson.go).
std::vector<nlohmann::json> TraceEvents(const CheckResult &res);

}  // namespace gotraced::testutil
