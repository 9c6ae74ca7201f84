#include "daemon/service/cgroup_cpu.h"

#include <fstream>
#include <sstream>
#include <vector>

namespace gotraced::service {

namespace {
bool Exists(const std::string &p) { return std::ifstream(p).good(); }

std::optional<std::string> Slurp(const std::string &p) {
  std::ifstream in(p);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

std::optional<std::string> CpuStatPath(pid_t pid) {
  const auto text = Slurp("/proc/" + std::to_string(pid) + "/cgroup");
  if (!text) return std::nullopt;
  return CpuStatPathIn(*text, "/sys/fs/cgroup");
}

std::optional<std::string> CpuStatPathIn(std::string_view proc_cgroup, const std::string &root) {
  std::istringstream in{std::string(proc_cgroup)};
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
    for (const char *mnt : {"/cpu", "/cpu,cpuacct"}) {
      std::string p = root + mnt + (v1 == "/" ? "" : v1) + "/cpu.stat";
      if (Exists(p)) return p;
    }
  }
  if (have_v2) {
    for (const char *mnt : {"", "/unified"}) {
      std::string p = root + mnt + (v2 == "/" ? "" : v2) + "/cpu.stat";
      if (Exists(p)) return p;
    }
  }
  return std::nullopt;
}

std::optional<CpuThrottle> ReadCpuThrottle(const std::string &path) {
  const auto text = Slurp(path);
  if (!text) return std::nullopt;
  return ParseCpuStat(*text);
}

std::optional<CpuThrottle> ParseCpuStat(std::string_view text) {
  std::istringstream in{std::string(text)};
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

std::optional<CpuQuota> ParseCpuMax(std::string_view text) {
  // Documentation/admin-guide/cgroup-v2.rst cpu.max: "$MAX $PERIOD", $MAX "max" for none.
  std::istringstream in{std::string(text)};
  std::string max;
  std::uint64_t period = 0;
  if (!(in >> max >> period) || period == 0) return std::nullopt;
  CpuQuota q;
  q.period_us = period;
  if (max != "max") {
    try {
      q.quota_us = std::stoull(max);
    } catch (...) {
      return std::nullopt;
    }
  }
  return q;
}

std::optional<CpuQuota> ParseCfsQuota(std::string_view quota_us, std::string_view period_us) {
  // Documentation/scheduler/sched-bwc.rst: cpu.cfs_quota_us -1 for none.
  std::istringstream qi{std::string(quota_us)}, pi{std::string(period_us)};
  long long quota = 0;
  std::uint64_t period = 0;
  if (!(qi >> quota) || !(pi >> period) || period == 0) return std::nullopt;
  CpuQuota q;
  q.period_us = period;
  if (quota >= 0) q.quota_us = static_cast<std::uint64_t>(quota);
  return q;
}

std::optional<CpuQuota> ReadCpuQuota(const std::string &cpu_stat_path) {
  const std::string dir = cpu_stat_path.substr(0, cpu_stat_path.rfind('/'));
  if (auto m = Slurp(dir + "/cpu.max")) return ParseCpuMax(*m);
  auto q = Slurp(dir + "/cpu.cfs_quota_us"), p = Slurp(dir + "/cpu.cfs_period_us");
  if (q && p) return ParseCfsQuota(*q, *p);
  return std::nullopt;
}

}  // namespace gotraced::service
