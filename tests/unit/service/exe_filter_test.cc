// serve's exec filter decisions (daemon/service/exe_filter.h, discovery.h RulesCouldMatch):
// which executables are named to the kernel as never traced, that a verdict is bound to
// the bytes it judged (a rewrite is another key), and that the cheap rule test never
// says no where the full one says yes.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "daemon/service/config.h"
#include "daemon/service/discovery.h"
#include "daemon/service/exe_filter.h"
#include "tests/unit/service/test_util.h"

namespace gotraced::service {
namespace {

using testing::TempDir;

// A Go program on every machine that builds gotraced (scripts/install-deps.sh): the
// toolchain's own go command.
std::string GoProgram() {
  for (const char *p : {"/usr/lib/go-1.19/bin/go", "/usr/local/go/bin/go", "/usr/lib/go/bin/go"})
    if (access(p, X_OK) == 0) return p;
  return "";
}

void WriteFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

TEST(ExeFilter, KeyIsTheKernelsDevInodeAndChangeTime) {
  struct stat st {};
  ASSERT_EQ(stat("/bin/true", &st), 0);
  const gt_exe_key k = ExeKeyFromStat(st);
  EXPECT_EQ(k.dev, (static_cast<std::uint64_t>(major(st.st_dev)) << 20) | minor(st.st_dev));
  EXPECT_EQ(k.ino, st.st_ino);
  EXPECT_EQ(k.ctime_sec, st.st_ctim.tv_sec);
  EXPECT_EQ(k.ctime_nsec, static_cast<std::uint32_t>(st.st_ctim.tv_nsec));
  EXPECT_EQ(k.pad, 0u);
  gt_exe_key other = k;
  other.ctime_nsec ^= 1;
  EXPECT_FALSE(SameExeKey(k, other));
  EXPECT_TRUE(ExeKeyLess{}(k, other) != ExeKeyLess{}(other, k));
}

TEST(ExeFilter, VerdictsOfWhatCanAndCannotBeTraced) {
  TempDir dir;
  ExeVerdicts v;
  auto verdict = [&](const std::string &path) {
    std::optional<ExeLook> l = v.LookPath(path);
    return l ? l->verdict : ExeVerdict::kUnknown;
  };
  EXPECT_EQ(verdict("/bin/true"), ExeVerdict::kNotGo);  // ELF, no Go
  WriteFile(dir.File("script"), "#!/bin/sh\nexit 0\n");
  EXPECT_EQ(verdict(dir.File("script")), ExeVerdict::kNotGo);  // not ELF
  WriteFile(dir.File("empty"), "");
  EXPECT_EQ(verdict(dir.File("empty")), ExeVerdict::kNotGo);
  // A cut ELF header: cannot tell, so never named to the kernel.
  std::ifstream in("/bin/true", std::ios::binary);
  std::string head(20, '\0');
  in.read(head.data(), 20);
  WriteFile(dir.File("cut"), head);
  EXPECT_EQ(verdict(dir.File("cut")), ExeVerdict::kUnknown);
  EXPECT_FALSE(v.LookPath(dir.path()).has_value());  // a directory: nothing to judge
  EXPECT_FALSE(v.LookPath(dir.File("absent")).has_value());
  // What a user can put at a path it exec'd before serve looks: never opened for reading
  // (a FIFO would block the serve loop here; a device's open can do something).
  ASSERT_EQ(mkfifo(dir.File("fifo").c_str(), 0600), 0);
  EXPECT_FALSE(v.LookPath(dir.File("fifo")).has_value());
  EXPECT_FALSE(v.LookPath("/dev/null").has_value());
  const std::string go = GoProgram();
  ASSERT_FALSE(go.empty()) << "no Go toolchain binary to judge (scripts/install-deps.sh installs golang-1.19-go)";
  EXPECT_EQ(verdict(go), ExeVerdict::kGo);
}

TEST(ExeFilter, AVerdictIsKeptPerFileAndARewriteIsAnotherKey) {
  TempDir dir;
  const std::string go = GoProgram();
  ASSERT_FALSE(go.empty());
  const std::string exe = dir.File("prog");
  std::filesystem::copy_file("/bin/true", exe);
  ExeVerdicts v;
  std::optional<ExeLook> first = v.LookPath(exe);
  ASSERT_TRUE(first);
  EXPECT_EQ(first->verdict, ExeVerdict::kNotGo);
  EXPECT_FALSE(first->cached);
  std::optional<ExeLook> again = v.LookPath(exe);
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->cached);
  EXPECT_EQ(v.size(), 1u);
  // Rewritten in place (same inode) with a Go program: a new change time, a new verdict.
  // The pause: kernels before 6.13 stamp ctime from a clock that ticks every few ms.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  struct stat before {};
  ASSERT_EQ(stat(exe.c_str(), &before), 0);
  std::filesystem::copy_file(go, exe, std::filesystem::copy_options::overwrite_existing);
  struct stat after {};
  ASSERT_EQ(stat(exe.c_str(), &after), 0);
  ASSERT_EQ(before.st_ino, after.st_ino) << "copy_file replaced the file instead of rewriting it";
  std::optional<ExeLook> rewritten = v.LookPath(exe);
  ASSERT_TRUE(rewritten);
  EXPECT_FALSE(SameExeKey(rewritten->key, first->key));
  EXPECT_EQ(rewritten->verdict, ExeVerdict::kGo);
  EXPECT_FALSE(rewritten->cached);
}

TEST(ExeFilter, AnExecRecordIsJudgedOnlyByTheFileItNames) {
  TempDir dir;
  const std::string a = dir.File("a"), b = dir.File("b");
  std::filesystem::copy_file("/bin/true", a);
  std::filesystem::copy_file("/bin/true", b);
  ExeVerdicts v;
  std::optional<ExeLook> la = v.LookPath(a);
  ASSERT_TRUE(la);
  // A record naming a, checked against the file now at b's path (the process exec'd
  // again, or a container's path means another file here): not judged.
  EXPECT_FALSE(v.LookPathExpecting(b, la->key).has_value());
  std::optional<ExeLook> same = v.LookPathExpecting(a, la->key);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->verdict, ExeVerdict::kNotGo);
  ASSERT_TRUE(v.Cached(la->key).has_value());
  EXPECT_EQ(*v.Cached(la->key), ExeVerdict::kNotGo);
}

