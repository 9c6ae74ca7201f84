// The DWARF layout cache (daemon/gobin/layout_cache.h): what is stored is read back
// field for field, another key misses, a damaged entry is ignored, and
// GOTRACED_CACHE_DIR=off stores nothing.
#include "daemon/gobin/layout_cache.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/unit/common/test_dir.h"

namespace gotraced::gobin {
namespace {

class LayoutCache : public ::testing::Test {
 protected:
  void SetUp() override { setenv("GOTRACED_CACHE_DIR", cache_.c_str(), 1); }
  void TearDown() override { unsetenv("GOTRACED_CACHE_DIR"); }
  static RuntimeLayout Sample() {
    RuntimeLayout l;
    l.g.size = 440;
    l.g.goid = {152, 8};
    l.g.atomicstatus = {144, 4};
    l.m.procid = {72, 8};
    l.p.id = {0, 4};
    l.gobuf.pc = {8, 8};
    l.sched.goidgen = {0, 8};
    l.gc_controller.heap_live = {32, 8};
    l.mspan.npages = {24, 8};
    l.constants = {{"_Grunning", 2}, {"_Gsyscall", 3}};
    l.wait_reason_strings = {"", "GC assist marking", "IO wait"};
    l.stw_reason_strings = {"unknown", "GC mark termination"};
    l.source = LayoutSource::kDwarf;
    l.go_version = "go1.26.8";
    return l;
  }
  testutil::TestDir dir_;
  std::filesystem::path cache_ = dir_.File("cache");  // made by the first store
};

TEST_F(LayoutCache, RoundTripsEveryField) {
  const RuntimeLayout want = Sample();
  StoreCachedDwarfLayout("key-a", want);
  auto got = LoadCachedDwarfLayout("key-a");
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->g, want.g);
  EXPECT_EQ(got->m, want.m);
  EXPECT_EQ(got->p, want.p);
  EXPECT_EQ(got->gobuf, want.gobuf);
  EXPECT_EQ(got->sched, want.sched);
  EXPECT_EQ(got->gc_controller, want.gc_controller);
  EXPECT_EQ(got->mspan, want.mspan);
  EXPECT_EQ(got->constants, want.constants);
  EXPECT_EQ(got->wait_reason_strings, want.wait_reason_strings);
  EXPECT_EQ(got->stw_reason_strings, want.stw_reason_strings);
  EXPECT_EQ(got->source, LayoutSource::kDwarf);
  EXPECT_EQ(got->go_version, want.go_version);
}

TEST_F(LayoutCache, OtherKeyMissesAndDamageIsIgnored) {
  StoreCachedDwarfLayout("key-a", Sample());
  EXPECT_FALSE(LoadCachedDwarfLayout("key-b").has_value());
  for (const auto &e : std::filesystem::directory_iterator(cache_)) {
    std::filesystem::resize_file(e.path(), std::filesystem::file_size(e.path()) / 2);  // a torn entry
  }
  EXPECT_FALSE(LoadCachedDwarfLayout("key-a").has_value());
}

TEST_F(LayoutCache, TableLayoutsAreNotStored) {
  RuntimeLayout l = Sample();
  l.source = LayoutSource::kTable;
  StoreCachedDwarfLayout("key-t", l);
  EXPECT_FALSE(LoadCachedDwarfLayout("key-t").has_value());
}

TEST_F(LayoutCache, OffMeansOff) {
  setenv("GOTRACED_CACHE_DIR", "off", 1);
  StoreCachedDwarfLayout("key-a", Sample());
  EXPECT_FALSE(LoadCachedDwarfLayout("key-a").has_value());
  EXPECT_FALSE(std::filesystem::exists(cache_));
}

}  // namespace
}  // namespace gotraced::gobin
