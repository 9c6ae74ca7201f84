// procmem/goroutine_states.h: the census of a target's goroutines, read from memory the
// way a sample reads a Go process (allglen, allgs, a window of each g), here from made-up
// g structs in this process, more of them than one process_vm_readv reads
// (ProcessMemory::kReadEachBatch) and one that cannot be read.
#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "daemon/gobin/runtime_layout.h"
#include "daemon/procmem/goroutine_states.h"
#include "daemon/procmem/process_memory.h"

namespace gotraced::procmem {
namespace {

using gobin::kGrunnable, gobin::kGrunning, gobin::kGsyscall, gobin::kGwaiting, gobin::kGdead, gobin::kGscan;

constexpr std::uint8_t kChanReceive = 14, kSelect = 9, kIOWait = 2;

std::uint64_t Now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::uint64_t(ts.tv_sec) * 1000000000ull + std::uint64_t(ts.tv_nsec);
}

// A runtime.g of 64 bytes with the four fields the sampler reads where this layout says.
struct FakeG {
  std::array<std::uint8_t, 64> b{};
};

gobin::RuntimeLayout Layout() {
  gobin::RuntimeLayout l;
  l.g.size = 64;
  l.g.atomicstatus = {8, 4};
  l.g.goid = {16, 8};
  l.g.waitreason = {28, 1};
  l.g.waitsince = {40, 8};
  l.wait_reason_strings.resize(40);
  l.wait_reason_strings[kChanReceive] = "chan receive";
  l.wait_reason_strings[kSelect] = "select";
  l.wait_reason_strings[kIOWait] = "IO wait";
  return l;
}

struct Fixture {
  std::vector<FakeG> gs;
  std::vector<std::uint64_t> allgs;  // the slice's array
  std::uint64_t slice[3] = {};       // runtime.allgs: ptr, len, cap
  std::uint64_t allglen = 0;

