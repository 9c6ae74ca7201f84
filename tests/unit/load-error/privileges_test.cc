#include "daemon/probes/privileges.h"

#include <gtest/gtest.h>
#include <linux/capability.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "daemon/capture/cpu_sampler.h"
#include "daemon/probes/attach.h"

namespace gotraced::probes {
namespace {

constexpr uint64_t Bit(int cap) { return uint64_t(1) << cap; }

TEST(Privileges, FromMask) {
  EXPECT_FALSE(BpfPrivileges::FromMask(0).can_load());
  EXPECT_FALSE(BpfPrivileges::FromMask(Bit(CAP_BPF)).can_load());
  EXPECT_FALSE(BpfPrivileges::FromMask(Bit(CAP_PERFMON) | Bit(CAP_SYS_PTRACE)).can_load());
  EXPECT_TRUE(BpfPrivileges::FromMask(Bit(CAP_BPF) | Bit(CAP_PERFMON)).can_load());
  EXPECT_FALSE(BpfPrivileges::FromMask(Bit(CAP_BPF) | Bit(CAP_PERFMON)).can_attach());
  EXPECT_TRUE(BpfPrivileges::FromMask(Bit(CAP_BPF) | Bit(CAP_PERFMON) | Bit(CAP_SYS_PTRACE)).can_attach());
  EXPECT_TRUE(BpfPrivileges::FromMask(Bit(CAP_SYS_ADMIN)).can_load());
  EXPECT_TRUE(BpfPrivileges::FromMask(Bit(CAP_SYS_ADMIN) | Bit(CAP_SYS_PTRACE)).can_attach());
  EXPECT_TRUE(BpfPrivileges::FromMask(~uint64_t(0)).can_attach());
}

// capget agrees with the kernel's own account of this process (CapEff in /proc).
TEST(Privileges, CurrentMatchesProcStatus) {
  std::ifstream in("/proc/self/status");
  std::string line;
  uint64_t mask = 0;
  bool found = false;
  while (std::getline(in, line))
    if (line.rfind("CapEff:", 0) == 0) {
      mask = std::stoull(line.substr(7), nullptr, 16);
      found = true;
    }
  ASSERT_TRUE(found);
  BpfPrivileges want = BpfPrivileges::FromMask(mask), got = CurrentPrivileges();
  EXPECT_EQ(got.sys_admin, want.sys_admin);
  EXPECT_EQ(got.bpf, want.bpf);
  EXPECT_EQ(got.perfmon, want.perfmon);
  EXPECT_EQ(got.sys_ptrace, want.sys_ptrace);
  if (geteuid() == 0) {
    EXPECT_TRUE(got.can_attach()) << "root without CAP_SYS_ADMIN/CAP_SYS_PTRACE? CapEff " << mask;
  }
}

TEST(Privileges, AttachAdviceDependsOnCapabilities) {
  const BpfPrivileges none, all = BpfPrivileges::FromMask(~uint64_t(0));
  for (int err : {EPERM, EACCES}) {
    std::string without = ExplainAttachErrno(err, none), with = ExplainAttachErrno(err, all);
    EXPECT_NE(without.find("run as root"), std::string::npos) << without;
    EXPECT_EQ(with.find("run as root"), std::string::npos) << with;
    EXPECT_NE(with.find("security policy"), std::string::npos) << with;
    EXPECT_EQ(with.rfind(std::strerror(err), 0), 0u) << with;
  }
  EXPECT_EQ(ExplainAttachErrno(ESRCH, all), ExplainAttachErrno(ESRCH, none));
}

TEST(Privileges, PerfEventAdviceDependsOnCapabilities) {
  for (int err : {EPERM, EACCES}) {
    std::string without = capture::ExplainPerfEventErrno(err, false), with = capture::ExplainPerfEventErrno(err, true);
    EXPECT_NE(without.find("need root or CAP_PERFMON"), std::string::npos) << without;
    EXPECT_EQ(with.find("need root"), std::string::npos) << with;
    EXPECT_NE(with.find("security policy"), std::string::npos) << with;
  }
  EXPECT_EQ(capture::ExplainPerfEventErrno(ENOENT, true), capture::ExplainPerfEventErrno(ENOENT, false));
}

}  // namespace
}  // namespace gotraced::probes
