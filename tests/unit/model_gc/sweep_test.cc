// GC sweeps: the decoder's brackets (record_decoder_gc.cc: kGCSweepStart/Span/Done/Chunk
// sites) and the model's P-bound range (model_gc.cc, GCSweepActive at generation starts),
// with Go's parser as the judge (order.go advanceGCSweepBegin/Active/End).
#include <gtest/gtest.h>

#include <cstring>

#include "daemon/model/record_decoder.h"
#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

// Two sweeps on two Ps; the second spans two generation cuts: each new generation states
// it with GCSweepActive after the P's status (tracestatus.go writeProcStatus), so the
// reader (and a flight-recorder window that starts there) accepts its end.
TEST(ModelSweep, RangesOnPsAcrossGenerations) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(105, 1, 0, kNoG, 1),
      RGoStart(110, 1, 0, 1),
      RProcStart(112, 2, 1),
      RGoCreate(113, 2, 1, kNoG, 2),
      RGoStart(114, 2, 1, 2),
      RGc(RecordKind::kGCSweepBegin, 120, 1, 0, 1),
      RGc(RecordKind::kGCSweepEnd, 130, 1, 0, 1, 8192),
      RGc(RecordKind::kGCSweepBegin, 140, 2, 1, 2),
  });
  h.model.CutGeneration(200);
  h.model.CutGeneration(300);
  h.PushAll({
      RGc(RecordKind::kGCSweepEnd, 310, 2, 1, 2, 3 * 8192),
      RGoEnd(400, 1, 0, 1),
      RGoEnd(410, 2, 1, 2),
  });
  CheckResult res = h.Finish("gc-sweep");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("ranges", "GC incremental sweep"), 2);
  EXPECT_EQ(res.Int("range_actives", "GC incremental sweep"), 2);
  EXPECT_EQ(res.Int("range_ends", "GC incremental sweep"), 2);
  const ModelStats s = h.model.stats();
  EXPECT_EQ(s.gc_events, 4u);
  EXPECT_EQ(s.gc_dropped, 0u);
}

// An end with no sweep open on the M's P is dropped (the reader would reject it); a begin
// while one is open (its end was lost) closes the open one first, as a repair.
TEST(ModelSweep, LostRecords) {
  Harness h;
  h.PushAll({
      RProcStart(100, 1, 0),
      RGoCreate(105, 1, 0, kNoG, 1),
      RGoStart(110, 1, 0, 1),
      RGc(RecordKind::kGCSweepEnd, 115, 1, 0, 1, 8192),
      RGc(RecordKind::kGCSweepBegin, 120, 1, 0, 1),
      RGc(RecordKind::kGCSweepBegin, 130, 1, 0, 1),
      RGc(RecordKind::kGCSweepEnd, 140, 1, 0, 1, 8192),
      RGoEnd(400, 1, 0, 1),
  });
  CheckResult res = h.Finish("gc-sweep-lost");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("ranges", "GC incremental sweep"), 2);
  EXPECT_EQ(res.Int("range_ends", "GC incremental sweep"), 2);
  const ModelStats s = h.model.stats();
  EXPECT_EQ(s.gc_dropped, 1u);
  EXPECT_EQ(s.repair_events, 1u);
}

// ---- decoder ----

enum : std::uint32_t { kSiteStart, kSiteSpan, kSiteDone, kSiteChunk };

probes::ProbePlan Plan() {
  probes::ProbePlan plan;
  plan.name = "test";
  plan.go_minor = 26;
  for (probes::ProbeRole role : {probes::ProbeRole::kGCSweepStart, probes::ProbeRole::kGCSweepSpan,
                                 probes::ProbeRole::kGCSweepDone, probes::ProbeRole::kGCSweepChunk}) {
    probes::ProbeSite s;
    s.id = static_cast<std::uint16_t>(plan.sites.size());
    s.role = role;
    plan.sites.push_back(s);
  }
  return plan;
}

// A hit of `site` on thread tid (P 0 or 1); for span sites, the span's npages, nfreed (the
// register BPF copied: only its low 16 bits are nfreed) and elemsize.
std::vector<std::uint8_t> Hit(std::uint64_t ts, std::uint32_t tid, std::uint32_t site, std::uint64_t npages = 0,
                              std::uint64_t nfreed_reg = 0, std::uint64_t elemsize = 0) {
  gt_call_record r{};
  r.h.ts_ns = ts;
  r.h.tgid = 1;
  r.h.tid = tid;
  r.h.kind = GT_REC_CALL;
  r.ctx.p_id = static_cast<std::int32_t>(tid - 101);
  r.ctx.p = 0xd000 + tid;
  r.ctx.curg = 0xc000000100;
  r.ctx.curg_goid = 1;
  r.probe_id = site;
  r.flags = site == kSiteSpan ? GT_CALL_SPAN_REGS | GT_CALL_SWEEP_IN : 0;
  r.deref[0] = npages;
  r.deref[1] = nfreed_reg;
  r.deref[3] = elemsize;
  return {reinterpret_cast<const std::uint8_t *>(&r), reinterpret_cast<const std::uint8_t *>(&r) + sizeof r};
}

