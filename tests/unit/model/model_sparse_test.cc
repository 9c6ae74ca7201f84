// The model's sparse mode (capture level "low", daemon/model/model_sparse.cc): syscalls,
// GC/STW and GOMAXPROCS records with no scheduling record around them become pieces Go's
// parser accepts, with no repair and nothing kept alive between them.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

using encoder::Version;

// The goroutine transition count `name` ("NotExist->Syscall") in tracecheck's JSON
// (transitions.goroutine), -1 when absent.
long Transitions(const CheckResult &r, const std::string &name) {
  const auto j = nlohmann::json::parse(r.json, nullptr, /*allow_exceptions=*/false);
  const auto p = nlohmann::json::json_pointer("/transitions/goroutine/" + name);
  return j.contains(p) ? j[p].get<long>() : -1;
}

TEST(ModelSparse, SyscallsGcStwAndProcsArePiecesTheParserAccepts) {
  Harness h(Version::kGo126, /*sparse=*/true);
  h.PushAll({
      RSyscall(100, 1, 0, 5),
      RSyscall(150, 2, kNoP, 6),  // Go <= 1.25: no P in a syscall
      RSyscallEnd(200, 1, 0, 5),
      RGc(RecordKind::kSTWBegin, 210, 1, 0, 7, 0, "GC mark termination"),
      RGc(RecordKind::kGCEnd, 220, 1, 0, 7),  // a cycle that began before the capture: GCActive
      RGc(RecordKind::kSTWEnd, 230, 1, 0, 7),
      RSyscall(250, 1, 0, 5),  // goroutine 5 again: created again
      RSyscallEnd(260, 1, 0, 5),
      // M 2 runs Go code, so goroutine 6's syscall is over: its exit (300, after this in
      // the M's order) was lost; the piece ends here and the late exit is dropped.
      RProcsChange(270, 2, 1, 8, 4),
      RSyscallEnd(300, 2, kNoP, 6),
      RProcsChange(310, 2, 1, 8, 4),
      RGc(RecordKind::kHeapGoal, 320, 3, 1, 9, 4 << 20),
  });
  CheckResult res = h.Finish("sparse");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(Transitions(res, "NotExist->Syscall"), 3);
  EXPECT_EQ(Transitions(res, "Syscall->NotExist"), 3);
  EXPECT_EQ(res.Int("syscalls"), 0);  // no GoSyscallBegin: goroutines are created in the syscall
  EXPECT_EQ(res.Int("ranges", "stop-the-world (GC mark termination)"), 1);
  EXPECT_EQ(res.Int("block_reasons", "chan receive"), 0);
  ModelStats s = h.model.stats();
  EXPECT_EQ(s.inconsistencies, 0u) << h.model.last_repair();
  EXPECT_EQ(s.writer_dropped, 0u);
  EXPECT_EQ(s.goroutines_live, 0u);  // nothing kept between pieces
  EXPECT_EQ(s.syscalls, 3u);
  EXPECT_EQ(s.sparse_observations, 4u);  // the STW (GC end inside it), two procs changes, heap goal
  EXPECT_EQ(s.records_discarded, 1u);    // the exit that came after its thread ran Go code
}

TEST(ModelSparse, SyscallSpanningACutBeginsAtTheCut) {
  Harness h(Version::kGo126, /*sparse=*/true);
  h.PushAll({RSyscall(100, 1, 0, 5), RSyscallEnd(120, 1, 0, 5)});
  h.model.CutGeneration(400);
  // One record per syscall (ProbePlan::syscall_pair): the entry arrives with the exit.
  h.PushAll({RSyscall(350, 2, 0, 6), RSyscallEnd(450, 2, 0, 6)});
  CheckResult res = h.Finish("sparse-cut");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(Transitions(res, "NotExist->Syscall"), 2);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u);
}

// The logs of category `category` in a written trace.
std::vector<nlohmann::json> Logs(const CheckResult &res, const std::string &category) {
  std::vector<nlohmann::json> out;
  for (const auto &e : TraceEvents(res))
    if (e.value("kind", "") == "Log" && e.value("category", "") == category) out.push_back(e);
  return out;
}

// Whether a stack of the trace (an event's or a transition's) has a frame of function fn.
bool HasFrame(const CheckResult &res, const std::string &fn) {
  for (const auto &e : TraceEvents(res))
    for (const char *key : {"stack", "transition_stack"})
      for (const auto &f : e.value(key, nlohmann::json::array()))
        if (f.value("func", "") == fn) return true;
  return false;
}

Record RStateSample(std::uint64_t ts, std::string message) {
  Record r = RAt(RecordKind::kStateSample, ts, kStateSampleM, kNoP, kNoG);
  r.text = std::move(message);
  return r;
}

