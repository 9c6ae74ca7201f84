// The kernel view in the model (daemon/model/model_kernel.cc) and in `gotraced report`
// (report/kernel_side.cc): synthetic OFF/ON records around a running goroutine, the trace
// judged by Go's own parser (tracecheck), the regions summed by the report.
#include <gtest/gtest.h>

#include "report/report.h"
#include <asm/unistd_64.h>

#include "daemon/model/kernel_view.h"
#include "daemon/model/record_decoder.h"
#include "encoder/legacy_writer.h"
#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

constexpr std::uint64_t kUs = 1000;

Record ROff(std::uint64_t ts, ThreadId m, std::string_view cause) {
  Record r;
  r.ts = ts;
  r.m = m;
  r.kind = RecordKind::kKernelOff;
  r.reason = cause;
  return r;
}

Record ROn(std::uint64_t ts, ThreadId m, std::uint64_t off_ts, std::uint64_t wake_ts = 0) {
  Record r;
  r.ts = ts;
  r.m = m;
  r.kind = RecordKind::kKernelOn;
  r.value = off_ts;
  r.value2 = wake_ts;
  return r;
}

const report::KernelSide::Cause *Total(const report::Report &r, std::string_view type) {
  for (const auto &c : r.kernel.totals)
    if (c.type == type) return &c;
  return nullptr;
}

// Causes from the kernel's switch-out state (include/trace/events/sched.h
// __trace_sched_switch_state: preempted means runnable whatever the state word says).
TEST(KernelView, CauseFromSwitchOut) {
  EXPECT_EQ(KernelOffCause(0, false, false), kKernelPreempted);
  EXPECT_EQ(KernelOffCause(1, true, false), kKernelPreempted);
  EXPECT_EQ(KernelOffCause(0, true, true), kKernelThrottled);
  EXPECT_EQ(KernelOffCause(2, false, false), kKernelBlocked);
  EXPECT_EQ(KernelOffCause(0x402, false, false), kKernelBlocked);  // TASK_IDLE = D | NOLOAD
  EXPECT_EQ(KernelOffCause(1, false, true), kKernelSleep);         // asleep, not throttled
  EXPECT_TRUE(IsKernelRegion(kKernelRunQueue));
  EXPECT_FALSE(IsKernelRegion("work"));
}

// A running goroutine preempted twice and throttled once, then a sleep with its wake-up:
// regions on g1, accepted by the parser; the report sums them per cause and names g1's
// group; the sleep splits at the wake-up into the sleep and the run-queue wait.
TEST(KernelView, RegionsOnTheRunningGoroutine) {
  Harness h;
  h.PushAll({
      RProcStart(100 * kUs, 1, 0),
      RGoCreate(110 * kUs, 1, 0, kNoG, 1),
      RGoStart(120 * kUs, 1, 0, 1),
      ROff(200 * kUs, 1, kKernelPreempted),
      ROn(300 * kUs, 1, 200 * kUs),
      ROff(400 * kUs, 1, kKernelPreempted),
      ROn(450 * kUs, 1, 400 * kUs),
      ROff(500 * kUs, 1, kKernelThrottled),
      ROn(1500 * kUs, 1, 500 * kUs),
      RUser(RecordKind::kUserRegionBegin, 1600 * kUs, 1, 0, 1, 0, "work"),
      ROff(1700 * kUs, 1, kKernelBlocked),
      ROn(2000 * kUs, 1, 1700 * kUs, 1900 * kUs),  // woken at 1900: 100 us in the run queue
      RUser(RecordKind::kUserRegionEnd, 2100 * kUs, 1, 0, 1, 0, "work"),
      RGoEnd(2200 * kUs, 1, 0, 1),
  });
  CheckResult res = h.Finish("kernel_regions");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("regions"), 6);  // 4 kernel intervals, the run-queue one, "work"
  EXPECT_EQ(res.Int("region_ends"), 6);
  EXPECT_EQ(h.model.stats().kernel_regions, 5u);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();

  const report::Report r = report::BuildReport(h.sink.bytes());
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.kernel.regions, 5u);
  auto near = [](std::uint64_t got, std::uint64_t want) { return got + 200 > want && got < want + 200; };
  const report::KernelSide::Cause *p = Total(r, kKernelPreempted), *t = Total(r, kKernelThrottled),
                         *b = Total(r, kKernelBlocked), *q = Total(r, kKernelRunQueue);
  ASSERT_TRUE(p && t && b && q);
  EXPECT_EQ(p->count, 2u);
  EXPECT_TRUE(near(p->total_ns, 150 * kUs)) << p->total_ns;
  EXPECT_TRUE(near(t->total_ns, 1000 * kUs)) << t->total_ns;
  EXPECT_TRUE(near(b->total_ns, 200 * kUs)) << b->total_ns;
  EXPECT_TRUE(near(q->total_ns, 100 * kUs)) << q->total_ns;
  ASSERT_FALSE(r.kernel.groups.empty());
  EXPECT_EQ(r.kernel.groups[0].causes[0].type, kKernelThrottled);  // biggest first
  ASSERT_FALSE(r.kernel.groups[0].causes[0].goroutines.empty());
  EXPECT_EQ(r.kernel.groups[0].causes[0].goroutines[0].g, 1u);
  EXPECT_NE(report::ReportText(r).find("kernel: throttled"), std::string::npos);
  EXPECT_NE(report::ReportJson(r).find("\"type\":\"kernel: throttled\""), std::string::npos);
}

