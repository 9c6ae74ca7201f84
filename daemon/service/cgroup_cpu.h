// CPU throttling of a process's cgroup, for serve's cpu_throttle_ms trigger: the CFS
// bandwidth controller's counters in cpu.stat (cgroup v2 "throttled_usec", v1 cpu
// controller "throttled_time" in ns; both "nr_periods", "nr_throttled") and its quota
// (v2 cpu.max "QUOTA PERIOD" or "max PERIOD", v1 cpu.cfs_quota_us / cpu.cfs_period_us, in
// us). The kernel throttles a group that used its quota within a period until the next
// one; the throttled time per period is what a latency-sensitive server loses.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gotraced::service {

struct CpuThrottle {
  std::uint64_t nr_periods = 0;
  std::uint64_t nr_throttled = 0;
  std::uint64_t throttled_ns = 0;
};

struct CpuQuota {
  std::optional<std::uint64_t> quota_us;  // nullopt: no limit ("max", v1 -1)
  std::uint64_t period_us = 0;
};

// cpu.stat of the cgroup `pid` is in: the v1 cpu controller's hierarchy when mounted
// (/sys/fs/cgroup/cpu[,cpuacct]/<path>), else the v2 one (/sys/fs/cgroup[/unified]/<path>).
// nullopt when neither has a cpu.stat for it.
std::optional<std::string> CpuStatPath(pid_t pid);
// The same from the text of /proc/PID/cgroup, with the cgroup mounts under `root` (tests).
std::optional<std::string> CpuStatPathIn(std::string_view proc_cgroup, const std::string &root);
std::optional<CpuThrottle> ReadCpuThrottle(const std::string &cpu_stat_path);
std::optional<CpuThrottle> ParseCpuStat(std::string_view text);
// The quota of the cgroup whose cpu.stat is `cpu_stat_path` (its directory's cpu.max, or
// cpu.cfs_quota_us and cpu.cfs_period_us); nullopt when neither reads.
std::optional<CpuQuota> ReadCpuQuota(const std::string &cpu_stat_path);
std::optional<CpuQuota> ParseCpuMax(std::string_view text);
std::optional<CpuQuota> ParseCfsQuota(std::string_view quota_us, std::string_view period_us);

}  // namespace gotraced::service
