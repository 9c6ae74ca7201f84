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

#include "tests/unit/common/test_dir.h"

namespace gotraced::testutil {

namespace fs = std::filesystem;

namespace {
// `"name":` as it appears in tracecheck's JSON.
std::string QuotedKey(std::string_view name) {
  std::string k;
  k.reserve(name.size() + 3);
  k += '"';
  k.append(name);
  k += "\":";
  return k;
}
}  // namespace

long CheckResult::Int(std::string_view key, std::string_view sub) const {
  // Built by appends: GCC 12 at -O3 reports a false -Werror=restrict overlap in
  // operator+(const char*, std::string&&).
  const std::string k = QuotedKey(key);
  std::size_t pos = json.find(k);
  if (pos == std::string::npos) return -1;
  pos += k.size();
  while (pos < json.size() && json[pos] == ' ') ++pos;
  if (!sub.empty()) {
    if (pos >= json.size() || json[pos] != '{') return -1;
    std::size_t end = json.find('}', pos);
    const std::string s = QuotedKey(sub);
    std::size_t p2 = json.find(s, pos);
    if (p2 == std::string::npos || p2 > end) return 0;
    pos = p2 + s.size();
    while (pos < json.size() && json[pos] == ' ') ++pos;
  }
  return std::strtol(json.c_str() + pos, nullptr, 10);
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

}  // namespace gotraced::testutil
