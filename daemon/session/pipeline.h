// RecordPipeline: the daemon's per-record path as one object, everything between a
// capture record and the trace's bytes: RecordDecoder (what the record means for the
// target's Go version) -> Model (ordering, state, repairs, generations) -> TraceWriter
// -> Sink. Session feeds it from the BPF ring; bench/replay feeds it from a file of
// recorded records (record_file.h), so the replay measures exactly the work a recording
// does per record, on one core, without the kernel.
//
//   RecordPipeline p(sink, cfg);
//   for each drain: for each record: p.OnRecord(v);  then p.Advance(cut_requested);
//   at the end:     p.Finish(now_ns);               (the sink holds a complete trace)
//
// Single-threaded: one thread calls everything.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "daemon/capture/record_view.h"
#include "daemon/model/model.h"
#include "daemon/model/record_decoder.h"
#include "daemon/session/lost_end_pruner.h"
#include "daemon/session/trigger_scan.h"
#include "encoder/sink.h"
#include "encoder/event_writer.h"
#include "encoder/legacy_writer.h"

namespace gotraced::gobin {
class GoBinary;
struct RuntimeLayout;
}  // namespace gotraced::gobin
namespace gotraced::probes {
struct ProbePlan;
}
namespace gotraced::procmem {
struct RuntimeSnapshot;
}

namespace gotraced::session {

class GobinSymbolizer;

struct PipelineConfig {
  // The target: its binary, runtime layout and probe plan (capture::TargetPlan), and the
  // runtime address of its link-time address 0 (PIE). All must outlive the pipeline.
  const gobin::GoBinary *bin = nullptr;
  const gobin::RuntimeLayout *layout = nullptr;
  const probes::ProbePlan *plan = nullptr;
  std::uint64_t load_bias = 0;

  encoder::Version version = encoder::Version::kGo126;
  std::uint64_t tick_divisor = 64;
  // A new generation every period of record time (0: one generation, cut only on loss).
  std::chrono::nanoseconds generation_period{std::chrono::seconds(1)};
  // Launch mode: the records start before the runtime ran (no snapshot, heapLive 0).
  bool launched = false;
  // Attach mode: the runtime at attach (goroutines, Ps, heapLive); nullptr: none.
  const procmem::RuntimeSnapshot *snapshot = nullptr;
  std::optional<std::uint64_t> initial_heap_goal;  // HeapGoal at the trace's start
  bool cpu_samples = false;                        // --cpu-hz > 0
  // Capture level "low": no scheduling records (model_sparse.cc, capture_level.h).
  bool sparse = false;
  // serve's triggers: shown every decoded record before the model applies it (may be null).
  TriggerScan *triggers = nullptr;
  // Every repair the model makes, described (debug logs); may be empty.
  std::function<void(const std::string &)> on_repair;
  // Legacy formats: where a generation's restart prelude goes (encoder/legacy_writer.h),
  // or null: then the sink, if it is a LegacyRestartSink (the flight recorder). Caller-owned.
  encoder::LegacyRestartSink *legacy_restart = nullptr;
  // GOTRACED_DEBUG_RECORDS: each capture record and its decoded model records, a line
  // each (caller-owned, may be null).
  std::FILE *record_log = nullptr;
  // The kernel view's names of the target's fds (model::FdNamer; caller-owned, may be null).
  model::FdNamer *fd_namer = nullptr;
  bool kernel_view = true;  // --kernel-view (model::ModelOptions::kernel_view)
  // The target's pprof label sets (procmem/label_reader.h; caller-owned, may be null: no
  // "gotraced: labels" logs).
  model::LabelSource *labels = nullptr;
  // Reads the target's live goroutine ids (procmem/goroutine_states.h): after a loss,
  // goroutines whose end was lost are given up (lost_end_pruner.h). Empty: never.
  LostEndPruner::ReadLive live_goroutines;
};

class RecordPipeline {
 public:
  RecordPipeline(encoder::Sink &sink, const PipelineConfig &cfg);
  ~RecordPipeline();
  RecordPipeline(const RecordPipeline &) = delete;
  RecordPipeline &operator=(const RecordPipeline &) = delete;

  // One capture record, in the order the capture delivers them (ring_consumer.h: ts
  // order within the reorder slack).
  void OnRecord(const capture::RecordView &v);
  // The capture lost `n` records before the next one (the model cuts the generation).
  void NoteLoss(std::uint64_t n) {
    model_->NoteLoss(n);
    if (n && pruner_) pruner_->NoteLoss();
  }
  // A sample of the goroutines' states taken at `ts` (CLOCK_MONOTONIC), as the text of
  // its trace log (capture level low: procmem/goroutine_states.h, model_sparse.cc). It is
  // queued on an M of its own and written in time order with the records. `category`:
  // the log's, when it is not a state sample (Session::Note: a trigger's moment).
  void OnStateSample(std::uint64_t ts, std::string message, std::string category = {});
  // After a batch of records: applies what is older than the newest record by the
  // model's slack, and ends the generation when its period is over or when
  // `cut_requested` (and something happened since it started). Returns true if it cut
  // (which satisfies a request: the caller clears it). `delivered_up_to`: CLOCK_MONOTONIC
  // ns up to which the capture has delivered every record (0: unknown, as in the replay):
  // the model advances to it, and a cut ends there, even when no record came since.
  bool Advance(bool cut_requested, std::uint64_t delivered_up_to = 0);
  // End of the recording: the decoder's pending records, the model's last generation,
  // the writer closed (the sink then holds a complete trace). `now_ns`: CLOCK_MONOTONIC.
  void Finish(std::uint64_t now_ns);

  const model::Model &model() const { return *model_; }
  const model::RecordDecoder &decoder() const { return *decoder_; }
  const encoder::EventWriter &writer() const { return *writer_; }
  std::uint64_t max_ts() const { return max_ts_; }

 private:
  std::uint64_t Watermark(std::uint64_t top) const;
  void TrimHeap();  // malloc_trim, at most every 10 s (pipeline.cc)
  std::chrono::steady_clock::time_point last_trim_{};
  PipelineConfig cfg_;
  model::StackPool stack_pool_;  // the records' stack vectors, decoder -> model -> decoder
  // TraceWriter for the v2 versions, LegacyTraceWriter for go1.19 / go1.21: the same
  // model feeds either (encoder/event_writer.h).
  std::unique_ptr<encoder::EventWriter> writer_;
  std::unique_ptr<GobinSymbolizer> sym_;
  std::unique_ptr<model::Model> model_;
  std::unique_ptr<model::RecordDecoder> decoder_;
  std::vector<model::Record> scratch_;  // one record's model records, reused
  std::uint64_t max_ts_ = 0;
  std::uint32_t since_advance_ = 0;  // records since the model last advanced
  bool finished_ = false;
  std::unique_ptr<LostEndPruner> pruner_;  // when cfg.live_goroutines is set
};

}  // namespace gotraced::session
