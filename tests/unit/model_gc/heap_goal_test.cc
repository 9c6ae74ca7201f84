// The trace's first HeapGoal (runtime/trace.go StartTrace: tl.HeapGoal() once, at the
// very beginning of every trace): the value (daemon/model/heap_goal.cc, mgcpacer.go
// heapGoalInternal / memoryLimitHeapGoal / gcinit) and where the model writes it
// (model_gc.cc InitialHeapGoal), with Go's parser as the judge.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "daemon/model/heap_goal.h"
#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

constexpr std::uint64_t kMiB = 1 << 20;
constexpr std::int64_t kNoLimit = std::numeric_limits<std::int64_t>::max();
constexpr std::string_view kGoal = "/gc/heap/goal:bytes";

// A state after a few cycles, without a memory limit: the goal is gcPercentHeapGoal.
GcPacerState Steady() {
  GcPacerState s;
  s.gc_percent = 100;
  s.memory_limit = kNoLimit;
  s.heap_marked = 3 * kMiB;
  s.gc_percent_heap_goal = 6 * kMiB + 12345;
  s.triggered = 5 * kMiB;  // set at the last gcStart (mgcpacer.go startCycle)
  s.heap_free = 2 * kMiB;
  s.total_alloc = 40 * kMiB;
  s.total_free = 36 * kMiB;
  s.mapped_ready = 12 * kMiB;
  return s;
}

TEST(HeapGoal, GcPercentGoal) {
  EXPECT_EQ(HeapGoal(Steady(), 26), 6 * kMiB + 12345);
  EXPECT_EQ(TraceHeapGoal(Steady(), 22), 6 * kMiB + 12345);
}

// commit(false) during the sweep: sweepDistMinTrigger = heapLive + 1 MiB can exceed it.
TEST(HeapGoal, SweepDistance) {
  GcPacerState s = Steady();
  s.sweep_dist_min_trigger = 7 * kMiB;
  EXPECT_EQ(HeapGoal(s, 26), 7 * kMiB);
}

// heapGoalInternal's minRunway: at least triggered + 64 KiB.
TEST(HeapGoal, MinRunwayAfterTrigger) {
  GcPacerState s = Steady();
  s.triggered = 6 * kMiB + 10000;
  EXPECT_EQ(HeapGoal(s, 26), 6 * kMiB + 10000 + (64 << 10));
}

// GOMEMLIMIT below the GOGC goal: limit - non-heap memory - headroom (3%, 1.21+; a fixed
// 1 MiB in 1.19), never below heapMarked, and without the sweep/runway adjustments.
TEST(HeapGoal, MemoryLimit) {
  GcPacerState s = Steady();
  s.gc_percent_heap_goal = 200 * kMiB;
  s.sweep_dist_min_trigger = 300 * kMiB;
  s.memory_limit = 100 * kMiB;
  // non-heap = mappedReady - heapFree - (totalAlloc - totalFree) = 12 - 2 - 4 = 6 MiB
  const std::uint64_t g = 94 * kMiB;
  EXPECT_EQ(HeapGoal(s, 26), g - g / 100 * 3);
  EXPECT_EQ(HeapGoal(s, 19), g - kMiB);
  s.memory_limit = 5 * kMiB;  // non-heap above the limit: heapMarked
  EXPECT_EQ(HeapGoal(s, 26), 3 * kMiB);
}

// GOGC=off: gcPercentHeapGoal = ^0. 1.26+ write 0; 1.22/1.23 write the memory-limit goal
// (go.dev/issue/63864), which without a limit is near MaxInt64.
TEST(HeapGoal, GcOff) {
  GcPacerState s = Steady();
  s.gc_percent = -1;
  s.gc_percent_heap_goal = ~std::uint64_t{0};
  EXPECT_EQ(TraceHeapGoal(s, 26), 0u);
  EXPECT_EQ(TraceHeapGoal(s, 27), 0u);
  EXPECT_GT(TraceHeapGoal(s, 22), std::uint64_t{1} << 62);
  EXPECT_LT(TraceHeapGoal(s, 22), ~std::uint64_t{0});
}

