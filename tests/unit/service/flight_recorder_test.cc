// Flight recorder: per-process window (bytes, time), cross-process eviction under the
// cap (oldest first, rings stay contiguous), subscriptions.
#include <gtest/gtest.h>

#include <thread>

#include "daemon/service/flight_recorder.h"

namespace gotraced::service {
namespace {

std::vector<std::uint8_t> Bytes(std::size_t n, std::uint8_t v = 1) { return std::vector<std::uint8_t>(n, v); }

void Gen(FlightRecorder &r, std::uint64_t g, std::size_t n) {
  auto b = Bytes(n, static_cast<std::uint8_t>(g));
  r.WriteGeneration(g, b);
}

std::vector<std::uint64_t> Held(const FlightRecorder &r) {
  std::vector<std::uint64_t> out;
  for (const auto &c : r.Snapshot().generations) out.push_back(c.gen);
  return out;
}

TEST(FlightRecorder, KeepsEverythingWithinTheWindow) {
  FlightStore store(1 << 20);
  auto r = store.Create(1, FlightWindow{60, 1 << 20});
  auto h = Bytes(16, 'g');
  r->WriteHeader(h);
  for (std::uint64_t g = 1; g <= 5; g++) Gen(*r, g, 100);
  EXPECT_EQ(Held(*r), (std::vector<std::uint64_t>{1, 2, 3, 4, 5}));
  FlightStats s = r->Stats();
  EXPECT_EQ(s.bytes_held, 500u);
  EXPECT_EQ(s.first_gen, 1u);
  EXPECT_EQ(s.last_gen, 5u);
  EXPECT_EQ(store.Stats().bytes, 500u);
  auto dump = r->Snapshot();
  EXPECT_EQ(dump.header, h);
  EXPECT_EQ(Concatenate(dump).size(), 516u);
}

// runtime/trace recorder.go: walk back while the kept size is within the target; the
// generation that crosses it is kept.
TEST(FlightRecorder, ByteWindowKeepsTheStraddlingGeneration) {
  FlightStore store(1 << 20);
  auto r = store.Create(1, FlightWindow{3600, 250});
  for (std::uint64_t g = 1; g <= 10; g++) Gen(*r, g, 100);
  // newest (100) <= 250 -> add 9 (200) <= 250 -> add 8 (300) > 250 -> stop.
  EXPECT_EQ(Held(*r), (std::vector<std::uint64_t>{8, 9, 10}));
  EXPECT_EQ(r->Stats().generations_trimmed, 7u);
  EXPECT_EQ(store.Stats().bytes, 300u);
}

TEST(FlightRecorder, NewestGenerationAlwaysKept) {
  FlightStore store(1 << 20);
  auto r = store.Create(1, FlightWindow{3600, 10});
  Gen(*r, 1, 1000);
  Gen(*r, 2, 1000);
  EXPECT_EQ(Held(*r), (std::vector<std::uint64_t>{2}));
}

TEST(FlightRecorder, TimeWindow) {
  FlightStore store(1 << 20);
  auto r = store.Create(1, FlightWindow{0.15, 1 << 20});
  for (std::uint64_t g = 1; g <= 8; g++) {
    Gen(*r, g, 10);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // Each generation spans >= 50 ms: covering >= 150 ms takes at most 4 of them (fewer
  // when a loaded machine stretches the sleeps), never all 8.
  auto held = Held(*r);
  ASSERT_GE(held.size(), 1u);
  EXPECT_LE(held.size(), 5u);
  EXPECT_EQ(held.back(), 8u);
  EXPECT_GE(r->Stats().seconds_held, 0.15);
  for (std::size_t i = 1; i < held.size(); i++) EXPECT_EQ(held[i], held[i - 1] + 1);
}

TEST(FlightRecorder, SetWindowTrimsAtOnce) {
  FlightStore store(1 << 20);
  auto r = store.Create(1, FlightWindow{3600, 1 << 20});
  for (std::uint64_t g = 1; g <= 10; g++) Gen(*r, g, 100);
  r->SetWindow(FlightWindow{3600, 100});
  EXPECT_EQ(Held(*r), (std::vector<std::uint64_t>{9, 10}));
}

TEST(FlightStore, CapEvictsOldestAcrossProcesses) {
  FlightStore store(1000);
  auto a = store.Create(1, FlightWindow{3600, 1 << 20});
  auto b = store.Create(2, FlightWindow{3600, 1 << 20});
  // Interleaved: a1 b1 a2 b2 ... each 100 bytes; the cap holds 10 of them.
  for (std::uint64_t g = 1; g <= 10; g++) {
    Gen(*a, g, 100);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    Gen(*b, g, 100);
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_LE(store.Stats().bytes, 1000u);
  EXPECT_EQ(Held(*a), (std::vector<std::uint64_t>{6, 7, 8, 9, 10}));
  EXPECT_EQ(Held(*b), (std::vector<std::uint64_t>{6, 7, 8, 9, 10}));
  EXPECT_EQ(store.Stats().evicted_generations, 10u);
  EXPECT_EQ(a->Stats().generations_evicted, 5u);
}

TEST(FlightStore, ExitedProcessesWindowIsEvictedFirstWhenOldest) {
  FlightStore store(600);
  auto old_proc = store.Create(1, FlightWindow{3600, 1 << 20});
  for (std::uint64_t g = 1; g <= 3; g++) Gen(*old_proc, g, 100);
  old_proc->Close();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  auto live = store.Create(2, FlightWindow{3600, 1 << 20});
  for (std::uint64_t g = 1; g <= 5; g++) Gen(*live, g, 100);
  EXPECT_EQ(Held(*old_proc), (std::vector<std::uint64_t>{3}));
  EXPECT_EQ(Held(*live).size(), 5u);
  EXPECT_TRUE(old_proc->Stats().closed);
}

TEST(FlightStore, SetCapEvictsAndDestroyReleases) {
  FlightStore store(1 << 20);
  {
    auto a = store.Create(1, FlightWindow{3600, 1 << 20});
    for (std::uint64_t g = 1; g <= 10; g++) Gen(*a, g, 100);
    store.SetCap(250);
    EXPECT_EQ(Held(*a), (std::vector<std::uint64_t>{9, 10}));
    EXPECT_EQ(store.Stats().recorders, 1u);
  }
  EXPECT_EQ(store.Stats().bytes, 0u);
  EXPECT_EQ(store.Stats().recorders, 0u);
}

TEST(FlightRecorder, SubscriptionDeliversInOrderAndEndsOnClose) {
  FlightStore store(1 << 20);
  auto r = store.Create(1, FlightWindow{3600, 1 << 20});
  Gen(*r, 1, 10);  // before the subscription: not delivered
  auto sub = r->Subscribe();
  std::thread producer([&] {
    for (std::uint64_t g = 2; g <= 4; g++) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      Gen(*r, g, 10);
    }
    r->Close();
  });
  std::vector<std::uint64_t> got;
  const auto deadline = Clock::now() + std::chrono::seconds(5);
  while (auto c = sub->Next(deadline)) got.push_back(c->gen);
  producer.join();
  EXPECT_EQ(got, (std::vector<std::uint64_t>{2, 3, 4}));
}

TEST(FlightRecorder, SubscriptionTimesOutAndCancels) {
  FlightStore store(1 << 20);
  auto r = store.Create(1, FlightWindow{3600, 1 << 20});
  auto sub = r->Subscribe();
  auto t0 = Clock::now();
  EXPECT_FALSE(sub->Next(t0 + std::chrono::milliseconds(50)));
  EXPECT_GE(Clock::now() - t0, std::chrono::milliseconds(50));
  int calls = 0;
  EXPECT_FALSE(sub->Next(Clock::now() + std::chrono::seconds(10), [&] { return ++calls >= 2; }));
}

TEST(FlightRecorder, SlowSubscriberIsCutOffNotUnbounded) {
  FlightStore store(1 << 20);
  auto r = store.Create(1, FlightWindow{3600, 1 << 20});
  auto sub = r->Subscribe();
  for (std::uint64_t g = 1; g <= 100; g++) Gen(*r, g, 10);
  bool gap = false;
  EXPECT_FALSE(sub->Next(Clock::now() + std::chrono::seconds(1), {}, &gap));
  EXPECT_TRUE(gap);
}

}  // namespace
}  // namespace gotraced::service
