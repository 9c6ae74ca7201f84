// encoder_bench: encoding speed (events/s on one core) and size (bytes/event) of
// TraceWriter, on the event mix of a real runtime/trace file (replayed) or a
// synthetic mix.
//
//   encoder_bench [--trace FILE] [--out FILE] [--seconds S] [--synthetic-events N]
//
// --trace: a go1.22+ trace (e.g. written by bench/encoder/workload); its events are
//   decoded and re-encoded, so sizes compare like for like.
// --out: write one re-encoded copy (for tests/tracecheck).
#include <time.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bench/encoder/replay.h"
#include "encoder/trace_decoder.h"
#include "encoder/trace_writer.h"

using namespace gotraced;
using namespace gotraced::encoder;

namespace {

// Counts bytes and throws them away: the benchmark measures encoding, not I/O.
class CountingSink final : public Sink {
 public:
  void WriteHeader(std::span<const std::uint8_t> h) override { bytes += h.size(); }
  void WriteGeneration(std::uint64_t, std::span<const std::uint8_t> b) override { bytes += b.size(); }
  std::uint64_t bytes = 0;
};

struct Measurement {
  double events_per_sec = 0;
  std::uint64_t bytes = 0;
  std::uint64_t failed = 0;
};

// CPU time of this thread: "events/s on one core" stays meaningful when the machine is
// shared (time spent descheduled is not the encoder's).
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Replays into one long-lived writer, as a recorder runs: buffers are reused from one
// generation to the next, so the steady state is measured, not first-touch page faults.
Measurement Measure(const bench::Replay &replay, bool intern, double seconds) {
  using Clock = std::chrono::steady_clock;
  CountingSink sink;
  WriterOptions o;
  o.version = replay.version;
  o.wall_minus_mono_ns = 1;
  TraceWriter w(sink, o);
  bench::RunReplay(replay, w, intern);  // warm-up
  Measurement best;
  auto deadline = Clock::now() + std::chrono::duration<double>(seconds);
  int runs = 0;
  do {
    std::uint64_t before = sink.bytes;
    double t0 = ThreadCpuSeconds();
    std::uint64_t failed = bench::RunReplay(replay, w, intern);
    double dt = ThreadCpuSeconds() - t0;
    double eps = static_cast<double>(replay.events) / dt;
    if (eps > best.events_per_sec) best = {eps, sink.bytes - before, failed};
    ++runs;
  } while (Clock::now() < deadline || runs < 3);
  w.Close();
  return best;
}

}  // namespace

int main(int argc, char **argv) {
  std::string trace_path, out_path;
  double seconds = 2.0;
  std::uint64_t synthetic = 1'000'000;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--trace") trace_path = next();
    else if (a == "--out") out_path = next();
    else if (a == "--seconds") seconds = std::atof(next().c_str());
    else if (a == "--synthetic-events") synthetic = std::strtoull(next().c_str(), nullptr, 10);
    else {
      std::fprintf(stderr, "usage: %s [--trace FILE] [--out FILE] [--seconds S] [--synthetic-events N]\n", argv[0]);
      return 2;
    }
  }

  bench::Replay replay;
  std::uint64_t source_bytes = 0;
  if (!trace_path.empty()) {
    std::ifstream f(trace_path, std::ios::binary);
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    DecodedTrace t = DecodeTrace(bytes);
    if (!t.ok()) {
      std::fprintf(stderr, "encoder_bench: %s: %s\n", trace_path.c_str(), t.error.c_str());
      return 1;
    }
    std::uint64_t freq = t.generations.empty() ? 0 : t.generations[0].frequency;
    if (freq == 0 || 1'000'000'000 % freq != 0) {
      std::fprintf(stderr, "encoder_bench: frequency %llu is not 1e9/N\n", static_cast<unsigned long long>(freq));
      return 1;
    }
    replay = bench::MakeReplay(t, 1'000'000'000 / freq);
    source_bytes = bytes.size();
    std::printf("source: %s, go1.%d, %zu generations, %llu wire events, %llu bytes (%.2f bytes/wire event)\n",
                trace_path.c_str(), static_cast<int>(t.version), t.generations.size(),
                static_cast<unsigned long long>(replay.events), static_cast<unsigned long long>(source_bytes),
                static_cast<double>(source_bytes) / static_cast<double>(replay.events));
  } else {
    replay = bench::SyntheticReplay(synthetic);
    std::printf("source: synthetic mix, %llu wire events\n", static_cast<unsigned long long>(replay.events));
  }

  if (!out_path.empty()) {
    FileSink file(out_path);
    WriterOptions o;
    o.version = replay.version;
    TraceWriter w(file, o);
    std::uint64_t failed = bench::RunReplay(replay, w, true);
    w.Close();
    if (failed || !file.error().empty()) {
      std::fprintf(stderr, "encoder_bench: writing %s: %llu events rejected (%s) %s\n", out_path.c_str(),
                   static_cast<unsigned long long>(failed), w.last_error().c_str(), file.error().c_str());
      return 1;
    }
  }

  Measurement ids = Measure(replay, false, seconds / 2);
  Measurement intern = Measure(replay, true, seconds / 2);
  if (ids.failed || intern.failed) {
    std::fprintf(stderr, "encoder_bench: %llu events rejected\n", static_cast<unsigned long long>(ids.failed + intern.failed));
    return 1;
  }
  double ev = static_cast<double>(replay.events);
  std::printf("(events per second of thread CPU time, best of several passes)\n");
  std::printf("encode, ids interned once per generation: %.1f M events/s, %.2f bytes/wire event\n",
              ids.events_per_sec / 1e6, static_cast<double>(ids.bytes) / ev);
  std::printf("encode, strings and pc stacks interned per event: %.1f M events/s, %.2f bytes/wire event\n",
              intern.events_per_sec / 1e6, static_cast<double>(intern.bytes) / ev);
  // Machine-readable last line for scripts/bench-encoder.sh.
  std::printf("RESULT events_per_sec=%.0f events_per_sec_ids=%.0f bytes=%llu source_bytes=%llu wire_events=%llu\n",
              intern.events_per_sec, ids.events_per_sec, static_cast<unsigned long long>(intern.bytes),
              static_cast<unsigned long long>(source_bytes), static_cast<unsigned long long>(replay.events));
  return 0;
}
