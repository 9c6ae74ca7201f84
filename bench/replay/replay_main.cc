// gotraced-replay: replays a file of capture records (session/record_file.h, written by a
// recording run with GOTRACED_RECORD_FILE=FILE) through the daemon's whole per-record path
// (session::RecordPipeline: decoder -> model -> trace writer), on this one thread, as a
// recording would have fed it: records in delivery order, the model advanced after every
// drain's worth of records. What it measures is the daemon's CPU per record and per event
// without the kernel, the ring or the target: the part of a recording's cost that is ours.
//
//   gotraced-replay --records FILE [--passes N] [--out TRACE] [--drain-ms 64]
//                   [--generation-ms MS] [--flight DUMP --flight-from K] [--heap-every-s S]
//
// Each pass starts a fresh pipeline (the binary analysis is done once) and writes to a
// sink that only counts bytes; --out writes the first pass's trace to a file as well (for
// tracecheck). Prints per pass and a last line for scripts:
//   RESULT records=R events=E events_per_sec=X records_per_sec=Y us_per_event=Z dropped=0
// (best pass by thread CPU time; dropped = events the writer refused: exit 1 if any).
// --flight: the first pass also feeds a flight recorder (service/flight_recorder.h) and
// writes the dump its endpoint would serve when its oldest generation is K (for the
// legacy formats: restart prelude + rebased generations; tests/suites/51-fidelity-legacy.sh).
// --heap-every-s S: every S seconds of the recording's time (first pass), a line
//   HEAP t=SECONDS in_use_mb=M goroutines=G ended=E threads=T queues=Q
// --stop-at-s S: exit(0) at S seconds of the recording's time (first pass), with every
//   table still allocated: under heaptrack, its "leaked" list is then what the pipeline
//   holds at that moment (what grows: compare two values of S).
// (malloc's in-use bytes, mallinfo2, and the model's tables): what the daemon keeps as a
// recording goes on, without the kernel, the ring or a loaded machine's noise (issue 30;
// the records themselves are loaded before the first line, so in_use is their size plus
// the pipeline's).
#include <fmt/format.h>
#include <malloc.h>
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "daemon/capture/capture.h"
#include "daemon/service/flight_recorder.h"
#include "daemon/session/pipeline.h"
#include "daemon/session/record_file.h"
#include "encoder/sink.h"

using namespace gotraced;

namespace {

class CountingSink final : public encoder::Sink {
 public:
  explicit CountingSink(encoder::Sink *tee) : tee_(tee) {}
  void WriteHeader(std::span<const std::uint8_t> h) override {
    bytes += h.size();
    if (tee_) tee_->WriteHeader(h);
  }
  void WriteGeneration(std::uint64_t g, std::span<const std::uint8_t> b) override {
    bytes += b.size();
    if (tee_) tee_->WriteGeneration(g, b);
  }
  void Close() override {
    if (tee_) tee_->Close();
  }
  std::uint64_t bytes = 0;

 private:
  encoder::Sink *tee_;
};

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string Meta(const session::RecordFile &f, const std::string &k, const std::string &def = "") {
  auto it = f.meta.find(k);
  return it == f.meta.end() ? def : it->second;
}

// One HEAP line (--heap-every-s): malloc's in-use bytes after a trim, and the model's tables.
void PrintHeap(const session::RecordPipeline &p, std::uint64_t since_ns) {
  malloc_trim(0);
  const struct mallinfo2 mi = mallinfo2();
  const model::ModelFootprint f = p.model().footprint();
  std::printf("HEAP t=%.0f in_use_mb=%.2f goroutines=%zu ended=%zu threads=%zu queues=%zu\n",
              static_cast<double>(since_ns) / 1e9, static_cast<double>(mi.uordblks) / 1e6, f.goroutines, f.ended,
              f.threads, f.queues);
}

}  // namespace

