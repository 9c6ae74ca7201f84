// Object keys and x-amz-meta-* metadata of an uploaded trace (docs/upload.md). The key
// groups by node and day and names the process and the moment; the metadata says what a
// reader needs before downloading it (`gotraced traces` prints it).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gotraced::upload {

// What is known of one saved file.
struct TraceFacts {
  std::string node;
  std::string exe;           // the executable's path
  std::int64_t pid = 0;
  std::string go_version;
  std::string build_id;      // the Go build id (buildinfo)
  std::string trace_format;  // go1.26 ...
  std::string trigger;       // stw, syscall, cpu_throttle, sched_latency, dump, record ...
  std::string part;          // before, after, or "" (one file)
  std::int64_t at_unix_ns = 0;      // the moment, CLOCK_REALTIME
  std::uint64_t at_mono_ns = 0;     // the same moment on CLOCK_MONOTONIC (the trace's clock)
  double window_seconds = 0;        // length of the recording in the file
  std::string container, pod;       // when known
};

// The template's variables: {prefix} {node} {date} {time} {exe} {pid} {trigger} {part}.
// nullopt when every {...} is one of them, else why not.
std::optional<std::string> KeyTemplateProblem(std::string_view tmpl);

// Expands the template. Values are made key-safe ([A-Za-z0-9._-], others '_'; exe is its
// base name); an empty {prefix} or {part} takes its separator with it; no key starts with '/'.
std::string ExpandKey(std::string_view tmpl, std::string_view prefix, const TraceFacts &f);

// x-amz-meta-* pairs (names without the prefix, lowercase): gotraced-version, node, pid,
// exe, go-version, build-id, trace-format, trigger, part, at-ns, at-utc, window-seconds,
// container, pod. Values are printable ASCII (S3 user metadata is US-ASCII).
std::map<std::string, std::string> Metadata(const TraceFacts &f, std::string_view gotraced_version);

// 2026-12-06T12:13:14.015Z
std::string UtcIso(std::int64_t unix_ns);

}  // namespace gotraced::upload
