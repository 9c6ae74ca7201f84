// Rule matching over process descriptions, and /proc reading of this process.
#include <gtest/gtest.h>
#include <unistd.h>

#include "daemon/service/discovery.h"

namespace gotraced::service {
namespace {

ProcInfo Proc(std::string exe, std::string comm, std::string cgroup) {
  ProcInfo p;
  p.pid = 42;
  p.exe = std::move(exe);
  p.comm = std::move(comm);
  p.cgroup = std::move(cgroup);
  return p;
}

TEST(Discovery, ExeGlob) {
  WatchRule r;
  r.exe = {"/opt/*/bin/*"};
  EXPECT_TRUE(MatchesRule(r, Proc("/opt/app/bin/server", "server", "/")));
  EXPECT_FALSE(MatchesRule(r, Proc("/usr/bin/server", "server", "/")));
}

TEST(Discovery, NameMatchesCommOrBasename) {
  WatchRule r;
  r.name = {"api-*"};
  EXPECT_TRUE(MatchesRule(r, Proc("/usr/bin/x", "api-gw", "/")));
  // comm is cut to 15 bytes; the executable's basename still matches.
  EXPECT_TRUE(MatchesRule(r, Proc("/usr/bin/api-with-a-very-long-name", "api-with-a-very", "/")));
  EXPECT_FALSE(MatchesRule(r, Proc("/usr/bin/web", "web", "/")));
}

TEST(Discovery, CgroupPrefixAndGlob) {
  WatchRule r;
  r.cgroup = {"/system.slice/app.service"};
  EXPECT_TRUE(MatchesRule(r, Proc("/x", "x", "/system.slice/app.service")));
  EXPECT_TRUE(MatchesRule(r, Proc("/x", "x", "/system.slice/app.service/worker")));
  EXPECT_FALSE(MatchesRule(r, Proc("/x", "x", "/system.slice/app.service2")));
  EXPECT_FALSE(MatchesRule(r, Proc("/x", "x", "")));
  r.cgroup = {"/user.slice/*/app-*.scope"};
  EXPECT_TRUE(MatchesRule(r, Proc("/x", "x", "/user.slice/user-1000.slice/app-foo.scope")));
}

TEST(Discovery, UnitIsACgroupComponent) {
  WatchRule r;
  r.unit = {"db.service"};
  EXPECT_TRUE(MatchesRule(r, Proc("/x", "x", "/system.slice/db.service")));
  EXPECT_TRUE(MatchesRule(r, Proc("/x", "x", "/system.slice/db.service/sub")));
  EXPECT_FALSE(MatchesRule(r, Proc("/x", "x", "/system.slice/db.service.d")));
  EXPECT_FALSE(MatchesRule(r, Proc("/x", "x", "/system.slice/mydb.service")));
}

TEST(Discovery, AllKindsMustMatch) {
  WatchRule r;
  r.exe = {"/srv/*"};
  r.unit = {"a.service"};
  EXPECT_TRUE(MatchesRule(r, Proc("/srv/x", "x", "/system.slice/a.service")));
  EXPECT_FALSE(MatchesRule(r, Proc("/srv/x", "x", "/system.slice/b.service")));
  EXPECT_FALSE(MatchesRule(r, Proc("/bin/x", "x", "/system.slice/a.service")));
}

TEST(Discovery, KernelThreadsNeverMatch) {
  WatchRule r;
  r.name = {"*"};
  ProcInfo p = Proc("", "kworker/0:1", "/");
  p.kernel_thread = true;
  EXPECT_FALSE(MatchesRule(r, p));
}

TEST(Discovery, FirstMatchingRule) {
  Config c;
  WatchRule a, b;
  a.name = {"nope"};
  b.name = {"yes"};
  c.watch = {a, b};
  EXPECT_EQ(MatchRules(c, Proc("/y", "yes", "/")), 1);
  EXPECT_EQ(MatchRules(c, Proc("/y", "other", "/")), -1);
}

TEST(Discovery, ReadsThisProcess) {
  auto p = ReadProcInfo(getpid());
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->exe.empty());
  EXPECT_NE(p->exe.find("service_unit_tests"), std::string::npos);
  EXPECT_EQ(p->uid, getuid());
  EXPECT_GT(p->start_time, 0u);
  EXPECT_TRUE(ProcessAlive(getpid(), p->start_time));
  EXPECT_FALSE(ProcessAlive(getpid(), p->start_time + 1));
  bool found = false;
  for (pid_t pid : ListPids()) found |= pid == getpid();
  EXPECT_TRUE(found);
  EXPECT_FALSE(ReadProcInfo(0x3ffffff0));
}

}  // namespace
}  // namespace gotraced::service
