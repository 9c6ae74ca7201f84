// The cheap checks: version gating, string/stack ids of the current generation,
// statuses, closed writer. A dropped event is not written.
#include <gtest/gtest.h>

#include "encoder/trace_decoder.h"
#include "encoder/trace_writer.h"

namespace gotraced::encoder {
namespace {

std::size_t EventCount(const std::vector<std::uint8_t> &bytes) {
  DecodedTrace t = DecodeTrace(bytes);
  EXPECT_TRUE(t.ok()) << t.error;
  std::size_t n = 0;
  for (const auto &g : t.generations)
    for (const auto &b : g.batches) n += b.events.size();
  return n;
}

TEST(WriterValidation, EventsAreGatedByVersion) {
  for (Version v : kAllVersions) {
    MemorySink sink;
    WriterOptions o;
    o.version = v;
    TraceWriter w(sink, o);
    EmitStatus want = v >= Version::kGo123 ? EmitStatus::kOk : EmitStatus::kUnsupportedEvent;
    EXPECT_EQ(w.GoSwitch(1, 100, 2, 1), want);
    EXPECT_EQ(w.GoSwitchDestroy(1, 100, 2, 1), want);
    EXPECT_EQ(w.GoCreateBlocked(1, 100, 3, kNoStack, kNoStack), want);
    EXPECT_EQ(w.GoStatusStack(1, 100, 3, kNoThread, GoStatus::kWaiting, kNoStack), want);
    EXPECT_EQ(w.UserLog(1, 100, 0, "k", "v", kNoStack), EmitStatus::kOk);
    w.Close();
    EXPECT_EQ(EventCount(sink.bytes()), v >= Version::kGo123 ? 5u : 1u);
    EXPECT_EQ(w.stats().dropped, v >= Version::kGo123 ? 0u : 4u);
    if (v < Version::kGo123) {
      EXPECT_NE(w.last_error().find("GoStatusStack"), std::string::npos) << w.last_error();
    }
  }
}

TEST(WriterValidation, StructuralEventsCannotBeEmitted) {
  MemorySink sink;
  TraceWriter w(sink);
  const std::uint64_t snap[] = {1, 2, 3};
  EXPECT_EQ(w.Emit(EventType::kClockSnapshot, 1, 100, snap), EmitStatus::kUnsupportedEvent);
  EXPECT_EQ(w.Emit(EventType::kFrequency, 1, 100, std::span<const std::uint64_t>(snap, 1)),
            EmitStatus::kUnsupportedEvent);
  EXPECT_EQ(w.Emit(EventType::kEndOfGeneration, 1, 100, {}), EmitStatus::kUnsupportedEvent);
  EXPECT_EQ(w.Emit(static_cast<EventType>(200), 1, 100, {}), EmitStatus::kUnsupportedEvent);
  // Wrong argument count for the table-driven path.
  EXPECT_EQ(w.Emit(EventType::kGoStart, 1, 100, std::span<const std::uint64_t>(snap, 1)),
            EmitStatus::kUnsupportedEvent);
  const std::uint64_t start[] = {5, 1};
  EXPECT_EQ(w.Emit(EventType::kGoStart, 1, 100, start), EmitStatus::kOk);
  w.Close();
  EXPECT_EQ(EventCount(sink.bytes()), 1u);
}

TEST(WriterValidation, IdsMustBelongToTheCurrentGeneration) {
  MemorySink sink;
  TraceWriter w(sink);
  Frame f[] = {{0x10, "main.f", "/m.go", 3}};
  StackId s = w.InternStack(f);
  StringId r = w.InternString("sleep");
  EXPECT_EQ(w.GoBlock(1, 100, r, s), EmitStatus::kOk);
  EXPECT_EQ(w.GoBlock(1, 100, StringId{77}, s), EmitStatus::kBadStringId);
  EXPECT_EQ(w.GoBlock(1, 100, r, StackId{77}), EmitStatus::kBadStackId);
  w.EndGeneration();
  // Ids of the previous generation are gone.
  EXPECT_EQ(w.GoBlock(1, 200, r, kNoStack), EmitStatus::kBadStringId);
  EXPECT_EQ(w.GCSweepBegin(1, 200, s), EmitStatus::kBadStackId);
  EXPECT_EQ(w.GCSweepBegin(1, 200, kNoStack), EmitStatus::kOk);
  w.Close();
  EXPECT_EQ(EventCount(sink.bytes()), 2u);
  EXPECT_EQ(w.stats().dropped, 4u);
}

TEST(WriterValidation, BadStatusesAreDropped) {
  MemorySink sink;
  TraceWriter w(sink);
  EXPECT_EQ(w.GoStatusEvent(1, 100, 5, 1, GoStatus::kBad), EmitStatus::kBadStatus);
  EXPECT_EQ(w.ProcStatusEvent(1, 100, 0, ProcStatus::kBad), EmitStatus::kBadStatus);
  EXPECT_EQ(w.GoStatusEvent(1, 100, 5, 1, static_cast<GoStatus>(9)), EmitStatus::kBadStatus);
  EXPECT_EQ(w.ProcStatusEvent(1, 100, 0, ProcStatus::kSyscallAbandoned), EmitStatus::kOk);
  EXPECT_EQ(w.GoStatusEvent(1, 100, 5, kNoThread, GoStatus::kWaiting), EmitStatus::kOk);
  w.Close();
  EXPECT_EQ(EventCount(sink.bytes()), 2u);
}

TEST(WriterValidation, NothingAfterClose) {
  MemorySink sink;
  TraceWriter w(sink);
  w.HeapAlloc(1, 100, 1);
  w.Close();
  auto size = sink.bytes().size();
  EXPECT_EQ(w.HeapAlloc(1, 200, 1), EmitStatus::kClosed);
  w.EndGeneration();
  w.Close();
  EXPECT_EQ(sink.bytes().size(), size);
  EXPECT_EQ(w.stats().generations, 1u);
}

}  // namespace
}  // namespace gotraced::encoder
