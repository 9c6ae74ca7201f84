// Runtime globals: recovered from code (as in a stripped binary) equal .symtab's
// addresses on the unstripped build, for every Go; stripped and PIE-stripped builds find
// them all; what is not recoverable says what it loses.
#include <gtest/gtest.h>

#include "daemon/gobin/layout_resolver.h"
#include "daemon/gobin/runtime_globals.h"
#include "daemon/gobin/runtime_strings.h"
#include "tests/unit/gobin-layout/targets.h"

namespace gotraced::gobin {
namespace {

// What code recovery promises on every supported version.
const GlobalId kRecoverable[] = {GlobalId::kAllgs,      GlobalId::kAllglen, GlobalId::kAllgptr,
                                 GlobalId::kAllp,       GlobalId::kAllm,    GlobalId::kGomaxprocs,
                                 GlobalId::kNcpu,       GlobalId::kSched,   GlobalId::kBuildVersion,
                                 GlobalId::kWaitReasonStrings, GlobalId::kTraceEnabled,
                                 GlobalId::kGcController, GlobalId::kMemstats};

const char *Name(GlobalId id) { return GlobalInfos()[static_cast<size_t>(id)].name; }

class GlobalsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GlobalsTest, CodeRecoveryEqualsSymtab) {
  for (const char *mode : {"plain", "pie"}) {
    SCOPED_TRACE(mode);
    GOBIN_OPEN_OR_SKIP(bin, GetParam(), mode);
    auto layout = ResolveRuntimeLayout(bin->elf(), bin->go_version());
    ASSERT_TRUE(layout) << layout.error();
    RuntimeGlobals sym = FindRuntimeGlobals(*bin, &*layout, GlobalsSource::kSymtabOnly);
    RuntimeGlobals code = FindRuntimeGlobals(*bin, &*layout, GlobalsSource::kCodeOnly);
    for (GlobalId id : kRecoverable) {
      SCOPED_TRACE(Name(id));
      ASSERT_TRUE(code[id].found()) << DescribeGlobals(code);
      if (id == GlobalId::kTraceEnabled) {
        // A field of runtime.trace: must lie inside that symbol.
        ASSERT_TRUE(sym[GlobalId::kTrace].found());
        EXPECT_GE(code[id].vaddr, sym[GlobalId::kTrace].vaddr);
        EXPECT_LT(code[id].vaddr, sym[GlobalId::kTrace].vaddr + sym[GlobalId::kTrace].size);
        continue;
      }
      ASSERT_TRUE(sym[id].found());
      EXPECT_EQ(code[id].vaddr, sym[id].vaddr) << std::hex << code[id].vaddr << " vs " << sym[id].vaddr;
      if (id == GlobalId::kWaitReasonStrings) {
        EXPECT_EQ(code[id].size, sym[id].size);
      }
    }
    // The symtab-only globals are found by name.
    for (GlobalId id : {GlobalId::kTrace, GlobalId::kWork})
      EXPECT_TRUE(sym[id].found()) << Name(id);
  }
}

TEST_P(GlobalsTest, StrippedFindsRecoverableOnes) {
  GOBIN_OPEN_OR_SKIP(plain, GetParam(), "plain");
  RuntimeGlobals ref = FindRuntimeGlobals(*plain, nullptr, GlobalsSource::kCodeOnly);
  for (const char *mode : {"stripped", "pie-stripped"}) {
    SCOPED_TRACE(mode);
    GOBIN_OPEN_OR_SKIP(bin, GetParam(), mode);
    ASSERT_FALSE(bin->elf().has_symtab());
    auto layout = ResolveRuntimeLayout(bin->elf(), bin->go_version());
    ASSERT_TRUE(layout) << layout.error();
    RuntimeGlobals g = FindRuntimeGlobals(*bin, &*layout);
    for (GlobalId id : kRecoverable) EXPECT_TRUE(g[id].found()) << Name(id) << "\n" << DescribeGlobals(g);
    // (Addresses differ from the unstripped build's by a few bytes: the linker lays the
    // data out again. What is checked is that the recovered addresses read right.)
    EXPECT_EQ(g[GlobalId::kTraceEnabled].size, ref[GlobalId::kTraceEnabled].size);
    // The recovered waitReasonStrings array reads as the table's strings.
    auto w = ReadGoStringArray(bin->elf(), g[GlobalId::kWaitReasonStrings].vaddr,
                               g[GlobalId::kWaitReasonStrings].size / 16);
    ASSERT_TRUE(w);
    EXPECT_EQ(*w, layout->wait_reason_strings);
    // The missing ones are reported with what they cost.
    auto missing = g.Missing();
    ASSERT_FALSE(missing.empty());
    EXPECT_NE(missing[0].find("not available in this binary: "), std::string::npos);
    EXPECT_NE(missing[0].find("loses:"), std::string::npos);
  }
}

INSTANTIATE_TEST_SUITE_P(AllGo, GlobalsTest, ::testing::ValuesIn(testing::AllVersions()),
                         [](const auto &info) { return info.param.substr(2, 1) + "_" + info.param.substr(4); });

}  // namespace
}  // namespace gotraced::gobin
