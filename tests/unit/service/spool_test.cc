// Spool (daemon/service/spool.h): count and size bounds, oldest removed first, whole
// files only; and the [watch.triggers] / [spool] config.
#include "daemon/service/spool.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "daemon/service/config.h"
#include "tests/unit/common/test_dir.h"

namespace gotraced::service {
namespace {

namespace fs = std::filesystem;

using TempDir = testutil::TestDir;

std::vector<std::string> Names(const Spool &s) {
  std::vector<std::string> out;
  for (const SpoolFile &f : s.List()) out.push_back(f.name);
  return out;
}

TEST(Spool, KeepsAtMostMaxFilesOldestRemovedFirst) {
  TempDir d;
  Spool s(d.path(), 3, 1 << 20);
  std::string err;
  for (int i = 0; i < 5; i++) {
    ASSERT_TRUE(s.Save("f" + std::to_string(i) + ".trace", std::vector<std::uint8_t>(100, 'x'), &err)) << err;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));  // distinct mtimes
  }
  EXPECT_EQ(Names(s), (std::vector<std::string>{"f2.trace", "f3.trace", "f4.trace"}));
}

TEST(Spool, KeepsAtMostMaxBytes) {
  TempDir d;
  Spool s(d.path(), 100, 1000);
  std::string err;
  for (int i = 0; i < 4; i++) {
    ASSERT_TRUE(s.Save("f" + std::to_string(i) + ".trace", std::vector<std::uint8_t>(400, 'x'), &err)) << err;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(Names(s), (std::vector<std::string>{"f2.trace", "f3.trace"}));
  EXPECT_FALSE(s.Save("big.trace", std::vector<std::uint8_t>(2000, 'x'), &err));  // larger than the spool
  EXPECT_EQ(Names(s).size(), 2u);
}

TEST(Spool, FileIsWholeAndNoPartialLeft) {
  TempDir d;
  Spool s(d.path(), 10, 1 << 20);
  std::string err;
  std::vector<std::uint8_t> b(12345);
  for (std::size_t i = 0; i < b.size(); i++) b[i] = static_cast<std::uint8_t>(i);
  ASSERT_TRUE(s.Save("a.trace", b, &err)) << err;
  std::ifstream in(d.File("a.trace"), std::ios::binary);
  std::vector<std::uint8_t> got((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(got, b);
  for (const auto &e : fs::directory_iterator(d.path())) EXPECT_EQ(e.path().extension(), ".trace");
}

TEST(TriggerConfig, ParsesPerWatchTableAndSpool) {
  std::string err;
  auto c = ParseConfig(R"(
[spool]
dir = "/tmp/x"
max_files = 5
max_mb = 2
[[watch]]
exe = "/a"
level = "sched"
[watch.triggers]
stw_ms = 10
sched_latency_ms = 2.5
after_seconds = 3
min_interval_seconds = 60
[[watch]]
exe = "/b"
)", "", &err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->spool_dir, "/tmp/x");
  EXPECT_EQ(c->spool_max_files, 5u);
  EXPECT_EQ(c->spool_max_bytes, std::size_t{2} << 20);
  ASSERT_EQ(c->watch.size(), 2u);
  EXPECT_EQ(c->watch[0].triggers.stw_ms, 10);
  EXPECT_EQ(c->watch[0].triggers.sched_latency_ms, 2.5);
  EXPECT_EQ(c->watch[0].triggers.after_seconds, 3);
  EXPECT_TRUE(c->watch[0].triggers.any());
  EXPECT_FALSE(c->watch[1].triggers.any());
  EXPECT_EQ(c->Level(c->watch[0]), session::CaptureLevel::kSched);
  EXPECT_EQ(c->Level(c->watch[1]), session::CaptureLevel::kLow);  // serve's default
}

TEST(TriggerConfig, RefusesUnknownKeysAndEmptyTables) {
  std::string err;
  EXPECT_FALSE(ParseConfig("[[watch]]\nexe = \"/a\"\n[watch.triggers]\nstw = 3\n", "", &err));
  EXPECT_NE(err.find("unknown key watch[0].triggers.stw"), std::string::npos) << err;
  EXPECT_FALSE(ParseConfig("[[watch]]\nexe = \"/a\"\n[watch.triggers]\nafter_seconds = 3\n", "", &err));
  EXPECT_NE(err.find("no threshold"), std::string::npos) << err;
  EXPECT_FALSE(ParseConfig("[[watch]]\nexe = \"/a\"\nlevel = \"medium\"\n", "", &err));
  EXPECT_NE(err.find("not one of full, sched, low"), std::string::npos) << err;
}

}  // namespace
}  // namespace gotraced::service
