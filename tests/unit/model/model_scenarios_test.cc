// Scenario tests: small record sequences a real capture produces, each checked by Go's
// own trace parser (tracecheck) and by the counters the parser reports.
#include <gtest/gtest.h>

#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

using encoder::GoStatus;
using encoder::ProcStatus;
using encoder::Version;

// A process traced from its start (launch mode): M1 holds P0, g1 creates g2 and g3,
// channel handoff, g2 ends.
TEST(ModelScenario, LaunchCreateStartBlockUnblockEnd) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(110, 1, 0, kNoG, 1),
      RGoStart(120, 1, 0, 1),
      RGoCreate(130, 1, 0, 1, 2),
      RGoCreate(140, 1, 0, 1, 3),
      RGoBlock(150, 1, 0, 1, "chan receive"),
      RGoStart(160, 1, 0, 2),
      RGoUnblock(170, 1, 0, 2, 1),
      RGoEnd(180, 1, 0, 2),
      RGoStart(190, 1, 0, 1),
      RProcStart(200, 2, 1),
      RGoStart(210, 2, 1, 3),
      RGoBlock(220, 2, 1, 3, "select"),
      RProcStop(230, 2, 1),
  });
  CheckResult res = h.Finish("launch");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("creates"), 3);
  EXPECT_EQ(res.Int("block_reasons", "chan receive"), 1);
  EXPECT_EQ(res.Int("block_reasons", "select"), 1);
  ModelStats s = h.model.stats();
  EXPECT_EQ(s.inconsistencies, 0u) << h.model.last_repair();
  EXPECT_EQ(s.goroutines_created, 3u);
  EXPECT_EQ(s.goroutines_ended, 1u);
  EXPECT_EQ(s.writer_dropped, 0u);
}

// Attach mid-run: nothing is known but the snapshot; every resource gets its status
// lazily from the first record that touches it, the rest at the end of generation 1.
TEST(ModelScenario, AttachMidRunWithSnapshot) {
  Harness h;
  Snapshot snap;
  snap.gomaxprocs = 4;
  snap.procs = {{0, ProcStatus::kRunning, 1}, {1, ProcStatus::kIdle, 0}, {2, ProcStatus::kSyscall, 3},
                {3, ProcStatus::kRunning, 4}};
  snap.goroutines = {{1, GoStatus::kWaiting, 0},  {2, GoStatus::kRunning, 1}, {3, GoStatus::kRunnable, 0},
                     {4, GoStatus::kSyscall, 3},  {5, GoStatus::kWaiting, 0}, {6, GoStatus::kRunning, 4},
                     {7, GoStatus::kSyscall, 9}};
  h.model.SetSnapshot(snap);
  h.PushAll({
      RGoBlock(1000, 1, 0, 2, "sync"),
      RGoStart(1010, 1, 0, 3),
      RGoUnblock(1020, 1, 0, 3, 1),
      RGoUnblock(1030, 1, 0, 3, 2),
      RGoStop(1040, 1, 0, 3, "preempted"),
      RGoStart(1050, 1, 0, 1),
      // g4 comes back from its syscall on M3 with its P (fast path).
      RSyscallEnd(1060, 3, 2, 4),
      RGoBlock(1070, 3, 2, 4, "network"),
  });
  CheckResult res = h.Finish("attach");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
  EXPECT_EQ(res.Int("goroutines"), 7);
  EXPECT_EQ(res.Int("procs"), 4);
  EXPECT_EQ(res.Int("stop_reasons", "preempted"), 1);
}

// Attach while a goroutine is inside an entersyscallblock (os/signal's notetsleepg: it
// handed its P off before the attach): the first record of its M is a syscall entry with
// no P (its futex restarted after a signal). No repair and no discard: the goroutine
// starts the trace in a syscall on that M, exits it without a P and runs again.
TEST(ModelScenario, AttachInsideEnterSyscallBlock) {
  Harness h;
  h.PushAll({
      RProcStart(1000, 1, 0),
      RGoStart(1010, 1, 0, 2),
      RSyscall(1100, 5, kNoP, 7),
      RSyscallEndBlocked(1200, 5, kNoP, 7),
      RGoBlock(1210, 1, 0, 2, "sleep"),
      RProcStop(1220, 1, 0),
      RProcStart(1300, 5, 0),
      RGoStart(1310, 5, 0, 7),
      RGoBlock(1320, 5, 0, 7, "chan receive"),
  });
  CheckResult res = h.Finish("attach-inside-entersyscallblock");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
  EXPECT_EQ(h.model.stats().records_discarded, 0u);
}