int main(int argc, char **argv) {
  std::string records_path, out_path;
  int passes = 3;
  double drain_ms = 64;  // a quiet ring's drain interval (ring_consumer.h)
  double generation_ms = 1000;
  // Sleep this long at every drain (0: none): a live recording runs in bursts, one per
  // ring drain, with the target and the kernel on the CPU in between (cold caches).
  double sleep_ms = 0;
  std::string flight_path;
  std::uint64_t flight_from = 1;
  double heap_every_s = 0;
  double stop_at_s = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--records") records_path = next();
    else if (a == "--out") out_path = next();
    else if (a == "--passes") passes = std::atoi(next().c_str());
    else if (a == "--drain-ms") drain_ms = std::atof(next().c_str());
    else if (a == "--sleep-ms") sleep_ms = std::atof(next().c_str());
    else if (a == "--generation-ms") generation_ms = std::atof(next().c_str());
    else if (a == "--flight") flight_path = next();
    else if (a == "--flight-from") flight_from = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--heap-every-s") heap_every_s = std::atof(next().c_str());
    else if (a == "--stop-at-s") stop_at_s = std::atof(next().c_str());
    else {
      std::fprintf(stderr, "usage: %s --records FILE [--passes N] [--out TRACE] [--drain-ms MS]\n", argv[0]);
      return 2;
    }
  }
  if (records_path.empty() || passes < 1) {
    std::fprintf(stderr, "gotraced-replay: --records FILE is required\n");
    return 2;
  }
  auto file = session::ReadRecordFile(records_path);
  if (!file) {
    std::fprintf(stderr, "gotraced-replay: %s\n", file.error().c_str());
    return 1;
  }
  const std::string exe = Meta(*file, "exe");
  probes::PlanOptions po;
  po.gc_probes = Meta(*file, "gc", "1") == "1";
  po.sweep_probes = Meta(*file, "sweeps", "1") == "1";
  po.user_probes = Meta(*file, "user", "1") == "1";
  // The same binary and options make the same plan, whose probe ids the CALL records carry.
  auto target = capture::PlanTarget(0, exe, po);
  if (!target) {
    std::fprintf(stderr, "gotraced-replay: %s\n", target.error().c_str());
    return 1;
  }
  const std::size_t nrec = file->records.size();
  std::printf("records: %zu from %s (%s, plan %s)\n", nrec, records_path.c_str(), exe.c_str(),
              target->plan.name.c_str());

  session::PipelineConfig pc;
  pc.bin = target->bin.get();
  pc.layout = &target->layout;
  pc.plan = &target->plan;
  pc.load_bias = std::strtoull(Meta(*file, "load_bias", "0").c_str(), nullptr, 10);
  pc.version = static_cast<encoder::Version>(std::atoi(Meta(*file, "version", "26").c_str()));
  pc.launched = Meta(*file, "launched") == "1";
  pc.cpu_samples = Meta(*file, "cpu_samples") == "1";
  pc.generation_period = std::chrono::nanoseconds(static_cast<std::int64_t>(generation_ms * 1e6));
  const auto drain_ns = static_cast<std::uint64_t>(drain_ms * 1e6);
  // As in a recording (session.cc): GOTRACED_DEBUG_RECORDS=FILE logs each record and what
  // it decoded to, GOTRACED_DEBUG=1 prints the model's repairs (first pass only).
  std::FILE *record_log = nullptr;
  if (const char *f = std::getenv("GOTRACED_DEBUG_RECORDS")) record_log = std::fopen(f, "w");
  if (std::getenv("GOTRACED_DEBUG"))
    pc.on_repair = [](const std::string &s) { std::fprintf(stderr, "model repair: %s\n", s.c_str()); };

  double best = 0;
  std::uint64_t events = 0, dropped = 0;
  for (int pass = 0; pass < passes; ++pass) {
    std::unique_ptr<encoder::FileSink> fs;
    if (pass == 0 && !out_path.empty()) fs = std::make_unique<encoder::FileSink>(out_path);
    service::FlightStore store(std::size_t{1} << 32);
    std::shared_ptr<service::FlightRecorder> rec;
    if (pass == 0 && !flight_path.empty()) rec = store.Create(1, service::FlightWindow{1e9, std::size_t{1} << 32});
    CountingSink sink(rec ? static_cast<encoder::Sink *>(rec.get()) : fs.get());
    pc.legacy_restart = rec.get();
    pc.record_log = pass == 0 ? record_log : nullptr;
    if (pass > 0) pc.on_repair = nullptr;
    const double t0 = ThreadCpuSeconds();
    {
      session::RecordPipeline p(sink, pc);
      // A drain delivers what arrived in drain_ns: the model advances after each.
      std::uint64_t next_drain = 0, first_ts = 0, next_heap = 0;
      const auto heap_ns = static_cast<std::uint64_t>(heap_every_s * 1e9);
      const auto stop_ns = static_cast<std::uint64_t>(stop_at_s * 1e9);
      for (std::size_t i = 0; i < nrec; ++i) {
        capture::RecordView v = file->view(i);
        if (!v.valid()) continue;
        if (v.ts() >= next_drain) {
          if (next_drain) p.Advance(false);
          if (first_ts == 0) first_ts = v.ts();
          if (pass == 0 && stop_ns > 0 && v.ts() - first_ts >= stop_ns) {
            PrintHeap(p, v.ts() - first_ts);
            std::fflush(stdout);
            std::exit(0);  // not a return: the pipeline's tables stay allocated (see --stop-at-s)
          }
          if (pass == 0 && heap_ns > 0 && v.ts() >= next_heap) {
            PrintHeap(p, v.ts() - first_ts);
            next_heap = v.ts() + heap_ns;
          }
          if (sleep_ms > 0) {
            const timespec ts{0, static_cast<long>(sleep_ms * 1e6)};
            nanosleep(&ts, nullptr);
          }
          next_drain = v.ts() + drain_ns;
        }
        p.OnRecord(v);
      }
      p.Finish(p.max_ts());
      events = p.writer().stats().events;
      if (pass == 0 && std::getenv("GOTRACED_DEBUG"))
        std::fprintf(stderr, "model: %llu inconsistencies repaired (the legacy writer: %llu more), %llu records discarded; "
                     "decoder: %llu unusable\n",
                     static_cast<unsigned long long>(p.model().stats().inconsistencies),
                     static_cast<unsigned long long>(p.writer().stats().repairs),
                     static_cast<unsigned long long>(p.model().stats().records_discarded),
                     static_cast<unsigned long long>(p.decoder().stats().unusable));
      dropped = p.writer().stats().dropped;
    }
    if (rec) {
      service::FlightRecorder::Dump d = rec->Snapshot();
      const std::size_t held = d.generations.size();
      while (!d.generations.empty() && d.generations.front().gen < flight_from) d.generations.erase(d.generations.begin());
      std::vector<std::uint8_t> bytes = service::Concatenate(d);
      std::FILE *f = std::fopen(flight_path.c_str(), "wb");
      const bool ok = f && !bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
      if (f) std::fclose(f);
      std::printf("flight dump: generations %llu..%llu of %zu held, %zu bytes -> %s\n",
                  static_cast<unsigned long long>(d.generations.empty() ? 0 : d.generations.front().gen),
                  static_cast<unsigned long long>(d.generations.empty() ? 0 : d.generations.back().gen), held,
                  bytes.size(), flight_path.c_str());
      if (!ok || d.generations.empty()) {
        std::fprintf(stderr, "gotraced-replay: no flight dump from generation %llu\n",
                     static_cast<unsigned long long>(flight_from));
        return 1;
      }
    }
    const double dt = ThreadCpuSeconds() - t0;
    const double eps = static_cast<double>(events) / dt;
    std::printf("pass %d: %llu events, %.3f s of thread CPU: %.2f M events/s, %.3f us/event, %.3f us/record, %.1f MB\n",
                pass + 1, static_cast<unsigned long long>(events), dt, eps / 1e6, dt * 1e6 / static_cast<double>(events),
                dt * 1e6 / static_cast<double>(nrec), static_cast<double>(sink.bytes) / 1e6);
    if (fs && !fs->error().empty()) {
      std::fprintf(stderr, "gotraced-replay: %s\n", fs->error().c_str());
      return 1;
    }
    best = std::max(best, eps);
  }
  std::printf("RESULT records=%zu events=%llu events_per_sec=%.0f records_per_sec=%.0f us_per_event=%.4f dropped=%llu\n",
              nrec, static_cast<unsigned long long>(events), best,
              best * static_cast<double>(nrec) / static_cast<double>(events), 1e6 / best,
              static_cast<unsigned long long>(dropped));
  return dropped ? 1 : 0;
}
