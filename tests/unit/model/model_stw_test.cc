// STW ranges whose end is lost: order.go keeps one range per goroutine
// (gState.beginRange: "discovered event already in-flight"), so a goroutine that stops
// the world again while the trace still has its last stop open gets that range ended
// first, even when another goroutine's stop came in between (suite 46, go1.19 at full:
// a mark termination's STWEnd dropped, a sweep termination by another goroutine, then the
// first goroutine's next stop).
#include <gtest/gtest.h>

#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

using encoder::Version;

TEST(ModelStw, StopAfterAnotherGoroutinesStopEndsItsOwnOpenRange) {
  Harness h(Version::kGo126);
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(110, 1, 0, 0, 7),
      RGoStart(120, 1, 0, 7),
      RProcStart(130, 2, 1),
      RGoCreate(140, 2, 1, 0, 8),
      RGoStart(150, 2, 1, 8),
      RGc(RecordKind::kSTWBegin, 200, 1, 0, 7, 0, "GC mark termination"),  // its STWEnd is lost
      RGc(RecordKind::kSTWBegin, 300, 2, 1, 8, 0, "GC sweep termination"),
      RGc(RecordKind::kSTWEnd, 310, 2, 1, 8),
      RGc(RecordKind::kSTWBegin, 400, 1, 0, 7, 0, "GC mark termination"),  // 7 again
      RGc(RecordKind::kSTWEnd, 410, 1, 0, 7),
  });
  CheckResult res = h.Finish("stw-stale");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("ranges", "stop-the-world (GC mark termination)"), 2);
  EXPECT_EQ(res.Int("ranges", "stop-the-world (GC sweep termination)"), 1);
  ModelStats s = h.model.stats();
  EXPECT_EQ(s.writer_dropped, 0u);
  EXPECT_EQ(s.repair_events, 1u);  // the STWEnd of 7's first stop, before its second
}

}  // namespace
}  // namespace gotraced::model::testing