// What the parser would refuse is not written: off CPU in a syscall (the goroutine is
// not Running: advanceUserRegionBegin's userGoReqs), on an M with no goroutine, an ON
// whose OFF was not placed or names another switch-out. A lost ON leaves the region to
// the next OFF, which closes it first.
TEST(KernelView, OnlyWhereTheParserAllows) {
  Harness h;
  h.PushAll({
      RProcStart(100 * kUs, 1, 0),
      RGoCreate(110 * kUs, 1, 0, kNoG, 1),
      RGoStart(120 * kUs, 1, 0, 1),
      RSyscall(200 * kUs, 1, 0, 1),
      ROff(210 * kUs, 1, kKernelSleep),  // in the syscall: its account, not a region of its own;
      ROn(290 * kUs, 1, 210 * kUs),      // no kernel entry named the syscall: no region either
      RSyscallEnd(300 * kUs, 1, 0, 1),
      ROff(400 * kUs, 2, kKernelPreempted),  // M 2 runs nothing
      ROn(410 * kUs, 2, 400 * kUs),
      ROff(500 * kUs, 1, kKernelPreempted),
      ROn(520 * kUs, 1, 499 * kUs),          // another switch-out's ON (its OFF lost)
      ROff(600 * kUs, 1, kKernelPreempted),  // closes the one at 500 first
      ROn(650 * kUs, 1, 600 * kUs),
      RGoEnd(700 * kUs, 1, 0, 1),
  });
  CheckResult res = h.Finish("kernel_rules");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("regions"), 2);
  EXPECT_EQ(res.Int("region_ends"), 2);
  EXPECT_EQ(h.model.stats().kernel_unplaced, 1u);  // M 2's
}

// A goroutine syscall entry as Go 1.26's sys_enter record gives it: the number, the first
// argument and what the decoder named that fd ("" unnamed).
Record RSys(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::int64_t nr, std::uint64_t arg0,
            std::string fd_name = "") {
  Record r = RSyscall(ts, m, p, g);
  r.value = static_cast<std::uint64_t>(nr) + 1;
  r.value2 = arg0;
  r.text = std::move(fd_name);
  return r;
}

// The kernel's entry / exit of the M's syscall (Go <= 1.25: bpf/gt_kernel_syscall.bpf.h;
// the exit's return value on every version).
Record RKEnter(std::uint64_t ts, ThreadId m, std::int64_t nr, std::uint64_t arg0, std::string fd_name = "") {
  Record r;
  r.ts = ts;
  r.m = m;
  r.kind = RecordKind::kKernelSyscallEnter;
  r.value = static_cast<std::uint64_t>(nr) + 1;
  r.value2 = arg0;
  r.text = std::move(fd_name);
  return r;
}
Record RKExit(std::uint64_t ts, ThreadId m, std::int64_t ret) {
  Record r;
  r.ts = ts;
  r.m = m;
  r.kind = RecordKind::kKernelSyscallExit;
  r.value = static_cast<std::uint64_t>(ret);
  return r;
}