struct Decoder {
  Decoder() {
    DecoderConfig c;
    c.plan = &plan;
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

// traceruntime.go: GCSweepBegin at the first span swept inside a Start/Done bracket,
// GCSweepEnd(swept, reclaimed) at Done iff a span was swept. BPF records spans only inside
// a bracket and a Done only after one (GT_CALL_SWEEP_*), and no Start: the decoder's
// bracket is the thread's spans up to its Done; brackets are per thread.
TEST(SweepDecoder, Brackets) {
  Decoder d;
  d.Feed(Hit(110, 101, kSiteStart));    // not written by BPF; ignored if it were
  d.Feed(Hit(120, 101, kSiteSpan, 1, 0xabcd0003, 48));  // 3 objects of 48 bytes freed
  d.Feed(Hit(130, 101, kSiteSpan, 2, 0, 1024));         // none freed
  d.Feed(Hit(140, 101, kSiteDone));
  d.Feed(Hit(170, 102, kSiteChunk));    // reclaim: an empty chunk begins the range
  d.Feed(Hit(180, 102, kSiteSpan, 10, 1, 10 * 8192));  // a freed large span in the next chunk
  d.Feed(Hit(185, 102, kSiteChunk));    // + 502 pages scanned, not freed
  d.Feed(Hit(190, 102, kSiteDone));
  d.Feed(Hit(200, 101, kSiteSpan, 4, 2, 16));  // thread 101's next bracket starts afresh
  d.Feed(Hit(210, 101, kSiteDone));
  ASSERT_EQ(d.out.size(), 6u);
  EXPECT_EQ(d.out[0].kind, RecordKind::kGCSweepBegin);
  EXPECT_EQ(d.out[0].ts, 120u);
  EXPECT_EQ(d.out[0].p, 0);
  EXPECT_EQ(d.out[1].kind, RecordKind::kGCSweepEnd);
  EXPECT_EQ(d.out[1].ts, 140u);
  EXPECT_EQ(d.out[1].value, 3u * 8192);
  EXPECT_EQ(d.out[1].value2, 3u * 48);
  EXPECT_EQ(d.out[2].kind, RecordKind::kGCSweepBegin);
  EXPECT_EQ(d.out[2].ts, 170u);
  EXPECT_EQ(d.out[2].p, 1);
  EXPECT_EQ(d.out[3].kind, RecordKind::kGCSweepEnd);
  EXPECT_EQ(d.out[3].value, (512u + 10u + 502u) * 8192);
  EXPECT_EQ(d.out[3].value2, 10u * 8192);
  EXPECT_EQ(d.out[4].ts, 200u);
  EXPECT_EQ(d.out[5].value, 4u * 8192);
  EXPECT_EQ(d.out[5].value2, 2u * 16);
}

// GCSweepBegin's stack (traceruntime.go GCSweepSpan: tl.stack(1)). On the goroutine's own
// stack our walk starts at sweep's caller: the plan's prefix (return addresses in
// GCSweepSpan and in sweep, link-time + load bias) goes first, then its skip. On the
// system stack (reclaim) the walk is curg.sched's, skip 1, for a chunk as for a span.
TEST(SweepDecoder, BeginStacks) {
  Decoder d;
  d.plan.sweep_begin_prefix = {0x1000, 0x2000};
  d.plan.sweep_begin_skip = 1;
  DecoderConfig c;
  c.plan = &d.plan;
  c.load_bias = 0x10;
  d.dec = std::make_unique<RecordDecoder>(std::move(c));
  auto with_stack = [](std::vector<std::uint8_t> bytes, std::vector<std::uint64_t> pcs, std::uint8_t source) {
    gt_call_record r;
    std::memcpy(&r, bytes.data(), sizeof r);
    r.has_stack = 1;
    r.flags |= GT_CALL_STACK;
    return RawRecord(r, pcs, source);
  };
  d.Feed(with_stack(Hit(100, 101, kSiteSpan, 1), {0x3000, 0x4000}, GT_STACK_REGS));
  d.Feed(Hit(110, 101, kSiteDone));
  d.Feed(with_stack(Hit(120, 102, kSiteChunk), {0x5000, 0x6000}, GT_STACK_SCHED));
  d.Feed(Hit(130, 102, kSiteDone));
  ASSERT_EQ(d.out.size(), 4u);
  EXPECT_EQ(d.out[0].kind, RecordKind::kGCSweepBegin);
  EXPECT_EQ(d.out[0].stack, (std::vector<std::uint64_t>{0x1010, 0x2010, 0x3000, 0x4000}));
  EXPECT_EQ(d.out[0].stack_skip, 1u);
  EXPECT_EQ(d.out[2].kind, RecordKind::kGCSweepBegin);
  EXPECT_EQ(d.out[2].stack, (std::vector<std::uint64_t>{0x5000, 0x6000}));
  EXPECT_EQ(d.out[2].stack_skip, 1u);
}

}  // namespace
}  // namespace gotraced::model::testing
