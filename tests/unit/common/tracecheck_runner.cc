#include "tests/unit/common/tracecheck_runner.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/unit/common/test_dir.h"

namespace gotraced::testutil {

namespace fs = std::filesystem;

long CheckResult::Int(std::string_view key, std::string_view sub) const {
  const auto doc = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return -1;  // no summary (tracecheck failed) or not JSON
  const auto k = doc.find(std::string(key));
  if (k == doc.end()) return -1;
  if (sub.empty()) return k->is_number() ? k->get<long>() : -1;
  if (!k->is_object()) return -1;
  const auto s = k->find(std::string(sub));  // maps such as block_reasons hold only what occurred
  return s == k->end() ? 0 : s->is_number() ? s->get<long>() : -1;
}

std::string TracecheckPath() {
  const char *b = std::getenv("GOTRACED_BUILD");
  fs::path build = b ? fs::path(b) : fs::path(GOTRACED_BINARY_DIR);
  fs::path tool = build / "tools" / "tracecheck";
  if (fs::exists(tool)) return tool.string();
  // Build it once; serialize concurrent test processes with a lock file.
  fs::create_directories(build / "tools");
  int fd = ::open((build / "tools" / ".build.lock").c_str(), O_CREAT | O_RDWR, 0644);
  if (fd >= 0) ::flock(fd, LOCK_EX);
  if (!fs::exists(tool)) {
    std::string cmd =
        "bash '" + std::string(GOTRACED_SOURCE_DIR) + "/scripts/build-tools.sh' '" + build.string() + "' >&2";
    if (std::system(cmd.c_str()) != 0) std::cerr << "unit tests: could not build tracecheck: " << cmd << "\n";
  }
  if (fd >= 0) ::close(fd);
  return fs::exists(tool) ? tool.string() : std::string();
}

CheckResult RunTracecheck(const std::vector<std::uint8_t> &bytes, const std::string &name,
                          const std::string &dir) {
  CheckResult res;
  fs::path out_dir = fs::path(ProcessTestDir().path()) / dir;
  fs::create_directories(out_dir);
  res.path = (out_dir / (name + ".trace")).string();
  {
    std::ofstream f(res.path, std::ios::binary);
    f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  std::string tool = TracecheckPath();
  if (tool.empty()) {
    res.errors = "tracecheck not available";
    return res;
  }
  std::string err_path = res.path + ".err";
  std::string cmd = "'" + tool + "' '" + res.path + "' 2>'" + err_path + "'";
  FILE *p = ::popen(cmd.c_str(), "r");
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) res.json.append(buf, n);
  int st = ::pclose(p);
  res.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream ef(err_path);
  std::stringstream ss;
  ss << ef.rdbuf();
  res.errors = ss.str();
  return res;
}

std::vector<nlohmann::json> TraceEvents(const CheckResult &res) {
  std::vector<nlohmann::json> out;
  const std::string tool = TracecheckPath();
  if (tool.empty()) return out;
  const std::string cmd = "'" + tool + "' --events-json '" + res.path + "'";
  FILE *p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  ::pclose(p);
  std::istringstream lines(text);
  for (std::string l; std::getline(lines, l);)
    if (!l.empty()) out.push_back(nlohmann::json::parse(l, nullptr, /*allow_exceptions=*/false));
  return out;
}

}  // namespace gotraced::testutil
