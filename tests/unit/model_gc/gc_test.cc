// GC events: the decoder (record_decoder_gc.cc) and the model (model_gc.cc), with Go's
// parser as the judge (order.go's GC sequence and range rules, docs/probe-plan.md §3.9).
#include <functional>
#include <gtest/gtest.h>

#include <array>
#include <cstring>

#include "daemon/model/record_decoder.h"
#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

// A forced GC as runtime.GC runs it, with a generation boundary in the mark phase: the
// second generation must open with GCActive (trace.go traceAdvance) and the cycle end
// with the next sequence number.
TEST(ModelGc, CycleAcrossGenerations) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(105, 1, 0, kNoG, 1),
      RGoStart(110, 1, 0, 1),
      RGc(RecordKind::kHeapAlloc, 115, 1, 0, 1, 4 << 20),
      RGc(RecordKind::kGCBegin, 120, 1, 0, 1),
      RGc(RecordKind::kSTWBegin, 130, 1, 0, 1, 0, "GC sweep termination"),
      RGc(RecordKind::kSTWEnd, 140, 1, 0, 1),
      RGc(RecordKind::kHeapGoal, 145, 1, 0, 1, 8 << 20),
  });
  h.model.CutGeneration(200);
  h.PushAll({
      RGc(RecordKind::kSTWBegin, 300, 1, 0, 1, 0, "GC mark termination"),
      RGc(RecordKind::kGCEnd, 310, 1, 0, 1),
      RGc(RecordKind::kHeapAlloc, 315, 1, 0, 1, 3 << 20),
      RGc(RecordKind::kSTWEnd, 320, 1, 0, 1),
      RGoEnd(400, 1, 0, 1),
  });
  CheckResult res = h.Finish("gc-cycle");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("ranges", "GC concurrent mark phase"), 1);
  EXPECT_EQ(res.Int("range_actives", "GC concurrent mark phase"), 1);
  EXPECT_EQ(res.Int("ranges", "stop-the-world (GC sweep termination)"), 1);
  EXPECT_EQ(res.Int("ranges", "stop-the-world (GC mark termination)"), 1);
  EXPECT_EQ(res.Int("range_ends", "stop-the-world (GC mark termination)"), 1);
  EXPECT_EQ(res.Int("metrics", "/memory/classes/heap/objects:bytes"), 2);
  EXPECT_EQ(res.Int("metrics", "/gc/heap/goal:bytes"), 1);
  const ModelStats s = h.model.stats();
  EXPECT_EQ(s.gc_events, 10u);  // HeapAlloc x2, HeapGoal, GCBegin, GCActive, GCEnd, 2 STWBegin, 2 STWEnd
  EXPECT_EQ(s.gc_dropped, 0u);
  EXPECT_EQ(s.inconsistencies, 0u) << h.model.last_repair();
}

// Attached in the middle of a cycle: the first GC record is its end. The reader accepts
// GCActive as the first GC event of the first generation, so the end is kept; an STWEnd
// whose STWBegin predates the capture has no range to end and is dropped.
TEST(ModelGc, AttachDuringACycle) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoStart(110, 1, 0, 7),
      RGc(RecordKind::kSTWEnd, 115, 1, 0, 7),
      RGc(RecordKind::kGCEnd, 120, 1, 0, 7),
      RGc(RecordKind::kGCBegin, 200, 1, 0, 7),
      RGc(RecordKind::kGCEnd, 300, 1, 0, 7),
  });
  CheckResult res = h.Finish("gc-attach");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("range_actives", "GC concurrent mark phase"), 1);
  EXPECT_EQ(res.Int("ranges", "GC concurrent mark phase"), 1);
  EXPECT_EQ(res.Int("range_ends", "GC concurrent mark phase"), 2);
  EXPECT_EQ(h.model.stats().gc_dropped, 1u);  // the STWEnd
}

