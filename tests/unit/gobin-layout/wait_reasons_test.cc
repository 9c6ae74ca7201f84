// Block reasons: for every Go, each waitReason a gopark site uses maps to a traceBlock
// constant of that version, whose string (1.22+) is what the in-process trace writes;
// on 1.21 the traceBlock values are the legacy event types we name.
#include <gtest/gtest.h>

#include "daemon/gobin/layout_tables.h"
#include "daemon/gobin/wait_reasons.h"
#include "tests/unit/gobin-layout/targets.h"

namespace gotraced::gobin {
namespace {

class WaitReasonsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(WaitReasonsTest, TableRowMapsEveryParkReason) {
  auto l = LayoutFromTable(GoVersion::Parse(GetParam() + ".0"));
  ASSERT_TRUE(l);
  const bool v2 = GoVersion::Parse(GetParam() + ".0").AtLeast(1, 22);
  const bool has_block_consts = GoVersion::Parse(GetParam() + ".0").AtLeast(1, 21);
  int mapped = 0;
  for (const auto &[name, value] : l->constants) {
    if (!name.starts_with("waitReason")) continue;
    auto r = BlockReasonForWaitReason(*l, static_cast<uint32_t>(value));
    if (!TraceBlockForWaitReason(name)) {
      EXPECT_FALSE(r) << name;
      continue;
    }
    ASSERT_TRUE(r) << name;
    ++mapped;
    EXPECT_FALSE(r->legacy_event.empty()) << name;
    if (has_block_consts) {
      // traceBlockGCWeakToStrongWait/Synctest exist only where their waitReasons do.
      EXPECT_GE(r->trace_block_value, 0) << name << " -> " << r->trace_block;
    }
    if (v2) {
      EXPECT_FALSE(r->string.empty()) << name;
    } else if (has_block_consts) {
      // Go 1.21 trace.go: traceBlockX = traceEvY.
      EXPECT_EQ(l->Constant(r->trace_block), l->Constant(r->legacy_event)) << name;
    }
  }
  EXPECT_GE(mapped, 15);
  auto chan = BlockReasonForWaitReason(*l, static_cast<uint32_t>(*l->Constant("waitReasonChanReceive")));
  ASSERT_TRUE(chan);
  EXPECT_EQ(chan->trace_block, "traceBlockChanRecv");
  EXPECT_EQ(chan->legacy_event, "traceEvGoBlockRecv");
  if (v2) {
    EXPECT_EQ(chan->string, "chan receive");
  }
  auto sleep = BlockReasonForWaitReason(*l, static_cast<uint32_t>(*l->Constant("waitReasonSleep")));
  ASSERT_TRUE(sleep);
  if (v2) {
    EXPECT_EQ(sleep->string, "sleep");
  }
  EXPECT_EQ(sleep->legacy_event, "traceEvGoSleep");
}

INSTANTIATE_TEST_SUITE_P(AllGo, WaitReasonsTest, ::testing::ValuesIn(testing::AllVersions()),
                         [](const auto &info) { return info.param.substr(2, 1) + "_" + info.param.substr(4); });

}  // namespace
}  // namespace gotraced::gobin