// Goroutine syscalls: a read of a pipe that sleeps (the P stolen by another M: the region
// begins before the steal, ends when the goroutine runs again, with its log), a fast one
// that stayed on CPU (no region), a 2 ms one that kept its P (region and log before the
// GoSyscallEnd). Accepted by Go's parser; the report's breakdown comes from the logs.
TEST(KernelView, SyscallRegions) {
  Harness h(encoder::Version::kGo126);
  h.PushAll({
      RProcStart(100 * kUs, 1, 0),
      RGoCreate(110 * kUs, 1, 0, kNoG, 1),
      RGoStart(120 * kUs, 1, 0, 1),
      RSys(200 * kUs, 1, 0, 1, 0, 3, "pipe"),  // read(3, ...)
      ROff(210 * kUs, 1, kKernelSleep),
      RProcSteal(250 * kUs, 2, 0, 1),   // sysmon's retake
      ROn(310 * kUs, 1, 210 * kUs, 300 * kUs),
      RKExit(315 * kUs, 1, 5),          // 5 bytes read
      RSyscallEndBlocked(320 * kUs, 1, kNoP, 1),
      RProcStart(330 * kUs, 1, 0),
      RGoStart(340 * kUs, 1, 0, 1),
      RSys(400 * kUs, 1, 0, 1, 1, 3),  // write: 10 us on CPU
      RSyscallEnd(410 * kUs, 1, 0, 1),
      RSys(500 * kUs, 1, 0, 1, 1, 7),  // write(7): 2 ms on CPU, an fd the decoder did not name
      RKExit(2499 * kUs, 1, -32),       // EPIPE
      RSyscallEnd(2500 * kUs, 1, 0, 1),
      RGoEnd(2600 * kUs, 1, 0, 1),
  });
  CheckResult res = h.Finish("kernel_syscalls");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("regions"), 2);
  EXPECT_EQ(res.Int("region_ends"), 2);
  EXPECT_EQ(res.Int("logs"), 2);
  EXPECT_EQ(h.model.stats().inconsistencies, 0u) << h.model.last_repair();

  const report::Report r = report::BuildReport(h.sink.bytes());
  const report::KernelSide::Cause *read = Total(r, "kernel: syscall read pipe");
  const report::KernelSide::Cause *write = Total(r, "kernel: syscall write fd 7");
  ASSERT_TRUE(read && write);
  EXPECT_NEAR(static_cast<double>(read->total_ns), 140e3, 1e3);   // 200 us -> the GoStart at 340
  EXPECT_NEAR(static_cast<double>(write->total_ns), 2000e3, 1e3);
  EXPECT_NEAR(static_cast<double>(read->breakdown.at("off-CPU sleep")), 90e3, 1e3);  // 210 -> wake at 300
  EXPECT_NEAR(static_cast<double>(read->breakdown.at("run-queue wait")), 10e3, 1e3);
  EXPECT_NEAR(static_cast<double>(read->breakdown.at("waiting for a P")), 20e3, 1e3);
  EXPECT_NEAR(static_cast<double>(write->breakdown.at("on CPU")), 2000e3, 1e3);
  // Bytes: the read's 5 (its log "read pipe: 0.140 ms, 5 bytes: ..."); the failed write none.
  EXPECT_EQ(read->bytes, 5u);
  EXPECT_EQ(read->calls_with_bytes, 1u);
  EXPECT_EQ(write->calls_with_bytes, 0u);
  ASSERT_EQ(r.kernel.groups.size(), 1u);
  ASSERT_EQ(r.kernel.groups[0].syscall_bytes.count("read"), 1u);
  EXPECT_EQ(r.kernel.groups[0].syscall_bytes.at("read").first, 5u);
  EXPECT_EQ(r.kernel.groups[0].syscall_bytes.count("write"), 0u);
  EXPECT_NE(report::ReportText(r).find("read 5 B in 1 call"), std::string::npos) << report::ReportText(r);
  EXPECT_NE(report::ReportJson(r).find("\"syscall_bytes\":{\"read\":{\"bytes\":5,\"calls\":1}}"), std::string::npos)
      << report::ReportJson(r);
}

// Go <= 1.25: the syscall events come from uprobes (no number), the kernel's entry and exit
// from the kernel view's own records on the same M: a pipe read whose P is stolen gets its
// region and bytes; a syscall with no kernel entry (a cgo call) gets none, and an entry
// before the GoSyscallBegin (another syscall's) names nothing.
TEST(KernelView, SyscallRegionsFromKernelRecords) {
  Harness h(encoder::Version::kGo126);
  h.PushAll({
      RProcStart(100 * kUs, 1, 0),
      RGoCreate(110 * kUs, 1, 0, kNoG, 1),
      RGoStart(120 * kUs, 1, 0, 1),
      RKEnter(150 * kUs, 1, 0, 9, "stale"),  // before the syscall: not its entry
      RSyscall(200 * kUs, 1, 0, 1),          // casgstatus(_Grunning -> _Gsyscall)
      RKEnter(201 * kUs, 1, 0, 3, "pipe"),   // read(3, ...)
      RKEnter(202 * kUs, 1, 0, 4, "other"),  // restarted: the first entry stays
      ROff(210 * kUs, 1, kKernelSleep),
      RProcSteal(250 * kUs, 2, 0, 1),
      ROn(310 * kUs, 1, 210 * kUs, 300 * kUs),
      RKExit(315 * kUs, 1, 4096),
      RSyscallEndBlocked(320 * kUs, 1, kNoP, 1),
      RProcStart(330 * kUs, 1, 0),
      RGoStart(340 * kUs, 1, 0, 1),
      RSyscall(400 * kUs, 1, 0, 1),  // a cgo call: 3 ms, no kernel entry
      RSyscallEnd(3400 * kUs, 1, 0, 1),
      RGoEnd(3500 * kUs, 1, 0, 1),
  });
  CheckResult res = h.Finish("kernel_syscalls_legacy");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("regions"), 1);
  EXPECT_EQ(res.Int("logs"), 1);
  const report::Report r = report::BuildReport(h.sink.bytes());
  const report::KernelSide::Cause *read = Total(r, "kernel: syscall read pipe");
  ASSERT_TRUE(read) << report::ReportText(r);
  EXPECT_NEAR(static_cast<double>(read->breakdown.at("off-CPU sleep")), 90e3, 1e3);
  EXPECT_EQ(read->bytes, 4096u);
  EXPECT_EQ(r.kernel.regions, 1u);
}