// Lost records: a GCEnd without a cycle after the first generation is dropped (the
// reader would reject it); a second GCBegin closes the cycle whose end was lost; a
// second STWBegin on the same goroutine closes the open range first.
TEST(ModelGc, LostEndsAreRepaired) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(105, 1, 0, kNoG, 1),
      RGoStart(110, 1, 0, 1),
  });
  h.model.CutGeneration(150);
  h.PushAll({
      RGc(RecordKind::kGCEnd, 200, 1, 0, 1),
      RGc(RecordKind::kGCBegin, 210, 1, 0, 1),
      RGc(RecordKind::kGCBegin, 220, 1, 0, 1),
      RGc(RecordKind::kSTWBegin, 230, 1, 0, 1, 0, "GC sweep termination"),
      RGc(RecordKind::kSTWBegin, 240, 1, 0, 1, 0, "GOMAXPROCS"),
      RGc(RecordKind::kSTWEnd, 250, 1, 0, 1),
      RGc(RecordKind::kSTWEnd, 260, 1, 0, 1),
      RGc(RecordKind::kGCEnd, 270, 1, 0, 1),
  });
  CheckResult res = h.Finish("gc-lost");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("ranges", "GC concurrent mark phase"), 2);
  EXPECT_EQ(res.Int("range_ends", "GC concurrent mark phase"), 2);
  EXPECT_EQ(res.Int("ranges", "stop-the-world (GOMAXPROCS)"), 1);
  const ModelStats s = h.model.stats();
  EXPECT_EQ(s.gc_dropped, 2u);  // the first GCEnd, the second STWEnd
  EXPECT_EQ(s.repair_events, 2u);
}

// A mark worker is labelled once per run (traceruntime.go GoStart writes GoLabel after
// each GoStart of a worker; a dedicated worker may drain twice in one run); a mark assist
// is one range per goroutine even when gcAssistAlloc's retry loop works twice.
TEST(ModelGc, WorkerLabelsAndAssists) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(105, 1, 0, kNoG, 1),
      RGoCreate(106, 1, 0, 1, 20),
      RGoStart(110, 1, 0, 1),
      RGc(RecordKind::kGCBegin, 120, 1, 0, 1),
      RGc(RecordKind::kGCMarkAssistBegin, 130, 1, 0, 1),
      RGc(RecordKind::kGCMarkAssistBegin, 135, 1, 0, 1),
      RGc(RecordKind::kGCMarkAssistEnd, 140, 1, 0, 1),
      RGc(RecordKind::kGCMarkAssistEnd, 141, 1, 0, 1),  // no open assist: dropped
      RGoBlock(150, 1, 0, 1, "sync"),
      RGoStart(160, 1, 0, 20),
      RGc(RecordKind::kGoLabel, 161, 1, 0, 20, 0, "GC (fractional)"),
      RGc(RecordKind::kGoLabel, 162, 1, 0, 20, 0, "GC (fractional)"),
      RGoBlock(170, 1, 0, 20, "GC worker (idle)"),
      RGoUnblock(175, 1, 0, kNoG, 20),
      RGoStart(180, 1, 0, 20),
      RGc(RecordKind::kGoLabel, 181, 1, 0, 20, 0, "GC (idle)"),
      RGc(RecordKind::kGCEnd, 190, 1, 0, 20),
  });
  CheckResult res = h.Finish("gc-workers");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("labels"), 2);
  EXPECT_EQ(res.Int("ranges", "GC mark assist"), 1);
  EXPECT_EQ(res.Int("range_ends", "GC mark assist"), 1);
  EXPECT_EQ(h.model.stats().gc_dropped, 1u);
}

// The runtime never cuts a generation inside a stop-the-world (traceAdvance holds
// worldsema): a cut asked for while an STW range is open waits for its STWEnd, so the
// range's reason stays in its generation's string table and a window starting at the
// cut has no end without a begin (suite 60 soak: "stop-the-world (runtime.gopark)"
// ended while not open, the end named after the next generation's string of that id).
TEST(ModelGc, CutWaitsForStwEnd) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(105, 1, 0, kNoG, 1),
      RGoStart(110, 1, 0, 1),
      RGc(RecordKind::kSTWBegin, 130, 1, 0, 1, 0, "GC sweep termination"),
  });
  h.model.CutGeneration(135);
  EXPECT_EQ(h.model.generation_start(), 100u);  // held: the range is open
  h.PushAll({
      RGc(RecordKind::kSTWEnd, 140, 1, 0, 1),
      RGoEnd(400, 1, 0, 1),
  });
  h.model.Advance(150);
  EXPECT_EQ(h.model.generation_start(), 150u);  // cut once the range ended
  CheckResult res = h.Finish("gc-stw-cut");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("generations"), 2);
  EXPECT_EQ(res.Int("ranges", "stop-the-world (GC sweep termination)"), 1);
  EXPECT_EQ(res.Int("range_ends", "stop-the-world (GC sweep termination)"), 1);
  EXPECT_EQ(h.model.stats().repair_events, 0u);
}

