// A flight dump starts at an arbitrary generation k > 1 (the older ones were trimmed).
// Go's parser accepts that only through first-generation leniency and only if every
// generation restates every live G and P, as the model does at each generation start
// (daemon/model/model.h, like traceAdvance); the legacy formats (go1.19, go1.21) only
// through the restart prelude the flight recorder keeps with each generation and the
// rebasing of the generations after it (encoder/legacy_rebase.h). Checked here with the
// real model and encoder (the synthetic recording drives them) for every trace format,
// judged by tracecheck. The same holds for a continuation file of --on-write-error drop
// (FileSink: the file was lost, the trace goes on in FILE.1 from a later generation).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <thread>

#include "encoder/sink.h"

#include "daemon/service/flight_recorder.h"
#include "daemon/service/recording.h"
#include "tests/unit/service/test_util.h"

namespace gotraced::service {
namespace {

class FlightDumpParse : public ::testing::TestWithParam<session::TraceVersion> {};

TEST_P(FlightDumpParse, DumpFromLaterGenerationParses) {
  FlightStore store(64 << 20);
  // Window of ~3 generations of 20 ms.
  auto rec = store.Create(0, FlightWindow{0.05, 64 << 20});
  RecordingOptions ro;
  ro.pid = 0;  // no process: runs until stopped
  ro.sink = rec.get();
  ro.version = GetParam();
  ro.generation_period = std::chrono::milliseconds(20);
  auto r = MakeSyntheticRecording(ro);
  std::string err;
  ASSERT_TRUE(r->Start(&err)) << err;
  // Until the window was trimmed (its first generation > 3), not for a fixed 400 ms: on a
  // loaded machine 400 ms made 1-3 generations (ctest --repeat: 2 of 438 failed, load ~30).
  const auto end = Clock::now() + std::chrono::seconds(10);
  auto trimmed = [&] {
    const FlightRecorder::Dump d = rec->Snapshot();
    return !d.generations.empty() && d.generations.front().gen > 3;
  };
  while (Clock::now() < end && !trimmed())
    for (int i = 0; i < 10; i++) r->Poll(std::chrono::milliseconds(5));

  // While recording: the window as /flight serves it.
  FlightRecorder::Dump live = rec->Snapshot();
  ASSERT_FALSE(live.generations.empty());
  EXPECT_GT(live.generations.front().gen, 3u) << "window was not trimmed; the test proves nothing";
  for (std::size_t i = 1; i < live.generations.size(); i++)
    EXPECT_EQ(live.generations[i].gen, live.generations[i - 1].gen + 1);
  const std::string name = "flight-v" + std::string(session::TraceVersionName(GetParam()));
  const std::vector<std::uint8_t> live_bytes = Concatenate(live);
  // The version's own header ("go 1.19 trace" ...): the legacy ones are dumped by rebasing.
  const std::string header = "go 1." + std::string(session::TraceVersionName(GetParam())).substr(4) + " trace";
  ASSERT_GE(live_bytes.size(), 16u);
  EXPECT_EQ(std::string(reinterpret_cast<const char *>(live_bytes.data()), header.size()), header);
  testing::CheckResult res = testing::RunTracecheck(live_bytes, name + "-live");
  EXPECT_TRUE(res.ok()) << res.errors << "\ntrace: " << res.path;

  // After the recording ended: the last window, as kept for an exited process.
  ASSERT_TRUE(r->Stop(&err)) << err;
  FlightRecorder::Dump last = rec->Snapshot();
  EXPECT_TRUE(last.closed);
  res = testing::RunTracecheck(Concatenate(last), name + "-final");
  EXPECT_TRUE(res.ok()) << res.errors << "\ntrace: " << res.path;

  // A single generation on its own, from the middle.
  FlightRecorder::Dump one = live;
  one.generations.erase(one.generations.begin(), one.generations.end() - 1);
  res = testing::RunTracecheck(Concatenate(one), name + "-one");
  EXPECT_TRUE(res.ok()) << res.errors << "\ntrace: " << res.path;
}

// --on-write-error drop after the file was removed mid-recording: the continuation file
// starts at a later generation and must parse on its own (legacy: with its restart
// prelude, FileSink being the writer's LegacyRestartSink).
TEST_P(FlightDumpParse, DropContinuationFileParses) {
  testing::TempDir dir;
  const std::string path = dir.File("t.trace");
  encoder::FileSink file(path, encoder::WriteErrorPolicy::kDrop);
  RecordingOptions ro;
  ro.pid = 0;
  ro.sink = &file;
  ro.version = GetParam();
  ro.generation_period = std::chrono::milliseconds(20);
  auto r = MakeSyntheticRecording(ro);
  std::string err;
  ASSERT_TRUE(r->Start(&err)) << err;
  // Polls until `done`, not for a fixed time: 100 ms made 5 generations of 20 ms on an idle
  // machine, and 1 on a loaded one (ctest --repeat: 2 of 379 failed, load 29 on 2 cores).
  auto run_until = [&](auto done) {
    const auto end = Clock::now() + std::chrono::seconds(10);
    while (!done() && Clock::now() < end) r->Poll(std::chrono::milliseconds(5));
  };
  run_until([&] { return !file.files().empty() && file.files()[0].generations > 2; });
  ASSERT_GE(file.files().size(), 1u);
  ASSERT_GT(file.files()[0].generations, 1u);
  std::remove(path.c_str());
  run_until([&] { return file.files().size() == 2 && file.files()[1].generations > 2; });
  ASSERT_TRUE(r->Stop(&err)) << err;
  ASSERT_EQ(file.files().size(), 2u) << file.error();
  EXPECT_TRUE(file.files()[0].removed);
  const encoder::FileSink::File &cont = file.files()[1];
  EXPECT_EQ(cont.path, encoder::ContinuationPath(path, 1));
  EXPECT_GT(cont.first_gen, 2u);
  EXPECT_GT(cont.generations, 2u);
  std::ifstream in(cont.path, std::ios::binary);
  const std::vector<std::uint8_t> bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::string name = "drop-continuation-" + std::string(session::TraceVersionName(GetParam()));
  testing::CheckResult res = testing::RunTracecheck(bytes, name);
  EXPECT_TRUE(res.ok()) << res.errors << "\ntrace: " << res.path;
  // (A legacy trace has no generations of its own: the reader sees one.)
  const bool legacy = GetParam() == session::TraceVersion::kGo119 || GetParam() == session::TraceVersion::kGo121;
  if (!legacy) {
    EXPECT_EQ(res.Int("generations"), static_cast<long>(cont.generations)) << res.json;
  }
}

INSTANTIATE_TEST_SUITE_P(Versions, FlightDumpParse,
                         ::testing::Values(session::TraceVersion::kGo119, session::TraceVersion::kGo121,
                                           session::TraceVersion::kGo122, session::TraceVersion::kGo123,
                                           session::TraceVersion::kGo125, session::TraceVersion::kGo126),
                         [](const auto &info) {
                           std::string n(session::TraceVersionName(info.param));
                           n.erase(std::remove(n.begin(), n.end(), '.'), n.end());
                           return n;
                         });

}  // namespace
}  // namespace gotraced::service