TEST(ExeFilter, TheCacheIsBounded) {
  TempDir dir;
  ExeVerdicts v(4);
  for (int i = 0; i < 10; i++) {
    const std::string f = dir.File("f" + std::to_string(i));
    WriteFile(f, "not elf");
    ASSERT_TRUE(v.LookPath(f));
    EXPECT_LE(v.size(), 4u);
  }
}

ProcInfo Basics(std::string exe, std::string comm) {
  ProcInfo p;
  p.pid = 7;
  p.exe = std::move(exe);
  p.comm = std::move(comm);
  return p;
}

Config Rules(std::vector<WatchRule> rules) {
  Config c;
  c.watch = std::move(rules);
  return c;
}

TEST(ExeFilter, RulesCouldMatchFromExeAndNameAlone) {
  WatchRule by_exe;
  by_exe.exe = {"/opt/app/*"};
  WatchRule by_name;
  by_name.name = {"api-*"};
  WatchRule by_cgroup;
  by_cgroup.cgroup = {"/system.slice/app.service"};
  WatchRule exe_and_cgroup = by_exe;
  exe_and_cgroup.cgroup = by_cgroup.cgroup;

  const Config exe_only = Rules({by_exe});
  EXPECT_TRUE(RulesCouldMatch(exe_only, Basics("/opt/app/server", "server")));
  EXPECT_FALSE(RulesCouldMatch(exe_only, Basics("/usr/bin/curl", "curl")));
  const Config names = Rules({by_exe, by_name});
  EXPECT_TRUE(RulesCouldMatch(names, Basics("/usr/bin/x", "api-gw")));           // comm
  EXPECT_TRUE(RulesCouldMatch(names, Basics("/usr/bin/api-long-name", "sh")));   // basename
  EXPECT_FALSE(RulesCouldMatch(names, Basics("/usr/bin/curl", "curl")));
  // A rule that selects by what the cheap read does not have: anything could match.
  EXPECT_TRUE(RulesCouldMatch(Rules({by_exe, by_cgroup}), Basics("/usr/bin/curl", "curl")));
  // Exe and cgroup together: the exe must still match.
  EXPECT_FALSE(RulesCouldMatch(Rules({exe_and_cgroup}), Basics("/usr/bin/curl", "curl")));
  EXPECT_TRUE(RulesCouldMatch(Rules({exe_and_cgroup}), Basics("/opt/app/x", "x")));
  ProcInfo kthread = Basics("", "kworker/0:1");
  kthread.kernel_thread = true;
  EXPECT_FALSE(RulesCouldMatch(Rules({by_cgroup}), kthread));
  EXPECT_FALSE(RulesCouldMatch(Rules({}), Basics("/opt/app/server", "server")));
}

