// cgroup_cpu.h over both cgroup versions' files: cpu.stat (v2 throttled_usec, v1
// throttled_time), the quota (v2 cpu.max, v1 cpu.cfs_quota_us / cpu.cfs_period_us) and
// where a process's cpu.stat is from its /proc/PID/cgroup. The samples are what Linux 6.1+
// writes (Documentation/admin-guide/cgroup-v2.rst "cpu.stat", "cpu.max";
// Documentation/scheduler/sched-bwc.rst). This machine mounts the v1 cpu controller, so
// the suites throttle through v1 only: the v2 files are checked here, from samples.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "daemon/service/cgroup_cpu.h"
#include "tests/unit/common/test_dir.h"

namespace gotraced::service {
namespace {

// A v2 cgroup's cpu.stat with cpu.max set (Linux 6.1: the bandwidth lines follow the usage).
constexpr const char *kV2CpuStat =
    "usage_usec 1203482\n"
    "user_usec 1190012\n"
    "system_usec 13470\n"
    "core_sched.force_idle_usec 0\n"
    "nr_periods 31\n"
    "nr_throttled 29\n"
    "throttled_usec 2315873\n"
    "nr_bursts 0\n"
    "burst_usec 0\n";
// v1's cpu.stat of the cpu controller (ns).
constexpr const char *kV1CpuStat =
    "nr_periods 31\n"
    "nr_throttled 29\n"
    "throttled_time 2315873402\n"
    "nr_bursts 0\n"
    "burst_time 0\n";

TEST(CgroupCpu, StatV2InMicroseconds) {
  auto t = ParseCpuStat(kV2CpuStat);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->nr_periods, 31u);
  EXPECT_EQ(t->nr_throttled, 29u);
  EXPECT_EQ(t->throttled_ns, 2315873000u);
}

TEST(CgroupCpu, StatV1InNanoseconds) {
  auto t = ParseCpuStat(kV1CpuStat);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->nr_throttled, 29u);
  EXPECT_EQ(t->throttled_ns, 2315873402u);
}

// A v2 cgroup without the cpu controller enabled for it (or the root) has no bandwidth lines.
TEST(CgroupCpu, StatWithoutBandwidthIsNone) {
  EXPECT_FALSE(ParseCpuStat("usage_usec 10\nuser_usec 5\nsystem_usec 5\n"));
}

TEST(CgroupCpu, QuotaV2CpuMax) {
  auto q = ParseCpuMax("20000 100000\n");
  ASSERT_TRUE(q);
  ASSERT_TRUE(q->quota_us);
  EXPECT_EQ(*q->quota_us, 20000u);
  EXPECT_EQ(q->period_us, 100000u);
  auto none = ParseCpuMax("max 100000\n");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->quota_us);
  EXPECT_EQ(none->period_us, 100000u);
  EXPECT_FALSE(ParseCpuMax("max\n"));
  EXPECT_FALSE(ParseCpuMax("twenty 100000\n"));
}

TEST(CgroupCpu, QuotaV1) {
  auto q = ParseCfsQuota("20000\n", "100000\n");
  ASSERT_TRUE(q && q->quota_us);
  EXPECT_EQ(*q->quota_us, 20000u);
  auto none = ParseCfsQuota("-1\n", "100000\n");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->quota_us);
}

// A fake /sys/fs/cgroup: `files` relative to it.
struct FakeRoot {
  testutil::TestDir dir;
  std::filesystem::path root = dir.path();
  std::string Put(const std::string &rel, const std::string &text) {
    const auto p = root / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }
};

// A v2-only machine (the unified hierarchy at /sys/fs/cgroup), and the hybrid layout
// with v2 at /sys/fs/cgroup/unified: the process's "0::PATH" line leads to its cpu.stat,
// whose directory has cpu.max.
TEST(CgroupCpu, PathAndQuotaV2) {
  FakeRoot f;
  const std::string stat = f.Put("kubepods/pod1/cpu.stat", kV2CpuStat);
  f.Put("kubepods/pod1/cpu.max", "20000 100000\n");
  auto p = CpuStatPathIn("0::/kubepods/pod1\n", f.root.string());
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, stat);
  auto t = ReadCpuThrottle(*p);
  ASSERT_TRUE(t);
  EXPECT_EQ(t->throttled_ns, 2315873000u);
  auto q = ReadCpuQuota(*p);
  ASSERT_TRUE(q && q->quota_us);
  EXPECT_EQ(*q->quota_us, 20000u);

  FakeRoot h;
  const std::string ustat = h.Put("unified/svc/cpu.stat", kV2CpuStat);
  auto up = CpuStatPathIn("4:memory:/svc\n0::/svc\n", h.root.string());
  ASSERT_TRUE(up);
  EXPECT_EQ(*up, ustat);
}

// v1's cpu controller wins where it is mounted (this machine), with its quota files.
TEST(CgroupCpu, PathAndQuotaV1) {
  FakeRoot f;
  const std::string stat = f.Put("cpu/job/cpu.stat", kV1CpuStat);
  f.Put("cpu/job/cpu.cfs_quota_us", "20000\n");
  f.Put("cpu/job/cpu.cfs_period_us", "100000\n");
  f.Put("unified/job/cpu.stat", kV2CpuStat);
  auto p = CpuStatPathIn("2:cpuacct:/job\n1:cpu:/job\n0::/job\n", f.root.string());
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, stat);
  auto q = ReadCpuQuota(*p);
  ASSERT_TRUE(q && q->quota_us);
  EXPECT_EQ(*q->quota_us, 20000u);
  EXPECT_EQ(q->period_us, 100000u);
  EXPECT_FALSE(CpuStatPathIn("0::/nowhere\n", f.root.string()));
}

}  // namespace
}  // namespace gotraced::service
