// The session's read of pprof label sets as their records come off the ring
// (session/label_prefetch.h) and the reader's answers kept for the model
// (procmem/label_reader.h): a set read at the drain is still told when the model asks
// after its memory was freed and reused; each record of a pointer keeps its own answer; a
// GC cycle's end seen at the drain makes the next record's set be read again.
// Sets are built in this test's memory in Go 1.24+'s layout, read through the reader
// (process_vm_readv on this process), and named by raw records as BPF writes them.
#include "daemon/session/label_prefetch.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <deque>
#include <string>
#include <vector>

#include "daemon/model/record_decoder.h"
#include "daemon/procmem/label_identity.h"
#include "tests/unit/model/record_builders.h"

namespace gotraced::session {
namespace {

using model::testing::RawRecord;

struct GoStr {
  std::uint64_t ptr, len;
};

std::uint64_t Addr(const void *p) { return reinterpret_cast<std::uint64_t>(p); }
std::uint64_t Word(std::uint64_t addr) {
  std::uint64_t v;
  std::memcpy(&v, reinterpret_cast<const void *>(addr), 8);
  return v;
}

// A Go 1.24+ set: g.labels -> slice header -> array of {key, value} pairs.
struct SliceSet {
  std::deque<std::string> strs;
  std::vector<GoStr> kv;
  std::array<std::uint64_t, 3> hdr{};
  SliceSet(std::vector<std::string> words) {
    for (std::string &w : words) {
      strs.push_back(std::move(w));
      kv.push_back({Addr(strs.back().data()), strs.back().size()});
    }
    hdr = {Addr(kv.data()), kv.size() / 2, kv.size() / 2};
  }
  std::uint64_t ptr() const { return Addr(hdr.data()); }
  // The memory reused by other words (the HTTP bench's reply did that to a freed set).
  void Reuse(std::vector<std::string> words) {
    for (std::size_t i = 0; i < words.size(); ++i) {
      strs.push_back(std::move(words[i]));
      kv[i] = {Addr(strs.back().data()), strs.back().size()};
    }
  }
  // What bpf/gt_labels.bpf.h copies with the pointer, now.
  gt_labels_id Id() const {
    const auto off = procmem::LabelIdOffsets(procmem::LabelRepr::kSlice);
    gt_labels_id id{};
    id.w[0] = Word(ptr());
    id.w[1] = procmem::LabelIdHead(procmem::LabelRepr::kSlice) == 16 ? Word(ptr() + 8) : 0;
    id.w[2] = Word(id.w[0] + off[0]);
    id.w[3] = Word(id.w[0] + off[1]);
    return id;
  }
};

constexpr int kMinor = 26;
enum : std::uint32_t { kCasSite, kEnterSite, kGcDoneSite };

probes::ProbePlan Plan() {
  probes::ProbePlan plan;
  plan.go_minor = kMinor;
  plan.offsets.g_labels = 0x100;
  for (probes::ProbeRole role :
       {probes::ProbeRole::kCasgstatus, probes::ProbeRole::kEnterSyscall, probes::ProbeRole::kGCDone}) {
    probes::ProbeSite s;
    s.id = static_cast<std::uint16_t>(plan.sites.size());
    s.role = role;
    plan.sites.push_back(s);
  }
  return plan;
}

void Header(gt_record_header &h, gt_record_kind k, std::uint64_t ts) {
  h.ts_ns = ts;
  h.tgid = 1;
  h.tid = 1;
  h.kind = static_cast<std::uint16_t>(k);
}

std::vector<std::uint8_t> Gstatus(std::uint64_t ts, std::uint64_t labels, const gt_labels_id &id) {
  gt_gstatus_record r{};
  Header(r.h, GT_REC_GSTATUS, ts);
  r.goid = 7;
  r.oldval = 1;
  r.newval = 2;
  r.labels = labels;
  r.labels_id = id;
  return RawRecord(r);
}

std::vector<std::uint8_t> Call(std::uint64_t ts, std::uint32_t site, std::uint32_t flags, std::uint64_t labels,
                               const gt_labels_id &id) {
  gt_call_record r{};
  Header(r.h, GT_REC_CALL, ts);
  r.probe_id = site;
  r.flags = flags;
  r.args[5] = labels;
  r.labels_id = id;
  return RawRecord(r);
}

std::vector<std::uint8_t> CpuSample(std::uint64_t ts, std::uint64_t goid, std::uint64_t labels, const gt_labels_id &id) {
  gt_cpu_sample_record r{};
  Header(r.h, GT_REC_CPU_SAMPLE, ts);
  r.curg_goid = goid;
  r.labels = labels;
  r.labels_id = id;
  return RawRecord(r, {0x401000}, GT_STACK_USER);  // a sample always carries its stack
}

struct Fixture {
  probes::ProbePlan plan = Plan();
  procmem::LabelReader reader{getpid(), kMinor};
  LabelPrefetch prefetch{reader, plan, kMinor};
  void Read(const std::vector<std::uint8_t> &bytes) {
    capture::RecordView v(bytes.data(), bytes.size());
    ASSERT_TRUE(v.valid());
    prefetch.OnRead(v);
  }
  // What the model asks with the decoder's Record::value2 (record_decoder.cc LabelsId).
  std::optional<std::string_view> Ask(std::uint64_t ptr, const gt_labels_id &id) {
    return reader.Text(ptr, model::LabelsId(kMinor, ptr, id));
  }
};

// The bench's case: a request's set named by a record, freed and reused before the model
// reaches the record. Read at the drain, it is told; read when asked, it was dropped.
TEST(LabelPrefetch, ASetReadAtTheRingIsToldAfterItsMemoryIsReused) {
  SliceSet set({"route", "/api/orders", "shard", "3"});
  const gt_labels_id id = set.Id();
  Fixture f;
  f.Read(Gstatus(100, set.ptr(), id));
  EXPECT_EQ(f.reader.stats().prefetched, 1u);
  EXPECT_EQ(f.reader.stats().reads, 1u);
  set.Reuse({"alpha", "beta", "gamma", "7"});
  auto t = f.Ask(set.ptr(), id);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, "route=/api/orders shard=3");
  EXPECT_EQ(f.reader.stats().reads, 1u);  // answered from the drain's read
  EXPECT_EQ(f.reader.stats().stale, 0u);