// An STW range whose end was lost holds a cut at most 500 ms: then the range is closed
// at the cut (a repair) and its late STWEnd, if any, is dropped.
TEST(ModelGc, LostStwEndReleasesTheCut) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(105, 1, 0, kNoG, 1),
      RGoStart(110, 1, 0, 1),
      RGc(RecordKind::kSTWBegin, 130, 1, 0, 1, 0, "GOMAXPROCS"),
  });
  h.model.CutGeneration(1000);
  EXPECT_EQ(h.model.generation_start(), 100u);
  h.model.CutGeneration(600'000'000);
  EXPECT_EQ(h.model.generation_start(), 600'000'000u);
  h.PushAll({
      RGc(RecordKind::kSTWEnd, 600'000'100, 1, 0, 1),
      RGoEnd(600'000'200, 1, 0, 1),
  });
  CheckResult res = h.Finish("gc-stw-lost");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("ranges", "stop-the-world (GOMAXPROCS)"), 1);
  EXPECT_EQ(res.Int("range_ends", "stop-the-world (GOMAXPROCS)"), 1);
  EXPECT_EQ(h.model.stats().repair_events, 1u);
  EXPECT_EQ(h.model.stats().gc_dropped, 1u);  // the late STWEnd
}

// A goroutine inside a mark assist at a generation start says so (GCMarkAssistActive,
// as the runtime's writeGoStatus does), so the assist's end is accepted in a window
// that starts after its begin; here the assist spans two cuts and parks in between.
TEST(ModelGc, AssistActiveAtGenerationStart) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(105, 1, 0, kNoG, 1),
      RGoStart(110, 1, 0, 1),
      RGc(RecordKind::kGCBegin, 120, 1, 0, 1),
      RGc(RecordKind::kGCMarkAssistBegin, 130, 1, 0, 1),
      RGoBlock(140, 1, 0, 1, "GC assist wait"),
  });
  h.model.CutGeneration(200);
  h.model.CutGeneration(300);
  h.PushAll({
      RGoUnblock(310, 1, 0, kNoG, 1),
      RGoStart(320, 1, 0, 1),
      RGc(RecordKind::kGCMarkAssistEnd, 330, 1, 0, 1),
      RGc(RecordKind::kGCEnd, 340, 1, 0, 1),
      RGoEnd(400, 1, 0, 1),
  });
  CheckResult res = h.Finish("gc-assist-active");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("range_actives", "GC mark assist"), 2);
  EXPECT_EQ(res.Int("range_ends", "GC mark assist"), 1);
}

