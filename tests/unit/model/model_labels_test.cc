// pprof labels in the model (daemon/model/model_labels.cc): GoStart records carrying a
// g.labels pointer, a LabelSource that knows a few sets; the "gotraced: labels" logs as
// Go's own parser reads them.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>

#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

// Knows the sets in `sets`; a pointer it does not know, or one whose record's identity is
// not ids[ptr] (when given), cannot be told (procmem/label_reader.h: unreadable, or freed
// and reused since the record).
struct FakeLabels final : LabelSource {
  std::map<std::uint64_t, std::string> sets;
  std::map<std::uint64_t, std::uint64_t> ids;
  int reads = 0, forgets = 0;
  std::optional<std::string_view> Text(std::uint64_t ptr, std::uint64_t id) override {
    ++reads;
    auto it = sets.find(ptr);
    if (it == sets.end()) return std::nullopt;
    if (auto i = ids.find(ptr); id != 0 && i != ids.end() && i->second != id) return std::nullopt;
    return std::string_view(it->second);
  }
  void Forget() override { ++forgets; }
};

Record Start(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::uint64_t labels) {
  Record r = RGoStart(ts, m, p, g);
  r.value = labels;
  r.flag = true;
  return r;
}

std::vector<std::pair<std::uint64_t, std::string>> LabelLogs(const CheckResult &res) {
  std::vector<std::pair<std::uint64_t, std::string>> out;
  for (const auto &e : TraceEvents(res))
    if (e.value("kind", "") == "Log" && e.value("category", "") == "gotraced: labels")
      out.emplace_back(e.value("g", 0ull), e.value("message", ""));
  return out;
}

// A log at a start with a new set only: the same pointer again, another pointer holding
// the same set, and a start without a pointer read (flag off) say nothing; a return to no
// labels says "" once; an unlabelled goroutine never gets a log.
TEST(ModelLabels, LogOnlyWhenTheSetChanges) {
  FakeLabels fl;
  fl.sets = {{0xa0, "route=/a"}, {0xa8, "route=/a"}, {0xb0, "route=/b tenant=1"}};
  Harness h(encoder::Version::kGo126, false, &fl);
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(110, 1, 0, kNoG, 1),
      RGoCreate(111, 1, 0, kNoG, 2),
      Start(120, 1, 0, 1, 0xa0),  // log route=/a
      RGoStop(130, 1, 0, 1),
      Start(140, 1, 0, 1, 0xa0),  // same pointer
      RGoStop(150, 1, 0, 1),
      Start(160, 1, 0, 1, 0xa8),  // same set
      RGoStop(170, 1, 0, 1),
      RGoStart(180, 1, 0, 1),     // not read
      RGoStop(190, 1, 0, 1),
      Start(200, 1, 0, 1, 0xb0),  // log route=/b tenant=1
      RGoStop(210, 1, 0, 1),
      Start(220, 1, 0, 1, 0),     // log ""
      RGoStop(230, 1, 0, 1),
      Start(240, 1, 0, 1, 0),     // nothing
      RGoStop(250, 1, 0, 1),
      Start(260, 1, 0, 2, 0),     // never labelled
      RGc(RecordKind::kGCBegin, 265, 1, 0, 2),
      RGc(RecordKind::kGCEnd, 266, 1, 0, 2),
      RGoEnd(270, 1, 0, 2),
  });
  CheckResult res = h.Finish("labels_change");
  EXPECT_ACCEPTED(res);
  using L = std::vector<std::pair<std::uint64_t, std::string>>;
  EXPECT_EQ(LabelLogs(res), (L{{1, "route=/a"}, {1, "route=/b tenant=1"}, {1, ""}}));
  EXPECT_EQ(h.model.stats().label_logs, 3u);
  EXPECT_EQ(fl.forgets, 1);  // the GC cycle's end
  EXPECT_EQ(h.model.footprint().labelled, 0u);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
}

// A labelled goroutine's first start in a new generation is logged again (a window of
// generations still names its set); its entry goes with the goroutine.
TEST(ModelLabels, EachGenerationNamesTheSetAgain) {
  FakeLabels fl;
  fl.sets = {{0xa0, "route=/a"}};
  Harness h(encoder::Version::kGo126, false, &fl);
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(110, 1, 0, kNoG, 1),
      Start(120, 1, 0, 1, 0xa0),
      RGoStop(130, 1, 0, 1),
  });
  h.model.CutGeneration(200);
  h.PushAll({Start(220, 1, 0, 1, 0xa0), RGoStop(230, 1, 0, 1), Start(240, 1, 0, 1, 0xa0)});
  h.model.Advance(241);
  EXPECT_EQ(h.model.footprint().labelled, 1u);
  h.PushAll({RGoEnd(250, 1, 0, 1)});
  CheckResult res = h.Finish("labels_generations");
  EXPECT_ACCEPTED(res);
  using L = std::vector<std::pair<std::uint64_t, std::string>>;
  EXPECT_EQ(LabelLogs(res), (L{{1, "route=/a"}, {1, "route=/a"}}));
  EXPECT_EQ(h.model.footprint().labelled, 0u);
}

