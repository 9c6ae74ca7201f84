#include "tests/unit/service/test_util.h"

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

namespace gotraced::service::testing {

namespace fs = std::filesystem;

TempDir::TempDir() {
  char tmpl[] = "/tmp/gotraced-service-test-XXXXXX";
  const char *p = mkdtemp(tmpl);
  path = p ? p : "/tmp";
}

TempDir::~TempDir() {
  std::error_code ec;
  if (path != "/tmp") fs::remove_all(path, ec);
}

std::string TracecheckPath() {
  const char *b = std::getenv("GOTRACED_BUILD");
  fs::path build = b ? fs::path(b) : fs::path(GOTRACED_BINARY_DIR);
  fs::path tool = build / "tools" / "tracecheck";
  if (fs::exists(tool)) return tool.string();
  fs::create_directories(build / "tools");
  int fd = ::open((build / "tools" / ".build.lock").c_str(), O_CREAT | O_RDWR, 0644);
  if (fd >= 0) ::flock(fd, LOCK_EX);
  if (!fs::exists(tool)) {
    std::string cmd = "bash '" + std::string(GOTRACED_SOURCE_DIR) + "/scripts/build-tools.sh' '" + build.string() + "' >&2";
    if (std::system(cmd.c_str()) != 0) std::cerr << "service tests: could not build tracecheck: " << cmd << "\n";
  }
  if (fd >= 0) ::close(fd);
  return fs::exists(tool) ? tool.string() : std::string();
}

CheckResult RunTracecheck(const std::vector<std::uint8_t> &bytes, const std::string &name) {
  CheckResult res;
  fs::path dir = fs::temp_directory_path() / "gotraced-service-tests";
  fs::create_directories(dir);
  res.path = (dir / (name + ".trace")).string();
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

}  // namespace gotraced::service::testing
