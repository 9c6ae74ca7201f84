// The decoder of GT_REC_USER records (daemon/model/record_decoder_user.cc): raw records
// as bpf/user.bpf.h writes them -> the model's user annotation records.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "daemon/capture/record_view.h"
#include "daemon/model/record_decoder.h"
#include "tests/unit/model/record_builders.h"

namespace gotraced::model {
namespace {

using probes::ProbeRole;

probes::ProbePlan UserPlan() {
  probes::ProbePlan plan;
  plan.name = "test";
  plan.go_minor = 26;
  for (ProbeRole r : {ProbeRole::kUserTaskCreate, ProbeRole::kUserTaskEnd, ProbeRole::kUserRegion, ProbeRole::kUserLog,
                      ProbeRole::kUserStartRegion, ProbeRole::kUserLogf}) {
    probes::ProbeSite s;
    s.id = static_cast<std::uint16_t>(plan.sites.size());
    s.role = r;
    plan.sites.push_back(s);
  }
  return plan;
}
enum : std::uint32_t { kCreate = 0, kEnd = 1, kRegion = 2, kLog = 3, kStartRegion = 4, kLogf = 5 };

struct Raw {
  gt_user_record r{};
  std::vector<std::uint64_t> stack;
  Raw(std::uint64_t ts, std::uint32_t probe, std::uint64_t goid) {
    r.call.h.ts_ns = ts;
    r.call.h.tid = 42;
    r.call.h.kind = GT_REC_USER;
    r.call.ctx.p_id = 0;
    r.call.ctx.p = 0xd000;
    r.call.ctx.curg = 0xc000001000;
    r.call.ctx.curg_goid = goid;
    r.call.probe_id = probe;
  }
  Raw &Args(std::uint64_t a0, std::uint64_t a1 = 0) {
    r.call.args[0] = a0;
    r.call.args[1] = a1;
    return *this;
  }
  Raw &Str(int i, const std::string &s) {
    r.str_len[i] = static_cast<std::uint32_t>(s.size());
    std::memcpy(r.str[i], s.data(), std::min<std::size_t>(s.size(), GT_USER_STR_MAX));
    return *this;
  }
  Raw &Tracing(bool on) {
    r.call.deref[0] = on;
    r.call.deref[1] = 1;
    return *this;
  }
  Raw &Ctx(std::uint64_t task) {  // a *valueCtx whose val is a *Task{id: task}
    r.ctx_words[5] = 0xc000abc000;
    r.ctx_val0 = task;
    return *this;
  }
  std::vector<std::uint8_t> Bytes() {
    stack = {0x4000, 0x4100, 0x4200};
    r.call.has_stack = 1;
    return testing::RawRecord(r, stack, GT_STACK_REGS);
  }
};

struct Fixture {
  probes::ProbePlan plan = UserPlan();
  RecordDecoder dec{[this] {
    DecoderConfig c;
    c.plan = &plan;
    return c;
  }()};
  std::vector<Record> out;
  void Feed(Raw raw) {
    std::vector<std::uint8_t> b = raw.Bytes();
    capture::RecordView v(b.data(), b.size());
    ASSERT_TRUE(v.valid());
    ASSERT_NE(v.user(), nullptr);
    dec.Decode(v, out);
  }
};

// The runtime half: task create/end, region begin/end, log, with ids, strings, the
// running goroutine, the stack and the runtime's skip (tl.stack(3) / (2) minus the
// runtime's own frames).
TEST(RecordDecoderUser, RuntimeSites) {
  Fixture f;
  f.Feed(Raw(100, kCreate, 5).Args(3, 1).Str(0, "request"));
  f.Feed(Raw(110, kRegion, 5).Args(3, 0).Str(0, "work"));
  f.Feed(Raw(120, kLog, 5).Args(3).Str(0, "cat").Str(1, "message"));
  f.Feed(Raw(130, kRegion, 5).Args(3, 1).Str(0, "work"));
  f.Feed(Raw(135, kRegion, 5).Args(3, 7).Str(0, "bad mode"));  // ignored, as the runtime does
  f.Feed(Raw(140, kEnd, 6).Args(3));
  ASSERT_EQ(f.out.size(), 5u);
  const Record &c = f.out[0];
  EXPECT_EQ(c.kind, RecordKind::kUserTaskBegin);
  EXPECT_EQ(c.value, 3u);
  EXPECT_EQ(c.value2, 1u);
  EXPECT_EQ(c.text, "request");
  EXPECT_EQ(c.g, 5u);
  EXPECT_EQ(c.m, 42u);
  EXPECT_EQ(c.ts, 100u);
  EXPECT_EQ(c.stack.size(), 3u);
  EXPECT_EQ(c.stack_skip, 1u);
  EXPECT_EQ(f.out[1].kind, RecordKind::kUserRegionBegin);
  EXPECT_EQ(f.out[1].text, "work");
  EXPECT_EQ(f.out[2].kind, RecordKind::kUserLog);
  EXPECT_EQ(f.out[2].text, "cat");
  EXPECT_EQ(f.out[2].text2, "message");
  EXPECT_EQ(f.out[3].kind, RecordKind::kUserRegionEnd);
  EXPECT_EQ(f.out[4].kind, RecordKind::kUserTaskEnd);
  EXPECT_EQ(f.out[4].value, 3u);
  EXPECT_EQ(f.out[4].g, 6u);
  EXPECT_EQ(f.out[4].stack_skip, 0u);
}

// StartRegion / Logf entries: dropped while the target traces itself (the runtime call
// that follows is the event) or when the flag could not be read; written as logs when
// tracing is off, with the task of the context when it is one this session saw created.
TEST(RecordDecoderUser, PackageSitesDependOnTheTracerFlag) {
  Fixture f;
  f.Feed(Raw(100, kCreate, 5).Args(9, 0).Str(0, "t"));
  f.Feed(Raw(110, kStartRegion, 5).Tracing(true).Ctx(9).Str(0, "inner"));
  f.Feed(Raw(115, kLogf, 5).Ctx(9).Str(0, "c").Str(1, "x=%d"));  // flag unknown
  ASSERT_EQ(f.out.size(), 1u);
  f.Feed(Raw(120, kStartRegion, 5).Tracing(false).Ctx(9).Str(0, "inner"));
  f.Feed(Raw(130, kLogf, 5).Tracing(false).Ctx(9).Str(0, "child").Str(1, "k=%d i=%d"));
  f.Feed(Raw(140, kLogf, 5).Tracing(false).Ctx(77).Str(0, "bg").Str(1, "round %d"));  // unknown task
  ASSERT_EQ(f.out.size(), 4u);
  EXPECT_EQ(f.out[1].kind, RecordKind::kUserLog);
  EXPECT_EQ(f.out[1].value, 9u);
  EXPECT_EQ(f.out[1].text, "trace.StartRegion");
  EXPECT_EQ(f.out[1].text2, "inner");
  EXPECT_EQ(f.out[1].stack_skip, 0u);
  EXPECT_EQ(f.out[2].value, 9u);
  EXPECT_EQ(f.out[2].text, "child");
  EXPECT_EQ(f.out[2].text2, "k=%d i=%d");
  EXPECT_EQ(f.out[3].value, 0u);
  // After the task ends its id is no longer taken from a context.
  f.Feed(Raw(150, kEnd, 5).Args(9));
  f.Feed(Raw(160, kLogf, 5).Tracing(false).Ctx(9).Str(0, "late").Str(1, "m"));
  ASSERT_EQ(f.out.size(), 6u);
  EXPECT_EQ(f.out[5].value, 0u);
}

// Strings longer than the BPF copy are cut at GT_USER_STR_MAX bytes.
TEST(RecordDecoderUser, LongStringsAreCut) {
  Fixture f;
  Raw raw(100, kLog, 5);
  raw.Args(0).Str(0, "c");
  raw.r.str_len[1] = 300;
  std::memset(raw.r.str[1], 'x', GT_USER_STR_MAX);
  f.Feed(raw);
  ASSERT_EQ(f.out.size(), 1u);
  EXPECT_EQ(f.out[0].text2, std::string(GT_USER_STR_MAX, 'x'));
}

}  // namespace
}  // namespace gotraced::model
