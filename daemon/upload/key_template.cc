// Object keys and metadata. See key_template.h.
#include "daemon/upload/key_template.h"

#include <fmt/format.h>
#include <time.h>

#include <array>

namespace gotraced::upload {

namespace {

constexpr std::array<std::string_view, 8> kVars = {"prefix", "node", "date", "time", "exe", "pid", "trigger", "part"};

std::string KeySafe(std::string_view s) {
  std::string out;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '-' || c == '_';
    out += ok ? c : '_';
  }
  return out;
}

std::string AsciiSafe(std::string_view s) {
  std::string out;
  for (char c : s) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

std::string BaseName(std::string_view p) {
  const std::size_t s = p.rfind('/');
  return std::string(s == std::string_view::npos ? p : p.substr(s + 1));
}

tm Utc(std::int64_t unix_ns) {
  const time_t secs = static_cast<time_t>(unix_ns / 1000000000);
  tm t{};
  gmtime_r(&secs, &t);
  return t;
}

}  // namespace

std::string UtcIso(std::int64_t unix_ns) {
  const tm t = Utc(unix_ns);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour,
                     t.tm_min, t.tm_sec, (unix_ns / 1000000) % 1000);
}

std::optional<std::string> KeyTemplateProblem(std::string_view tmpl) {
  if (tmpl.empty()) return "empty key template";
  for (std::size_t i = 0; i < tmpl.size(); i++) {
    if (tmpl[i] == '}') return fmt::format("unmatched '}}' at {}", i);
    if (tmpl[i] != '{') continue;
    const std::size_t e = tmpl.find('}', i);
    if (e == std::string_view::npos) return fmt::format("unterminated '{{' at {}", i);
    const std::string_view v = tmpl.substr(i + 1, e - i - 1);
    bool known = false;
    for (std::string_view k : kVars) known |= k == v;
    if (!known)
      return fmt::format("unknown variable {{{}}} (known: {{prefix}} {{node}} {{date}} {{time}} {{exe}} {{pid}} "
                         "{{trigger}} {{part}})", v.substr(0, 40));
    i = e;
  }
  return std::nullopt;
}

std::string ExpandKey(std::string_view tmpl, std::string_view prefix, const TraceFacts &f) {
  const tm t = Utc(f.at_unix_ns);
  std::string out;
  for (std::size_t i = 0; i < tmpl.size(); i++) {
    const std::size_t e = tmpl[i] == '{' ? tmpl.find('}', i) : std::string_view::npos;
    if (e == std::string_view::npos) {
      out += tmpl[i];
      continue;
    }
    const std::string_view v = tmpl.substr(i + 1, e - i - 1);
    i = e;
    if (v == "prefix") {
      // The prefix may hold '/' (a path in the bucket); only its segments are made safe.
      std::string p;
      for (std::size_t b = 0; b <= prefix.size();) {
        std::size_t s = prefix.find('/', b);
        if (s == std::string_view::npos) s = prefix.size();
        if (s > b) p += (p.empty() ? "" : "/") + KeySafe(prefix.substr(b, s - b));
        b = s + 1;
      }
      if (p.empty() && i + 1 < tmpl.size() && (tmpl[i + 1] == '/' || tmpl[i + 1] == '-')) i++;
      out += p;
    } else if (v == "node") out += KeySafe(f.node.empty() ? "unknown" : f.node);
    else if (v == "date") out += fmt::format("{:04}-{:02}-{:02}", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday);
    else if (v == "time")
      out += fmt::format("{:04}{:02}{:02}T{:02}{:02}{:02}.{:03}Z", t.tm_year + 1900, t.tm_mon + 1, t.tm_mday, t.tm_hour,
                         t.tm_min, t.tm_sec, (f.at_unix_ns / 1000000) % 1000);
    else if (v == "exe") out += KeySafe(BaseName(f.exe));
    else if (v == "pid") out += std::to_string(f.pid);
    else if (v == "trigger") out += KeySafe(f.trigger);
    else if (v == "part") {
      if (f.part.empty() && !out.empty() && (out.back() == '.' || out.back() == '-')) out.pop_back();
      out += KeySafe(f.part);
    }
  }
  while (!out.empty() && out.front() == '/') out.erase(out.begin());
  return out;
}

std::map<std::string, std::string> Metadata(const TraceFacts &f, std::string_view gotraced_version) {
  std::map<std::string, std::string> m;
  auto put = [&](const char *k, std::string_view v) {
    if (!v.empty()) m[k] = AsciiSafe(v.substr(0, 512));
  };
  put("gotraced-version", gotraced_version);
  put("node", f.node);
  put("pid", std::to_string(f.pid));
  put("exe", f.exe);
  put("go-version", f.go_version);
  put("build-id", f.build_id);
  put("trace-format", f.trace_format);
  put("trigger", f.trigger);
  put("part", f.part);
  if (f.at_mono_ns) put("at-ns", std::to_string(f.at_mono_ns));
  if (f.at_unix_ns) put("at-utc", UtcIso(f.at_unix_ns));
  if (f.window_seconds > 0) put("window-seconds", fmt::format("{:.3f}", f.window_seconds));
  put("container", f.container);
  put("pod", f.pod);
  return m;
}

}  // namespace gotraced::upload