// Go <= 1.23: a create written before its goroutine had an id (the P's goid cache was
// refilled) holds its M's later records until the decoder's kGoidResolved names the id;
// another M goes on meanwhile. The creator's GoBlock stays after the GoCreate, and the new
// goroutine's start on another M waits for its creation: no repair.
TEST(ModelScenario, Go123CreateWithoutIdHoldsItsM) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoStart(105, 1, 0, 2),
      RGoCreateWithoutId(110, 1, 0, 2, 0xc000123000),
      RGoBlock(120, 1, 0, 2, "chan receive"),
      RProcStop(125, 1, 0),
      RProcStart(115, 5, 1),
      RGoStart(118, 5, 1, 3),
      RGoEnd(130, 5, 1, 3),
  });
  h.model.Advance(140);  // M1 waits behind its create; M5 went on
  h.PushAll({RGoidResolved(150, 0xc000123000, 17), RGoStart(150, 5, 1, 17), RGoEnd(160, 5, 1, 17)});
  CheckResult res = h.Finish("go123-create-without-id");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
  EXPECT_EQ(h.model.stats().records_discarded, 0u);
  EXPECT_EQ(res.Int("creates"), 1);  // g17 (g2 and g3 were there before: statuses)
}

// ... and one whose id never came (the capture ended first) is dropped at the end, with
// nothing of its M lost behind it.
TEST(ModelScenario, Go123CreateWithoutIdDroppedAtTheEnd) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoStart(105, 1, 0, 2),
      RGoCreateWithoutId(110, 1, 0, 2, 0xc000124000),
      RGoBlock(120, 1, 0, 2, "chan receive"),
      RProcStop(125, 1, 0),
  });
  CheckResult res = h.Finish("go123-create-never-resolved");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
  EXPECT_EQ(h.model.stats().records_discarded, 1u);
  EXPECT_EQ(res.Int("block_reasons", "chan receive"), 1);
}

// Go 1.26 entersyscallHandleGCWait: a goroutine enters a syscall while a stop-the-world
// waits, gives its P to the STW (trace.ProcStop, not probed) and the sys_enter tracepoint
// reads no P. The model writes the runtime's GoSyscallBegin + ProcStop: the exit without a
// P and the P's next start need no repair.
TEST(ModelScenario, Go126SyscallGivesThePToAWaitingStw) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 1),
      RGoStart(110, 1, 1, 10),
      RSyscall(120, 1, kNoP, 10),
      RSyscallEndBlocked(200, 1, kNoP, 10),
      RProcStart(210, 1, 1),
      RGoStart(220, 1, 1, 10),
      RGoEnd(230, 1, 1, 10),
  });
  CheckResult res = h.Finish("go126-syscall-gcwait");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("syscalls"), 1);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
  EXPECT_EQ(h.model.stats().records_discarded, 0u);
}

// A syscall whose P is retaken by sysmon (a thread with no P), then the goroutine exits
// the syscall without a P and is started elsewhere; order.go's P sequence numbers tie
// the ProcSteal to the GoSyscallBegin.
TEST(ModelScenario, SyscallWithProcSteal) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(105, 1, 0, kNoG, 10),
      RGoStart(110, 1, 0, 10),
      RSyscall(120, 1, 0, 10),
      RProcSteal(130, 50, 0, 1),  // sysmon
      RProcStart(140, 2, 0),
      RSyscallEndBlocked(150, 1, kNoP, 10),
      RGoStart(160, 2, 0, 10),
      RGoEnd(170, 2, 0, 10),
  });
  CheckResult res = h.Finish("steal");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("syscalls"), 1);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
}

