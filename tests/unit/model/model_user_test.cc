// User annotations in the model (daemon/model/model_user.cc): synthetic kUser* records,
// judged by Go's own parser (tracecheck) and its counts of tasks, regions and logs.
#include <gtest/gtest.h>

#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

// A task created on g1 and ended on g2 (another M), a child task, regions nested on two
// goroutines, logs with and without a task: everything written, nothing repaired.
TEST(ModelUser, TasksRegionsLogsAcrossGoroutines) {
  Harness h;
  Record child = RUser(RecordKind::kUserTaskBegin, 150, 1, 0, 1, 2, "child");
  child.value2 = 1;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(110, 1, 0, kNoG, 1),
      RGoStart(120, 1, 0, 1),
      RUser(RecordKind::kUserTaskBegin, 130, 1, 0, 1, 1, "request"),
      RUser(RecordKind::kUserLog, 140, 1, 0, 1, 1, "round", "begin"),
      child,
      RGoCreate(160, 1, 0, 1, 2),
      RUser(RecordKind::kUserRegionBegin, 170, 1, 0, 1, 1, "tail"),
      RProcStart(200, 2, 1),
      RGoStart(210, 2, 1, 2),
      RUser(RecordKind::kUserRegionBegin, 220, 2, 1, 2, 2, "work"),
      RUser(RecordKind::kUserRegionBegin, 230, 2, 1, 2, 2, "inner"),
      RUser(RecordKind::kUserLog, 240, 2, 1, 2, 0, "", "no task"),
      RUser(RecordKind::kUserRegionEnd, 250, 2, 1, 2, 2, "inner"),
      RUser(RecordKind::kUserRegionEnd, 260, 2, 1, 2, 2, "work"),
      RUser(RecordKind::kUserTaskEnd, 270, 2, 1, 2, 2),
      RUser(RecordKind::kUserTaskEnd, 280, 2, 1, 2, 1),  // ended on another goroutine
      RUser(RecordKind::kUserRegionEnd, 290, 1, 0, 1, 1, "tail"),
  });
  CheckResult res = h.Finish("user_basic");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("tasks"), 2);
  EXPECT_EQ(res.Int("task_ends"), 2);
  EXPECT_EQ(res.Int("regions"), 3);
  EXPECT_EQ(res.Int("region_ends"), 3);
  EXPECT_EQ(res.Int("logs"), 2);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
  EXPECT_EQ(h.model.stats().writer_dropped, 0u);
}

// What the reader would reject is not written: a second begin of an active task id
// ("task ID conflict"), a region end that matches no open region while one is open
// ("misuse of region"), an annotation of a goroutine the model has elsewhere. A lost
// inner region end is written when the enclosing region ends (counted as a repair).
TEST(ModelUser, ReaderRulesAreKept) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(110, 1, 0, kNoG, 1),
      RGoStart(120, 1, 0, 1),
      RGoCreate(125, 1, 0, 1, 2),
      RUser(RecordKind::kUserTaskBegin, 130, 1, 0, 1, 7, "t"),
      RUser(RecordKind::kUserTaskBegin, 140, 1, 0, 1, 7, "t"),  // duplicate: dropped
      RUser(RecordKind::kUserRegionBegin, 150, 1, 0, 1, 7, "outer"),
      RUser(RecordKind::kUserRegionBegin, 160, 1, 0, 1, 7, "lost-end"),
      RUser(RecordKind::kUserRegionEnd, 170, 1, 0, 1, 7, "nowhere"),  // matches nothing: dropped
      RUser(RecordKind::kUserRegionEnd, 180, 1, 0, 1, 7, "outer"),    // closes lost-end first
      RUser(RecordKind::kUserLog, 190, 1, 0, 2, 7, "c", "g2 is not running"),  // dropped
      RUser(RecordKind::kUserRegionEnd, 200, 1, 0, 1, 7, "begun before the trace"),  // none open: kept
      RUser(RecordKind::kUserTaskEnd, 210, 1, 0, 1, 7),
  });
  CheckResult res = h.Finish("user_rules");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("tasks"), 1);
  EXPECT_EQ(res.Int("regions"), 2);
  EXPECT_EQ(res.Int("region_ends"), 3);
  EXPECT_EQ(res.Int("logs"), 0);
  EXPECT_EQ(h.model.stats().repair_events, 1u);
  EXPECT_EQ(h.model.stats().records_discarded, 3u);
}

// Annotations survive generation cuts: a region begun in one generation ends in the next
// (the reader keeps each goroutine's open regions across generations).
TEST(ModelUser, RegionAcrossGenerations) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(110, 1, 0, kNoG, 1),
      RGoStart(120, 1, 0, 1),
      RUser(RecordKind::kUserTaskBegin, 130, 1, 0, 1, 3, "long"),
      RUser(RecordKind::kUserRegionBegin, 140, 1, 0, 1, 3, "span"),
  });
  h.model.CutGeneration(150);
  h.PushAll({
      RUser(RecordKind::kUserRegionEnd, 160, 1, 0, 1, 3, "span"),
      RUser(RecordKind::kUserTaskEnd, 170, 1, 0, 1, 3),
  });
  CheckResult res = h.Finish("user_generations");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("region_ends"), 1);
  EXPECT_EQ(res.Int("task_ends"), 1);
  EXPECT_EQ(res.Int("generations"), 2);
}

}  // namespace
}  // namespace gotraced::model::testing