// gcAssistAlloc's retry after the cycle's mark phase ended (a Gosched or failed park that
// outlived mark termination): gcAssistAlloc1 sees gcBlackenEnabled == 0 and returns at
// once, with no casgstatus to end a range, so no range opens (a go1.22 gc run wrote one
// that never ended, and Go's reader refused the trace: "goroutine 23 exits with open
// ranges"). An assist still open when its goroutine exits (its end lost) ends first.
TEST(ModelGc, AssistAfterTheMarkPhaseOpensNoRange) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(105, 1, 0, kNoG, 1),
      RGoStart(110, 1, 0, 1),
      RGoCreate(115, 1, 0, 1, 23),
      RGc(RecordKind::kGCBegin, 120, 1, 0, 1),
      RGoStop(125, 1, 0, 1, "runtime.Gosched"),
      RGoStart(126, 1, 0, 23),
      RGc(RecordKind::kGCMarkAssistBegin, 130, 1, 0, 23),
      RGc(RecordKind::kGCMarkAssistEnd, 140, 1, 0, 23),  // gcAssistAlloc1's casgstatus
      RGoStop(145, 1, 0, 23, "runtime.Gosched"),
      RGoStart(150, 1, 0, 1),
      RGc(RecordKind::kGCEnd, 160, 1, 0, 1),
      RGoStop(165, 1, 0, 1, "runtime.Gosched"),
      RGoStart(170, 1, 0, 23),
      RGc(RecordKind::kGCMarkAssistBegin, 180, 1, 0, 23),  // the retry: no mark phase
      RGc(RecordKind::kGCBegin, 200, 1, 0, 23),
      RGc(RecordKind::kGCMarkAssistBegin, 210, 1, 0, 23),  // its end is lost
      RGoEnd(220, 1, 0, 23),
  });
  CheckResult res = h.Finish("gc-assist-after-mark");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("ranges", "GC mark assist"), 2);
  EXPECT_EQ(res.Int("range_ends", "GC mark assist"), 2);
  const ModelStats s = h.model.stats();
  EXPECT_EQ(s.gc_dropped, 1u);     // the retry's begin
  EXPECT_EQ(s.repair_events, 1u) << h.model.last_repair();  // the end written at GoDestroy
}

// ---- decoder ----

enum : std::uint32_t {
  kSiteGcStart, kSiteGcDone, kSiteStw, kSiteStwDone, kSiteUpdate, kSiteReset, kSiteGoal, kSiteDrain, kSiteAssist, kSiteCas
};

probes::ProbePlan Plan() {
  probes::ProbePlan plan;
  plan.name = "test";
  plan.go_minor = 26;
  for (probes::ProbeRole role : {probes::ProbeRole::kGCStart, probes::ProbeRole::kGCDone,
                                 probes::ProbeRole::kSTWStart, probes::ProbeRole::kSTWDone,
                                 probes::ProbeRole::kGCHeapUpdate, probes::ProbeRole::kGCHeapReset,
                                 probes::ProbeRole::kGCHeapGoal, probes::ProbeRole::kGCDrain,
                                 probes::ProbeRole::kGCAssist, probes::ProbeRole::kCasgstatus}) {
    probes::ProbeSite s;
    s.id = static_cast<std::uint16_t>(plan.sites.size());
    s.role = role;
    plan.sites.push_back(s);
  }
  return plan;
}

std::vector<std::uint8_t> Call(std::uint64_t ts, std::uint32_t site, std::uint64_t rax, std::uint64_t rbx,
                               std::vector<std::uint64_t> stack = {}) {
  gt_call_record r{};
  r.h.ts_ns = ts;
  r.h.tgid = 1;
  r.h.tid = 101;
  r.h.kind = GT_REC_CALL;
  r.ctx.p_id = 0;
  r.ctx.p = 0xd000;
  r.ctx.curg = 0xc000000100;
  r.ctx.curg_goid = 1;
  r.probe_id = site;
  r.args[0] = rax;
  r.args[1] = rbx;
  r.has_stack = stack.empty() ? 0 : 1;
  return RawRecord(r, stack, GT_STACK_REGS);
}

// casgstatus(gp, oldv, newv) of goroutine goid by its own thread 101.
std::vector<std::uint8_t> Cas(std::uint64_t ts, std::uint64_t goid, std::uint32_t oldv, std::uint32_t newv) {
  gt_gstatus_record r{};
  r.h.ts_ns = ts;
  r.h.tgid = 1;
  r.h.tid = 101;
  r.h.kind = GT_REC_GSTATUS;
  r.ctx.p_id = 0;
  r.ctx.p = 0xd000;
  r.ctx.curg = 0xc000000100;
  r.ctx.curg_goid = 1;
  r.ctx.caller_pc = 0x9999;  // symbolizes to nothing: unclassified for the scheduler
  r.probe_id = kSiteCas;
  r.gp = 0xc000000000 + goid * 0x100;
  r.goid = goid;
  r.oldval = oldv;
  r.newval = newv;
  return RawRecord(r);
}

