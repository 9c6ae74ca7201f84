// The report's small parts: the histogram's quantiles, the syscall log and --fail-on
// parsers, the peer-port folding, call sites.
#include <gtest/gtest.h>

#include "report/fail_on.h"
#include "report/goroutine_table.h"
#include "report/histogram.h"
#include "report/stack_table.h"
#include "report/syscall_log.h"

namespace gotraced::report {
namespace {

TEST(ReportHistogram, QuantilesWithinOneBucket) {
  Histogram h;
  for (std::uint64_t i = 1; i <= 1000; ++i) h.Add(i * 1000);  // 1 us .. 1 ms
  EXPECT_EQ(h.count(), 1000u);
  EXPECT_EQ(h.max(), 1'000'000u);
  EXPECT_EQ(h.sum(), 500'500'000u);
  for (double q : {0.5, 0.9, 0.99}) {
    const double want = q * 1e6, got = static_cast<double>(h.Quantile(q));
    EXPECT_GE(got, want * 0.999) << q;
    EXPECT_LE(got, want * 1.0625 + 1) << q;  // a bucket is 1/16 of its power of two
  }
  EXPECT_EQ(h.Quantile(1.0), 1'000'000u);
  Histogram small;
  small.Add(3);
  EXPECT_EQ(small.Quantile(0.5), 3u);
  EXPECT_EQ(Histogram().Quantile(0.99), 0u);
}

TEST(ReportSyscallLog, ParsesTheKernelViewsMessage) {
  SyscallLog l;
  ASSERT_TRUE(
      ParseSyscallLog("read tcp 127.0.0.1:41234: 30.100 ms, 4096 bytes: on CPU 0.200 ms, off-CPU sleep "
                      "29.500 ms, run-queue wait 0.400 ms, then waiting for a P 1.000 ms",
                      &l));
  EXPECT_EQ(l.type, "kernel: syscall read tcp 127.0.0.1:*");
  EXPECT_EQ(l.name, "read");
  EXPECT_TRUE(l.has_bytes);
  EXPECT_EQ(l.bytes, 4096u);
  EXPECT_EQ(l.total_ns, 30'100'000u);
  EXPECT_EQ(l.parts.at("off-CPU sleep"), 29'500'000u);
  EXPECT_EQ(l.parts.at("waiting for a P"), 1'000'000u);
  SyscallLog bad;
  EXPECT_FALSE(ParseSyscallLog("no colon here", &bad));
  EXPECT_TRUE(ParseSyscallLog("write pipe: x ms, y bytes: junk", &bad));  // garbage figures are skipped
  EXPECT_FALSE(bad.has_bytes);
}

TEST(ReportSyscallLog, FoldsOnlyEphemeralPeerPorts) {
  EXPECT_EQ(FoldPeerPort("read tcp 127.0.0.1:35054"), "read tcp 127.0.0.1:*");
  EXPECT_EQ(FoldPeerPort("read tcp 10.0.0.2:5432"), "read tcp 10.0.0.2:5432");  // a server's port stays
  EXPECT_EQ(FoldPeerPort("accept4 tcp listen 0.0.0.0:40000"), "accept4 tcp listen 0.0.0.0:40000");
  EXPECT_EQ(FoldPeerPort("read /tmp/a:40000"), "read /tmp/a:40000");
  EXPECT_EQ(FoldPeerPort("write udp [::1]:50000"), "write udp [::1]:*");
}

TEST(ReportFailOn, ParsesUnitsAndNamesCrossings) {
  const std::map<std::string, double> m = {
      {"sched_latency_p99", 12e6}, {"stw_max", 1e6}, {"goroutine_growth", 1500}};
  std::vector<Threshold> t;
  ASSERT_EQ(ParseThresholds("sched_latency_p99>5ms,stw_max>10ms,goroutine_growth>1000", m, &t), "");
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[0].value, 5e6);
  const auto c = Crossed(t, m);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[0], "sched_latency_p99 = 12.0 ms (sched_latency_p99>5ms)");
  EXPECT_EQ(c[1], "goroutine_growth = 1500 (goroutine_growth>1000)");
  std::vector<Threshold> bad;
  EXPECT_NE(ParseThresholds("sched_latency_p98>5ms", m, &bad), "");  // unknown: a typo must not pass CI
  EXPECT_NE(ParseThresholds("stw_max>5 parsecs", m, &bad), "");
  EXPECT_NE(ParseThresholds("goroutine_growth>5ms", m, &bad), "");  // a count is not a duration
  EXPECT_NE(ParseThresholds("stw_max", m, &bad), "");
  EXPECT_EQ(ParseThresholds("", m, &bad), "");
  EXPECT_TRUE(bad.empty());
}

