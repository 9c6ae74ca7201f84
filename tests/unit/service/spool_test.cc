// Spool (daemon/service/spool.h): count and size bounds, oldest removed first, whole
// files only; the pending-upload state saved with the file and counted when evicted
// (daemon/upload/spool_pending.h); and the [watch.triggers] / [spool] config.
#include "daemon/service/spool.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "daemon/service/config.h"
#include "daemon/upload/spool_pending.h"
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

upload::ManifestEntry Pending(const std::string &key) {
  upload::ManifestEntry e;
  e.key = key;
  e.queued_unix_ns = 1;
  return e;
}

struct Evicted {
  std::string name;
  bool pending;
};

TEST(SpoolPending, AFileMeantForTheStoreIsSavedWithItsManifest) {
  TempDir d;
  Spool s(d.path(), 10, 1 << 20);
  std::string err;
  const upload::ManifestEntry e = Pending("k/a");
  ASSERT_TRUE(s.Save("a.trace", std::vector<std::uint8_t>(10, 'x'), &err, &e)) << err;
  std::optional<upload::ManifestEntry> m = upload::ReadManifest(upload::ManifestPath(d.path(), "a.trace"), &err);
  ASSERT_TRUE(m) << err;
  EXPECT_EQ(m->file, "a.trace");  // the spool names it
  EXPECT_EQ(m->key, "k/a");
  for (const auto &f : fs::directory_iterator(d.path()))
    EXPECT_EQ(f.path().string().find(".partial"), std::string::npos) << f.path();
}

// Two targets' triggers save into one spool (each with a Spool of its own). The second
// save evicts the first file right after it was saved: before, its manifest was written
// by a later step (QueueUpload after Spool::Save), so this eviction found none and the
// loss went uncounted; now the manifest is there from the moment the file is.
TEST(SpoolPending, AFileEvictedRightAfterItsSaveIsCountedAsLost) {
  TempDir d;
  std::vector<Evicted> evicted;
  auto on_evict = [&](const std::string &n, std::uint64_t, bool pending) { evicted.push_back({n, pending}); };
  Spool first(d.path(), 1, 1 << 20, on_evict), second(d.path(), 1, 1 << 20, on_evict);
  std::string err;
  const upload::ManifestEntry ea = Pending("k/a"), eb = Pending("k/b");
  ASSERT_TRUE(first.Save("a.trace", std::vector<std::uint8_t>(10, 'x'), &err, &ea)) << err;
  ASSERT_TRUE(second.Save("b.trace", std::vector<std::uint8_t>(10, 'x'), &err, &eb)) << err;
  ASSERT_EQ(evicted.size(), 1u);
  EXPECT_EQ(evicted[0].name, "a.trace");
  EXPECT_TRUE(evicted[0].pending);
  EXPECT_FALSE(fs::exists(upload::ManifestPath(d.path(), "a.trace")));
  EXPECT_TRUE(fs::exists(upload::ManifestPath(d.path(), "b.trace")));
}

TEST(SpoolPending, EvictionHoldsTheLockTheUploaderTakes) {
  TempDir d;
  int calls = 0;
  Spool s(d.path(), 1, 1 << 20, [&](const std::string &, std::uint64_t, bool) {
    calls++;
    // From another thread: the uploader's side of the lock is taken (std::mutex's
    // try_lock from the owning thread would be undefined).
    const bool free = std::async(std::launch::async, [&] {
                        std::mutex &m = upload::SpoolLock(d.path() + "/");  // one lock per directory
                        if (!m.try_lock()) return false;
                        m.unlock();
                        return true;
                      }).get();
    EXPECT_FALSE(free);
  });
  std::string err;
  ASSERT_TRUE(s.Save("a.trace", std::vector<std::uint8_t>(10, 'x'), &err)) << err;
  ASSERT_TRUE(s.Save("b.trace", std::vector<std::uint8_t>(10, 'x'), &err)) << err;
  EXPECT_EQ(calls, 1);
}

// The interleaving of suite 62's flake, step by step: the eviction has removed the file
// and not yet its manifest when the uploader looks for orphans. Unlocked, the uploader
// removed the manifest there, and the eviction then found none: pending, yet uncounted.
// Now the uploader waits for the eviction's step to end, and finds nothing to drop.
TEST(SpoolPending, TheUploaderDropsNoManifestInTheMiddleOfAnEviction) {
  TempDir d;
  std::string err;
  Spool s(d.path(), 10, 1 << 20);
  const upload::ManifestEntry e = Pending("k/a");
  ASSERT_TRUE(s.Save("a.trace", std::vector<std::uint8_t>(10, 'x'), &err, &e)) << err;
  std::future<bool> dropped;
  {
    std::lock_guard<std::mutex> eviction(upload::SpoolLock(d.path()));
    fs::remove(d.File("a.trace"));  // the eviction's first step
    dropped = std::async(std::launch::async, [&] { return upload::DropIfOrphan(d.path(), "a.trace"); });
    EXPECT_EQ(dropped.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout);
    EXPECT_TRUE(fs::remove(upload::ManifestPath(d.path(), "a.trace")));  // second step: pending, counted
  }
  EXPECT_FALSE(dropped.get());
}

TEST(SpoolPending, TheUploaderRewritesNoManifestOfAnEvictedFile) {
  TempDir d;
  std::string err;
  upload::ManifestEntry e = Pending("k/a");
  e.file = "a.trace";
  e.attempts = 3;
  EXPECT_TRUE(upload::RewriteIfSpooled(d.path(), e, &err)) << err;  // no file: nothing written
  EXPECT_FALSE(fs::exists(upload::ManifestPath(d.path(), "a.trace")));
  std::ofstream(d.File("a.trace")) << "x";
  EXPECT_TRUE(upload::RewriteIfSpooled(d.path(), e, &err)) << err;
  ASSERT_TRUE(fs::exists(upload::ManifestPath(d.path(), "a.trace")));
  EXPECT_FALSE(upload::DropIfOrphan(d.path(), "a.trace"));  // its file is there
  EXPECT_TRUE(upload::RemoveConfirmed(d.path(), "a.trace"));
  EXPECT_FALSE(fs::exists(d.File("a.trace")));
  EXPECT_FALSE(upload::RemoveConfirmed(d.path(), "a.trace"));
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