struct Decoder {
  explicit Decoder(bool from_zero, const std::function<void(DecoderConfig &)> &tweak = {}) {
    DecoderConfig c;
    c.plan = &plan;
    c.stw_reasons = {"unknown", "GC mark termination", "GOMAXPROCS"};
    c.heap_live_from_zero = from_zero;
    if (tweak) tweak(c);
    dec = std::make_unique<RecordDecoder>(std::move(c));
  }
  probes::ProbePlan plan = Plan();
  std::unique_ptr<RecordDecoder> dec;
  std::vector<Record> out;
  void Feed(const std::vector<std::uint8_t> &bytes) {
    capture::RecordView v(bytes.data(), bytes.size());
    ASSERT_TRUE(v.valid());
    dec->Decode(v, out);
  }
};

// heapLive = resetLive's value + update's deltas (mgcpacer.go); a zero delta writes
// nothing; a goal of ~0 or beyond 2^62 (GC off) is written as 0 (traceruntime.go
// HeapGoal); STW reasons come from stwReasonStrings; GCBegin skips gcStart's frame.
TEST(GcDecoder, HeapLiveAndReasons) {
  Decoder d(/*from_zero=*/true);
  d.Feed(Call(100, kSiteUpdate, 0xabc, 8192));
  d.Feed(Call(110, kSiteUpdate, 0xabc, 0));
  d.Feed(Call(120, kSiteUpdate, 0xabc, static_cast<std::uint64_t>(std::int64_t{-4096})));
  d.Feed(Call(130, kSiteGcStart, 0, 0, {0x4000, 0x4100}));
  d.Feed(Call(140, kSiteStw, 1, 0, {0x4200}));
  d.Feed(Call(150, kSiteReset, 0xabc, 1 << 20));
  d.Feed(Call(160, kSiteUpdate, 0xabc, 8192));
  d.Feed(Call(170, kSiteGoal, 0x7fffffffffffffff, 2 << 20));
  d.Feed(Call(180, kSiteGoal, 0x7fffffffffffffff, ~std::uint64_t{0}));
  d.Feed(Call(185, kSiteGoal, 0x7fffffffffffffff, std::uint64_t{0x7fffffffff000000}));
  d.Feed(Call(190, kSiteStw, 9, 0, {0x4200}));
  ASSERT_EQ(d.out.size(), 10u);
  EXPECT_EQ(d.out[0].kind, RecordKind::kHeapAlloc);
  EXPECT_EQ(d.out[0].value, 8192u);
  EXPECT_EQ(d.out[1].value, 4096u);
  EXPECT_EQ(d.out[2].kind, RecordKind::kGCBegin);
  EXPECT_EQ(d.out[2].stack_skip, 1u);
  EXPECT_EQ(d.out[2].stack.size(), 2u);
  EXPECT_EQ(d.out[3].kind, RecordKind::kSTWBegin);
  EXPECT_EQ(d.out[3].reason, "GC mark termination");
  EXPECT_EQ(d.out[3].stack_skip, 2u);
  EXPECT_EQ(d.out[4].value, 1u << 20);
  EXPECT_EQ(d.out[5].value, (1u << 20) + 8192);
  EXPECT_EQ(d.out[6].kind, RecordKind::kHeapGoal);
  EXPECT_EQ(d.out[6].value, 2u << 20);
  EXPECT_EQ(d.out[7].value, 0u);
  EXPECT_EQ(d.out[8].value, 0u);
  EXPECT_EQ(d.out[9].reason, "unknown");  // out of the table
}

