// The per-executable analysis cache (daemon/capture/analysis_cache.h) knows a binary by the
// file a process runs, not by its path: the same program at two paths (two containers'
// overlay mounts: another device and inode each) shares one analysis; another program at
// a path that held the first (a binary replaced, or another container's /app/svc) does not.
#include "daemon/capture/analysis_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <fcntl.h>

#include <filesystem>
#include <fstream>

#include "tests/unit/common/test_dir.h"
#include "tests/unit/gobin-layout/targets.h"

namespace gotraced::capture {
namespace {

namespace fs = std::filesystem;

// A copy of `from` at `to` with the mtime of `from` (what an image layer's extraction keeps).
void CopyKeepingMtime(const std::string &from, const std::string &to) {
  fs::create_directories(fs::path(to).parent_path());
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
  struct stat st {};
  ASSERT_EQ(::stat(from.c_str(), &st), 0);
  const timespec times[2] = {st.st_atim, st.st_mtim};
  ASSERT_EQ(::utimensat(AT_FDCWD, to.c_str(), times, 0), 0);
}

std::string KeyOf(const std::string &path) {
  auto k = ExecutableKeyOf(path);
  EXPECT_TRUE(k) << path << ": " << k.error();
  return k ? *k : "";
}

TEST(AnalysisCache, OneProgramAtTwoPathsSharesOneAnalysis) {
  std::string why;
  const std::string plain = gobin::testing::TargetPath("go1.26", "plain", &why);
  if (plain.empty()) GTEST_SKIP() << why;
  testutil::TestDir d;
  const std::string a = d.File("c1/app/svc"), b = d.File("c2/app/svc");
  CopyKeepingMtime(plain, a);
  CopyKeepingMtime(plain, b);
  const std::string ka = KeyOf(a), kb = KeyOf(b);
  EXPECT_EQ(ka.rfind("go:", 0), 0u) << ka;  // known by its Go build ID
  EXPECT_EQ(ka, kb);
  const probes::PlanOptions po;
  auto first = CachedBinaryPlan(ka, a, po);
  ASSERT_TRUE(first) << first.error();
  auto second = CachedBinaryPlan(kb, b, po);
  ASSERT_TRUE(second) << second.error();
  EXPECT_TRUE(second->cached);
  EXPECT_EQ(second->bin, first->bin);
}

TEST(AnalysisCache, AnotherProgramAtTheSamePathIsAnalysedAgain) {
  std::string why;
  const std::string plain = gobin::testing::TargetPath("go1.26", "plain", &why);
  const std::string stripped = gobin::testing::TargetPath("go1.26", "stripped", &why);
  if (plain.empty() || stripped.empty()) GTEST_SKIP() << why;
  testutil::TestDir d;
  const std::string app = d.File("app/svc");
  CopyKeepingMtime(plain, app);
  const std::string k1 = KeyOf(app);
  const probes::PlanOptions po;
  auto first = CachedBinaryPlan(k1, app, po);
  ASSERT_TRUE(first) << first.error();
  CopyKeepingMtime(stripped, d.File("new"));
  fs::rename(d.File("new"), app);  // replaced, as a deploy or another container's file
  const std::string k2 = KeyOf(app);
  EXPECT_NE(k1, k2);
  auto second = CachedBinaryPlan(k2, app, po);
  ASSERT_TRUE(second) << second.error();
  EXPECT_FALSE(second->cached);
  EXPECT_NE(second->bin, first->bin);
  EXPECT_EQ(second->bin->elf().go_build_id(), gobin::ElfFile::Open(stripped).value()->go_build_id());
}

TEST(AnalysisCache, AFileWithoutBuildIdIsKnownByItsInode) {
  testutil::TestDir d;
  const std::string f = d.File("not-go");
  { std::ofstream(f) << "#!/bin/sh\n"; }
  EXPECT_EQ(KeyOf(f).rfind("file:", 0), 0u) << KeyOf(f);
  EXPECT_FALSE(ExecutableKeyOf(d.File("missing")));
}

}  // namespace
}  // namespace gotraced::capture