// A goroutine state sample (session/state_sampler.h) is a UserLog on a goroutine and an M
// of the trace's own, on an idle P: one beside an open STW observation that holds P 0
// goes on P 1, and samples in two generations each stand alone.
TEST(ModelSparse, StateSamplesAreLogsOfAGoroutineOfTheirOwn) {
  Harness h(Version::kGo126, /*sparse=*/true);
  h.PushAll({
      RProcsChange(100, 1, 0, 8, 4),
      RStateSample(150, "1003 goroutines: running 1, runnable 0, syscall 1, waiting 1001 (chan receive 1000, select 1)"),
      RGc(RecordKind::kSTWBegin, 200, 1, 0, 7, 0, "GC mark termination"),
      RStateSample(250, "second: P 0 is held by the STW"),
      RGc(RecordKind::kSTWEnd, 300, 1, 0, 7),
      RSyscall(310, 2, 0, 5),
  });
  h.model.CutGeneration(400);
  h.PushAll({RStateSample(450, "third, next generation"), RSyscallEnd(460, 2, 0, 5)});
  CheckResult res = h.Finish("sparse-state-samples");
  EXPECT_ACCEPTED(res);
  const std::vector<nlohmann::json> logs = Logs(res, "gotraced: goroutine states");
  ASSERT_EQ(logs.size(), 3u) << res.path;
  for (const auto &l : logs) {
    EXPECT_EQ(l.at("g"), kStateSampleG) << l;
    EXPECT_EQ(l.at("m"), kStateSampleM) << l;
  }
  EXPECT_NE(logs[0].at("message").get<std::string>().find("chan receive 1000"), std::string::npos) << logs[0];
  EXPECT_EQ(logs[0].at("p"), 0) << logs[0];
  EXPECT_EQ(logs[1].at("p"), 1) << logs[1];  // P 0 is the STW's
  // go tool trace names a goroutine after its start frame.
  EXPECT_TRUE(HasFrame(res, "gotraced.goroutineStates"));
  ModelStats s = h.model.stats();
  EXPECT_EQ(s.state_samples, 3u);
  EXPECT_EQ(s.state_samples_dropped, 0u);
  EXPECT_EQ(s.inconsistencies, 0u) << h.model.last_repair();
  EXPECT_EQ(s.writer_dropped, 0u);
  EXPECT_EQ(s.goroutines_live, 0u);  // the sample's goroutine ends with its log
}

// A note (session::Session::Note: serve's cpu_throttle trigger marks its moment) is the
// same log with its own category and goroutine name, and is not counted as a sample.
TEST(ModelSparse, ANoteIsALogOfItsOwnCategory) {
  Harness h(Version::kGo126, /*sparse=*/true);
  Record note = RStateSample(150, "cpu_throttle 45.0 ms per throttled period");
  note.text2 = "gotraced: trigger";
  h.PushAll({RSyscall(100, 2, 0, 5), note, RStateSample(200, "states"), RSyscallEnd(300, 2, 0, 5)});
  CheckResult res = h.Finish("sparse-note");
  EXPECT_ACCEPTED(res);
  const std::vector<nlohmann::json> notes = Logs(res, "gotraced: trigger");
  ASSERT_EQ(notes.size(), 1u) << res.path;
  EXPECT_NE(notes[0].at("message").get<std::string>().find("45.0 ms"), std::string::npos) << notes[0];
  EXPECT_EQ(Logs(res, "gotraced: goroutine states").size(), 1u);
  EXPECT_TRUE(HasFrame(res, "gotraced.note"));
  EXPECT_EQ(h.model.stats().state_samples, 1u);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
}

// At level full (sched likewise) a note, as "gotraced: target" at the trace's start, is
// the same piece on the trace's own goroutine and M, on a P idle at that moment: the
// program's goroutines are untouched (goroutine 1 runs on P 0 throughout).
TEST(ModelNote, AtLevelFullANoteIsALogOfTheTracesOwnGoroutine) {
  Harness h(Version::kGo126, /*sparse=*/false);
  Record note = RStateSample(150, "pid 42 (nspid 7) /app/svc container shop-api pod shop/api-1");
  note.text2 = "gotraced: target";
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(110, 1, 0, kNoG, 1),
      RGoStart(120, 1, 0, 1),
      RProcStart(130, 2, 1),
      RProcStop(140, 2, 1),  // P 1 idle from here
      note,
      RGoEnd(200, 1, 0, 1),
      RProcStop(210, 1, 0),
  });
  CheckResult res = h.Finish("full-note");
  EXPECT_ACCEPTED(res);
  const std::vector<nlohmann::json> notes = Logs(res, "gotraced: target");
  ASSERT_EQ(notes.size(), 1u) << res.path;
  EXPECT_NE(notes[0].at("message").get<std::string>().find("pod shop/api-1"), std::string::npos) << notes[0];
  EXPECT_TRUE(HasFrame(res, "gotraced.note"));
  EXPECT_EQ(h.model.stats().state_samples, 0u);  // a note, not a sample
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
  EXPECT_EQ(h.model.stats().writer_dropped, 0u);
}

// A target whose first generation used no P (syscalls need none, no GC ran): the first
// sample comes in the second generation. Every P is stated by the end of the first
// generation (FirstGenerationSweep) and at each later start, so the sample's P is not one
// the reader first meets after the first generation (tracecheck's validator: "proc 0
// undetermined after the first generation"; serve's cpu_throttle before-file had it).
TEST(ModelSparse, AStateSampleAfterTheFirstGenerationUsesAPStatedAtItsStart) {
  Harness h(Version::kGo126, /*sparse=*/true);
  h.PushAll({RSyscall(100, 2, kNoP, 5), RSyscallEnd(120, 2, kNoP, 5)});
  h.model.CutGeneration(200);
  h.PushAll({RStateSample(250, "first sample, second generation")});
  h.model.CutGeneration(300);
  h.PushAll({RStateSample(350, "second sample, third generation")});
  CheckResult res = h.Finish("sparse-state-sample-gen2");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(Logs(res, "gotraced: goroutine states").size(), 2u) << res.path;
  EXPECT_EQ(h.model.stats().state_samples, 2u);
}

}  // namespace
}  // namespace gotraced::model::testing
