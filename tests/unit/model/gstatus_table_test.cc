// gstatus_table.h: the casgstatus decisions as data. One test per row (GstatusTable/GstatusRow.Decides/<row>):
// the row is the one Lookup finds at both ends of its Go range, its decision is the one
// written down here from the runtime (kExpected: an independent copy, so an edit of the
// table shows up as a failing row), and a casgstatus record from that caller, at that
// version, decodes to exactly that (RecordDecoder::DecodeGstatus follows the table).
// Plus a test per caller name (GstatusTable/CallerName) and compile-time checks.
#include <gtest/gtest.h>

#include <cctype>
#include <cstring>
#include <map>
#include <string>

#include "daemon/model/gstatus_table.h"
#include "daemon/model/record_decoder.h"
#include "tests/unit/model/record_builders.h"

namespace gotraced::model::testing {
namespace {

using namespace gstatus;

// The table's own invariants (gstatus_table.h asserts them too; here they are the test).
static_assert(NoOverlappingRows(), "no two rows decide the same (site, old, new, minor)");
static_assert(EverySiteHasARow(), "every Site has a row");
static_assert(RowsAreWellFormed());
static_assert(NoDuplicateNames());
// A few decisions at compile time (docs/model.md §3.1/§3.2).
static_assert(Lookup(Site::kNewproc1, kGdead, kGrunnable, 19)->skip == 1);  // gcallers, newproc absent
static_assert(Lookup(Site::kNewproc1, kGdead, kGrunnable, 22)->skip == 2);  // tl.stack(2)
static_assert(Lookup(Site::kGosched, kGrunning, kGrunnable, 23)->skip == 1);
static_assert(Lookup(Site::kGosched, kGrunning, kGrunnable, 26)->skip == 0);  // GoStop tl.stack(0)
static_assert(Lookup(Site::kEntersyscallBlock, kGrunning, kGsyscall, 22)->skip == 2);
static_assert(Lookup(Site::kReentersyscall, kGrunning, kGsyscall, 26)->action == Action::kIgnore);
static_assert(Lookup(Site::kExecute, kGrunning, kGrunnable, 26) == nullptr);  // not a trace call
static_assert(Lookup(Site::kExitSyscallSlow, kGsyscall, kGrunnable, 23) ==
              Lookup(Site::kExitSyscallSlow, kGrunning, kGrunnable, 26));  // exitsyscall0 / NoP
constexpr std::string_view kGoschedInlined[] = {"runtime.goschedImpl", "runtime.gosched_m"};
constexpr std::string_view kPreemptInlined[] = {"runtime.goschedImpl", "runtime.gopreempt_m"};
constexpr std::string_view kClosure[] = {"runtime.debugCallWrap1.func1"};
static_assert(SiteOf(kGoschedInlined) == Site::kGosched);
static_assert(SiteOf(kPreemptInlined) == Site::kGopreempt);
static_assert(SiteOf(kClosure) == Site::kDebugCall);
static_assert(SiteOf({}) == Site::kUnknown);

constexpr int kNewestMinor = 27;

std::string Minor(std::uint8_t m) { return m == kLatest ? std::string("latest") : std::to_string(m); }

std::string RowName(const Row &r) {
  return std::string(SiteName(r.site)) + "_" + std::string(StatusName(r.old_status)) + "_" +
         std::string(StatusName(r.new_status)) + "_go1_" + Minor(r.min_minor) + "_" + Minor(r.max_minor);
}

// What each row must say, written from the runtime (proc.go / traceruntime.go of the
// versions, docs/model.md §3): action, kind, skip (kSkipFromArgument: the runtime's
// argument), stack kept, handler.
struct Expect {
  Action action;
  RecordKind kind;
  std::uint8_t skip;
  bool stack;
  Handler handler;
};
constexpr Expect kIgnored{Action::kIgnore, RecordKind::kGoStart, 0, false, Handler::kNone};
using RK = RecordKind;
using H = Handler;
constexpr std::uint8_t kArg = kSkipFromArgument;

const std::map<std::string, Expect> kExpected = {
    {"newproc1_Gdead_Grunnable_go1_0_19", {Action::kHandle, RK::kGoCreate, 1, true, H::kCreateFromGoidCache}},
    {"newproc1_Gdead_Grunnable_go1_20_23", {Action::kHandle, RK::kGoCreate, 2, true, H::kCreateFromGoidCache}},
    {"newproc1_Gdead_Grunnable_go1_24_latest", {Action::kHandle, RK::kGoCreate, 2, true, H::kCreate}},
    {"newproc1_Gdead_Gwaiting_go1_0_19", {Action::kHandle, RK::kGoCreate, 1, true, H::kCreateFromGoidCache}},
    {"newproc1_Gdead_Gwaiting_go1_20_23", {Action::kHandle, RK::kGoCreate, 2, true, H::kCreateFromGoidCache}},
    {"newproc1_Gdead_Gwaiting_go1_24_latest", {Action::kHandle, RK::kGoCreate, 2, true, H::kCreate}},
    {"execute_Grunnable_Grunning_go1_0_latest", {Action::kEmit, RK::kGoStart, 0, false, H::kNone}},
    {"park_m_Grunning_Gwaiting_go1_0_21", {Action::kHandle, RK::kGoBlock, kArg, true, H::kParkLegacy}},
    {"park_m_Grunning_Gwaiting_go1_22_latest", {Action::kHandle, RK::kGoBlock, kArg, true, H::kPark}},
    {"park_m_Gwaiting_Grunnable_go1_0_latest", {Action::kEmit, RK::kGoUnblock, 0, false, H::kNone}},
    {"goschedImpl_Grunning_Grunnable_go1_0_23", {Action::kHandle, RK::kGoStop, 1, true, H::kGoStopReasonFromStack}},
    {"goschedImpl_Grunning_Grunnable_go1_24_25", {Action::kHandle, RK::kGoStop, 1, true, H::kGoStopReasonFromStack}},
    {"goschedImpl_Grunning_Grunnable_go1_26_latest",
     {Action::kHandle, RK::kGoStop, 0, true, H::kGoStopReasonFromStack}},
    {"gosched_m_Grunning_Grunnable_go1_0_25", {Action::kHandle, RK::kGoStop, 1, true, H::kGoStop}},
    {"gosched_m_Grunning_Grunnable_go1_26_latest", {Action::kHandle, RK::kGoStop, 0, true, H::kGoStop}},
    {"gopreempt_m_Grunning_Grunnable_go1_0_23", {Action::kHandle, RK::kGoStop, 1, true, H::kGoStop}},
    {"gopreempt_m_Grunning_Grunnable_go1_24_25", {Action::kHandle, RK::kGoStop, 1, true, H::kGoStop}},
    {"gopreempt_m_Grunning_Grunnable_go1_26_latest", {Action::kHandle, RK::kGoStop, 0, true, H::kGoStop}},
    {"goyield_m_Grunning_Grunnable_go1_0_23", {Action::kHandle, RK::kGoStop, 1, true, H::kGoStop}},
    {"goyield_m_Grunning_Grunnable_go1_24_25", {Action::kHandle, RK::kGoStop, 1, true, H::kGoStop}},
    {"goyield_m_Grunning_Grunnable_go1_26_latest", {Action::kHandle, RK::kGoStop, 0, true, H::kGoStop}},
    {"gdestroy_Grunning_Gdead_go1_0_latest", {Action::kEmit, RK::kGoEnd, 0, false, H::kNone}},
    {"reentersyscall_Grunning_Gsyscall_go1_0_25", {Action::kHandle, RK::kGoSyscallBegin, 1, true, H::kSyscallBegin}},
    {"reentersyscall_Grunning_Gsyscall_go1_26_latest", kIgnored},
    {"entersyscallblock_Grunning_Gsyscall_go1_0_21",
     {Action::kHandle, RK::kGoSyscallBegin, 1, true, H::kSyscallBegin}},
    {"entersyscallblock_Grunning_Gsyscall_go1_22_22",
     {Action::kHandle, RK::kGoSyscallBegin, 2, true, H::kSyscallBegin}},
    {"entersyscallblock_Grunning_Gsyscall_go1_23_25",
     {Action::kHandle, RK::kGoSyscallBegin, 1, true, H::kSyscallBegin}},
    {"entersyscallblock_Grunning_Gsyscall_go1_26_latest",
     {Action::kHandle, RK::kGoSyscallBegin, 1, true, H::kSyscallBeginUnlessEntryProbed}},
    {"exitsyscall_Gsyscall_Grunning_go1_0_25", {Action::kHandle, RK::kGoSyscallEnd, 0, false, H::kExitSyscallFast}},
    {"exitsyscall_Gsyscall_Grunning_go1_26_latest", kIgnored},
    {"exitsyscallNoP_any_Grunnable_go1_0_latest",
     {Action::kHandle, RK::kGoSyscallEndBlocked, 0, false, H::kExitSyscallNoP}},
    {"ready_Gwaiting_Grunnable_go1_0_latest", {Action::kHandle, RK::kGoUnblock, kArg, true, H::kReadyTraceskip}},
    {"unpark_noskip_Gwaiting_Grunnable_go1_0_latest", {Action::kEmit, RK::kGoUnblock, 0, true, H::kNone}},
    {"debugCallWrap_Grunning_Gwaiting_go1_0_latest", {Action::kEmit, RK::kGoBlock, 1, true, H::kNone}},
    {"debugCallWrap_Gwaiting_Grunnable_go1_0_latest", {Action::kEmit, RK::kGoUnblock, 0, true, H::kNone}},
    {"debugCallWrap_Grunning_Grunnable_go1_0_25", {Action::kHandle, RK::kGoStop, 1, true, H::kGoStop}},
    {"debugCallWrap_Grunning_Grunnable_go1_26_latest", {Action::kHandle, RK::kGoStop, 0, true, H::kGoStop}},
    {"needm_any_Gsyscall_go1_0_latest", {Action::kEmit, RK::kGoCreateSyscall, 0, false, H::kNone}},
    {"dropm_Gsyscall_Gdead_go1_0_latest", {Action::kEmit, RK::kGoDestroySyscall, 0, false, H::kNone}},
    {"dropm_Gsyscall_Gdeadextra_go1_0_latest", {Action::kEmit, RK::kGoDestroySyscall, 0, false, H::kNone}},
    {"coroswitch_m_any_any_go1_0_latest", kIgnored},
    {"ignore_any_any_go1_0_latest", kIgnored},
    {"unknown_any_any_go1_0_latest", {Action::kUnclassified, RK::kGoStart, 0, false, H::kNone}},
};

// A concrete status for a row's (possibly wildcard) status.
std::uint32_t Concrete(std::uint32_t s, std::uint32_t any) { return s == kAnyStatus ? any : s; }

// A function name the decoder classifies as `site` (innermost first).
std::vector<std::string_view> ChainOf(Site site) {
  if (site == Site::kUnknown) return {"main.mystery"};
  for (const InlinedInto &in : kInlinedInto)
    if (in.site == site) return {"runtime.goschedImpl", in.outer};
  for (const CallerSite &c : kCallerSites)
    if (c.site == site) return {c.name};
  return {};
}

constexpr std::uint64_t kCaller = 0x1000;
constexpr std::uint64_t kStackTop = 0x2500;  // "main.main"
constexpr std::uint64_t kSchedSpWord = 0x2400;  // *(gp.sched.sp): morestack's caller

// One casgstatus(gp=goid 5, oldv, newv) record from a caller of `site` on M 101 (P 0, curg
// goid 1), through a fresh decoder of Go 1.<minor>.
struct Decoded {
  std::vector<Record> out;
  DecoderStats stats;
};
Decoded DecodeOne(Site site, std::uint32_t oldv, std::uint32_t newv, int minor) {
  probes::ProbePlan plan;  // no entersyscallblock entry probe, no ready spill
  const std::vector<std::string_view> chain = ChainOf(site);
  DecoderConfig c;
  c.go_minor = minor;
  c.plan = &plan;
  c.block_reasons = {"unspecified", "forever", "network", "select"};
  c.func_chain = [chain](std::uint64_t pc, std::vector<std::string_view> &names) {
    if (pc == kCaller) names.insert(names.end(), chain.begin(), chain.end());
    if (pc == kStackTop) names.push_back("main.main");
  };
  RecordDecoder dec(std::move(c));
  gt_gstatus_record r{};
  r.h.ts_ns = 100;
  r.h.tgid = 1;
  r.h.tid = 101;
  r.h.kind = GT_REC_GSTATUS;
  r.ctx.p_id = 0;
  r.ctx.p = 0xd000;
  r.ctx.curg = 0xc000000100;
  r.ctx.curg_goid = 1;
  r.ctx.caller_pc = kCaller;
  r.ctx.m = 0xe000;
  r.ctx.p_syscalltick = 7;
  r.ctx.m_syscalltick = 6;  // exitsyscall: the P's tick moved by exactly its own ++
  if (site == Site::kExitSyscall) r.ctx.p_id = -1;  // and no P held at the entry either
  r.gp = 0xc000000500;
  r.goid = 5;
  r.oldval = oldv;
  r.newval = newv;
  r.startpc = 0x3005;
  r.p_goidcache = 5;  // Go <= 1.23's create: the id from the P's cache
  r.p_goidcacheend = 16;
  r.m_block_reason = 3;
  r.m_trace_skip = 3;
  r.has_stack = 1;
  std::vector<std::uint8_t> bytes = RawRecord(r, {kStackTop}, GT_STACK_SCHED);
  gt_stack_tail t;
  std::memcpy(&t, bytes.data() + sizeof r, sizeof t);
  t.sched_sp_word = kSchedSpWord;
  std::memcpy(bytes.data() + sizeof r, &t, sizeof t);
  capture::RecordView v(bytes.data(), bytes.size());
  Decoded d;
  dec.Decode(v, d.out);
  d.stats = dec.stats();
  return d;
}

class GstatusRow : public ::testing::TestWithParam<std::size_t> {};

TEST_P(GstatusRow, Decides) {
  const Row &row = kRows[GetParam()];
  const std::uint32_t oldv = Concrete(row.old_status, kGrunning), newv = Concrete(row.new_status, kGwaiting);
  const int hi = row.max_minor == kLatest ? kNewestMinor : row.max_minor;
  // The row is what Lookup finds, at both ends of its range.
  for (int minor : {static_cast<int>(row.min_minor), hi})
    EXPECT_EQ(Lookup(row.site, oldv, newv, minor), &row) << "go1." << minor;

  // Its decision is the one written down from the runtime.
  auto e = kExpected.find(RowName(row));
  ASSERT_NE(e, kExpected.end()) << RowName(row) << " (" << row.why << ") has no expectation";
  const Expect &x = e->second;
  EXPECT_EQ(row.action, x.action);
  if (x.action == Action::kEmit || x.action == Action::kHandle) {
    EXPECT_EQ(RecordKindName(row.kind), RecordKindName(x.kind));
  }
  EXPECT_EQ(row.skip, x.skip);
  EXPECT_EQ(row.keep_stack, x.stack);
  EXPECT_EQ(HandlerName(row.handler), HandlerName(x.handler));
  EXPECT_FALSE(row.why.empty());

  // And the decoder does it: one record from that caller, at each end of the range.
  for (int minor : {static_cast<int>(row.min_minor), hi}) {
    SCOPED_TRACE("go1." + std::to_string(minor));
    Decoded d = DecodeOne(row.site, oldv, newv, minor);
    switch (row.action) {
      case Action::kIgnore:
        EXPECT_TRUE(d.out.empty());
        EXPECT_EQ(d.stats.ignored, 1u);
        EXPECT_EQ(d.stats.unclassified, 0u);
        break;
      case Action::kUnclassified:
        EXPECT_TRUE(d.out.empty());
        EXPECT_EQ(d.stats.unclassified, 1u);
        EXPECT_EQ(d.stats.ignored, 0u);
        EXPECT_EQ(d.stats.unclassified_callers.count("main.mystery"), 1u);
        break;
      case Action::kEmit:
      case Action::kHandle: {
        ASSERT_EQ(d.out.size(), 1u);
        const Record &r = d.out[0];
        EXPECT_EQ(RecordKindName(r.kind), RecordKindName(row.kind));
        EXPECT_EQ(d.stats.ignored + d.stats.unclassified, 0u);
        // The skip: the row's, or the runtime's argument (park_m: m.waitTraceSkip = 3;
        // ready: estimated from a stack that starts in user code, 0).
        const std::uint32_t want_skip =
            row.skip != kSkipFromArgument ? row.skip : (row.handler == Handler::kReadyTraceskip ? 0u : 3u);
        EXPECT_EQ(r.stack_skip, want_skip);
        // A preempted goroutine whose stack top is no asyncPreempt2 stopped in morestack:
        // Go 1.24+ rows insert *(gp.sched.sp) as its second PC.
        std::vector<std::uint64_t> want_stack;
        if (row.keep_stack) want_stack.push_back(kStackTop);
        if (row.sync_safe_point && r.reason == kStopPreempted) want_stack.push_back(kSchedSpWord);
        EXPECT_EQ(r.stack, want_stack);
        switch (row.subject) {
          case Subject::kCurg: EXPECT_EQ(r.g, 5u); break;
          case Subject::kTarget:
            EXPECT_EQ(r.target_g, 5u);
            EXPECT_EQ(r.g, 1u);
            break;
          case Subject::kTargetOffM:
            EXPECT_EQ(r.target_g, 5u);
            EXPECT_EQ(r.g, kNoG);
            break;
          case Subject::kNoRecord: ADD_FAILURE() << "a record row without a subject"; break;
        }
        if (!row.reason.empty()) {
          EXPECT_EQ(r.reason, row.reason);
        }
        break;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(GstatusTable, GstatusRow, ::testing::Range<std::size_t>(0, kRows.size()),
                         [](const ::testing::TestParamInfo<std::size_t> &i) { return RowName(kRows[i.param]); });

// Every expectation names a row (none left over from a row that was removed or renamed).
TEST(GstatusTable, EveryExpectationHasItsRow) {
  for (const auto &[name, x] : kExpected) {
    bool found = false;
    for (const Row &r : kRows) found = found || RowName(r) == name;
    EXPECT_TRUE(found) << name;
  }
  EXPECT_EQ(kExpected.size(), kRows.size());
}

// A transition of a known site with no row: the tracer says nothing there (ignored, not
// unclassified), e.g. execute's Grunning -> Grunnable, newproc1's Gdead -> Gdead.
TEST(GstatusTable, NoRowIsIgnored) {
  Decoded d = DecodeOne(Site::kExecute, kGrunning, kGrunnable, 26);
  EXPECT_TRUE(d.out.empty());
  EXPECT_EQ(d.stats.ignored, 1u);
  EXPECT_EQ(d.stats.unclassified, 0u);
  d = DecodeOne(Site::kNewproc1, kGdead, kGdead, 22);
  EXPECT_TRUE(d.out.empty());
  EXPECT_EQ(d.stats.ignored, 1u);
}

// The caller names: each one classifies to its site, also when it is the innermost frame
// of an inline chain; prefix rows take their closures and instances.
class CallerName : public ::testing::TestWithParam<std::size_t> {};

TEST_P(CallerName, Classifies) {
  const CallerSite &c = kCallerSites[GetParam()];
  const std::string_view alone[] = {c.name};
  if (c.site == Site::kGoschedImpl) {
    EXPECT_EQ(SiteOf(alone), Site::kGoschedImpl);  // not inlined: decided by the stack
    for (const InlinedInto &in : kInlinedInto) {
      const std::string_view inlined[] = {c.name, in.outer};
      EXPECT_EQ(SiteOf(inlined), in.site) << in.outer;
    }
    return;
  }
  EXPECT_EQ(SiteOf(alone), c.site);
  const std::string_view in_chain[] = {c.name, "main.main"};
  EXPECT_EQ(SiteOf(in_chain), c.site);
  const std::string with_suffix = std::string(c.name) + ".func1";
  const std::string_view closure[] = {with_suffix};
  EXPECT_EQ(SiteOf(closure), c.prefix ? c.site : Site::kUnknown);
}

INSTANTIATE_TEST_SUITE_P(GstatusTable, CallerName, ::testing::Range<std::size_t>(0, kCallerSites.size()),
                         [](const ::testing::TestParamInfo<std::size_t> &i) {
                           std::string n(kCallerSites[i.param].name);
                           for (char &ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace gotraced::model::testing
