// RecordDecoder: raw capture records (proto/records.h) built by hand -> model records,
// per the decoding table of docs/model.md §3 (Go 1.26), then through the model to Go's
// parser.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <map>

#include "daemon/model/record_decoder.h"
#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

// Fake code addresses and what they symbolize to (innermost first).
const std::map<std::uint64_t, std::vector<std::string_view>> kChains = {
    {0x1000, {"runtime.newproc1"}},
    {0x1100, {"runtime.execute"}},
    {0x1200, {"runtime.park_m"}},
    {0x1300, {"runtime.ready"}},
    {0x1400, {"runtime.goschedImpl", "runtime.gosched_m"}},
    {0x1500, {"runtime.gdestroy"}},
    {0x1600, {"runtime.casGToWaitingForSuspendG"}},
    {0x1700, {"runtime.exitsyscallNoP"}},
    {0x1800, {"main.mystery"}},
    {0x1900, {"runtime.exitsyscall"}},
    {0x1a00, {"runtime.exitsyscall0"}},
    // Stack PCs.
    {0x2000, {"runtime.systemstack_switch"}},
    {0x2100, {"runtime.goready"}},
    {0x2200, {"runtime.send"}},
    {0x2300, {"runtime.chansend"}},
    {0x2400, {"runtime.chansend1"}},
    {0x2500, {"main.main"}},
    {0x2600, {"runtime.entersyscall"}},
    {0x2700, {"syscall.Syscall6"}},
    {0x2800, {"syscall.read"}},
    {0x2900, {"runtime.entersyscallblock"}},
    {0x2a00, {"runtime.reentersyscall"}},
    {0x2b00, {"runtime.entersyscallblock_handoff"}},
    {0x2c00, {"runtime.gcAssistAlloc"}},
    {0x2d00, {"runtime.mallocgc"}},
    // handoffp's callers (Go <= 1.25).
    {0x2e00, {"runtime.retake"}},
    {0x2e10, {"runtime.forEachPInternal", "runtime.forEachP.func1"}},
    {0x2e20, {"runtime.forEachP"}},
    {0x2e30, {"runtime.stoplockedm"}},
};

class RawBuilder {
 public:
  explicit RawBuilder(std::uint32_t tid) : tid_(tid) {}

  std::vector<std::uint8_t> Gstatus(std::uint64_t ts, std::uint64_t caller, std::uint64_t goid, std::uint32_t oldv,
                                    std::uint32_t newv, std::int32_t p, std::uint64_t curg_goid,
                                    std::vector<std::uint64_t> stack = {}) {
    gt_gstatus_record r{};
    Header(r.h, ts, GT_REC_GSTATUS);
    Ctx(r.ctx, p, curg_goid, caller);
    r.gp = 0xc000000000 + goid * 0x100;
    r.goid = goid;
    r.oldval = oldv;
    r.newval = newv;
    r.startpc = 0x3000 + goid;
    r.m_block_reason = block_reason;
    r.m_trace_skip = trace_skip;
    r.has_stack = stack.empty() ? 0 : 1;
    return RawRecord(r, stack, GT_STACK_SCHED);
  }

  std::vector<std::uint8_t> Call(std::uint64_t ts, std::uint32_t probe_id, std::int32_t p, std::uint64_t curg_goid,
                                 std::array<std::uint64_t, 6> args = {}, std::array<std::uint64_t, 4> deref = {},
                                 std::vector<std::uint64_t> stack = {}, std::uint8_t source = GT_STACK_REGS) {
    gt_call_record r{};
    Header(r.h, ts, GT_REC_CALL);
    Ctx(r.ctx, p, curg_goid, call_caller);
    r.probe_id = probe_id;
    r.flags = call_flags;
    r.ctx.m_oldp = m_oldp;
    r.ctx.m_syscalltick = m_tick;
    std::memcpy(r.args, args.data(), sizeof r.args);
    std::memcpy(r.deref, deref.data(), sizeof r.deref);
    r.has_stack = stack.empty() ? 0 : 1;
    return RawRecord(r, stack, source);
  }

  std::uint8_t block_reason = 0, trace_skip = 0;
  std::uint32_t p_tick = 7;
  std::uint64_t call_caller = 0;  // ctx.caller_pc of Call records
  std::uint32_t call_flags = 0;   // GT_CALL_* of Call records
  std::uint64_t m_oldp = 0;       // ctx.m_oldp of Call records
  std::uint32_t m_tick = 0;       // ctx.m_syscalltick of Call records
  std::uint64_t m_ptr = 0;        // ctx.m (the runtime's M) of every record

 private:
  void Header(gt_record_header &h, std::uint64_t ts, gt_record_kind k) {
    h.ts_ns = ts;
    h.tgid = 1;
    h.tid = tid_;
    h.kind = static_cast<std::uint16_t>(k);
  }
  void Ctx(gt_go_ctx &c, std::int32_t p, std::uint64_t curg_goid, std::uint64_t caller) {
    c.p_id = p;
    c.p = p >= 0 ? 0xd000 + static_cast<std::uint64_t>(p) : 0;
    c.curg = curg_goid ? 0xc000000000 + curg_goid * 0x100 : 0;
    c.curg_goid = curg_goid;
    c.caller_pc = caller;
    c.p_syscalltick = p_tick;
    c.m = m_ptr;
  }
  std::uint32_t tid_;
};

probes::ProbePlan Plan() {
  probes::ProbePlan plan;
  plan.name = "test";
  plan.go_minor = 26;
  auto add = [&](probes::ProbeRole role) {
    probes::ProbeSite s;
    s.id = static_cast<std::uint16_t>(plan.sites.size());
    s.role = role;
    plan.sites.push_back(s);
  };
  add(probes::ProbeRole::kCasgstatus);         // 0
  add(probes::ProbeRole::kEnterSyscall);       // 1
  add(probes::ProbeRole::kExitSyscall);        // 2
  add(probes::ProbeRole::kAcquireP);           // 3
  add(probes::ProbeRole::kReleaseP);           // 4
  add(probes::ProbeRole::kSyscallReleaseP);    // 5
  add(probes::ProbeRole::kPreemptPark);        // 6
  add(probes::ProbeRole::kHandoffP);           // 7
  add(probes::ProbeRole::kSTWSyscallSteal);    // 8
  add(probes::ProbeRole::kEnterSyscallGCStop); // 9
  add(probes::ProbeRole::kProcResize);         // 10
  return plan;
}

struct Fixture {
  Fixture() = default;
  explicit Fixture(int m) : minor(m) {}
  int minor = 26;
  probes::ProbePlan plan = Plan();
  RecordDecoder dec{[this] {
    DecoderConfig c;
    c.go_minor = minor;
    c.plan = &plan;
    c.block_reasons = {"unspecified", "forever", "network", "select", "sync.(*Cond).Wait", "sync", "chan send",
                       "chan receive"};
    c.func_chain = [](std::uint64_t pc, std::vector<std::string_view> &names) {
      auto it = kChains.find(pc);
      if (it != kChains.end()) names.insert(names.end(), it->second.begin(), it->second.end());
    };
    return c;
  }()};
  std::vector<Record> out;
  void Feed(const std::vector<std::uint8_t> &bytes) {
    capture::RecordView v(bytes.data(), bytes.size());
    ASSERT_TRUE(v.valid());
    dec.Decode(v, out);
  }
};

// Go <= 1.23 newproc1 assigns newg.goid after its casgstatus; at a refill of the P's goid
// cache (goidcache == goidcacheend) the id is not known at the probe. The create is held,
// the creating thread's later records wait behind it (the M's order), and the P's next
// create resolves it: the refill took [end-16, end) and the held create got end-16.
TEST(RecordDecoder, Go123HeldCreateKeepsTheMsOrder) {
  Fixture f(23);
  RawBuilder m1(101);
  auto create = [&](std::uint64_t ts, std::uint64_t gp_slot, std::uint64_t cache, std::uint64_t end) {
    std::vector<std::uint8_t> b = m1.Gstatus(ts, 0x1000, gp_slot, 6, 1, 0, 1, {0x2000, 0x2100, 0x2500});
    gt_gstatus_record r;
    std::memcpy(&r, b.data(), sizeof r);
    r.goid = 0;  // stale (a fresh g)
    r.p_goidcache = cache;
    r.p_goidcacheend = end;
    std::memcpy(b.data(), &r, sizeof r);
    return b;
  };
  f.Feed(create(100, 40, 0, 0));  // P0's first create: refill, id unknown
  ASSERT_EQ(f.out.size(), 1u);  // written at once, without an id, keyed by its g
  EXPECT_EQ(RecordKindName(f.out[0].kind), RecordKindName(RecordKind::kGoCreate));
  EXPECT_EQ(f.out[0].target_g, kNoG);
  EXPECT_EQ(f.out[0].ts, 100u);
  const std::uint64_t gp = f.out[0].value2;
  EXPECT_NE(gp, 0u);
  m1.block_reason = 7;
  f.Feed(m1.Gstatus(110, 0x1200, 1, 2, 4, 0, 1));  // g1 parks (the model holds it behind)
  RawBuilder m2(102);
  f.Feed(m2.Gstatus(115, 0x1300, 1, 4, 1, 2, 9));
  ASSERT_EQ(f.out.size(), 3u);
  EXPECT_EQ(RecordKindName(f.out[1].kind), RecordKindName(RecordKind::kGoBlock));
  f.Feed(create(120, 41, 18, 33));  // P0's next create: the batch was [17, 33)
  ASSERT_EQ(f.out.size(), 5u);
  EXPECT_EQ(RecordKindName(f.out[3].kind), RecordKindName(RecordKind::kGoidResolved));
  EXPECT_EQ(f.out[3].value2, gp);
  EXPECT_EQ(f.out[3].target_g, 17u);
  EXPECT_EQ(RecordKindName(f.out[4].kind), RecordKindName(RecordKind::kGoCreate));
  EXPECT_EQ(f.out[4].target_g, 18u);
}

