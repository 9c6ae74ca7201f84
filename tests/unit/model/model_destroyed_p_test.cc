// A P that procresize destroyed while idle and that a later record names again after a
// loss (fidelity's procs workload on go1.23 with a small ring): the reader still holds it
// as the Idle P it last saw, so the trace may never introduce it as Running. Before the
// fix the model forgot it at the next generation's start and wrote its lazy status
// Running: Go's parser said "inconsistent status for proc 3: old Idle vs. new Running".
#include <gtest/gtest.h>

#include <string>

#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

using encoder::Version;

// M1 holds P0 and runs g1; M2 runs P3 once and stops it; GOMAXPROCS drops to 1, a
// generation starts (P3 is not restated), GOMAXPROCS grows to 4 again. The loss took
// M2's ProcStart of P3: what remains is a ProcStop on P3 (M2 holds no P), then g2
// started on P3 by M2.
TEST(ModelDestroyedP, RecordAfterLossDoesNotRestateRunning) {
  for (Version v : {Version::kGo122, Version::kGo123, Version::kGo126}) {
    Harness h(v);
    h.PushAll({
        RProcStart(100, 1, 0),
        RGoCreate(110, 1, 0, kNoG, 1),
        RGoStart(120, 1, 0, 1),
        RGoCreate(125, 1, 0, 1, 2),
        RProcStart(130, 2, 3),
        RProcStop(140, 2, 3),
        RProcsChange(150, 1, 0, 1, 1),
    });
    h.model.CutGeneration(160);
    h.PushAll({
        RProcsChange(170, 1, 0, 1, 4),
        // lost here: M2's ProcStart(P3) and whatever ran on it
        RProcStop(190, 2, 3),
        RGoStart(200, 2, 3, 2),
        RGoEnd(210, 2, 3, 2),
        RProcStop(220, 2, 3),
    });
    h.model.CutGeneration(230);
    h.PushAll({RGoStop(240, 1, 0, 1)});
    CheckResult res = h.Finish("destroyed-p-" + std::to_string(static_cast<int>(v)));
    EXPECT_ACCEPTED(res);
    EXPECT_EQ(h.model.stats().writer_dropped, 0u);
  }
}

}  // namespace
}  // namespace gotraced::model::testing