// A P taken between reentersyscall and the sys_enter tracepoint: its ProcSteal is stamped
// before the GoSyscallBegin (the model applies it after). A region begun at the entry
// would come after the steal in the parser's order, on an M without a P ("expected a
// proc"): that syscall gets none.
TEST(KernelView, SyscallStolenBeforeItsEntry) {
  Harness h(encoder::Version::kGo126);
  h.PushAll({
      RProcStart(100 * kUs, 1, 0),
      RGoCreate(110 * kUs, 1, 0, kNoG, 1),
      RGoStart(120 * kUs, 1, 0, 1),
      RSys(200 * kUs, 1, 0, 1, 0, 3),
      RProcSteal(199 * kUs, 2, 0, 1),
      ROff(210 * kUs, 1, kKernelSleep),
      ROn(310 * kUs, 1, 210 * kUs, 300 * kUs),
      RSyscallEndBlocked(320 * kUs, 1, kNoP, 1),
      RProcStart(330 * kUs, 1, 0),
      RGoStart(340 * kUs, 1, 0, 1),
      RGoEnd(400 * kUs, 1, 0, 1),
  });
  CheckResult res = h.Finish("kernel_syscall_early_steal");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("regions"), 0);
  EXPECT_EQ(res.Int("logs"), 0);
}

// The legacy formats (go1.21 here): a syscall gets its log alone, no region (a region begun
// before the GoSysBlock would turn the syscall into an instant for Go 1.22+'s reader,
// internal/trace/tracev1.go, and the writer holds a goroutine's events while it is in a
// syscall); one that lost its P after the goroutine's next GoStart, one that kept it at its
// return. Go's parser accepts the file; `gotraced report` reads it and counts the syscalls
// from their logs.
TEST(KernelView, LegacyFormatSyscalls) {
  encoder::MemorySink sink;
  encoder::LegacyTraceWriter writer(sink, encoder::LegacyWriterOptions{.version = encoder::Version::kGo121, .tick_divisor = 1});
  TableSymbolizer sym;
  Model model(writer, &sym, ModelOptions{});
  for (Record r : std::vector<Record>{
           RProcStart(100 * kUs, 1, 0),
           RGoCreate(110 * kUs, 1, 0, kNoG, 1),
           RGoStart(120 * kUs, 1, 0, 1),
           RSyscall(200 * kUs, 1, 0, 1),
           RKEnter(201 * kUs, 1, 0, 3, "pipe"),
           ROff(210 * kUs, 1, kKernelSleep),
           RProcSteal(250 * kUs, 2, 0, 1),
           ROn(310 * kUs, 1, 210 * kUs, 300 * kUs),
           RKExit(315 * kUs, 1, 4096),
           RSyscallEndBlocked(320 * kUs, 1, kNoP, 1),
           RProcStart(330 * kUs, 1, 0),
           RGoStart(340 * kUs, 1, 0, 1),
           RSyscall(400 * kUs, 1, 0, 1),  // write(4): 2 ms on CPU, kept its P
           RKEnter(401 * kUs, 1, 1, 4, "/tmp/out"),
           RKExit(2399 * kUs, 1, 100),
           RSyscallEnd(2400 * kUs, 1, 0, 1),
           RGoEnd(2500 * kUs, 1, 0, 1),
       })
    model.Push(std::move(r));
  model.Finish(2600 * kUs);
  writer.Close();
  CheckResult res = RunTracecheck(sink.bytes(), "kernel_syscalls_go121");
  EXPECT_ACCEPTED(res);
  EXPECT_EQ(res.Int("regions"), 0);
  EXPECT_EQ(res.Int("logs"), 2);
  const report::Report r = report::BuildReport(sink.bytes());
  ASSERT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.version, "go1.21");
  const report::KernelSide::Cause *read = Total(r, "kernel: syscall read pipe");
  const report::KernelSide::Cause *write = Total(r, "kernel: syscall write /tmp/out");
  ASSERT_TRUE(read && write) << report::ReportText(r);
  // From its log: 200 us -> the exit at 320 (0.120 ms), then waiting for a P to 340.
  EXPECT_NEAR(static_cast<double>(read->total_ns), 140e3, 1e3);
  EXPECT_EQ(read->bytes, 4096u);
  EXPECT_NEAR(static_cast<double>(write->total_ns), 2000e3, 1e3);  // its log's 2.000 ms
  EXPECT_EQ(write->bytes, 100u);
  ASSERT_EQ(r.kernel.groups.size(), 1u);
  EXPECT_EQ(r.kernel.groups[0].function.rfind("main.start", 0), 0u) << r.kernel.groups[0].function;  // its GoCreate names it
  EXPECT_EQ(r.kernel.groups[0].syscall_bytes.at("write").first, 100u);
}

