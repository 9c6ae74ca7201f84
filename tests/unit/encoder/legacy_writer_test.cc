// LegacyTraceWriter: the pre-1.22 format from v2-shaped calls, read back with
// legacy_decoder. Go's own parsers check the same writer in
// tests/suites/20-encoder-property.sh (random scenarios) and 50/70 (real recordings).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "encoder/legacy_decoder.h"
#include "encoder/legacy_event_table.h"
#include "encoder/legacy_rebase.h"
#include "encoder/legacy_writer.h"
#include "encoder/sink.h"

namespace gotraced::encoder {
namespace {

using legacy::Ev;

constexpr MId kM1 = 101, kM2 = 102;
constexpr PId kP0 = 0, kP1 = 1;
constexpr GId kG1 = 1, kG7 = 7, kG8 = 8;
constexpr std::uint64_t kMs = 1'000'000;

// The events in time order (which the writer makes the call order), as names.
std::vector<std::string> Names(const legacy::DecodedTrace &t) {
  std::vector<legacy::DecodedEvent> ev = t.events;
  std::stable_sort(ev.begin(), ev.end(), [](auto &a, auto &b) { return a.ticks < b.ticks; });
  std::vector<std::string> out;
  for (auto &e : ev) out.emplace_back(legacy::SpecOf(e.type).name);
  return out;
}

struct RestartCapture final : LegacyRestartSink {
  std::vector<std::pair<std::uint64_t, StoredLegacyRestart>> got;
  void WriteLegacyPrelude(std::uint64_t gen, const LegacyRestart &r) override {
    got.emplace_back(gen, StoredLegacyRestart::From(r));
  }
};

// The first generation's state of most tests: P0 running under M1, g running on it.
void RunningOnP0(LegacyTraceWriter &w, std::uint64_t t, GId g) {
  ASSERT_EQ(w.ProcStatusEvent(kM1, t, kP0, ProcStatus::kRunning), EmitStatus::kOk);
  ASSERT_EQ(w.GoStatusEvent(kM1, t, g, kM1, GoStatus::kRunning), EmitStatus::kOk);
}

TEST(LegacyWriter, HeaderPerVersion) {
  for (Version v : kLegacyVersions) {
    MemorySink sink;
    LegacyTraceWriter w(sink, {.version = v});
    w.Close();
    const std::string want = v == Version::kGo119 ? "go 1.19 trace" : "go 1.21 trace";
    ASSERT_GE(sink.bytes().size(), 16u);
    EXPECT_EQ(std::string(reinterpret_cast<const char *>(sink.bytes().data())), want);
    auto t = legacy::DecodeLegacy(sink.bytes());
    EXPECT_TRUE(t.ok()) << t.error;
    EXPECT_EQ(t.version, v);
    EXPECT_EQ(t.frequency, 1'000'000'000u / 64);
  }
}

TEST(LegacyWriter, TableMatchesParserArgCounts) {
  // parser.go argNum: len(desc.Args) (+1 stack) + 1 timestamp; spot checks of the table.
  EXPECT_EQ(legacy::SpecOf(Ev::kGoCreate).nargs, 2);
  EXPECT_TRUE(legacy::SpecOf(Ev::kGoCreate).stack);
  EXPECT_EQ(legacy::SpecOf(Ev::kGoSysExit).nargs, 3);
  EXPECT_EQ(legacy::SpecOf(Ev::kCPUSample).nargs, 3);
  EXPECT_TRUE(legacy::SpecOf(Ev::kCPUSample).stack);
  EXPECT_EQ(legacy::BlockEventFor("chan receive"), Ev::kGoBlockRecv);
  EXPECT_EQ(legacy::BlockEventFor("gotraced: transition not captured"), Ev::kGoBlock);
  EXPECT_EQ(legacy::StwKindFor(Version::kGo119, "GC sweep termination"), 1);
  EXPECT_EQ(legacy::StwKindFor(Version::kGo119, "GOMAXPROCS"), -1);
  EXPECT_EQ(legacy::StwKindFor(Version::kGo121, "GOMAXPROCS"), 9);
}

// The first generation's statuses become a prelude (creations before EvGomaxprocs), the
// syscall that loses its P becomes GoSysBlock + ProcStop, GoSyscallEndBlocked a
// GoSysExit with the goroutine's sequence number.
TEST(LegacyWriter, PreludeAndSyscalls) {
  MemorySink sink;
  LegacyTraceWriter w(sink, {.version = Version::kGo121, .tick_divisor = 1, .gomaxprocs = 2});
  std::uint64_t t = 10 * kMs;
  ASSERT_NO_FATAL_FAILURE(RunningOnP0(w, t, kG1));
  ASSERT_EQ(w.GoCreate(kM1, t += 100, kG7, kNoStack, kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.GoBlock(kM1, t += 100, "chan receive", kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.GoStart(kM1, t += 100, kG7, 1), EmitStatus::kOk);
  ASSERT_EQ(w.GoSyscallBegin(kM1, t += 100, 1, kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.ProcSteal(kM2, t += 100, kP0, 2, kM1), EmitStatus::kOk);
  ASSERT_EQ(w.ProcStart(kM2, t += 100, kP0, 3), EmitStatus::kOk);
  ASSERT_EQ(w.GoUnblock(kM2, t += 100, kG1, 1, kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.GoSyscallEndBlocked(kM1, t += 100), EmitStatus::kOk);
  ASSERT_EQ(w.GoStart(kM2, t += 100, kG7, 2), EmitStatus::kOk);
  ASSERT_EQ(w.GoDestroy(kM2, t += 100), EmitStatus::kOk);
  w.Close();
  EXPECT_EQ(w.stats().dropped, 0u) << w.last_error();
  auto d = legacy::DecodeLegacy(sink.bytes());
  ASSERT_TRUE(d.ok()) << d.error;
  const std::vector<std::string> want = {
      "ProcStart", "GoCreate", "GoStartLocal", "Gomaxprocs",                  // prelude
      "GoCreate", "GoBlockRecv", "GoStartLocal", "GoSysCall", "GoSysBlock", "ProcStop",
      "ProcStart", "GoUnblockLocal", "GoSysExit", "GoStartLocal", "GoEnd"};
  EXPECT_EQ(Names(d), want);
  for (auto &e : d.events) {
    if (e.type == Ev::kGoSysExit) {
      ASSERT_EQ(e.args.size(), 3u);
      EXPECT_EQ(e.args[0], kG7);
      EXPECT_EQ(e.args[1], 2u);  // GoCreate 1, GoStartLocal 2
    }
    if (e.type == Ev::kGomaxprocs) {
      EXPECT_EQ(e.args[0], 2u);
    }
  }
}

// Go's converter (tracev1.go) reads the goroutine's next event after GoSysCall to tell a
// blocked syscall (GoSysBlock) from an instant one; the kernel view's regions and logs of
// a goroutine in a syscall came in between, and its later GoSysExit then left a syscall
// the goroutine was not in ("goroutine 7 leaves Syscall but was Running", tracecheck).
// They are written when it runs again: after its GoStart, or at a fast return.
TEST(LegacyWriter, KernelViewEventsInASyscallWaitUntilItRunsAgain) {
  MemorySink sink;
  LegacyTraceWriter w(sink, {.version = Version::kGo119, .tick_divisor = 1, .gomaxprocs = 2});
  std::uint64_t t = 10 * kMs;
  ASSERT_NO_FATAL_FAILURE(RunningOnP0(w, t, kG7));
  // A blocked syscall with a region begun inside it (off-CPU) and a log.
  ASSERT_EQ(w.GoSyscallBegin(kM1, t += 100, 1, kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.UserRegionBegin(kM1, t += 100, 0, "kernel: off-CPU sleep", kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.ProcSteal(kM2, t += 100, kP0, 2, kM1), EmitStatus::kOk);
  ASSERT_EQ(w.ProcStart(kM2, t += 100, kP0, 3), EmitStatus::kOk);
  ASSERT_EQ(w.UserLog(kM1, t += 100, 0, "kernel: syscall", "read 3 ms", kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.GoSyscallEndBlocked(kM1, t += 100), EmitStatus::kOk);
  ASSERT_EQ(w.GoStart(kM2, t += 100, kG7, 2), EmitStatus::kOk);
  ASSERT_EQ(w.UserRegionEnd(kM2, t += 100, 0, "kernel: off-CPU sleep", kNoStack), EmitStatus::kOk);
  // A syscall that returns with its P: the region inside it comes at the return.
  ASSERT_EQ(w.GoSyscallBegin(kM2, t += 100, 4, kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.UserRegionBegin(kM2, t += 100, 0, "kernel: off-CPU sleep", kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.GoSyscallEnd(kM2, t += 100), EmitStatus::kOk);
  ASSERT_EQ(w.UserRegionEnd(kM2, t += 100, 0, "kernel: off-CPU sleep", kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.GoDestroy(kM2, t += 100), EmitStatus::kOk);
  w.Close();
  EXPECT_EQ(w.stats().dropped, 0u) << w.last_error();
  auto d = legacy::DecodeLegacy(sink.bytes());
  ASSERT_TRUE(d.ok()) << d.error;
  const std::vector<std::string> want = {
      "ProcStart", "GoCreate", "GoStartLocal", "Gomaxprocs",  // prelude
      "GoSysCall", "GoSysBlock", "ProcStop", "ProcStart", "GoSysExit", "GoStartLocal",
      "UserRegion", "UserLog", "UserRegion",                   // held, then the end
      "GoSysCall", "UserRegion", "UserRegion", "GoEnd"};
  EXPECT_EQ(Names(d), want);
  // Every user event is on the P its goroutine runs on (the reader's ev.G).
  for (auto &e : d.events) {
    if (e.type == Ev::kUserRegion || e.type == Ev::kUserLog) {
      EXPECT_EQ(e.p, kP0);
    }
  }
}

// Records lost between a syscall's entry and what the goroutine did after its return (a
// full ring): the model writes an unblock by the goroutine, then, when a later syscall's
// entry was lost too, the retake of its P. The reader ended the first syscall at the
// unblock (tracev1.go: GoSysCall then anything but GoSysBlock is an instant), so a
// GoSysBlock then would leave a syscall it is not in ("goroutine 7 leaves Syscall but
// was Running", a go1.19 recording with a 64 KiB ring): the writer follows the reader and
// opens the later syscall where the P is lost. An STW whose end was lost is ended at the
// next one's start instead of refusing it. Each counts as a repair.
TEST(LegacyWriter, WhatLostRecordsLeftOpenIsClosedForTheReader) {
  MemorySink sink;
  LegacyTraceWriter w(sink, {.version = Version::kGo119, .tick_divisor = 1, .gomaxprocs = 2});
  std::uint64_t t = 10 * kMs;
  ASSERT_NO_FATAL_FAILURE(RunningOnP0(w, t, kG7));
  ASSERT_EQ(w.GoStatusEvent(kM1, t, kG8, kNoThread, GoStatus::kWaiting), EmitStatus::kOk);
  ASSERT_EQ(w.GoSyscallBegin(kM1, t += 100, 1, kNoStack), EmitStatus::kOk);
  // ... lost: the return, more work, the next syscall's entry ...
  ASSERT_EQ(w.GoUnblock(kM1, t += 100, kG8, 1, kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.ProcSteal(kM2, t += 100, kP0, 2, kM1), EmitStatus::kOk);
  ASSERT_EQ(w.ProcStart(kM2, t += 100, kP0, 3), EmitStatus::kOk);
  ASSERT_EQ(w.GoSyscallEndBlocked(kM1, t += 100), EmitStatus::kOk);
  ASSERT_EQ(w.GoStart(kM2, t += 100, kG7, 2), EmitStatus::kOk);
  ASSERT_EQ(w.STWBegin(kM2, t += 100, "GC sweep termination", kNoStack), EmitStatus::kOk);
  // ... lost: the STW's end ...
  ASSERT_EQ(w.STWBegin(kM2, t += 100, "GC sweep termination", kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.STWEnd(kM2, t += 100), EmitStatus::kOk);
  ASSERT_EQ(w.GoDestroy(kM2, t += 100), EmitStatus::kOk);
  w.Close();
  EXPECT_EQ(w.stats().dropped, 0u) << w.last_error();
  EXPECT_EQ(w.stats().repairs, 3u);  // the syscall ended, another opened, the STW ended
  auto d = legacy::DecodeLegacy(sink.bytes());
  ASSERT_TRUE(d.ok()) << d.error;
  const std::vector<std::string> want = {
      "ProcStart", "GoCreate", "GoCreate", "GoStartLocal", "GoWaiting", "Gomaxprocs",  // prelude
      "GoSysCall", "GoUnblockLocal", "GoSysCall", "GoSysBlock", "ProcStop", "ProcStart", "GoSysExit",
      "GoStartLocal", "STWStart", "STWDone", "STWStart", "STWDone", "GoEnd"};
  EXPECT_EQ(Names(d), want);
}

// A GC worker's label right after its GoStart turns the GoStartLocal into GoStartLabel
// [g, seq, label] (runtime/trace.go traceGoStart); a label after other events of the P
// is left out, and the goroutine's sequence stays what order.go counts.
TEST(LegacyWriter, GcWorkerLabelIsGoStartLabel) {
  MemorySink sink;
  LegacyTraceWriter w(sink, {.version = Version::kGo121, .tick_divisor = 1});
  std::uint64_t t = 10 * kMs;
  ASSERT_NO_FATAL_FAILURE(RunningOnP0(w, t, kG1));
  ASSERT_EQ(w.GoCreate(kM1, t += 100, kG7, kNoStack, kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.GoBlock(kM1, t += 100, "chan receive", kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.GoStart(kM1, t += 100, kG7, 1), EmitStatus::kOk);
  ASSERT_EQ(w.GoLabel(kM1, t += 100, "GC (dedicated)"), EmitStatus::kOk);
  ASSERT_EQ(w.GoUnblock(kM1, t += 100, kG1, 1, kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.GoBlock(kM1, t += 100, "GC worker (idle)", kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.GoStart(kM1, t += 100, kG1, 1), EmitStatus::kOk);
  ASSERT_EQ(w.GoBlock(kM1, t += 100, "sleep", kNoStack), EmitStatus::kOk);
  ASSERT_EQ(w.GoLabel(kM1, t += 100, "GC (fractional)"), EmitStatus::kOk);  // not after a start: left out
  w.Close();
  EXPECT_EQ(w.stats().dropped, 0u) << w.last_error();
  auto d = legacy::DecodeLegacy(sink.bytes());
  ASSERT_TRUE(d.ok()) << d.error;
  const std::vector<std::string> want = {"ProcStart", "GoCreate", "GoStartLocal", "Gomaxprocs",  // prelude
                                         "GoCreate", "GoBlockRecv", "GoStartLabel", "GoUnblockLocal", "GoBlock", "GoStartLocal",
                                         "GoSleep"};
  EXPECT_EQ(Names(d), want);
  int labels = 0;
  for (auto &e : d.events) {
    if (e.type != Ev::kGoStartLabel) continue;
    ++labels;
    ASSERT_EQ(e.args.size(), 3u);
    EXPECT_EQ(e.args[0], kG7);
    EXPECT_EQ(e.args[1], 1u);  // after GoCreate (1); the start makes it 2
    EXPECT_EQ(d.strings.at(e.args[2]), "GC (dedicated)");
  }
  EXPECT_EQ(labels, 1);
}

// Timestamps strictly increase in call order, even when the calls' own go back.
TEST(LegacyWriter, StrictlyIncreasingTicks) {
  MemorySink sink;
  LegacyTraceWriter w(sink, {.version = Version::kGo119, .tick_divisor = 64});
  w.ProcStatusEvent(kM1, 5 * kMs, kP0, ProcStatus::kRunning);
  w.ProcStatusEvent(kM2, 5 * kMs, kP1, ProcStatus::kRunning);
  w.GoStatusEvent(kM1, 5 * kMs, kG1, kM1, GoStatus::kRunning);
  for (int i = 0; i < 50; ++i) {
    w.GoCreate(kM1, 5 * kMs - i, 100 + i, kNoStack, kNoStack);  // going back
    w.GoStart(kM2, 5 * kMs, 100 + i, 1);
    w.GoDestroy(kM2, 5 * kMs);
  }
  w.Close();
  EXPECT_EQ(w.stats().dropped, 0u) << w.last_error();
  auto d = legacy::DecodeLegacy(sink.bytes());
  ASSERT_TRUE(d.ok()) << d.error;
  std::vector<std::uint64_t> ticks;
  for (auto &e : d.events) ticks.push_back(e.ticks);
  std::sort(ticks.begin(), ticks.end());
  EXPECT_EQ(std::adjacent_find(ticks.begin(), ticks.end()), ticks.end()) << "two events share a tick";
}

// Strings keep their id across generations (a region open across one must match by id
// in Go 1.22+'s reader); stacks are defined again in each generation.
TEST(LegacyWriter, StringsStableStacksPerGeneration) {
  MemorySink sink;
  LegacyTraceWriter w(sink, {.version = Version::kGo121});
  Frame f[] = {{0x401000, "main.main", "/src/main.go", 12}};
  std::uint64_t t = kMs;
  w.ProcStatusEvent(kM1, t, kP0, ProcStatus::kRunning);
  w.GoStatusEvent(kM1, t, kG1, kM1, GoStatus::kRunning);
  w.UserRegionBegin(kM1, t += 10, 0, "phase", w.InternStack(f));
  w.EndGeneration();
  w.UserRegionEnd(kM1, t += 10, 0, "phase", w.InternStack(f));
  w.Close();
  auto d = legacy::DecodeLegacy(sink.bytes());
  ASSERT_TRUE(d.ok()) << d.error;
  std::vector<std::uint64_t> names, stacks;
  for (auto &e : d.events)
    if (e.type == Ev::kUserRegion) {
      names.push_back(e.args[2]);
      stacks.push_back(e.args[3]);
    }
  ASSERT_EQ(names.size(), 2u);
  EXPECT_EQ(names[0], names[1]);
  EXPECT_NE(stacks[0], stacks[1]);
  EXPECT_EQ(d.stacks.size(), 2u);
  EXPECT_EQ(d.frequency_events, 2);
}

// A trace starting at generation 2: the prelude restates the live goroutines, the GC
// sequence restarts at 0, the GC in progress at the start loses its end, GoSysExit's
// sequence number follows the prelude's.
TEST(LegacyWriter, RestartFromLaterGeneration) {
  MemorySink sink;
  RestartCapture rc;
  LegacyTraceWriter w(sink, {.version = Version::kGo121, .tick_divisor = 1}, &rc);
  std::uint64_t t = kMs;
  w.ProcStatusEvent(kM1, t, kP0, ProcStatus::kRunning);
  w.GoStatusEvent(kM1, t, kG1, kM1, GoStatus::kRunning);
  w.GCBegin(kM1, t += 10, 1, kNoStack);
  w.GCEnd(kM1, t += 10, 2);
  w.GoCreate(kM1, t += 10, kG8, kNoStack, kNoStack);
  w.GoBlock(kM1, t += 10, "sleep", kNoStack);
  w.GoStart(kM1, t += 10, kG8, 1);
  w.GoSyscallBegin(kM1, t += 10, 1, kNoStack);
  w.GCBegin(kM1, t += 10, 3, kNoStack);
  w.EndGeneration();  // generation 2 starts in a syscall and a GC
  std::size_t gen2_at = sink.generation_offsets().back();
  w.GCEnd(kM2, t += 10, 4);
  w.ProcSteal(kM2, t += 10, kP0, 2, kM1);
  w.GoSyscallEndBlocked(kM1, t += 10);
  w.GCBegin(kM2, t += 10, 5, kNoStack);
  w.Close();
  ASSERT_EQ(w.stats().dropped, 0u) << w.last_error();
  ASSERT_EQ(rc.got.size(), 1u);
  EXPECT_EQ(rc.got[0].first, 2u);
  EXPECT_EQ(rc.got[0].second.gc_base, 2u);
  EXPECT_TRUE(rc.got[0].second.gc_active);

  std::size_t gen2_end = sink.generation_offsets().size() > 2 ? sink.generation_offsets()[2] : sink.bytes().size();
  (void)gen2_at;
  std::span<const std::uint8_t> all(sink.bytes());
  std::span<const std::uint8_t> gens[] = {all.subspan(sink.generation_offsets()[1], gen2_end - sink.generation_offsets()[1])};
  std::string err;
  auto file = LegacyTraceFrom(all.first(16), rc.got[0].second, gens, &err);
  ASSERT_FALSE(file.empty()) << err;
  auto d = legacy::DecodeLegacy(file);
  ASSERT_TRUE(d.ok()) << d.error;
  // The GCStart on g8's P ended its syscall for the reader (tracev1.go: any event of the
  // goroutine after GoSysCall but GoSysBlock), so the retake opens one again first.
  const std::vector<std::string> want = {"ProcStart",  "GoCreate", "GoCreate",   "GoWaiting", "GoStartLocal", "Gomaxprocs",
                                         "GoSysCall", "GoSysBlock", "ProcStop", "GoSysExit", "GCStart"};
  EXPECT_EQ(Names(d), want);
  for (auto &e : d.events) {
    if (e.type == Ev::kGCStart) {
      EXPECT_EQ(e.args[0], 0u);
    }
    if (e.type == Ev::kGoSysExit) {
      EXPECT_EQ(e.args[1], 2u);  // prelude: GoCreate 1, GoStartLocal 2
    }
  }
}

}  // namespace
}  // namespace gotraced::encoder