  // Without the prefetch (the replay, tests) the model's own read finds the reuse.
  SliceSet late({"route", "/api/search", "shard", "4"});
  const gt_labels_id late_id = late.Id();
  late.Reuse({"alpha", "beta", "gamma", "8"});
  EXPECT_FALSE(f.Ask(late.ptr(), late_id).has_value());
  EXPECT_EQ(f.reader.stats().stale, 1u);
}

// One pointer, two sets (the first freed and its memory taken by the next request's set)
// within one drain: each record keeps its own answer until the model asks.
TEST(LabelPrefetch, EachRecordOfAReusedPointerKeepsItsAnswer) {
  SliceSet set({"route", "/api/orders", "shard", "3"});
  const gt_labels_id first = set.Id();
  Fixture f;
  f.Read(Gstatus(100, set.ptr(), first));
  set.Reuse({"route", "/api/static", "shard", "5"});
  const gt_labels_id second = set.Id();
  ASSERT_NE(model::LabelsId(kMinor, set.ptr(), first), model::LabelsId(kMinor, set.ptr(), second));
  f.Read(Gstatus(200, set.ptr(), second));
  f.Read(Gstatus(300, set.ptr(), second));  // the same set again: not read again
  EXPECT_EQ(f.reader.stats().reads, 2u);
  auto t = f.Ask(set.ptr(), first);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, "route=/api/orders shard=3");
  t = f.Ask(set.ptr(), second);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, "route=/api/static shard=5");
  // A set already gone at the drain stays "cannot be told", asked however often.
  set.Reuse({"route", "/api/search", "shard", "6"});
  const gt_labels_id third = set.Id();
  set.Reuse({"alpha", "beta", "gamma", "9"});
  f.Read(Gstatus(400, set.ptr(), third));
  EXPECT_FALSE(f.Ask(set.ptr(), third).has_value());
  EXPECT_FALSE(f.Ask(set.ptr(), third).has_value());
  EXPECT_EQ(f.reader.stats().stale, 1u);
}

// A GC cycle's end off the ring: a record after it is read again (freed memory may hold
// another set the identity cannot tell apart, label_identity.h); a record before it keeps
// the answer read for it. The model's Forget, later, changes nothing then.
TEST(LabelPrefetch, AGcEndAtTheRingMakesLaterRecordsReadAgain) {
  SliceSet set({"route", "/api/orders", "shard", "3"});
  const gt_labels_id id = set.Id();
  Fixture f;
  f.Read(Gstatus(100, set.ptr(), id));
  f.Read(Call(150, kGcDoneSite, 0, 0, {}));
  f.Read(Gstatus(200, set.ptr(), id));
  EXPECT_EQ(f.reader.stats().reads, 2u);
  f.reader.Forget();  // the model reaching the GC end
  auto t = f.Ask(set.ptr(), id);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, "route=/api/orders shard=3");
  EXPECT_EQ(f.reader.stats().reads, 2u);
}

// Which records name a set: a syscall entry only from the sys_enter tracepoint (args[5] is
// g.labels there alone), a CPU sample only with a goroutine; none when g.labels is not
// read; a pointer of 0 is no set.
TEST(LabelPrefetch, WhichRecordsNameASet) {
  SliceSet set({"route", "/api/orders", "shard", "1"});
  const gt_labels_id id = set.Id();
  Fixture f;
  f.Read(Call(100, kEnterSite, 0, set.ptr(), id));  // an entersyscall uprobe: args[5] is no pointer
  f.Read(CpuSample(110, 0, set.ptr(), id));         // on g0: no goroutine
  f.Read(Gstatus(120, 0, {}));
  EXPECT_EQ(f.reader.stats().prefetched, 0u);
  f.Read(Call(130, kEnterSite, GT_CALL_FROM_TRACEPOINT, set.ptr(), id));
  EXPECT_EQ(f.reader.stats().prefetched, 1u);
  f.Read(Call(140, kGcDoneSite, 0, 0, {}));
  f.Read(CpuSample(150, 7, set.ptr(), id));
  EXPECT_EQ(f.reader.stats().prefetched, 2u);
  auto t = f.Ask(set.ptr(), id);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(*t, "route=/api/orders shard=1");

  Fixture off;
  off.plan.offsets.g_labels = -1;  // --no-labels
  off.Read(Gstatus(100, set.ptr(), id));
  EXPECT_EQ(off.reader.stats().prefetched, 0u);
}

}  // namespace
}  // namespace gotraced::session