TEST(RecordDecoder, Go126Table) {
  Fixture f;
  RawBuilder m1(101);
  // acquirepNoTrace(P0) on M101 (g0, no P yet).
  f.Feed(m1.Call(100, 3, -1, 0, {}, {0, 0, 0, 0}));
  // g1 creates g5 (newproc1: _Gdead -> _Grunnable), stack from systemstack_switch.
  f.Feed(m1.Gstatus(110, 0x1000, 5, 6, 1, 0, 1, {0x2000, 0x2100, 0x2500}));
  // execute(g5) on M102, which holds P2.
  RawBuilder m2(102);
  f.Feed(m2.Call(115, 3, -1, 0, {}, {2, 0, 0, 0}));
  f.Feed(m2.Gstatus(120, 0x1100, 5, 1, 2, 2, 5));
  // park_m: chan receive (traceBlockChanRecv = 7), gopark traceskip 2.
  m2.block_reason = 7;
  m2.trace_skip = 2;
  f.Feed(m2.Gstatus(130, 0x1200, 5, 2, 4, 2, 5, {0x2000, 0x2100, 0x2500}));
  // GC's suspendG transition: not a trace event.
  f.Feed(m2.Gstatus(135, 0x1600, 9, 2, 4, 2, 9));
  // Unknown caller: counted.
  f.Feed(m2.Gstatus(136, 0x1800, 9, 2, 4, 2, 9));
  // ready(g5) from a chan send by g1: skip estimated through send/chansend.
  f.Feed(m1.Gstatus(140, 0x1300, 5, 4, 1, 0, 1, {0x2000, 0x2100, 0x2200, 0x2300, 0x2400, 0x2500}));
  // Syscall by g1: reentersyscall(pc=0x2700, ...), walk starts at entersyscall.
  f.Feed(m1.Call(150, 1, 0, 1, {0x2700, 0, 0}, {}, {0x2600, 0x2700, 0x2800, 0x2500}));
  // exitsyscall with the P and the same syscalltick: fast.
  f.Feed(m1.Call(160, 2, 0, 1));
  // Another syscall; the P is taken meanwhile (exitsyscall finds no P) and
  // exitsyscallTryGetP acquires P1 (acquirepNoTrace).
  f.Feed(m1.Call(170, 1, 0, 1, {0x2700, 0, 0}, {}, {0x2600, 0x2700, 0x2800, 0x2500}));
  RawBuilder sysmon(99);
  f.Feed(sysmon.Call(175, 5, -1, 0, {0xc000000000 + 1 * 0x100, 0, 0}));
  f.Feed(m1.Call(180, 2, -1, 1));
  f.Feed(m1.Call(181, 3, -1, 1, {}, {1, 0, 0, 0}));
  // gosched_m -> goschedImpl (inlined): GoStop "runtime.Gosched"; then g1 exits.
  f.Feed(m1.Gstatus(190, 0x1400, 1, 2, 1, 1, 1, {0x2500}));
  f.Feed(m1.Gstatus(200, 0x1100, 1, 1, 2, 1, 1));
  f.Feed(m1.Gstatus(210, 0x1500, 1, 2, 6, 1, 1));

  std::vector<RecordKind> kinds;
  for (const Record &r : f.out) kinds.push_back(r.kind);
  const std::vector<RecordKind> want = {
      RecordKind::kProcStart,      RecordKind::kGoCreate,     RecordKind::kProcStart, RecordKind::kGoStart,
      RecordKind::kGoBlock,        RecordKind::kGoUnblock,    RecordKind::kGoSyscallBegin,
      RecordKind::kGoSyscallEnd,   RecordKind::kGoSyscallBegin, RecordKind::kProcSteal, RecordKind::kProcStart,
      RecordKind::kGoSyscallEndBlocked, RecordKind::kGoStart, RecordKind::kGoStop,
      RecordKind::kGoStart,        RecordKind::kGoEnd};
  ASSERT_EQ(kinds.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(RecordKindName(kinds[i]), RecordKindName(want[i])) << "record " << i;

  EXPECT_EQ(f.out[1].target_g, 5u);
  EXPECT_EQ(f.out[1].g, 1u);
  EXPECT_EQ(f.out[1].stack_skip, 2u);
  EXPECT_EQ(f.out[4].reason, "chan receive");
  EXPECT_EQ(f.out[4].stack_skip, 2u);
  EXPECT_EQ(f.out[5].stack_skip, 4u);  // systemstack_switch, goready, send, chansend
  EXPECT_EQ(f.out[6].stack.front(), 0x2700u);  // the walk cut at syscallpc
  EXPECT_EQ(f.out[6].stack_skip, 1u);
  EXPECT_EQ(f.out[9].target_p, 0);
  EXPECT_EQ(f.out[10].target_p, 1);
  EXPECT_EQ(f.out[12].target_g, 1u);
  EXPECT_EQ(f.out[13].reason, "runtime.Gosched");
  EXPECT_EQ(f.dec.stats().ignored, 1u);
  EXPECT_EQ(f.dec.stats().unclassified, 1u);
  EXPECT_EQ(f.dec.stats().unclassified_callers.count("main.mystery"), 1u);

  // And the model turns them into a trace Go's parser accepts.
  Harness h;
  for (Record &r : f.out) h.Push(std::move(r));
  CheckResult res = h.Finish("decoder-go126");
  ASSERT_TRUE(res.ok()) << res.errors << "\ntrace: " << res.path;
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
  EXPECT_EQ(res.Int("block_reasons", "chan receive"), 1);
  EXPECT_EQ(res.Int("syscalls"), 2);
}

// exitsyscallNoP: no P to be had; the goroutine is queued.
TEST(RecordDecoder, Go126SyscallExitWithoutP) {
  Fixture f;
  RawBuilder m1(101);
  f.Feed(m1.Call(100, 3, -1, 0, {}, {0, 0, 0, 0}));
  f.Feed(m1.Gstatus(110, 0x1100, 1, 1, 2, 0, 1));
  f.Feed(m1.Call(120, 1, 0, 1, {0x2700, 0, 0}, {}, {0x2600, 0x2700, 0x2500}));
  // Sysmon takes the P (releaseP(s): s.gp in RAX).
  RawBuilder sysmon(99);
  f.Feed(sysmon.Call(130, 5, -1, 0, {0xc000000000 + 1 * 0x100, 0, 0}));
  f.Feed(m1.Call(140, 2, -1, 1));
  f.Feed(m1.Gstatus(141, 0x1700, 1, 2, 1, -1, 1));
  std::vector<RecordKind> kinds;
  for (const Record &r : f.out) kinds.push_back(r.kind);
  const std::vector<RecordKind> want = {RecordKind::kProcStart, RecordKind::kGoStart, RecordKind::kGoSyscallBegin,
                                        RecordKind::kProcSteal, RecordKind::kGoSyscallEndBlocked};
  ASSERT_EQ(kinds.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(RecordKindName(kinds[i]), RecordKindName(want[i]));
  EXPECT_EQ(f.out[3].target_p, 0);
  EXPECT_EQ(f.out[3].victim_m, 101u);

  Harness h;
  for (Record &r : f.out) h.Push(std::move(r));
  CheckResult res = h.Finish("decoder-nop");
  ASSERT_TRUE(res.ok()) << res.errors << "\ntrace: " << res.path;
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
}

// The race seen on a real target: the thread is preempted right at exitsyscall's entry
// (P still wired), sysmon takes the P, then the exit goes the slow way (exitsyscallNoP).
// The fast-path guess made at the entry must not stand.
TEST(RecordDecoder, Go126ExitRacesWithRetake) {
  Fixture f;
  RawBuilder m1(101);
  f.Feed(m1.Call(100, 3, -1, 0, {}, {0, 0, 0, 0}));
  f.Feed(m1.Gstatus(110, 0x1100, 1, 1, 2, 0, 1));
  f.Feed(m1.Call(120, 1, 0, 1, {0x2700, 0, 0}, {}, {0x2600, 0x2700, 0x2500}));
  f.Feed(m1.Call(130, 2, 0, 1));  // exitsyscall entry, P0 still there
  RawBuilder sysmon(99);
  f.Feed(sysmon.Call(140, 5, -1, 0, {0xc000000000 + 1 * 0x100, 0, 0}));
  f.Feed(m1.Gstatus(150, 0x1700, 1, 2, 1, -1, 1));  // exitsyscallNoP
  std::vector<RecordKind> kinds;
  for (const Record &r : f.out) kinds.push_back(r.kind);
  const std::vector<RecordKind> want = {RecordKind::kProcStart, RecordKind::kGoStart, RecordKind::kGoSyscallBegin,
                                        RecordKind::kProcSteal, RecordKind::kGoSyscallEndBlocked};
  ASSERT_EQ(kinds.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(RecordKindName(kinds[i]), RecordKindName(want[i]));
  Harness h;
  for (Record &r : f.out) h.Push(std::move(r));
  CheckResult res = h.Finish("decoder-race");
  ASSERT_TRUE(res.ok()) << res.errors << "\ntrace: " << res.path;
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
}

// cgo calls on 1.26 (seen in the fidelity cgo workload): the thread exiting its old P's
// syscall steals it back (exitsyscallTryGetP -> setBlockOnExitSyscall -> releaseP) while
// the victim is still in its C call. The steal's probe fires first; the victim's
// exitsyscall entry still shows the P (the unwiring lands later), its fast CAS fails on
// the stealer's scan bit (casgstatus from exitsyscall), and it ends in exitsyscallNoP.
// Was decoded as a fast exit on the stolen P (repairs, a 'transition not captured' block).
TEST(RecordDecoder, Go126StealBeforeExitEntry) {
  Fixture f;
  RawBuilder m1(101);
  f.Feed(m1.Call(100, 3, -1, 0, {}, {0, 0, 0, 0}));
  f.Feed(m1.Gstatus(110, 0x1100, 1, 1, 2, 0, 1));
  f.Feed(m1.Call(120, 1, 0, 1, {0x2700, 0, 0}, {}, {0x2600, 0x2700, 0x2500}));
  RawBuilder stealer(102);
  f.Feed(stealer.Call(130, 5, -1, 0, {0xc000000000 + 1 * 0x100, 0, 0}));
  f.Feed(m1.Call(140, 2, 0, 1));                     // exitsyscall entry, P0 still shown
  f.Feed(m1.Gstatus(145, 0x1900, 1, 3, 2, 0, 1));    // exitsyscall's casgstatus (CAS failed)
  f.Feed(m1.Gstatus(150, 0x1700, 1, 2, 1, -1, 1));   // exitsyscallNoP
  std::vector<RecordKind> kinds;
  for (const Record &r : f.out) kinds.push_back(r.kind);
  const std::vector<RecordKind> want = {RecordKind::kProcStart, RecordKind::kGoStart, RecordKind::kGoSyscallBegin,
                                        RecordKind::kProcSteal, RecordKind::kGoSyscallEndBlocked};
  ASSERT_EQ(kinds.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(RecordKindName(kinds[i]), RecordKindName(want[i]));
  Harness h;
  for (Record &r : f.out) h.Push(std::move(r));
  CheckResult res = h.Finish("decoder-steal-before-exit");
  ASSERT_TRUE(res.ok()) << res.errors << "\ntrace: " << res.path;
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
}

// preemptPark (a GC stack scan's suspendG stopping a goroutine) -> GoBlock "preempted".
// Stopped in morestack (syncSafePoint), the frame-pointer walk from sched.bp misses the
// caller of the function whose prologue called morestack; Go 1.24+ traceStack inserts
// *(gp.sched.sp) as the second PC (go.dev/issue/68090), and so does the decoder. Go
// 1.19-1.23's event has no stack (see the decoder's kPreemptPark).
TEST(RecordDecoder, PreemptParkStack) {
  auto record = [](bool sync_safe_point) {
    RawBuilder m(11);
    std::vector<std::uint8_t> b = m.Call(100, 6, 0, 5, {}, {5}, {0x2300, 0x2500}, GT_STACK_SCHED);
    gt_stack_tail t{};
    std::memcpy(&t, b.data() + sizeof(gt_call_record), sizeof t);
    t.sync_safe_point = sync_safe_point ? 1 : 0;
    t.sched_sp_word = 0x2400;
    std::memcpy(b.data() + sizeof(gt_call_record), &t, sizeof t);
    return b;
  };
  {
    Fixture f(26);
    f.Feed(record(true));
    f.Feed(record(false));
    ASSERT_EQ(f.out.size(), 2u);
    EXPECT_EQ(f.out[0].kind, RecordKind::kGoBlock);
    EXPECT_EQ(f.out[0].g, 5u);
    EXPECT_EQ(f.out[0].stack, (std::vector<std::uint64_t>{0x2300, 0x2400, 0x2500}));
    EXPECT_EQ(f.out[1].stack, (std::vector<std::uint64_t>{0x2300, 0x2500}));
  }
  // 1.22/1.23: dropg() first; 1.19/1.21: traceGoPark(traceEvGoBlock, 0), skip 0 = none.
  for (int minor : {19, 21, 23}) {
    Fixture f(minor);
    f.Feed(record(false));
    ASSERT_EQ(f.out.size(), 1u);
    EXPECT_EQ(f.out[0].kind, RecordKind::kGoBlock);
    EXPECT_TRUE(f.out[0].stack.empty()) << "go1." << minor;
  }
}

// Go <= 1.21 mark assists: the walk at gcAssistAlloc1 from curg.sched is
// [systemstack_switch, gcAssistAlloc (1.21; none on 1.19), ...]; the plan's
// assist_begin_pc (traceGCMarkAssistStart's call of traceEvent, inlined in gcAssistAlloc)
// takes gcAssistAlloc's place, or is put in front of its caller when the walk has none.
TEST(RecordDecoder, LegacyMarkAssistStack) {
  auto assist = [](int minor, std::uint64_t assist_pc, std::vector<std::uint64_t> walk) {
    Fixture f(minor);
    probes::ProbeSite s;
    s.id = static_cast<std::uint16_t>(f.plan.sites.size());
    s.role = probes::ProbeRole::kGCAssist;
    f.plan.sites.push_back(s);
    f.plan.assist_begin_pc = assist_pc;
    RawBuilder m(11);
    f.Feed(m.Call(100, s.id, 0, 5, {}, {}, walk, GT_STACK_SCHED));
    EXPECT_EQ(f.out.size(), 1u);
    return f.out.empty() ? Record{} : f.out[0];
  };
  using Pcs = std::vector<std::uint64_t>;
  Record r = assist(21, 0x2c40, {0x2000, 0x2c00, 0x2d00, 0x2500});
  EXPECT_EQ(r.kind, RecordKind::kGCMarkAssistBegin);
  EXPECT_EQ(r.stack, (Pcs{0x2000, 0x2c40, 0x2d00, 0x2500}));
  EXPECT_EQ(r.stack_skip, 1u);
  EXPECT_EQ(assist(19, 0x2c40, {0x2000, 0x2d00, 0x2500}).stack, (Pcs{0x2000, 0x2c40, 0x2d00, 0x2500}));
  EXPECT_EQ(assist(26, 0, {0x2000, 0x2c00, 0x2d00, 0x2500}).stack, (Pcs{0x2000, 0x2c00, 0x2d00, 0x2500}));
}

// gopark(..., traceskip 0) (gcBgMarkWorker's idle park): Go <= 1.21's traceEventLocked
// writes skip 0 as "no stack"; 1.22+'s traceStack(0) is the whole stack. Any other skip
// keeps the stack on every version.
TEST(RecordDecoder, ParkWithTraceskipZero) {
  auto park = [](int minor, std::uint8_t skip) {
    Fixture f(minor);
    RawBuilder m(11);
    m.trace_skip = skip;
    f.Feed(m.Gstatus(100, 0x1200, 5, 2, 4, 0, 5, {0x2000, 0x2100, 0x2500}));
    EXPECT_EQ(f.out.size(), 1u);
    return f.out.empty() ? Record{} : f.out[0];
  };
  EXPECT_TRUE(park(19, 0).stack.empty());
  EXPECT_TRUE(park(21, 0).stack.empty());
  EXPECT_EQ(park(22, 0).stack.size(), 3u);
  EXPECT_EQ(park(26, 0).stack.size(), 3u);
  Record r = park(21, 2);
  EXPECT_EQ(r.kind, RecordKind::kGoBlock);
  EXPECT_EQ(r.stack.size(), 3u);
  EXPECT_EQ(r.stack_skip, 2u);
}

// Go 1.22 GoSysCall skips 4 frames from systemstack_switch whatever the path
// (trace2runtime.go); through entersyscallblock (notetsleepg) that lands one frame further
// out than through reentersyscall: skip 2 instead of 1 after the entry frames are trimmed.
// 1.23 walks from gp.syscallpc/syscallbp: skip 1 on both paths.
TEST(RecordDecoder, Go122SyscallBlockSkip) {
  auto begin = [](int minor, std::uint64_t caller) {
    Fixture f(minor);
    RawBuilder m(11);
    f.Feed(m.Gstatus(100, caller, 5, 2, 3, 0, 5, {0x2000, 0x2700, 0x2800, 0x2500}));
    EXPECT_EQ(f.out.size(), 1u);
    return f.out.empty() ? Record{} : f.out[0];
  };
  Record blk = begin(22, 0x2900);
  EXPECT_EQ(blk.kind, RecordKind::kGoSyscallBegin);
  EXPECT_EQ(blk.stack, (std::vector<std::uint64_t>{0x2700, 0x2800, 0x2500}));
  EXPECT_EQ(blk.stack_skip, 2u);
  EXPECT_EQ(begin(22, 0x2a00).stack_skip, 1u);
  EXPECT_EQ(begin(23, 0x2900).stack_skip, 1u);
}

// entersyscallblock's order differs by version (proc.go entersyscallblock): Go <= 1.25
// switches to _Gsyscall first, then systemstack(entersyscallblock_handoff) writes GoSysCall
// and handoffp(releasep()) its ProcStop; Go 1.26+ traces and hands off first and switches
// last. Two notetsleepg in a row on one thread (gcBgMarkStartWorkers, one per P): each
// syscall keeps its own time and each ProcStop is written where it happened. Before, a
// 1.22 ProcStop was held for the thread's next entry, which got the first one's time.
TEST(RecordDecoder, EnterSyscallBlockOrderPerVersion) {
  {
    Fixture f(22);
    RawBuilder m(11);
    m.call_caller = 0x2b00;
    for (std::uint64_t t : {100, 300}) {
      f.Feed(m.Gstatus(t, 0x2900, 1, 2, 3, 0, 1, {0x2000, 0x2700, 0x2800, 0x2500}));
      f.Feed(m.Call(t + 30, 4, 0, 1));  // releasep from entersyscallblock_handoff
      f.Feed(m.Gstatus(t + 100, 0x1900, 1, 3, 2, 0, 1));  // exitsyscall (fast path)
    }
    std::vector<std::pair<RecordKind, std::uint64_t>> got;
    for (const Record &r : f.out)
      if (r.kind == RecordKind::kGoSyscallBegin || r.kind == RecordKind::kProcStop) got.emplace_back(r.kind, r.ts);
    EXPECT_EQ(got, (std::vector<std::pair<RecordKind, std::uint64_t>>{{RecordKind::kGoSyscallBegin, 100},
                                                                    {RecordKind::kProcStop, 130},
                                                                    {RecordKind::kGoSyscallBegin, 300},
                                                                    {RecordKind::kProcStop, 330}}));
  }
  {
    Fixture f(26);  // the plan has no kEnterSyscallBlock site: the casgstatus is the entry
    RawBuilder m(11);
    m.call_caller = 0x2b00;
    f.Feed(m.Call(100, 4, 0, 1));  // releasep first (GoSysCall was written before it)
    EXPECT_TRUE(f.out.empty());
    f.Feed(m.Gstatus(120, 0x2900, 1, 2, 3, -1, 1, {0x2000, 0x2700, 0x2800, 0x2500}));
    ASSERT_EQ(f.out.size(), 2u);
    EXPECT_EQ(f.out[0].kind, RecordKind::kGoSyscallBegin);
    EXPECT_EQ(f.out[0].ts, 100u);  // the ProcStop's time, written before it (queue order)
    EXPECT_EQ(f.out[0].p, 0);
    EXPECT_EQ(f.out[1].kind, RecordKind::kProcStop);
    EXPECT_EQ(f.out[1].ts, 100u);
  }
}

// A held record's time is the decoder's OldestHeldTs until the thread's next record
// decides it, so the pipeline keeps the model behind it (the entersyscallblock releasep of
// a thread the kernel preempted before its casgstatus: level-switch.sh, 1 run in 8).
TEST(RecordDecoder, OldestHeldTsCoversTheHeldReleaseP) {
  Fixture f(26);
  RawBuilder m(11);
  m.call_caller = 0x2b00;
  EXPECT_EQ(f.dec.OldestHeldTs(), 0u);
  f.Feed(m.Call(100, 4, 0, 1));  // entersyscallblock's releasep: held
  EXPECT_EQ(f.dec.OldestHeldTs(), 100u);
  f.Feed(m.Gstatus(2'000'000, 0x2900, 1, 2, 3, -1, 1, {0x2000, 0x2700, 0x2800, 0x2500}));
  EXPECT_EQ(f.dec.OldestHeldTs(), 0u);
  ASSERT_EQ(f.out.size(), 2u);
  EXPECT_EQ(f.out[0].ts, 100u);  // written at the held time, not at the casgstatus's
}

// Go <= 1.25 handoffp: sysmon's retake and forEachP (1.22+ forEachPInternal) take a P out
// of a syscall (CAS _Psyscall -> _Pidle, ProcSteal, handoffp: proc.go); every other caller
// hands off its own P. A steal missed left the P in the syscall for the model until
// another M's ProcStart on it (suite 50 go1.22 syscalls/cgo with the syscall tracepoints:
// "transition not captured").
TEST(RecordDecoder, HandoffFromRetakeAndForEachPIsASteal) {
  for (std::uint64_t caller : {0x2e00, 0x2e10, 0x2e20, 0x2e30}) {
    Fixture f(22);
    RawBuilder m(11);
    m.call_caller = caller;
    f.Feed(m.Call(100, 7, -1, 0, {0xd003}, {3, 0, 0, 9}));  // deref = {p.id, status, m, syscalltick}
    if (caller == 0x2e30) {
      EXPECT_TRUE(f.out.empty()) << std::hex << caller;
      continue;
    }
    ASSERT_EQ(f.out.size(), 1u) << std::hex << caller;
    EXPECT_EQ(RecordKindName(f.out[0].kind), RecordKindName(RecordKind::kProcSteal));
    EXPECT_EQ(f.out[0].target_p, 3);
  }
}

// Go <= 1.25 from the tracepoints (seen in suite 50's go1.23 syscalls workload): M1's
// syscall exit finds its P0 still _Psyscall with its own tick, then the kernel preempts
// M1 before exitsyscallfast's CAS; M2, whose old P was P0 before a retake, exits its own
// syscall and wins the CAS (tick 10 -> 12); later M1 takes P0 back from M2's next
// syscall (12 -> 14). M1's next record shows P0 at tick 14, not 11: its exit was no fast
// one. It was decoded as a GoSyscallEnd at M1's sys_exit, after M2 had taken P0 ("fast
// syscall exit after the P was lost" and two more repairs).
TEST(RecordDecoder, LegacyExitLostToAStaleOldpAndTakenBack) {
  Fixture f(23);
  const std::uint32_t tp = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
  RawBuilder m1(21), m2(22);
  for (RawBuilder *b : {&m1, &m2}) {
    b->call_flags = tp;
    b->m_oldp = 0xd000;
  }
  m1.m_tick = 10;
  m2.m_tick = 8;
  f.Feed(m1.Call(100, 1, -1, 5, {}, {0, 2, 0, 10}));  // sys_enter: GoSyscallBegin on P0
  f.Feed(m1.Call(110, 2, -1, 5, {}, {0, 2, 0, 10}));  // sys_exit: P0 _Psyscall, its tick
  f.Feed(m2.Call(120, 2, -1, 6, {}, {0, 2, 0, 10}));  // M2's sys_exit: P0 _Psyscall, another tick
  f.Feed(m2.Call(130, 1, -1, 6, {}, {0, 2, 0, 12}));  // M2 won: reacquired ++, exit ++
  f.Feed(m1.Call(200, 1, -1, 5, {}, {0, 2, 0, 14}));  // M1 took it back from M2's syscall
  std::vector<std::pair<RecordKind, std::uint64_t>> m1_out;
  for (const Record &r : f.out)
    if (r.m == 21) m1_out.emplace_back(r.kind, r.ts);
  const std::vector<std::pair<RecordKind, std::uint64_t>> want = {
      {RecordKind::kGoSyscallBegin, 100},      {RecordKind::kProcSteal, 200}, {RecordKind::kProcStart, 200},
      {RecordKind::kGoSyscallEndBlocked, 200}, {RecordKind::kGoStart, 200},   {RecordKind::kGoSyscallBegin, 200}};
  ASSERT_EQ(m1_out.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(RecordKindName(m1_out[i].first), RecordKindName(want[i].first)) << i;
    EXPECT_EQ(m1_out[i].second, want[i].second) << i;
  }
  // M2's exit at 120 took P0 from M1's syscall: ProcSteal, ProcStart, EndBlocked, GoStart.
  std::size_t m2_steals = 0;
  for (const Record &r : f.out) m2_steals += r.m == 22 && r.kind == RecordKind::kProcSteal && r.ts == 120;
  EXPECT_EQ(m2_steals, 1u);
}

// Go <= 1.25 from the tracepoints (go1.19 HTTP bench: "ProcSteal ...: P 0 running on M
// .., not in a syscall", then that M's GoStart repaired): sysmon's retake CASes P0 out of
// M1's syscall, M1's sys_exit finds m.oldp _Pidle and writes the steal itself, and
// retake's handoffp record comes after it. That record is the same steal: written again,
// it found P0 with its next holder. A handoffp after P0's next syscall entry is a new one.
TEST(RecordDecoder, LegacyStealWrittenAtTheExitIsNotWrittenAgainByHandoff) {
  Fixture f(19);
  RawBuilder m1(21), m2(22), sysmon(23);
  for (RawBuilder *b : {&m1, &m2}) {
    b->call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
    b->m_oldp = 0xd000;
  }
  sysmon.call_caller = 0x2e00;  // runtime.retake
  auto steals = [&f](std::uint64_t from, std::uint64_t to) {
    std::size_t n = 0;
    for (const Record &r : f.out) n += r.kind == RecordKind::kProcSteal && r.target_p == 0 && r.ts >= from && r.ts < to;
    return n;
  };
  f.Feed(m1.Call(100, 1, -1, 5, {}, {0, 2, 0, 10}));              // sys_enter: GoSyscallBegin on P0
  f.Feed(m1.Call(110, 2, -1, 5, {}, {0, 0, 0, 11}));              // sys_exit: P0 already _Pidle
  f.Feed(sysmon.Call(112, 7, -1, 0, {0xd000}, {0, 0, 0, 11}));    // retake's handoffp(P0)
  EXPECT_EQ(steals(0, 200), 1u);
  f.Feed(m2.Call(200, 1, -1, 6, {}, {0, 2, 0, 12}));              // M2's syscall on P0
  f.Feed(sysmon.Call(300, 7, -1, 0, {0xd000}, {0, 2, 0, 12}));    // retaken from M2
  EXPECT_EQ(steals(200, 400), 1u);
}

// Runs the decoder's records through the model (go1.22's vocabulary, which the legacy
// writer translates): the trace parses and nothing was repaired.
void ExpectNoRepair(Fixture &f, const std::string &name) {
  Harness h(encoder::Version::kGo122);
  for (Record &r : f.out) h.Push(std::move(r));
  CheckResult res = h.Finish(name);
  ASSERT_TRUE(res.ok()) << res.errors << "\ntrace: " << res.path;
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();
}

std::size_t Steals(const Fixture &f, ProcId p, ThreadId m) {
  std::size_t n = 0;
  for (const Record &r : f.out) n += r.kind == RecordKind::kProcSteal && r.target_p == p && r.m == m;
  return n;
}

// Go <= 1.25 (go1.19 HTTP bench, "fast syscall exit after the P was lost" and two more
// repairs): two exits wait on P0 — M1's, whose P M2's exit took already (its CAS on the
// same stale m.oldp won first: taken), and M2's, in its next syscall on P0. Sysmon's
// retake takes P0 from M2's syscall (tick 12 -> 13, then handoffp). That steal is M2's
// (the exit whose tick retake incremented), not M1's stale one: M2's next record, an
// idle P1's acquirep, is then its slow exit, not a second steal of P0 from M2.
TEST(RecordDecoder, LegacyHandoffStealsFromTheExitItsTickNames) {
  Fixture f(19);
  RawBuilder m1(21), m2(22), sysmon(23);
  for (RawBuilder *b : {&m1, &m2}) {
    b->call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
    b->m_oldp = 0xd000;
  }
  m1.m_tick = 10;
  m2.m_tick = 8;
  sysmon.call_caller = 0x2e00;  // runtime.retake
  f.Feed(m1.Call(100, 1, -1, 5, {}, {0, 2, 0, 10}));  // M1's syscall on P0
  f.Feed(m1.Call(110, 2, -1, 5, {}, {0, 2, 0, 10}));  // its sys_exit: P0 _Psyscall, its tick
  f.Feed(m2.Call(120, 2, -1, 6, {}, {0, 2, 0, 10}));  // M2's sys_exit (old P0 of tick 8)
  f.Feed(m2.Call(130, 1, -1, 6, {}, {0, 2, 0, 12}));  // M2 won P0 (M1's exit: taken), syscall again
  m2.m_tick = 12;
  f.Feed(m2.Call(140, 2, -1, 6, {}, {0, 2, 0, 12}));  // its sys_exit: P0 _Psyscall, its tick
  f.Feed(sysmon.Call(150, 7, -1, 0, {0xd000}, {0, 0, 0, 13}));  // retake: handoffp(P0)
  m2.call_flags = GT_CALL_ARG0_P;
  f.Feed(m2.Call(160, 3, -1, 6, {0xd001}, {1, 0, 0, 4}));  // acquirep(P1): a slow exit
  EXPECT_EQ(Steals(f, 0, 22), 1u);  // M2's exit at 130 took P0 from M1; no other steal by M2
  EXPECT_EQ(Steals(f, 0, 23), 1u);
  ExpectNoRepair(f, "decoder-legacy-handoff-victim");
}

// Go <= 1.25 (go1.19 HTTP bench, "P 0 still held by M"): forEachP takes P0 from M1's
// syscall between its sys_exit and its CAS (M1: a slow exit, waiting); the handoff gives
// P0 to M2, which enters a syscall on it. M1's next record holds P0 with no acquirep
// before it: exitsyscallfast's CAS on m.oldp took P0 out of M2's syscall
// (exitsyscallfast_reacquired's GoSysBlock): a steal-back, not a ProcStart of an idle P.
TEST(RecordDecoder, LegacySlowExitRegainsItsPFromAnotherSyscall) {
  Fixture f(19);
  RawBuilder m1(21), m2(22), gc(23);
  for (RawBuilder *b : {&m1, &m2}) {
    b->call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
    b->m_oldp = 0xd000;
  }
  m1.m_tick = 20;
  m2.m_tick = 21;
  gc.call_caller = 0x2e10;  // forEachP
  f.Feed(m1.Call(100, 1, -1, 5, {}, {0, 2, 0, 20}));  // M1's syscall on P0
  f.Feed(m1.Call(110, 2, -1, 5, {}, {0, 2, 0, 20}));  // sys_exit: P0 _Psyscall
  f.Feed(gc.Call(120, 7, -1, 0, {0xd000}, {0, 0, 0, 21}));  // forEachP: handoffp(P0)
  m2.call_flags = GT_CALL_ARG0_P;
  f.Feed(m2.Call(130, 3, -1, 0, {0xd000}, {0, 0, 0, 21}));  // handoffp's startm: M2 acquirep(P0)
  m2.call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
  f.Feed(m2.Call(140, 1, -1, 6, {}, {0, 2, 0, 21}));  // M2's syscall on P0
  f.Feed(m2.Call(150, 2, -1, 6, {}, {0, 2, 0, 21}));  // its sys_exit, then preempted
  m1.p_tick = 0;  // a GSTATUS away from a syscall reads no tick
  f.Feed(m1.Gstatus(200, 0x1300, 7, 4, 1, 0, 5));  // M1 on P0: ready(g7)
  std::vector<RecordKind> m1_kinds;
  for (const Record &r : f.out)
    if (r.m == 21 && r.ts == 200) m1_kinds.push_back(r.kind);
  const std::vector<RecordKind> want = {RecordKind::kProcSteal, RecordKind::kProcStart,
                                        RecordKind::kGoSyscallEndBlocked, RecordKind::kGoStart,
                                        RecordKind::kGoUnblock};
  ASSERT_EQ(m1_kinds.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(RecordKindName(m1_kinds[i]), RecordKindName(want[i])) << i;
  ExpectNoRepair(f, "decoder-legacy-slow-exit-steal-back");
}

// Go <= 1.25, the same race one step further (go1.19 HTTP bench, "P 0 running on M, not
// in a syscall"): M1 took P0 back from M2's syscall (above) and entered a syscall on it;
// M2's exit, waiting since its sys_exit, is taken. M2's next record holds P0 again with
// no tick to compare (a GSTATUS): its CAS won on P0 in M1's syscall, the steal-back.
// Written as M2's fast exit at its sys_exit, P0 was back on M2 before M1's steal of it
// from M2's syscall could apply.
TEST(RecordDecoder, LegacyTakenExitHoldingItsPAgainIsAStealBack) {
  Fixture f(19);
  RawBuilder m1(21), m2(22), gc(23);
  for (RawBuilder *b : {&m1, &m2}) {
    b->call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
    b->m_oldp = 0xd000;
  }
  m1.m_tick = 20;
  m2.m_tick = 21;
  gc.call_caller = 0x2e10;
  f.Feed(m1.Call(100, 1, -1, 5, {}, {0, 2, 0, 20}));
  f.Feed(m1.Call(110, 2, -1, 5, {}, {0, 2, 0, 20}));
  f.Feed(gc.Call(120, 7, -1, 0, {0xd000}, {0, 0, 0, 21}));
  m2.call_flags = GT_CALL_ARG0_P;
  f.Feed(m2.Call(130, 3, -1, 0, {0xd000}, {0, 0, 0, 21}));
  m2.call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
  f.Feed(m2.Call(140, 1, -1, 6, {}, {0, 2, 0, 21}));
  f.Feed(m2.Call(150, 2, -1, 6, {}, {0, 2, 0, 21}));
  m1.p_tick = 0;
  f.Feed(m1.Gstatus(200, 0x1300, 7, 4, 1, 0, 5));    // M1 took P0 back (steal-back)
  m1.m_tick = 23;
  f.Feed(m1.Call(210, 1, -1, 5, {}, {0, 2, 0, 23}));  // M1's next syscall on P0
  f.Feed(m1.Call(215, 2, -1, 5, {}, {0, 2, 0, 23}));
  m2.p_tick = 0;
  m2.block_reason = 4;
  f.Feed(m2.Gstatus(300, 0x1200, 6, 2, 4, 0, 6));     // M2 on P0 again: g6 parks
  std::vector<RecordKind> m2_kinds;
  for (const Record &r : f.out)
    if (r.m == 22 && r.ts >= 150) m2_kinds.push_back(r.kind);
  const std::vector<RecordKind> want = {RecordKind::kProcSteal, RecordKind::kProcStart,
                                        RecordKind::kGoSyscallEndBlocked, RecordKind::kGoStart,
                                        RecordKind::kGoBlock};
  ASSERT_EQ(m2_kinds.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(RecordKindName(m2_kinds[i]), RecordKindName(want[i])) << i;
  ExpectNoRepair(f, "decoder-legacy-taken-exit-steal-back");
}

// Go <= 1.25 (go1.19 HTTP bench, "P 0 running on M, not in a syscall"): the kernel
// preempts M1 inside entersyscall, after P0 went _Psyscall and before sys_enter; sysmon
// retakes P0 (handoffp, tick 11) meanwhile, so its record comes before M1's entry, which
// then reads P0 _Pidle at that tick. That steal is this syscall's: the sys_exit, finding
// m.oldp not _Psyscall, writes no second one (which found P0 with its next holder).
// The entry's tick is the steal's, or later when P's next holder made syscalls on it
// meanwhile (go1.23 HTTP bench: 11 -> 12); or the entry read P still _Psyscall at the
// tick before retake's ++ (10; go1.23, the handoffp delivered first from another CPU).
TEST(RecordDecoder, LegacyStealBeforeTheEntryIsNotWrittenAgainAtTheExit) {
  for (std::uint64_t tick : {11, 12, 10}) {
    Fixture f(19);
    RawBuilder m1(21), sysmon(23), m3(24);
    m1.call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
    m1.m_oldp = 0xd000;
    m1.m_tick = 11;
    sysmon.call_caller = 0x2e00;
    f.Feed(m1.Gstatus(100, 0x1100, 5, 1, 2, 0, 5));  // M1 runs g5 on P0
    f.Feed(sysmon.Call(110, 7, -1, 0, {0xd000}, {0, 0, 0, 11}));  // retake: handoffp(P0)
    m3.call_flags = GT_CALL_ARG0_P;
    f.Feed(m3.Call(120, 3, -1, 0, {0xd000}, {0, 0, 0, 11}));  // handoffp's startm: M3 takes P0
    f.Feed(m1.Call(200, 1, -1, 5, {}, {0, tick == 10 ? 2u : 0u, 0, tick}));  // M1's sys_enter
    f.Feed(m1.Call(210, 2, -1, 5, {}, {0, 0, 0, tick}));  // sys_exit: still not _Psyscall
    m1.call_flags = GT_CALL_ARG0_P;
    f.Feed(m1.Call(300, 3, -1, 5, {0xd001}, {1, 0, 0, 4}));  // acquirep(P1): the slow exit
    EXPECT_EQ(Steals(f, 0, 23), 1u) << tick;
    EXPECT_EQ(Steals(f, 0, 21), 0u) << tick;
    ExpectNoRepair(f, "decoder-legacy-steal-before-entry");
  }
}

// Go <= 1.25 (go1.23 HTTP bench: "P 1 held by M", three more): M2's exit took P0 from
// M1's syscall (M1's exit: taken) and M2 entered a syscall on P0; M1's CAS won there, and
// M2's sys_exit found m.oldp _Prunning: M2 wrote that steal itself (steal_written_). M1's
// next record is its steal-back without a second ProcSteal: written, it waited for P0 in
// a syscall, held M1's queue, and a later holder of P0 overtook it.
TEST(RecordDecoder, LegacyStealBackWhoseStealTheVictimWrote) {
  Fixture f(23);
  RawBuilder m1(21), m2(22), m3(24);
  for (RawBuilder *b : {&m1, &m2}) {
    b->call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
    b->m_oldp = 0xd000;
  }
  m1.m_tick = 10;
  m2.m_tick = 8;
  f.Feed(m1.Call(100, 1, -1, 5, {}, {0, 2, 0, 10}));  // M1's syscall on P0
  f.Feed(m1.Call(110, 2, -1, 5, {}, {0, 2, 0, 10}));  // its sys_exit, then preempted
  f.Feed(m2.Call(120, 2, -1, 6, {}, {0, 2, 0, 10}));  // M2's sys_exit (stale P0)
  m2.m_tick = 12;
  f.Feed(m2.Call(130, 1, -1, 6, {}, {0, 2, 0, 12}));  // M2 won P0, syscall again
  f.Feed(m2.Call(140, 2, -1, 6, {}, {0, 1, 0xe000, 14}));  // sys_exit: P0 _Prunning (M1's)
  m1.p_tick = 0;
  f.Feed(m1.Gstatus(200, 0x1300, 7, 4, 1, 0, 5));  // M1 on P0: ready(g7)
  m1.block_reason = 4;
  f.Feed(m1.Gstatus(205, 0x1200, 5, 2, 4, 0, 5));  // g5 parks
  m1.call_flags = 0;
  f.Feed(m1.Call(210, 4, 0, 0));                   // releasep(P0)
  m3.call_flags = GT_CALL_ARG0_P;
  f.Feed(m3.Call(220, 3, -1, 0, {0xd000}, {0, 0, 0, 15}));  // M3 acquirep(P0)
  EXPECT_EQ(Steals(f, 0, 22), 2u);  // from M1's syscall (at 120), from its own (at 140)
  EXPECT_EQ(Steals(f, 0, 21), 0u);
  ExpectNoRepair(f, "decoder-legacy-steal-back-written-by-victim");
}

// Go <= 1.25 (go1.23 HTTP bench, "P 1 in a syscall on M .., not on M .." and three more):
// M1's exit waits (its stale m.oldp P0 was _Psyscall in M2's syscall); its CAS wins, and
// M2's sys_exit finds P0 _Prunning under M1's M. M1's resolution writes that steal (from
// the holder); M2's sys_exit, decoded first (another CPU's ring), wrote it too.
TEST(RecordDecoder, LegacyExitTakenByAWaitingExitIsNotStolenTwice) {
  Fixture f(23);
  RawBuilder m1(21), m2(22);
  for (RawBuilder *b : {&m1, &m2}) {
    b->call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
    b->m_oldp = 0xd000;
  }
  m1.m_ptr = 0xe100;
  m2.m_ptr = 0xe200;
  m1.m_tick = 8;
  m2.m_tick = 10;
  RawBuilder sysmon(23);
  sysmon.call_caller = 0x2e00;
  f.Feed(m1.Call(60, 1, -1, 5, {}, {0, 2, 0, 8}));              // M1's syscall on P0
  f.Feed(sysmon.Call(70, 7, -1, 0, {0xd000}, {0, 0, 0, 9}));    // retaken
  m2.call_flags = GT_CALL_ARG0_P;
  f.Feed(m2.Call(80, 3, -1, 0, {0xd000}, {0, 0, 0, 9}));        // M2 acquirep(P0)
  m2.call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
  f.Feed(m2.Call(100, 1, -1, 6, {}, {0, 2, 0, 10}));  // M2's syscall on P0
  f.Feed(m1.Call(110, 2, -1, 5, {}, {0, 2, 0, 10}));  // M1's sys_exit: stale P0, in M2's syscall
  f.Feed(m2.Call(120, 2, -1, 6, {}, {0, 1, 0xe100, 12}));  // M2's sys_exit: P0 _Prunning on M1
  m1.p_tick = 0;
  m1.block_reason = 4;
  f.Feed(m1.Gstatus(200, 0x1200, 5, 2, 4, 0, 5));  // M1 on P0: g5 parks
  m2.call_flags = GT_CALL_ARG0_P;
  f.Feed(m2.Call(210, 3, -1, 6, {0xd001}, {1, 0, 0, 4}));  // M2 acquirep(P1): its slow exit
  EXPECT_EQ(Steals(f, 0, 21), 1u);
  EXPECT_EQ(Steals(f, 0, 22), 0u);
  ExpectNoRepair(f, "decoder-legacy-taken-by-waiting-exit");
}

// Go <= 1.25 (go1.23 HTTP bench, "P 1 running on M, not in a syscall" and three more): a
// second sys_exit of the same syscall (no entry between; a signal at the syscall's
// return) while its exit waits, after forEachP took the P: not the thread's next syscall
// entry (a steal-back of a P no syscall held), but nothing; exitsyscall0 then ends it.
TEST(RecordDecoder, LegacySameSyscallExitAgainIsIgnored) {
  for (bool taken_first : {true, false}) {
    Fixture f(23);
    RawBuilder m1(21), gc(23);
    m1.call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
    m1.m_oldp = 0xd000;
    m1.m_tick = 10;
    gc.call_caller = 0x2e10;  // forEachP
    f.Feed(m1.Call(100, 1, -1, 5, {}, {0, 2, 0, 10}));  // syscall on P0
    f.Feed(m1.Call(110, 2, -1, 5, {}, {0, 2, 0, 10}));  // its sys_exit
    if (taken_first) f.Feed(gc.Call(120, 7, -1, 0, {0xd000}, {0, 0, 0, 11}));  // forEachP: handoffp(P0)
    f.Feed(m1.Call(130, 2, -1, 5, {}, {0, 0, 0, 11}));  // the same syscall's exit again
    if (!taken_first) f.Feed(gc.Call(135, 7, -1, 0, {0xd000}, {0, 0, 0, 11}));
    m1.p_tick = 0;
    f.Feed(m1.Gstatus(140, 0x1a00, 5, 3, 1, -1, 5));  // exitsyscall0: no P
    EXPECT_EQ(Steals(f, 0, 21), 0u) << taken_first;
    ExpectNoRepair(f, "decoder-legacy-same-exit-again");
  }
}

std::size_t Count(const Fixture &f, RecordKind k) {
  std::size_t n = 0;
  for (const Record &r : f.out) n += r.kind == k;
  return n;
}

// procresize shrinking GOMAXPROCS below its own M's P (fidelity's procs workload, every
// version: "M still holds P 1", then the goroutine lost to GCBegin and STWBegin): the
// runtime writes GoSched + ProcStop(P1) before acquirep(allp[0]) and GoStart after it.
// The procresize record says its P (1) goes (nprocs 1); the thread's next acquirep (m.p
// already 0; Go 1.26's probe returns into acquirep, not procresize) stands for all four.
// A shrink that keeps the caller's P moves nothing.
TEST(RecordDecoder, ProcresizeMovesItsGoroutineToP0) {
  for (int minor : {19, 23, 26}) {
    Fixture f(minor);
    RawBuilder m1(21);
    f.Feed(m1.Gstatus(100, 0x1100, 5, 1, 2, 1, 5));  // execute: g5 on P1
    f.Feed(m1.Call(105, 10, 1, 5, {2}));              // procresize(2): P1 stays
    f.Feed(m1.Call(108, 10, 1, 5, {1}));              // procresize(1): P1 goes
    m1.call_flags = GT_CALL_ARG0_P;
    f.Feed(m1.Call(110, 3, -1, 5, {0xd000}, {0, 0, 0, 4}));  // its acquirep(allp[0])
    m1.block_reason = 4;
    f.Feed(m1.Gstatus(120, 0x1200, 5, 2, 4, 0, 5));  // g5 parks on P0
    EXPECT_EQ(Count(f, RecordKind::kGoStop), 1u) << minor;
    EXPECT_EQ(Count(f, RecordKind::kProcStop), 1u) << minor;
    ExpectNoRepair(f, "decoder-procresize-" + std::to_string(minor));
  }
}

// Go <= 1.25 (go1.23, GC every 5 ms beside goroutines in 1 ms nanosleeps: "P 2 still in
// a syscall", "P 2 running on M, not in a syscall" and two more): the GC's preemption
// signal reaches M1 in exitsyscall after exitsyscallfast won P0 back (m.p = P0, m.oldp 0,
// the g still _Gsyscall), and the handler's rt_sigreturn passes the sys_enter filter.
// Not a syscall of the goroutine: the exit waiting on P0 stays a fast one, decided by the
// thread's next record, and no syscall holds P0 when g5 is preempted and runs again.
TEST(RecordDecoder, LegacySignalReturnInExitsyscallIsNoSyscall) {
  Fixture f(23);
  RawBuilder m1(21);
  m1.call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
  m1.m_oldp = 0xd000;
  m1.m_tick = 10;
  f.Feed(m1.Call(100, 1, -1, 5, {0, 0, 0, 35}, {0, 2, 0, 10}));  // nanosleep on P0
  f.Feed(m1.Call(110, 2, -1, 5, {}, {0, 2, 0, 10}));             // its sys_exit: P0 _Psyscall
  m1.m_oldp = 0;  // exitsyscall cleared it; exitsyscallfast took P0 (m.p)
  m1.p_tick = 11;
  f.Feed(m1.Call(120, 1, 0, 5, {0, 0, 0, 15}, {}));  // rt_sigreturn from the SIGURG handler
  m1.p_tick = 0;
  f.Feed(m1.Gstatus(130, 0x1400, 5, 2, 1, 0, 5));  // g5 preempted: GoStop on P0
  f.Feed(m1.Gstatus(140, 0x1100, 5, 1, 2, 0, 5));  // execute: GoStart on P0
  m1.m_oldp = 0xd000;
  m1.m_tick = 11;
  f.Feed(m1.Call(150, 1, -1, 5, {0, 0, 0, 35}, {0, 2, 0, 11}));  // its next nanosleep
  EXPECT_EQ(Steals(f, 0, 21), 0u);
  EXPECT_EQ(Count(f, RecordKind::kGoSyscallBegin), 2u);
  EXPECT_EQ(Count(f, RecordKind::kGoSyscallEnd), 1u);
  ExpectNoRepair(f, "decoder-legacy-signal-return-exit");
}

// The same in entersyscall, after _Gsyscall and before m.p is cleared (go1.23, same
// program: "P 1 running on M, not in a syscall" and two more): the handler's return writes
// an entry and an exit (the return lands in Go text, the g _Gsyscall) before the
// goroutine's own syscall; neither is one, and its P was never stolen.
TEST(RecordDecoder, LegacySignalReturnInEntersyscallIsNoSyscall) {
  Fixture f(23);
  RawBuilder m1(21);
  f.Feed(m1.Gstatus(90, 0x1100, 5, 1, 2, 0, 5));  // execute: g5 runs on P0
  m1.call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
  m1.p_tick = 10;
  f.Feed(m1.Call(100, 1, 0, 5, {0, 0, 0, 15}, {}));          // rt_sigreturn, m.p = P0
  f.Feed(m1.Call(101, 2, 0, 5, {0xc000047c08}, {}));         // its exit (a restored RAX)
  m1.m_oldp = 0xd000;
  m1.m_tick = 10;
  f.Feed(m1.Call(110, 1, -1, 5, {0, 0, 0, 35}, {0, 2, 0, 10}));  // the nanosleep, on P0
  f.Feed(m1.Call(120, 2, -1, 5, {}, {0, 2, 0, 10}));             // its sys_exit
  m1.m_oldp = 0;
  m1.p_tick = 0;
  m1.block_reason = 4;
  f.Feed(m1.Gstatus(130, 0x1200, 5, 2, 4, 0, 5));  // g5 parks on P0: the exit was fast
  EXPECT_EQ(Steals(f, 0, 21), 0u);
  EXPECT_EQ(Count(f, RecordKind::kGoSyscallBegin), 1u);
  EXPECT_EQ(Count(f, RecordKind::kGoSyscallEnd), 1u);
  ExpectNoRepair(f, "decoder-legacy-signal-return-entry");
}

// A signal inside the syscall (nanosleep's -ERESTART_RESTARTBLOCK exit writes no record):
// the return's entry is nothing, and its exit, -EINTR as the return restores it, is the
// syscall's own.
TEST(RecordDecoder, LegacySignalReturnInASyscallKeepsItsExit) {
  Fixture f(23);
  RawBuilder m1(21);
  m1.call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
  m1.m_oldp = 0xd000;
  m1.m_tick = 10;
  f.Feed(m1.Call(100, 1, -1, 5, {0, 0, 0, 35}, {0, 2, 0, 10}));   // nanosleep on P0
  f.Feed(m1.Call(110, 1, -1, 5, {0, 0, 0, 15}, {0, 2, 0, 10}));   // rt_sigreturn in it
  f.Feed(m1.Call(111, 2, -1, 5, {std::uint64_t(-4)}, {0, 2, 0, 10}));  // -EINTR
  f.Feed(m1.Call(120, 1, -1, 5, {0, 0, 0, 35}, {0, 2, 0, 11}));   // nanosleep again
  EXPECT_EQ(Count(f, RecordKind::kGoSyscallBegin), 2u);
  EXPECT_EQ(Count(f, RecordKind::kGoSyscallEnd), 1u);
  ExpectNoRepair(f, "decoder-legacy-signal-return-in-syscall");
}

// Go <= 1.25 (go1.19 HTTP bench, "P 0 still held by M" and 12 more): the GC's
// stop-the-world CASes P0 out of M1's syscall (_Psyscall -> _Pgcstop) between M1's sys_exit
// (which read P0 still _Psyscall: a fast exit, waiting) and its exitsyscallfast CAS, which
// then fails; the world restarts and gives P0 to M2 before the kernel runs M1 again. The
// steal is the stop-the-world's, at its CAS (kSTWSyscallSteal, the P's tick read before its
// ++): M1's exit is a slow one from then on. Inferred at M1's exitsyscall0 instead, it
// came after M2's ProcStart of P0.
TEST(RecordDecoder, LegacyStopTheWorldStealsFromTheWaitingExit) {
  Fixture f(19);
  RawBuilder m1(21), m2(22), stw(23);
  m1.call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
  m1.m_oldp = 0xd000;
  m1.m_tick = 10;
  stw.call_flags = GT_CALL_ARG0_P | GT_SITE_FRAME_READY;
  f.Feed(m1.Call(100, 1, -1, 5, {}, {0, 2, 0, 10}));  // M1's syscall on P0
  f.Feed(m1.Call(110, 2, -1, 5, {}, {0, 2, 0, 10}));  // its sys_exit: P0 _Psyscall, its tick
  f.Feed(stw.Call(120, 8, 1, 0, {}, {0, 3, 0, 10}));  // stopTheWorldWithSema took P0 (_Pgcstop)
  m2.call_flags = GT_CALL_ARG0_P;
  f.Feed(m2.Call(130, 3, -1, 0, {0xd000}, {0, 0, 0, 11}));  // startTheWorld: M2 acquirep(P0)
  m1.p_tick = 0;
  f.Feed(m1.Gstatus(140, 0x1a00, 5, 3, 1, -1, 5));  // M1's exitsyscall0: no P
  EXPECT_EQ(Steals(f, 0, 23), 1u);
  EXPECT_EQ(Steals(f, 0, 21), 0u);
  ExpectNoRepair(f, "decoder-legacy-stw-steal");
}

// ... and when M1's sys_exit found P0 gone already (_Pgcstop: the CAS came first), M1
// writes that steal at once; the stop-the-world's record, behind it, is the same steal.
TEST(RecordDecoder, LegacyStopTheWorldStealWrittenAtTheExitIsNotWrittenAgain) {
  Fixture f(19);
  RawBuilder m1(21), m2(22), stw(23);
  m1.call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
  m1.m_oldp = 0xd000;
  m1.m_tick = 10;
  stw.call_flags = GT_CALL_ARG0_P | GT_SITE_FRAME_READY;
  f.Feed(m1.Call(100, 1, -1, 5, {}, {0, 2, 0, 10}));  // M1's syscall on P0
  f.Feed(m1.Call(110, 2, -1, 5, {}, {0, 3, 0, 10}));  // its sys_exit: P0 _Pgcstop already
  f.Feed(stw.Call(112, 8, 1, 0, {}, {0, 3, 0, 10}));  // the stop-the-world's record of it
  m2.call_flags = GT_CALL_ARG0_P;
  f.Feed(m2.Call(130, 3, -1, 0, {0xd000}, {0, 0, 0, 11}));  // startTheWorld: M2 acquirep(P0)
  m1.p_tick = 0;
  f.Feed(m1.Gstatus(140, 0x1a00, 5, 3, 1, -1, 5));  // M1's exitsyscall0
  EXPECT_EQ(Steals(f, 0, 21) + Steals(f, 0, 23), 1u);
  ExpectNoRepair(f, "decoder-legacy-stw-steal-at-exit");
}

// Go <= 1.25: a thread entering a syscall while the world stops gives its own P to it
// (entersyscall_gcwait: CAS _Psyscall -> _Pgcstop, then the runtime's steal, after its
// GoSyscallBegin). From the tracepoints the probe fires before the kernel's sys_enter:
// the steal waits for that entry and follows it; the restarted world gives P0 to M2 before
// M1's syscall returns, and M1's exit, finding P0 running, writes no steal of its own.
// Without the probe the steal came at that sys_exit, after M2's ProcStart of P0.
TEST(RecordDecoder, LegacyEnterSyscallGivesItsPToTheStoppingWorld) {
  Fixture f(19);
  RawBuilder m1(21), m2(22);
  m1.m_oldp = 0xd000;
  m1.m_tick = 10;
  m1.call_flags = GT_CALL_ARG0_P | GT_SITE_FRAME_READY;
  f.Feed(m1.Call(100, 9, -1, 5, {}, {0, 3, 0, 10}));  // entersyscall_gcwait took P0
  m1.call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
  f.Feed(m1.Call(105, 1, -1, 5, {}, {0, 3, 0, 11}));  // sys_enter: P0 _Pgcstop, tick 11
  m2.call_flags = GT_CALL_ARG0_P;
  m2.m_ptr = 0xe000;
  f.Feed(m2.Call(130, 3, -1, 0, {0xd000}, {0, 0, 0, 11}));  // startTheWorld: M2 acquirep(P0)
  f.Feed(m1.Call(140, 2, -1, 5, {}, {0, 1, 0xe000, 11}));  // sys_exit: P0 running on M2
  m1.p_tick = 0;
  f.Feed(m1.Gstatus(150, 0x1a00, 5, 3, 1, -1, 5));  // exitsyscall0
  std::vector<RecordKind> at_entry;
  for (const Record &r : f.out)
    if (r.m == 21 && r.ts <= 105) at_entry.push_back(r.kind);
  const std::vector<RecordKind> want = {RecordKind::kGoSyscallBegin, RecordKind::kProcSteal};
  ASSERT_EQ(at_entry.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(RecordKindName(at_entry[i]), RecordKindName(want[i])) << i;
  EXPECT_EQ(Steals(f, 0, 21), 1u);
  ExpectNoRepair(f, "decoder-legacy-gcwait-steal");
}

// ... and from casgstatus' entry probe (or cgocall's CALL of entersyscall) the entry is
// decoded before the probe: the steal at once.
TEST(RecordDecoder, LegacyEnterSyscallGCStopAfterItsEntry) {
  Fixture f(19);
  RawBuilder m1(21), m2(22);
  m1.p_tick = 10;
  f.Feed(m1.Gstatus(100, 0x2a00, 5, 2, 3, 0, 5));  // reentersyscall: g5 _Grunning -> _Gsyscall on P0
  m1.call_flags = GT_CALL_ARG0_P | GT_SITE_FRAME_READY;
  f.Feed(m1.Call(102, 9, -1, 5, {}, {0, 3, 0, 10}));  // entersyscall_gcwait took P0
  EXPECT_EQ(Steals(f, 0, 21), 1u);
  m2.call_flags = GT_CALL_ARG0_P;
  f.Feed(m2.Call(130, 3, -1, 0, {0xd000}, {0, 0, 0, 11}));  // startTheWorld: M2 acquirep(P0)
  m1.p_tick = 0;
  f.Feed(m1.Gstatus(150, 0x1a00, 5, 3, 1, -1, 5));  // exitsyscall0
  EXPECT_EQ(Steals(f, 0, 21), 1u);
  ExpectNoRepair(f, "decoder-legacy-gcwait-steal-after-entry");
}

// The same exit when M1 wins the CAS at once: its next record shows tick 11.
TEST(RecordDecoder, LegacyExitKeptShowsTheNextTick) {
  Fixture f(23);
  RawBuilder m1(21);
  m1.call_flags = GT_CALL_DEREF_OLDP | GT_CALL_FROM_TRACEPOINT;
  m1.m_oldp = 0xd000;
  m1.m_tick = 10;
  f.Feed(m1.Call(100, 1, -1, 5, {}, {0, 2, 0, 10}));
  f.Feed(m1.Call(110, 2, -1, 5, {}, {0, 2, 0, 10}));
  f.Feed(m1.Call(200, 1, -1, 5, {}, {0, 2, 0, 11}));
  std::vector<RecordKind> kinds;
  for (const Record &r : f.out) kinds.push_back(r.kind);
  const std::vector<RecordKind> want = {RecordKind::kGoSyscallBegin, RecordKind::kGoSyscallEnd,
                                        RecordKind::kGoSyscallBegin};
  ASSERT_EQ(kinds.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_EQ(RecordKindName(kinds[i]), RecordKindName(want[i]));
}

}  // namespace
}  // namespace gotraced::model::testing

namespace gotraced::model::testing {
namespace {

// Level low's syscalls from sched_switch (GT_REC_SYS_SWITCH, bpf/gt_sys_switch.bpf.h):
// one record at the switch-in is one syscall of its goroutine on its thread, from the
// switch-out (off_ts) to the switch-in (the record's ts); a record without a goroutine
// or with its instants out of order is not a syscall.
TEST(RecordDecoder, SyscallFromSchedSwitch) {
  Fixture f;
  auto rec = [](std::uint64_t off, std::uint64_t in, std::uint64_t goid) {
    gt_sys_switch_record r{};
    r.h.ts_ns = in;
    r.h.tgid = 1;
    r.h.tid = 42;
    r.h.kind = GT_REC_SYS_SWITCH;
    r.off_ts = off;
    r.nr = 0;  // read
    r.arg0 = 5;
    r.g = 0xc000000000 + goid * 0x100;
    r.goid = goid;
    r.prev_state = 1;
    const auto *b = reinterpret_cast<const std::uint8_t *>(&r);
    return std::vector<std::uint8_t>(b, b + sizeof r);
  };
  f.Feed(rec(1'000'000, 6'000'000, 7));
  ASSERT_EQ(f.out.size(), 2u);
  EXPECT_EQ(f.out[0].kind, RecordKind::kGoSyscallBegin);
  EXPECT_EQ(f.out[0].ts, 1'000'000u);
  EXPECT_EQ(f.out[0].g, Goid{7});
  EXPECT_EQ(f.out[0].m, ThreadId{42});
  EXPECT_EQ(f.out[1].kind, RecordKind::kGoSyscallEnd);
  EXPECT_EQ(f.out[1].ts, 6'000'000u);
  EXPECT_EQ(f.out[1].g, Goid{7});
  f.out.clear();
  f.Feed(rec(1'000'000, 6'000'000, 0));  // no goroutine
  f.Feed(rec(7'000'000, 6'000'000, 7));  // ends before it begins
  EXPECT_TRUE(f.out.empty());
}

// The guard: a goroutine is in one syscall at a time, so a record of G that begins before
// the end of the last one written for G (a stale note: bpf/gt_sys_switch.bpf.h) is left
// out and counted; one that begins at or after it is written, as are other goroutines'.
TEST(RecordDecoder, SyscallOverlappingTheSameGoroutinesIsDropped) {
  Fixture f;
  auto rec = [](std::uint32_t tid, std::uint64_t off, std::uint64_t in, std::uint64_t goid) {
    gt_sys_switch_record r{};
    r.h.ts_ns = in;
    r.h.tgid = 1;
    r.h.tid = tid;
    r.h.kind = GT_REC_SYS_SWITCH;
    r.off_ts = off;
    r.nr = 35;  // nanosleep
    r.g = 0xc000000000 + goid * 0x100;
    r.goid = goid;
    r.prev_state = 1;
    const auto *b = reinterpret_cast<const std::uint8_t *>(&r);
    return std::vector<std::uint8_t>(b, b + sizeof r);
  };
  f.Feed(rec(42, 3'265'000, 6'756'000, 7));  // G7 on thread 42
  f.Feed(rec(41, 100'000, 6'765'000, 7));    // G7 on thread 41 all along: stale
  f.Feed(rec(43, 4'000'000, 5'000'000, 8));  // another goroutine meanwhile
  f.Feed(rec(42, 6'759'000, 9'946'000, 7));  // G7's next syscall
  ASSERT_EQ(f.out.size(), 6u);
  EXPECT_EQ(f.out[0].m, ThreadId{42});
  EXPECT_EQ(f.out[2].g, Goid{8});
  EXPECT_EQ(f.out[4].ts, 6'759'000u);
  EXPECT_EQ(f.out[5].ts, 9'946'000u);
  EXPECT_EQ(f.dec.stats().syscall_overlaps, 1u);
}

}  // namespace
}  // namespace gotraced::model::testing