// The fds are named when the entry record is decoded (RecordDecoder, DecoderConfig::
// fd_namer), in record order: a read of fd 5 is named before the close of fd 5 forgets it,
// and the next read of fd 5 (another file by then) is named anew; a syscall whose first
// argument is no fd (nanosleep) asks nothing.
TEST(KernelView, FdsNamedAtDecode) {
  struct Namer final : FdNamer {
    std::vector<std::string> calls;
    int opened = 0;
    std::string Name(std::int64_t fd) override {
      calls.push_back("name " + std::to_string(fd));
      return fd == 5 ? (opened ? "/tmp/second" : "pipe") : "fd " + std::to_string(fd);
    }
    void Forget(std::int64_t fd) override {
      calls.push_back("forget " + std::to_string(fd));
      ++opened;
    }
  } namer;
  DecoderConfig dc;
  dc.kernel_view = true;
  dc.fd_namer = &namer;
  RecordDecoder dec(std::move(dc));
  auto enter = [&](std::uint64_t ts, std::int64_t nr, std::int64_t arg0) {
    gt_syscall_record raw{};
    raw.h.ts_ns = ts;
    raw.h.tid = 7;
    raw.h.kind = GT_REC_KSYS_ENTER;
    raw.id = nr;
    raw.ret = arg0;
    std::vector<Record> out;
    dec.Decode(capture::RecordView(&raw, sizeof raw), out);
    return out;
  };
  auto r1 = enter(100, __NR_read, 5);
  ASSERT_EQ(r1.size(), 1u);
  EXPECT_EQ(r1[0].kind, RecordKind::kKernelSyscallEnter);
  EXPECT_EQ(r1[0].text, "pipe");
  EXPECT_EQ(r1[0].value, static_cast<std::uint64_t>(__NR_read) + 1);
  EXPECT_EQ(enter(200, __NR_close, 5).at(0).text, "pipe");
  EXPECT_EQ(enter(300, __NR_nanosleep, 0).at(0).text, "");
  EXPECT_EQ(enter(400, __NR_read, 5).at(0).text, "/tmp/second");
  EXPECT_EQ(namer.calls, (std::vector<std::string>{"name 5", "name 5", "forget 5", "name 5"}));
}

// The fidelity comparison's view: a trace with kernel regions and user regions; the
// report counts only the kernel ones.
TEST(KernelView, ReportWithoutKernelView) {
  Harness h;
  h.PushAll({
      RProcStart(100 * kUs, 1, 0),
      RGoCreate(110 * kUs, 1, 0, kNoG, 1),
      RGoStart(120 * kUs, 1, 0, 1),
      RUser(RecordKind::kUserRegionBegin, 130 * kUs, 1, 0, 1, 0, "work"),
      RUser(RecordKind::kUserRegionEnd, 140 * kUs, 1, 0, 1, 0, "work"),
      RGoEnd(200 * kUs, 1, 0, 1),
  });
  CheckResult res = h.Finish("kernel_none");
  EXPECT_ACCEPTED(res);
  const report::Report r = report::BuildReport(h.sink.bytes());
  EXPECT_EQ(r.kernel.regions, 0u);
  EXPECT_NE(report::ReportText(r).find("no kernel view"), std::string::npos);
}

}  // namespace
}  // namespace gotraced::model::testing
