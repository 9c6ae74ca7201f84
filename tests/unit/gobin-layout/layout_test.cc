// Runtime layouts: the binary's DWARF equals the checked-in table for its Go version,
// stripped binaries resolve to the table, PIE string arrays read through relocations.
#include <gtest/gtest.h>

#include "daemon/gobin/dwarf_layout.h"
#include "daemon/gobin/layout_resolver.h"
#include "daemon/gobin/layout_tables.h"
#include "daemon/gobin/runtime_strings.h"
#include "tests/unit/gobin-layout/targets.h"

namespace gotraced::gobin {
namespace {

class LayoutTest : public ::testing::TestWithParam<std::string> {};

std::vector<std::string> WithoutStrings(std::vector<std::string> d) {
  std::erase_if(d, [](const std::string &s) { return s.find("Strings") != std::string::npos; });
  return d;
}

TEST_P(LayoutTest, DwarfEqualsTable) {
  GOBIN_OPEN_OR_SKIP(bin, GetParam(), "plain");
  auto dwarf = LayoutFromDwarf(bin->elf());
  ASSERT_TRUE(dwarf) << dwarf.error();
  auto table = LayoutFromTable(bin->go_version());
  ASSERT_TRUE(table) << "no table row for " << bin->build_info().go_version;
  auto diff = WithoutStrings(DiffLayouts(*dwarf, *table));
  EXPECT_TRUE(diff.empty()) << ::testing::PrintToString(diff) << "\nregenerate: tests/gobin-layouts/gen_layouts.sh";
  std::string missing;
  EXPECT_TRUE(dwarf->Complete(&missing)) << missing;
  // Offsets every version agrees on (amd64): the prologue reads g.stackguard0 at 16.
  EXPECT_EQ(dwarf->g.stackguard0.offset, 16);
  EXPECT_EQ(dwarf->g.goid.size, 8);
  EXPECT_EQ(dwarf->g.atomicstatus.size, 4);
  EXPECT_EQ(dwarf->g.waitreason.size, 1);
  EXPECT_EQ(dwarf->Constant("_Grunning"), 2);
  EXPECT_EQ(dwarf->Constant("_Gscan"), 0x1000);
}

TEST_P(LayoutTest, VersionSpecificFields) {
  GOBIN_OPEN_OR_SKIP(bin, GetParam(), "plain");
  auto l = LayoutFromDwarf(bin->elf());
  ASSERT_TRUE(l) << l.error();
  const GoVersion &v = bin->go_version();
  EXPECT_EQ(l->g.syscallbp.present(), v.AtLeast(1, 23));
  EXPECT_EQ(l->g.parent_goid.present(), v.AtLeast(1, 21));
  EXPECT_EQ(l->gobuf.ret.present(), !v.AtLeast(1, 25));
  EXPECT_TRUE(l->m.wait_trace_block_reason.present());
  // goid moved by 8 when syscallbp arrived (gmon#18).
  EXPECT_EQ(l->g.goid.offset, v.AtLeast(1, 23) ? 160 - (v.AtLeast(1, 25) ? 8 : 0) : 152);
}

TEST_P(LayoutTest, StringArraysFromBinaryEqualTable) {
  GOBIN_OPEN_OR_SKIP(bin, GetParam(), "plain");
  auto table = LayoutFromTable(bin->go_version());
  ASSERT_TRUE(table);
  auto w = ReadRuntimeStringTable(bin->elf(), "runtime.waitReasonStrings");
  ASSERT_TRUE(w);
  EXPECT_EQ(*w, table->wait_reason_strings);
  EXPECT_EQ(table->WaitReasonString(static_cast<uint32_t>(*table->Constant("waitReasonChanReceive"))), "chan receive");
  if (bin->go_version().AtLeast(1, 22)) {
    ASSERT_FALSE(table->trace_block_reason_strings.empty());
    EXPECT_EQ(table->trace_block_reason_strings[*table->Constant("traceBlockChanRecv")], "chan receive");
    EXPECT_EQ(table->trace_go_stop_reason_strings.size(), 3u);
  }
}

TEST_P(LayoutTest, PieReadsStringsThroughRelocations) {
  GOBIN_OPEN_OR_SKIP(plain, GetParam(), "plain");
  GOBIN_OPEN_OR_SKIP(pie, GetParam(), "pie");
  ASSERT_TRUE(pie->elf().is_pie());
  auto a = ReadRuntimeStringTable(plain->elf(), "runtime.waitReasonStrings");
  auto b = ReadRuntimeStringTable(pie->elf(), "runtime.waitReasonStrings");
  ASSERT_TRUE(a);
  ASSERT_TRUE(b);
  EXPECT_EQ(*a, *b);
  auto la = LayoutFromDwarf(plain->elf());
  auto lb = LayoutFromDwarf(pie->elf());
  ASSERT_TRUE(la && lb);
  EXPECT_TRUE(DiffLayouts(*la, *lb).empty());
}

TEST_P(LayoutTest, StrippedResolvesToTable) {
  GOBIN_OPEN_OR_SKIP(plain, GetParam(), "plain");
  for (const char *mode : {"stripped", "pie-stripped"}) {
    GOBIN_OPEN_OR_SKIP(bin, GetParam(), mode);
    EXPECT_FALSE(bin->elf().has_dwarf()) << mode;
    std::vector<std::string> notes;
    auto l = ResolveRuntimeLayout(bin->elf(), bin->go_version(), &notes);
    ASSERT_TRUE(l) << l.error();
    EXPECT_EQ(l->source, LayoutSource::kTable) << mode;
    auto full = ResolveRuntimeLayout(plain->elf(), plain->go_version());
    ASSERT_TRUE(full);
    EXPECT_EQ(full->source, LayoutSource::kDwarf);
    EXPECT_TRUE(DiffLayouts(*l, *full).empty()) << mode << ": " << ::testing::PrintToString(DiffLayouts(*l, *full));
  }
}

INSTANTIATE_TEST_SUITE_P(AllGo, LayoutTest, ::testing::ValuesIn(testing::AllVersions()),
                         [](const auto &info) { return info.param.substr(2, 1) + "_" + info.param.substr(4); });

TEST(LayoutTableTest, MinorVersionSemanticsAndFailClosed) {
  EXPECT_TRUE(LayoutFromTable(GoVersion::Parse("go1.22.0")));
  EXPECT_TRUE(LayoutFromTable(GoVersion::Parse("go1.22.99")));
  EXPECT_EQ(LayoutFromTable(GoVersion::Parse("go1.22.0"))->g.goid,
            LayoutFromTable(GoVersion::Parse("go1.22.12"))->g.goid);
  EXPECT_FALSE(LayoutFromTable(GoVersion::Parse("go1.20.3")));  // no row: never guessed
  EXPECT_FALSE(LayoutFromTable(GoVersion::Parse("go1.99.1")));
  EXPECT_FALSE(LayoutFromTable(GoVersion::Parse("devel +abc")));
}

}  // namespace
}  // namespace gotraced::gobin