// Go 1.26 exitsyscall when the P is still wired but its syscalltick moved: ProcSteal of
// its own P, ProcStart, GoSyscallEndBlocked, GoStart, all on the syscalling M.
TEST(ModelScenario, Go126SelfSteal) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(105, 1, 0, kNoG, 10),
      RGoStart(110, 1, 0, 10),
      RSyscall(120, 1, 0, 10),
      RProcSteal(130, 1, 0, 1),
      RProcStart(131, 1, 0),
      RSyscallEndBlocked(132, 1, 0, 10),
      RGoStart(133, 1, 0, 10),
      RGoBlock(140, 1, 0, 10),
  });
  CheckResult res = h.Finish("selfsteal");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
}

// entersyscallblock: the M hands its P off itself (GoSyscallBegin + ProcStop).
TEST(ModelScenario, BlockingSyscallHandoff) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(105, 1, 0, kNoG, 10),
      RGoStart(110, 1, 0, 10),
      RSyscall(120, 1, 0, 10),
      RProcStop(121, 1, 0),
      RProcStart(130, 2, 0),
      RSyscallEndBlocked(150, 1, kNoP, 10),
      RGoStart(160, 2, 0, 10),
  });
  CheckResult res = h.Finish("handoff");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
}

// Timestamps across Ms slightly inverted (a probe that fires after the transition it
// reports): the GoStart on M2 is stamped before the GoUnblock on M1 that enabled it.
TEST(ModelScenario, CrossThreadInversionIsReordered) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RProcStart(101, 2, 1),
      RGoCreate(110, 1, 0, kNoG, 5),
      RGoCreate(111, 1, 0, kNoG, 6),
      RGoStart(120, 2, 1, 5),
      RGoBlock(130, 2, 1, 5),
      RGoStart(140, 1, 0, 6),
      RGoStart(149, 2, 1, 5),       // stamped before...
      RGoUnblock(150, 1, 0, 6, 5),  // ...the unblock that enables it
  });
  h.model.Advance(1000);
  CheckResult res = h.Finish("inversion");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
}

// A lost GoBlock: the next GoStart on the same M finds the M still running the old
// goroutine, and a later GoUnblock targets it. Repaired, counted, parseable.
TEST(ModelScenario, LostRecordsAreRepaired) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(110, 1, 0, kNoG, 5),
      RGoCreate(111, 1, 0, kNoG, 6),
      RGoStart(120, 1, 0, 5),
      // lost: RGoBlock(130, 1, 0, 5)
      RGoStart(140, 1, 0, 6),
      RGoUnblock(150, 1, 0, 6, 5),
      RGoBlock(160, 1, 0, 6),
      RGoStart(170, 1, 0, 5),
      // lost: GoStart(7) and GoCreate(7): g7 blocks on M1 out of nowhere.
      RGoBlock(180, 1, 0, 7),
  });
  h.model.NoteLoss(2);
  CheckResult res = h.Finish("lost");
  EXPECT_ACCEPTED(res);
  ModelStats s = h.model.stats();
  EXPECT_GE(s.inconsistencies, 2u);
  EXPECT_EQ(s.records_lost, 2u);
  EXPECT_EQ(s.writer_dropped, 0u);
}

// Several generations: statuses restated at every generation start; a goroutine unknown
// after the first generation is introduced by a synthesized GoCreate (the parser forbids
// a status for it).
TEST(ModelScenario, GenerationsAndLateUnknownGoroutine) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(110, 1, 0, kNoG, 5),
      RGoStart(120, 1, 0, 5),
      RSyscall(130, 1, 0, 5),
  });
  h.model.CutGeneration(200);
  h.PushAll({
      RSyscallEnd(210, 1, 0, 5),
      RGoUnblock(220, 1, 0, 5, 99),  // g99 never seen
      RGoBlock(230, 1, 0, 5),
  });
  h.model.CutGeneration(300);
  h.PushAll({
      RGoStart(310, 1, 0, 42),  // g42 never seen either
      RGoEnd(320, 1, 0, 42),
      RGoStart(330, 1, 0, 99),
  });
  CheckResult res = h.Finish("generations");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("generations"), 3);
  EXPECT_EQ(h.model.stats().goroutines_synthesized, 2u);
}