// pprof.Do sets a request's labels while its goroutine runs: the set is seen at the
// block (or stop) that ends the interval, logged before the GoBlock while the goroutine
// still runs; the start after it, with the same set, says nothing; the block after the
// labels are restored says "" (before: a set living inside one running interval was never
// logged, and the goroutine's wait was counted under its previous set).
TEST(ModelLabels, BlockAndStopNameTheSetTheyEndWith) {
  FakeLabels fl;
  fl.sets = {{0xa0, "route=/a"}, {0xb0, "route=/b"}};
  Harness h(encoder::Version::kGo126, false, &fl);
  auto block = [](std::uint64_t ts, Goid g, std::uint64_t labels, bool read = true) {
    Record r = RGoBlock(ts, 1, 0, g);
    r.value = labels;
    r.flag = read;
    return r;
  };
  auto stop = [](std::uint64_t ts, Goid g, std::uint64_t labels) {
    Record r = RGoStop(ts, 1, 0, g);
    r.value = labels;
    r.flag = true;
    return r;
  };
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(110, 1, 0, kNoG, 1),
      Start(120, 1, 0, 1, 0),          // no labels yet: nothing
      block(130, 1, 0xa0),             // Do set /a, then the handler waits: log route=/a
      RGoUnblock(140, 1, 0, kNoG, 1),
      Start(150, 1, 0, 1, 0xa0),       // the same set: nothing
      block(160, 1, 0),                // back to none, waiting for the next request: log ""
      RGoUnblock(170, 1, 0, kNoG, 1),
      Start(180, 1, 0, 1, 0),          // nothing
      stop(190, 1, 0xb0),              // /b set and preempted: log route=/b
      Start(200, 1, 0, 1, 0xb0),       // nothing
      block(210, 1, 0xa0, false),      // not read: nothing
      RGoUnblock(215, 1, 0, kNoG, 1),
      Start(220, 1, 0, 1, 0xb0),
      RGoEnd(230, 1, 0, 1),
  });
  CheckResult res = h.Finish("labels_block");
  EXPECT_ACCEPTED(res);
  using L = std::vector<std::pair<std::uint64_t, std::string>>;
  // On g1 (a log after its block would be on no goroutine: g 0), each once.
  EXPECT_EQ(LabelLogs(res), (L{{1, "route=/a"}, {1, ""}, {1, "route=/b"}}));
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
}

// A set the source cannot tell (its memory holds something else now: the identity BPF
// copied differs, or it is unreadable) says nothing: no log of a wrong set, and no ""
// either (the goroutine did not drop its labels); the goroutine keeps its last set, and
// a later set it can tell is logged. The set seen by a CPU sample (kGoLabels on the
// goroutine the M runs) is logged like a syscall entry's.
TEST(ModelLabels, ASetThatCannotBeToldSaysNothing) {
  FakeLabels fl;
  fl.sets = {{0xa0, "route=/a"}, {0xb0, "route=/b"}, {0xc0, "alpha=beta gamma=7"}, {0xd0, "route=/health"}};
  fl.ids = {{0xa0, 11}, {0xb0, 12}, {0xc0, 99}, {0xd0, 14}};
  Harness h(encoder::Version::kGo126, false, &fl);
  auto start = [](std::uint64_t ts, std::uint64_t labels, std::uint64_t id) {
    Record r = Start(ts, 1, 0, 1, labels);
    r.value2 = id;
    return r;
  };
  auto sample = [](std::uint64_t ts, std::uint64_t labels, std::uint64_t id) {
    Record r;
    r.kind = RecordKind::kGoLabels;
    r.ts = ts;
    r.m = 1;
    r.g = 1;
    r.target_g = 1;  // from a sample (cpu_sample_decoder.cc)
    r.value = labels;
    r.value2 = id;
    r.flag = true;
    return r;
  };
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(110, 1, 0, kNoG, 1),
      start(120, 0xa0, 11),  // log route=/a
      RGoStop(130, 1, 0, 1),
      start(140, 0xc0, 13),  // freed and reused since: identity 13, memory says 99: nothing
      RGoStop(150, 1, 0, 1),
      start(160, 0xe0, 15),  // unreadable: nothing
      sample(165, 0xd0, 14), // a CPU sample in a handler that never blocks: log route=/health
      RGoStop(170, 1, 0, 1),
      sample(175, 0xa0, 11), // a sample the model places between its records: nothing, not a fault
      start(180, 0xb0, 12),  // log route=/b
      RGoEnd(190, 1, 0, 1),
      sample(195, 0xb0, 12), // m.curg read between goexit0's _Gdead and its dropg: nothing, not a fault
  });
  CheckResult res = h.Finish("labels_unknown");
  EXPECT_ACCEPTED(res);
  using L = std::vector<std::pair<std::uint64_t, std::string>>;
  EXPECT_EQ(LabelLogs(res), (L{{1, "route=/a"}, {1, "route=/health"}, {1, "route=/b"}}));
  EXPECT_EQ(h.model.stats().label_unknown, 2u);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
  // suite 60's level switch counts discarded records as a fault (9 of them from samples
  // before: a clean clone's failure; 1-2 in a third of its runs from a sample after the
  // goroutine's end: CI's failure at bae94eb)
  EXPECT_EQ(h.model.stats().records_discarded, 0u);
}

}  // namespace
}  // namespace gotraced::model::testing