TEST(ReportStacks, CallSiteSkipsThePlumbing) {
  StackTable st;
  const auto s = st.Intern({"runtime.gopark", "sync.(*Mutex).lockSlow", "sync.(*Mutex).Lock",
                            "main.(*cache).get", "main.handler", "net/http.HandlerFunc.ServeHTTP"});
  EXPECT_EQ(st.CallSite(s), "main.(*cache).get < main.handler");
  EXPECT_EQ(st.Outermost(s), "net/http.HandlerFunc.ServeHTTP");
  EXPECT_EQ(st.Intern({"runtime.gopark", "sync.(*Mutex).lockSlow", "sync.(*Mutex).Lock", "main.(*cache).get",
                       "main.handler", "net/http.HandlerFunc.ServeHTTP"}),
            s);  // interned once
  EXPECT_EQ(st.CallSite(st.Intern({"runtime.gopark", "runtime.chanrecv1"}), 1), "runtime.gopark");
  EXPECT_EQ(st.CallSite(0), "?");
}

// GoroutineTable::Find answers from a cache of recent lookups (one slot per id modulo
// kRecent): two live goroutines sharing a slot each get their own entry, and one that
// ended is never answered from the cache, also when its id shows again.
TEST(ReportGoroutineTable, FindsCachedGoroutinesAcrossSharedSlotsAndEnds) {
  StackTable st;
  const ReportOptions opt;
  GoroutineTable gs(st, opt);
  auto ev = [](Kind k, std::uint64_t g, std::uint64_t ns, GState status = GState::kUndetermined) {
    Event e;
    e.kind = k;
    e.g = g;
    e.ns = ns;
    e.status = status;
    return e;
  };
  constexpr std::uint64_t a = 10, b = a + GoroutineTable::kRecent;  // one slot
  gs.Apply(ev(Kind::kGoCreate, a, 1));
  gs.Apply(ev(Kind::kGoCreate, b, 2));
  GInfo *ga = gs.Find(a), *gb = gs.Find(b);
  ASSERT_NE(ga, nullptr);
  ASSERT_NE(gb, nullptr);
  EXPECT_NE(ga, gb);
  gs.Apply(ev(Kind::kGoStart, a, 3), gs.Find(a));
  EXPECT_EQ(gs.Find(b), gb);
  EXPECT_EQ(gs.Find(a), ga);
  EXPECT_EQ(ga->state, GState::kRunning);
  EXPECT_EQ(ga->since_ns, 3u);
  EXPECT_EQ(gb->state, GState::kRunnable);
  EXPECT_EQ(gb->since_ns, 2u);
  gs.Apply(ev(Kind::kGoEnd, a, 4), gs.Find(a));
  EXPECT_EQ(gs.Find(a), nullptr);
  EXPECT_EQ(gs.Find(b), gb);
  // The ended id again (a status at a generation's start): a new goroutine, as it was read.
  gs.Apply(ev(Kind::kGoStatus, a, 5, GState::kWaiting));
  ASSERT_NE(gs.Find(a), nullptr);
  EXPECT_EQ(gs.Find(a)->state, GState::kWaiting);
  EXPECT_EQ(gs.Find(a)->since_ns, 5u);
  EXPECT_EQ(gs.Find(b)->state, GState::kRunnable);
  // Goroutines through b's slot, each looked up, then ended: none is answered after.
  for (std::uint64_t g = b + GoroutineTable::kRecent; g < b + 9 * GoroutineTable::kRecent; g += GoroutineTable::kRecent) {
    gs.Apply(ev(Kind::kGoCreate, g, 6));
    ASSERT_NE(gs.Find(g), nullptr);
    gs.Apply(ev(Kind::kGoEnd, g, 7), gs.Find(g));
    EXPECT_EQ(gs.Find(g), nullptr) << g;
  }
  EXPECT_EQ(gs.Find(b), gb);
  EXPECT_EQ(gs.Live().size(), 2u);
}

}  // namespace
}  // namespace gotraced::report