// Loss reported by the capture cuts the generation.
TEST(ModelScenario, LossCutsGeneration) {
  Harness h;
  h.PushAll({RProcStart(100, 1, 0), RGoCreate(110, 1, 0, kNoG, 5), RGoStart(120, 1, 0, 5)});
  h.model.NoteLoss(10);
  h.model.Advance(150);
  h.PushAll({RGoBlock(200, 1, 0, 5), RGoStart(210, 1, 0, 5)});
  CheckResult res = h.Finish("losscut");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("generations"), 2);
  EXPECT_EQ(h.model.stats().generation_cuts, 1u);
}

// Stack trimming: runtime.goexit (and runtime.main for goroutine 1) dropped, skip applied
// to logical frames after inline expansion.
TEST(ModelScenario, StackTrimming) {
  Harness h;
  Record create = RGoCreate(110, 1, 0, 1, 2);
  create.stack = {kInlinedBase + 5, 0x600010, kMainPc, kGoexitPc};
  create.stack_skip = 1;  // drops the inlined leaf only
  h.PushAll({RProcStart(100, 1, 0), RGoCreate(105, 1, 0, kNoG, 1), RGoStart(106, 1, 0, 1), create});
  CheckResult res = h.Finish("stacks");
  EXPECT_ACCEPTED(res);
  // tracecheck counts event stacks (not GoCreate's new-goroutine stack). Create of g1 (by
  // g0): [f_600002, f_610000], goexit trimmed. Create of g2 by g1: [inlined, outer,
  // f_600010, runtime.main, runtime.goexit] -> goexit and main trimmed (goroutine 1),
  // inlined leaf skipped -> [outer, f_600010].
  EXPECT_EQ(res.Int("stacks"), 2);
  EXPECT_EQ(res.Int("frames"), 2 + 2);
}

// Coroutine switch (Go 1.23+), and its go1.22 rendering as block + unblock + start.
TEST(ModelScenario, GoSwitchAllVersions) {
  for (Version v : encoder::kAllVersions) {
    Harness h(v);
    h.PushAll({
        RProcStart(100, 1, 0),
        RGoCreate(110, 1, 0, kNoG, 5),
        RGoStart(120, 1, 0, 5),
        RGoCreate(130, 1, 0, 5, 6, /*blocked=*/true),
        RGoSwitch(140, 1, 0, 5, 6),
        RGoSwitch(150, 1, 0, 6, 5),
        RGoSwitch(160, 1, 0, 5, 6, /*destroy=*/true),
        RGoEnd(170, 1, 0, 6),
    });
    CheckResult res = h.Finish("switch" + std::to_string(static_cast<int>(v)));
    EXPECT_ACCEPTED(res);
    EXPECT_EQ(h.model.stats().writer_dropped, 0u);
  }
}

// Every output version accepts the same scenario.
TEST(ModelScenario, AllVersions) {
  for (Version v : encoder::kAllVersions) {
    Harness h(v);
    h.PushAll({
        RProcStart(100, 1, 0),
        RGoCreate(110, 1, 0, kNoG, 1),
        RGoStart(120, 1, 0, 1),
        RProcsChange(125, 1, 0, 1, 4),
        RSyscall(130, 1, 0, 1),
        RSyscallEnd(140, 1, 0, 1),
        RGoStop(150, 1, 0, 1),
    });
    h.model.CutGeneration(160);
    h.PushAll({RGoStart(170, 1, 0, 1), RGoEnd(180, 1, 0, 1)});
    CheckResult res = h.Finish("versions" + std::to_string(static_cast<int>(v)));
    EXPECT_ACCEPTED(res);
    EXPECT_EQ(res.Int("metrics", "/sched/gomaxprocs:threads"), 1);
  }
}

}  // namespace
}  // namespace gotraced::model::testing
