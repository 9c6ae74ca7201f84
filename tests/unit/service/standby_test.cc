// The standby of an escalation (daemon/service/standby.h): taken only when it was made for
// the very options of the recording asked for now (a reload that changes the trace
// version, the ring or the events must not hand out a recording made under the old
// ones), and taken once.
#include <gtest/gtest.h>

#include "daemon/service/service.h"
#include "daemon/service/standby.h"

namespace gotraced::service {
namespace {

Config Synthetic() {
  Config c;
  c.synthetic = true;
  return c;
}

TEST(Standby, KeyNamesEveryOptionThatShapesTheRecording) {
  const Config cfg = Synthetic();
  const RecordingOptions a = FullRecordingOptions(cfg, 42, "/bin/x", kEventDefault, 1000, false);
  EXPECT_EQ(a.level, session::CaptureLevel::kFull);
  EXPECT_EQ(FullRecordingKey(a), FullRecordingKey(FullRecordingOptions(cfg, 42, "/bin/x", kEventDefault, 1000, false)));
  auto differs = [&](auto change) {
    RecordingOptions b = a;
    change(b);
    return FullRecordingKey(b) != FullRecordingKey(a);
  };
  EXPECT_TRUE(differs([](RecordingOptions &o) { o.pid = 43; }));
  EXPECT_TRUE(differs([](RecordingOptions &o) { o.start_time = 1001; }));  // pid reused
  EXPECT_TRUE(differs([](RecordingOptions &o) { o.version = session::TraceVersion::kGo122; }));
  EXPECT_TRUE(differs([](RecordingOptions &o) { o.ring_bytes *= 2; }));
  EXPECT_TRUE(differs([](RecordingOptions &o) { o.generation_period *= 2; }));
  EXPECT_TRUE(differs([](RecordingOptions &o) { o.events ^= 1; }));
  EXPECT_TRUE(differs([](RecordingOptions &o) { o.cpu_hz += 1; }));
  EXPECT_TRUE(differs([](RecordingOptions &o) { o.self_check = !o.self_check; }));
}

TEST(Standby, TakenOnceAndOnlyForMatchingOptions) {
  const Config cfg = Synthetic();
  Target t;
  t.info.pid = 42;
  t.info.start_time = 1000;
  const RecordingOptions ro = FullRecordingOptions(cfg, 42, "/bin/x", kEventDefault, 1000, false);
  t.standby = std::make_unique<FullRecording>(NewFullRecording(cfg, ro));
  Recording *prepared = t.standby->recording.get();

  // Other options (a reload changed the ring): a new recording, the standby stays.
  RecordingOptions other = ro;
  other.ring_bytes *= 2;
  bool ahead = true;
  FullRecording fresh = TakeFullRecording(cfg, &t, other, &ahead);
  EXPECT_FALSE(ahead);
  EXPECT_NE(fresh.recording.get(), prepared);
  ASSERT_NE(t.standby, nullptr);

  // The same options: the standby itself, once.
  FullRecording taken = TakeFullRecording(cfg, &t, ro, &ahead);
  EXPECT_TRUE(ahead);
  EXPECT_EQ(taken.recording.get(), prepared);
  EXPECT_EQ(t.standby, nullptr);
  ASSERT_NE(taken.rec, nullptr);
  FullRecording again = TakeFullRecording(cfg, &t, ro, &ahead);
  EXPECT_FALSE(ahead);

  // No target (a process no rule watches): always new.
  FullRecording unwatched = TakeFullRecording(cfg, nullptr, ro, &ahead);
  EXPECT_FALSE(ahead);
  EXPECT_NE(unwatched.recording, nullptr);
}

}  // namespace
}  // namespace gotraced::service