  void Add(std::uint64_t goid, std::uint32_t status, std::uint8_t reason = 0, std::uint64_t since = 0,
           std::uint64_t labels = 0) {
    FakeG g;
    std::memcpy(g.b.data() + 8, &status, 4);
    std::memcpy(g.b.data() + 16, &goid, 8);
    g.b[28] = reason;
    std::memcpy(g.b.data() + 40, &since, 8);
    std::memcpy(g.b.data() + 56, &labels, 8);  // g.labels, outside the window of the four
    gs.push_back(g);
  }
  RuntimeGlobalAddrs Publish(bool with_bad) {
    allgs.clear();
    for (FakeG &g : gs) allgs.push_back(reinterpret_cast<std::uint64_t>(g.b.data()));
    if (with_bad) allgs.insert(allgs.begin() + 1500, 0x10);  // the zero page: unreadable
    slice[0] = reinterpret_cast<std::uint64_t>(allgs.data());
    slice[1] = slice[2] = allgs.size();
    allglen = allgs.size();
    RuntimeGlobalAddrs a;
    a.allgs = reinterpret_cast<std::uint64_t>(&slice[0]);
    a.allglen = reinterpret_cast<std::uint64_t>(&allglen);
    return a;
  }
};

TEST(GoroutineStates, CountsStatusesAndWaitReasonsAndTheLongestWaits) {
  Fixture f;
  const std::uint64_t now = Now();
  const std::uint64_t s = 1'000'000'000;
  for (std::uint64_t i = 0; i < 2000; ++i) f.Add(100 + i, kGwaiting, kChanReceive);
  f.Add(5000, kGwaiting | kGscan, kSelect);  // being scanned: still waiting
  f.Add(5001, kGwaiting, kSelect, now - 20 * s);
  f.Add(5002, kGwaiting, kIOWait, now - 5 * s);
  f.Add(5003, kGsyscall, 0, now - 30 * s);
  f.Add(5004, kGwaiting, kChanReceive, now - 1 * s);
  f.Add(1, kGrunning);
  f.Add(2, kGrunning);
  for (std::uint64_t i = 0; i < 5; ++i) f.Add(10 + i, kGrunnable);
  for (std::uint64_t i = 0; i < 300; ++i) f.Add(0, kGdead);  // free list: not counted
  const RuntimeGlobalAddrs a = f.Publish(/*with_bad=*/true);
  const gobin::RuntimeLayout l = Layout();

  ProcessMemory mem(getpid());
  auto st = ReadGoroutineStates(mem, l, a);
  ASSERT_TRUE(st) << st.error();
  EXPECT_EQ(st->allglen, 2313u);
  EXPECT_EQ(st->unreadable, 1u);
  EXPECT_EQ(st->live(), 2012u);
  EXPECT_EQ(st->by_status[kGwaiting], 2004u);
  EXPECT_EQ(st->waiting_by_reason[kChanReceive], 2001u);
  ASSERT_EQ(st->longest.size(), 3u);
  EXPECT_EQ(st->longest[0].goid, 5003u);  // the syscall, 30 s
  EXPECT_EQ(st->longest[1].goid, 5001u);
  EXPECT_EQ(st->longest[2].goid, 5002u);

  const std::string msg = GoroutineStatesMessage(*st, l);
  EXPECT_EQ(msg.substr(0, msg.find(';')),
            "2012 goroutines: running 2, runnable 5, syscall 1, waiting 2004 (chan receive 2001, select 2, IO wait 1)")
      << msg;
  EXPECT_NE(msg.find("; 1 of 2313 unreadable"), std::string::npos) << msg;
  EXPECT_NE(msg.find("longest waits (since a GC saw them): G5003 syscall >= 30."), std::string::npos) << msg;
  EXPECT_NE(msg.find(", G5001 select >= 20."), std::string::npos) << msg;
  EXPECT_NE(msg.find(", G5002 IO wait >= 5."), std::string::npos) << msg;
}

TEST(GoroutineStates, NoWaitsinceNoLongestWaits) {
  Fixture f;
  for (std::uint64_t i = 0; i < 3; ++i) f.Add(1 + i, kGwaiting, kChanReceive);
  const RuntimeGlobalAddrs a = f.Publish(false);
  gobin::RuntimeLayout l = Layout();
  l.g.waitsince = {};  // a layout without the field
  auto st = ReadGoroutineStates(ProcessMemory(getpid()), l, a);
  ASSERT_TRUE(st) << st.error();
  EXPECT_EQ(GoroutineStatesMessage(*st, l),
            "3 goroutines: running 0, runnable 0, syscall 0, waiting 3 (chan receive 3)");
}

// Level low's pprof labels (issue 34): live goroutines counted per label value by status;
// sets at two pointers with the same text add up, dead goroutines and unlabelled ones do
// not count, an unreadable set is left out, and the option off reads nothing.
TEST(GoroutineStates, CountsGoroutinesPerLabelSet) {
  Fixture f;
  f.Add(1, kGrunning, 0, 0, 0xa0);
  f.Add(2, kGwaiting, kChanReceive, 0, 0xa0);
  f.Add(3, kGwaiting, kChanReceive, 0, 0xa8);  // another pointer, the same set
  f.Add(4, kGsyscall, 0, 0, 0xb0);
  f.Add(5, kGrunnable, 0, 0, 0xb0);
  f.Add(6, kGwaiting, kChanReceive, 0, 0xc0);  // unreadable set
  f.Add(7, kGwaiting, kChanReceive);           // no labels
  f.Add(0, kGdead, 0, 0, 0xa0);                // dead: not counted
  const RuntimeGlobalAddrs a = f.Publish(false);
  gobin::RuntimeLayout l = Layout();
  l.g.labels = {56, 8};
  GoroutineStatesOptions o;
  o.labels = true;
  auto st = ReadGoroutineStates(ProcessMemory(getpid()), l, a, o);
  ASSERT_TRUE(st) << st.error();
  ASSERT_EQ(st->by_labels.size(), 4u);
  EXPECT_EQ(st->by_labels[0].first, 0xa0u);
  EXPECT_EQ(st->by_labels[0].second, (std::array<std::uint64_t, 4>{1, 0, 0, 1}));
  const auto text = [](std::uint64_t p) -> std::string_view {
    return p == 0xa0 || p == 0xa8 ? "route=/a" : p == 0xb0 ? "route=/b tenant=1" : "";
  };
  // Per label value: g4 and g5 count under route=/b and under tenant=1.
  EXPECT_EQ(GoroutineLabelsMessage(*st, text),
            "; labels [route=/a] running 1 waiting 2, [route=/b] runnable 1 syscall 1, [tenant=1] runnable 1 syscall 1");
  EXPECT_EQ(GoroutineLabelsMessage(*st, text, 1), "; labels [route=/a] running 1 waiting 2, +2 more labels");
  auto off = ReadGoroutineStates(ProcessMemory(getpid()), l, a);
  ASSERT_TRUE(off) << off.error();
  EXPECT_TRUE(off->by_labels.empty());
  EXPECT_EQ(GoroutineLabelsMessage(*off, text), "");
}

TEST(GoroutineStates, UnknownGlobalsAreAnError) {
  auto st = ReadGoroutineStates(ProcessMemory(getpid()), Layout(), RuntimeGlobalAddrs{});
  EXPECT_FALSE(st);
}

}  // namespace
}  // namespace gotraced::procmem