// Launch mode: gcinit's state. 4 MiB * GOGC/100 unless the globals need more.
TEST(HeapGoal, AfterGcInit) {
  EXPECT_EQ(TraceHeapGoal(PacerAfterGcInit(100, kNoLimit, 200 << 10), 26), 4 * kMiB);
  EXPECT_EQ(TraceHeapGoal(PacerAfterGcInit(100, kNoLimit, 200 << 10), 22), 4 * kMiB);
  EXPECT_EQ(TraceHeapGoal(PacerAfterGcInit(50, kNoLimit, 0), 26), 2 * kMiB);
  EXPECT_EQ(TraceHeapGoal(PacerAfterGcInit(100, kNoLimit, 10 * kMiB), 26), 10 * kMiB);
  EXPECT_EQ(TraceHeapGoal(PacerAfterGcInit(-1, kNoLimit, 0), 26), 0u);
  const std::uint64_t limited = TraceHeapGoal(PacerAfterGcInit(100, 3 * kMiB, 0), 26);
  EXPECT_EQ(limited, 3 * kMiB - kMiB);  // headroom: max(3%, 1 MiB)
}

TEST(HeapGoal, Environment) {
  EXPECT_EQ(ParseGOGC(std::nullopt), 100);
  EXPECT_EQ(ParseGOGC("off"), -1);
  EXPECT_EQ(ParseGOGC("250"), 250);
  EXPECT_EQ(ParseGOGC("junk"), 100);
  EXPECT_EQ(ParseGOMEMLIMIT(std::nullopt), kNoLimit);
  EXPECT_EQ(ParseGOMEMLIMIT("off"), kNoLimit);
  EXPECT_EQ(ParseGOMEMLIMIT("1000"), 1000);
  EXPECT_EQ(ParseGOMEMLIMIT("1000B"), 1000);
  EXPECT_EQ(ParseGOMEMLIMIT("64MiB"), std::int64_t{64} << 20);
  EXPECT_EQ(ParseGOMEMLIMIT("2GiB"), std::int64_t{2} << 30);
  EXPECT_FALSE(ParseGOMEMLIMIT("64MB").has_value());
  EXPECT_FALSE(ParseGOMEMLIMIT("x").has_value());
}

// The HeapGoal values in a written trace, in order.
std::vector<std::uint64_t> GoalValues(const CheckResult &res) {
  std::vector<std::uint64_t> out;
  for (const auto &e : TraceEvents(res)) {
    if (e.value("kind", "") != "Metric" || e.value("name", "") != kGoal) continue;
    const std::string v = e.value("value", "");  // "Value{Uint64(N)}" (trace.Value.String)
    if (const auto at = v.find("Uint64("); at != std::string::npos) out.push_back(std::stoull(v.substr(at + 7)));
  }
  return out;
}

// The runtime writes HeapGoal at the start of every trace, also of one with no GC
// cycle: so does the model, once, when an M first holds a running P.
TEST(ModelHeapGoal, WrittenAtTraceStart) {
  for (bool set : {false, true}) {
    Harness h;
    if (set) h.model.SetInitialHeapGoal(4 * kMiB);
    h.PushAll({
        RGoCreate(105, 1, 0, kNoG, 1),  // M 1 gets P 0 here
        RGoStart(110, 1, 0, 1),
        RGoEnd(400, 1, 0, 1),
    });
    CheckResult res = h.Finish(set ? "heapgoal-start" : "heapgoal-none");
    EXPECT_ACCEPTED(res);
    EXPECT_EQ(GoalValues(res), set ? std::vector<std::uint64_t>{4 * kMiB} : std::vector<std::uint64_t>{});
  }
}

// Not before the M holds a P (order.go advanceHeapMetric needs one), and not at all when
// the runtime's own HeapGoal (gcControllerCommit, probed) comes first: that one is newer.
TEST(ModelHeapGoal, WaitsForAPAndYieldsToTheRuntimes) {
  {
    Harness h;
    h.model.SetInitialHeapGoal(4 * kMiB);
    h.PushAll({
        RProcStop(100, 2, 3),  // M 2 gives up its P: nothing to write on
        RProcStart(120, 1, 0),
        RGoStart(130, 1, 0, 1),
        RGoEnd(400, 1, 0, 1),
    });
    CheckResult res = h.Finish("heapgoal-wait");
    EXPECT_ACCEPTED(res);
    EXPECT_EQ(GoalValues(res), std::vector<std::uint64_t>{4 * kMiB});
  }
  {
    Harness h;
    h.model.SetInitialHeapGoal(4 * kMiB);
    h.PushAll({
        RGc(RecordKind::kHeapGoal, 100, 1, 0, kNoG, 9 * kMiB),
        RGoStart(130, 1, 0, 1),
        RGoEnd(400, 1, 0, 1),
    });
    CheckResult res = h.Finish("heapgoal-runtime-first");
    EXPECT_ACCEPTED(res);
    EXPECT_EQ(GoalValues(res), std::vector<std::uint64_t>{9 * kMiB});
  }
}

}  // namespace
}  // namespace gotraced::model::testing
