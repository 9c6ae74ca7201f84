// CPU throttling of a process's cgroup, for serve's cpu_throttle_ms trigger: the CFS
// bandwidth controller's counters in cpu.stat (cgroup v2 "throttled_usec", v1 cpu
// controller "throttled_time" in ns; both "nr_periods", "nr_throttled"). The kernel
// throttles a group that used its cpu.max / cpu.cfs_quota_us within a period until the
// next one; the throttled time per period is what a latency-sensitive server loses.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

namespace gotraced::service {

struct CpuThrottle {
  std::uint64_t nr_periods = 0;
  std::uint64_t nr_throttled = 0;
  std::uint64_t throttled_ns = 0;
};

// cpu.stat of the cgroup `pid` is in: the v1 cpu controller's hierarchy when mounted
// (/sys/fs/cgroup/cpu[,cpuacct]/<path>), else the v2 one (/sys/fs/cgroup[/unified]/<path>).
// nullopt when neither has a cpu.stat for it.
std::optional<std::string> CpuStatPath(pid_t pid);
std::optional<CpuThrottle> ReadCpuThrottle(const std::string &cpu_stat_path);

}  // namespace gotraced::service