// gcDrain's flags name the worker mode (mgcmark.go gcDrainMarkWorker*; flags 0 is not a
// worker); an assist opened at gcAssistAlloc1 ends at the goroutine's own
// _Gwaiting -> _Grunning on that thread, not at another goroutine's.
TEST(GcDecoder, WorkerModesAndAssistEnd) {
  Decoder d(/*from_zero=*/true);
  d.Feed(Call(100, kSiteDrain, 0xc0, 2 | 1));
  d.Feed(Call(110, kSiteDrain, 0xc0, 2));
  d.Feed(Call(120, kSiteDrain, 0xc0, 8 | 2 | 1));
  d.Feed(Call(130, kSiteDrain, 0xc0, 4 | 2 | 1));
  d.Feed(Call(140, kSiteDrain, 0xc0, 0));
  d.Feed(Call(150, kSiteAssist, 0xc000000100, 1000, {0x4000, 0x4100}));
  d.Feed(Cas(160, 1, 2, 4));  // casGToWaitingForSuspendG: still assisting
  d.Feed(Cas(165, 7, 4, 2));  // another goroutine
  d.Feed(Cas(170, 1, 4, 2));  // the end
  d.Feed(Cas(180, 1, 4, 2));
  std::vector<std::string_view> labels;
  std::vector<RecordKind> kinds;
  for (const Record &r : d.out) {
    kinds.push_back(r.kind);
    if (r.kind == RecordKind::kGoLabel) labels.push_back(r.reason);
  }
  ASSERT_EQ(labels.size(), 4u);
  EXPECT_EQ(labels[0], "GC (dedicated)");
  EXPECT_EQ(labels[1], "GC (dedicated)");
  EXPECT_EQ(labels[2], "GC (fractional)");
  EXPECT_EQ(labels[3], "GC (idle)");
  int begins = 0, ends = 0;
  for (const Record &r : d.out) {
    if (r.kind == RecordKind::kGCMarkAssistBegin) {
      ++begins;
      EXPECT_EQ(r.stack_skip, 1u);
    }
    if (r.kind == RecordKind::kGCMarkAssistEnd) {
      ++ends;
      EXPECT_EQ(r.ts, 170u);
      EXPECT_EQ(r.g, 1u);
    }
  }
  EXPECT_EQ(begins, 1);
  EXPECT_EQ(ends, 1);
}

// Attached mid-run: heapLive is unknown until the first resetLive.
TEST(GcDecoder, HeapLiveUnknownUntilReset) {
  Decoder d(/*from_zero=*/false);
  d.Feed(Call(100, kSiteUpdate, 0xabc, 8192));
  d.Feed(Call(110, kSiteReset, 0xabc, 3 << 20));
  d.Feed(Call(120, kSiteUpdate, 0xabc, 8192));
  ASSERT_EQ(d.out.size(), 2u);
  EXPECT_EQ(d.out[0].value, 3u << 20);
  EXPECT_EQ(d.out[1].value, (3u << 20) + 8192);
}

// Attached with heapLive read from memory at t=105 (procmem snapshot): an update whose
// probe fired before the read is already in the value (no event, no double count); later
// ones are added to it; a resetLive from before the read is written but does not replace
// the newer value read; one after it does.
TEST(GcDecoder, HeapLiveSeededAtAttach) {
  Decoder d(/*from_zero=*/false, [](DecoderConfig &c) {
    c.heap_live_seed = std::uint64_t{5} << 20;
    c.heap_live_seed_ts = 105;
  });
  d.Feed(Call(100, kSiteUpdate, 0xabc, 8192));
  d.Feed(Call(101, kSiteReset, 0xabc, 1 << 20));
  d.Feed(Call(110, kSiteUpdate, 0xabc, 8192));
  d.Feed(Call(120, kSiteUpdate, 0xabc, static_cast<std::uint64_t>(std::int64_t{-4096})));
  d.Feed(Call(130, kSiteReset, 0xabc, 3 << 20));
  d.Feed(Call(140, kSiteUpdate, 0xabc, 8192));
  ASSERT_EQ(d.out.size(), 5u);
  EXPECT_EQ(d.out[0].value, 1u << 20);
  EXPECT_EQ(d.out[1].value, (5u << 20) + 8192);
  EXPECT_EQ(d.out[2].value, (5u << 20) + 8192 - 4096);
  EXPECT_EQ(d.out[3].value, 3u << 20);
  EXPECT_EQ(d.out[4].value, (3u << 20) + 8192);
}

