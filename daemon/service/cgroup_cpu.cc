#include "daemon/service/cgroup_cpu.h"

#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

namespace gotraced::service {

namespace {
bool Exists(const std::string &p) { return std::ifstream(p).good(); }
}  // namespace

std::optional<std::string> CpuStatPath(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cgroup");
  std::string line, v1, v2;
  bool have_v2 = false;
  while (std::getline(in, line)) {
    // "hierarchy-ID:controller-list:cgroup-path" (man 7 cgroups)
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string ctrls = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
    if (ctrls.empty()) {
      v2 = path;
      have_v2 = true;
      continue;
    }
    std::stringstream ss(ctrls);
    for (std::string c; std::getline(ss, c, ',');)
      if (c == "cpu") v1 = path;
  }
  if (!v1.empty()) {
    for (const char *mnt : {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}) {
      std::string p = std::string(mnt) + (v1 == "/" ? "" : v1) + "/cpu.stat";
      if (Exists(p)) return p;
    }
  }
  if (have_v2) {
    for (const char *mnt : {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"}) {
      std::string p = std::string(mnt) + (v2 == "/" ? "" : v2) + "/cpu.stat";
      if (Exists(p)) return p;
    }
  }
  return std::nullopt;
}

std::optional<CpuThrottle> ReadCpuThrottle(const std::string &path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  CpuThrottle t;
  bool any = false;
  std::string key;
  std::uint64_t v = 0;
  while (in >> key >> v) {
    if (key == "nr_periods") t.nr_periods = v, any = true;
    else if (key == "nr_throttled") t.nr_throttled = v;
    else if (key == "throttled_time") t.throttled_ns = v;           // v1: ns
    else if (key == "throttled_usec") t.throttled_ns = v * 1000;    // v2: us
  }
  if (!any) return std::nullopt;
  return t;
}

}  // namespace gotraced::service
