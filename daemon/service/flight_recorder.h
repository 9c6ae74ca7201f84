// Flight recorder: per traced process, a ring of the most recent *whole* generations,
// so a dump is always a parseable trace (header + consecutive generations).
//
// Per-process window, as runtime/trace's FlightRecorder (recorder.go endGeneration): when
// a generation ends, the ring is rebuilt from the newest generation backwards, adding
// older ones while the kept bytes are within window_bytes and the oldest kept generation
// does not yet reach window_seconds back, so the ring covers at least the window when
// enough history exists (a generation straddling a limit is kept), and the newest
// generation is always kept.
//
// Across processes, FlightStore holds the total cap: after every generation it evicts the
// oldest generation among the fronts of all rings (so every ring stays contiguous) until
// the total is within the cap. Exited processes' rings stay until evicted that way (or
// dropped by the service).
//
// A dump that starts at generation k > 1 relies on the parser's first-generation
// leniency (docs go-trace-format §4.7) and on every generation carrying a status for
// every live G and P, which the model writes at each generation start like the runtime's
// traceAdvance (daemon/model/model.h). Generation numbers in a ring are consecutive, as
// the parser requires for formats before go1.26.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

#include "encoder/legacy_rebase.h"
#include "encoder/legacy_writer.h"
#include "encoder/sink.h"

namespace gotraced::service {

using Clock = std::chrono::steady_clock;
using Bytes = std::shared_ptr<const std::vector<std::uint8_t>>;

struct GenerationChunk {
  std::uint64_t gen = 0;
  Bytes bytes;
  Clock::time_point started;   // when the previous generation ended (or recording began)
  Clock::time_point finished;  // when the writer handed it over
  // Legacy formats (go1.19/go1.21), generations after the first: what a trace that starts
  // here needs before it (encoder/legacy_rebase.h). Null otherwise.
  std::shared_ptr<const encoder::StoredLegacyRestart> legacy_restart;
  std::size_t size() const {
    return (bytes ? bytes->size() : 0) + (legacy_restart ? legacy_restart->prelude.size() : 0);
  }
};

struct FlightWindow {
  double seconds = 10;
  std::size_t bytes = std::size_t{16} << 20;
};

struct FlightStats {
  std::size_t generations_held = 0;
  std::size_t bytes_held = 0;
  double seconds_held = 0;          // newest.finished - oldest.started
  std::uint64_t first_gen = 0;      // numbers held (0 when none)
  std::uint64_t last_gen = 0;
  std::uint64_t generations_received = 0;
  std::uint64_t bytes_received = 0;
  std::uint64_t generations_trimmed = 0;  // dropped by the per-process window
  std::uint64_t generations_evicted = 0;  // dropped by the total cap
  bool closed = false;                    // the writer closed the sink (recording over)
};

class FlightStore;

// Also a LegacyRestartSink: a legacy-format writer hands it each generation's restart
// prelude, so a dump or a stream may start at any generation held.
class FlightRecorder final : public encoder::Sink, public encoder::LegacyRestartSink {
 public:
  ~FlightRecorder() override;
  FlightRecorder(const FlightRecorder &) = delete;
  FlightRecorder &operator=(const FlightRecorder &) = delete;

  // encoder::Sink (called by the recording thread).
  void WriteHeader(std::span<const std::uint8_t> header) override;
  void WriteGeneration(std::uint64_t gen, std::span<const std::uint8_t> bytes) override;
  void Close() override;
  // encoder::LegacyRestartSink (called right before WriteGeneration of `gen`).
  void WriteLegacyPrelude(std::uint64_t gen, const encoder::LegacyRestart &restart) override;

  void SetWindow(FlightWindow w);
  FlightWindow window() const;
  FlightStats Stats() const;

  struct Dump {
    std::vector<std::uint8_t> header;     // empty: nothing written yet
    std::vector<GenerationChunk> generations;  // consecutive, oldest first
    bool closed = false;
  };
  // The header and the generations held now (shared, not copied).
  Dump Snapshot() const;
  std::vector<std::uint8_t> Header() const;

  // A live feed of the generations finished from now on. Each is delivered once, in
  // order; a subscriber that falls more than `max_queue` generations behind is cut off
  // (Next returns nullopt with *gap = true) rather than holding memory without bound.
  class Subscription {
   public:
    ~Subscription();
    // Waits until the next generation arrives, the recording closes, `deadline` passes or
    // `cancel` returns true (checked about every 100 ms). nullopt in the last three cases.
    std::optional<GenerationChunk> Next(Clock::time_point deadline, const std::function<bool()> &cancel = {},
                                        bool *gap = nullptr);

   private:
    friend class FlightRecorder;
    std::shared_ptr<FlightRecorder> rec_;
    std::deque<GenerationChunk> queue_;
    bool gap_ = false;
    std::size_t max_queue_ = 64;
  };
  std::unique_ptr<Subscription> Subscribe();

  pid_t pid() const { return pid_; }

 private:
  friend class FlightStore;
  FlightRecorder(FlightStore &store, pid_t pid, FlightWindow w);
  void TrimLocked(Clock::time_point now);

  FlightStore &store_;
  const pid_t pid_;
  std::weak_ptr<FlightRecorder> self_;
  // Guarded by store_.mu_.
  FlightWindow window_;
  std::vector<std::uint8_t> header_;
  std::deque<GenerationChunk> ring_;
  std::size_t ring_bytes_ = 0;
  Clock::time_point last_end_;
  bool closed_ = false;
  std::shared_ptr<const encoder::StoredLegacyRestart> pending_restart_;  // for generation pending_restart_gen_
  std::uint64_t pending_restart_gen_ = 0;
  FlightStats counters_;
  std::vector<Subscription *> subs_;
};

struct StoreStats {
  std::size_t bytes = 0;   // held by all rings
  std::size_t cap = 0;     // current effective cap
  std::size_t recorders = 0;
  std::uint64_t evicted_generations = 0;
  std::uint64_t evicted_bytes = 0;
};

class FlightStore {
 public:
  explicit FlightStore(std::size_t cap_bytes);
  ~FlightStore();
  FlightStore(const FlightStore &) = delete;
  FlightStore &operator=(const FlightStore &) = delete;

  std::shared_ptr<FlightRecorder> Create(pid_t pid, FlightWindow w);
  // Changes the cap and evicts down to it at once.
  void SetCap(std::size_t cap_bytes);
  StoreStats Stats() const;

 private:
  friend class FlightRecorder;
  void EnforceLocked();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::size_t cap_;
  std::size_t bytes_ = 0;
  std::vector<FlightRecorder *> recorders_;
  std::uint64_t evicted_generations_ = 0;
  std::uint64_t evicted_bytes_ = 0;
};

// The bytes of a dump as one trace file (header + generations, or for a legacy format
// that starts after its first generation, header + restart prelude + the generations
// rebased: encoder/legacy_rebase.h), for tests and tools.
std::vector<std::uint8_t> Concatenate(const FlightRecorder::Dump &d);

// Turns a run of consecutive generations into trace bytes as they are streamed: the
// first Next() returns the header (and, legacy formats, the restart prelude) with the
// first generation; legacy generations after a late start are rebased.
class TraceChunker {
 public:
  // The bytes to send for `c`, after those of the chunks before it. False on a legacy
  // generation that cannot be rebased (*error says why).
  bool Next(const std::vector<std::uint8_t> &header, const GenerationChunk &c, std::vector<std::uint8_t> &out,
            std::string *error = nullptr);

 private:
  bool started_ = false;
  std::unique_ptr<encoder::LegacyRebaser> rebaser_;
};

}  // namespace gotraced::service