// The cheap test is a necessary condition of the full one, over rules and processes
// crossed: never false where MatchRules selects.
TEST(ExeFilter, RulesCouldMatchNeverSaysNoWhereTheRulesSayYes) {
  std::vector<WatchRule> rules(5);
  rules[0].exe = {"/opt/*/bin/*", "/usr/local/bin/svc"};
  rules[1].name = {"api-*", "worker"};
  rules[2].cgroup = {"/kubepods.slice"};
  rules[3].exe = {"/srv/*"};
  rules[3].name = {"srv-*"};
  rules[4].unit = {"app.service"};
  std::vector<ProcInfo> procs;
  for (const char *exe : {"/opt/a/bin/s", "/usr/local/bin/svc", "/usr/bin/api-x", "/srv/srv-1", "/srv/other", "/bin/sh"})
    for (const char *comm : {"api-1", "worker", "srv-2", "sh"})
      for (const char *cg : {"/", "/kubepods.slice/pod1", "/system.slice/app.service"}) {
        ProcInfo p = Basics(exe, comm);
        p.cgroup = cg;
        procs.push_back(p);
      }
  for (std::size_t mask = 1; mask < (1u << rules.size()); mask++) {
    std::vector<WatchRule> sel;
    for (std::size_t i = 0; i < rules.size(); i++)
      if (mask & (1u << i)) sel.push_back(rules[i]);
    const Config cfg = Rules(sel);
    for (const ProcInfo &p : procs) {
      if (MatchRules(cfg, p) >= 0) {
        EXPECT_TRUE(RulesCouldMatch(cfg, p)) << p.exe << " " << p.comm << " " << p.cgroup;
      }
    }
  }
}

TEST(ExeFilter, RescanMemoForgetsOnFullRescans) {
  RescanMemo m(3);
  EXPECT_TRUE(m.BeginRescan());  // the first looks at everything
  m.Remember(10, 100);
  EXPECT_TRUE(m.Known(10, 100));
  EXPECT_FALSE(m.Known(10, 101));  // another process with the pid
  EXPECT_FALSE(m.Known(11, 100));
  EXPECT_FALSE(m.BeginRescan());
  EXPECT_TRUE(m.Known(10, 100));
  EXPECT_FALSE(m.BeginRescan());
  EXPECT_TRUE(m.BeginRescan());  // every third: all read again
  EXPECT_FALSE(m.Known(10, 100));
  m.Remember(10, 100);
  m.Forget(10);  // it exec'd
  EXPECT_FALSE(m.Known(10, 100));
  m.Remember(12, 5);
  m.ForgetAll();  // a reload
  EXPECT_EQ(m.size(), 0u);
}

TEST(ExeFilter, ReadProcBasicsOfThisProcess) {
  std::optional<ProcInfo> b = ReadProcBasics(getpid());
  ASSERT_TRUE(b);
  std::optional<ProcInfo> full = ReadProcInfo(getpid());
  ASSERT_TRUE(full);
  EXPECT_EQ(b->exe, full->exe);
  EXPECT_EQ(b->comm, full->comm);
  EXPECT_EQ(b->start_time, full->start_time);
  EXPECT_FALSE(b->kernel_thread);
  EXPECT_TRUE(b->cgroup.empty());  // not read
  EXPECT_FALSE(ReadProcBasics(0).has_value());
}

}  // namespace
}  // namespace gotraced::service