// Go 1.19: stopTheWorldWithSema() has no reason and only gcStart's and gcMarkDone's stops
// are traced (mgc.go traceGCSTWStart(1) / (0)); the SCHED walk lacks the frame that called
// systemstack, so the frame after systemstack_switch is gcStart's caller (runtime.GC here)
// or gcMarkDone's (gcBgMarkWorker); stopTheWorld's (called from stopTheWorldGC) writes
// neither begin nor end; a stack that names nothing keeps the STW as "unknown".
TEST(GcDecoder, LegacyStwOnlyTheGcs) {
  Decoder d(/*from_zero=*/true, [](DecoderConfig &c) {
    c.go_minor = 19;
    c.stw_reasons.clear();
    c.func_chain = [](std::uint64_t pc, std::vector<std::string_view> &names) {
      switch (pc) {
        case 0x100: names = {"runtime.systemstack_switch"}; break;
        case 0x200: names = {"runtime.GC"}; break;
        case 0x300: names = {"runtime.gcBgMarkWorker"}; break;
        case 0x400: names = {"runtime.stopTheWorldGC"}; break;
        case 0x500: names = {"main.main"}; break;
        default: break;
      }
    };
  });
  d.Feed(Call(100, kSiteStw, 7, 0, {0x100, 0x200, 0x500}));
  d.Feed(Call(110, kSiteStwDone, 0, 0));
  d.Feed(Call(120, kSiteStw, 7, 0, {0x100, 0x400, 0x500}));
  d.Feed(Call(130, kSiteStwDone, 0, 0));
  d.Feed(Call(140, kSiteStw, 7, 0, {0x100, 0x300}));
  d.Feed(Call(150, kSiteStwDone, 0, 0));
  d.Feed(Call(160, kSiteStw, 7, 0, {}));
  ASSERT_EQ(d.out.size(), 5u);
  EXPECT_EQ(d.out[0].kind, RecordKind::kSTWBegin);
  EXPECT_EQ(d.out[0].reason, "GC sweep termination");
  EXPECT_EQ(d.out[1].kind, RecordKind::kSTWEnd);
  EXPECT_EQ(d.out[1].ts, 110u);
  EXPECT_EQ(d.out[2].reason, "GC mark termination");
  EXPECT_EQ(d.out[3].ts, 150u);
  EXPECT_EQ(d.out[4].reason, "unknown");
}

// GCEnd is stamped where the runtime writes GCDone: gcMarkTermination's
// casgstatus(curgp, _Gwaiting, _Grunning) right before it (mgc.go), not at the entry
// probe; casGToWaitingForSuspendG at the entry and other goroutines' transitions do not
// end it. Without that casgstatus (a lost record) the GCEnd goes out at the thread's
// next GC record, the STWDone of startTheWorldWithSema, and before its STWEnd.
TEST(GcDecoder, GcEndAtMarkTerminationsCasgstatus) {
  Decoder d(/*from_zero=*/true);
  d.Feed(Call(100, kSiteGcDone, 0, 0));
  d.Feed(Cas(105, 1, 2, 4));  // casGToWaitingForSuspendG(curgp, _Grunning, ...)
  d.Feed(Cas(150, 7, 4, 2));  // another goroutine
  d.Feed(Cas(200, 1, 4, 2));  // the one before trace.GCDone()
  d.Feed(Call(210, kSiteStwDone, 0, 0));
  std::vector<std::pair<RecordKind, std::uint64_t>> gc;
  for (const Record &r : d.out)
    if (r.kind == RecordKind::kGCEnd || r.kind == RecordKind::kSTWEnd) gc.emplace_back(r.kind, r.ts);
  const std::vector<std::pair<RecordKind, std::uint64_t>> want = {{RecordKind::kGCEnd, 200},
                                                                   {RecordKind::kSTWEnd, 210}};
  EXPECT_EQ(gc, want);

  Decoder lost(/*from_zero=*/true);
  lost.Feed(Call(100, kSiteGcDone, 0, 0));
  lost.Feed(Call(210, kSiteStwDone, 0, 0));
  ASSERT_EQ(lost.out.size(), 2u);
  EXPECT_EQ(lost.out[0].kind, RecordKind::kGCEnd);
  EXPECT_EQ(lost.out[0].ts, 210u);
  EXPECT_EQ(lost.out[1].kind, RecordKind::kSTWEnd);
  EXPECT_EQ(lost.dec->stats().gc_end_late, 1u);
}

}  // namespace
}  // namespace gotraced::model::testing
