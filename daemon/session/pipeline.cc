// RecordPipeline implementation. See pipeline.h.
#include "daemon/session/pipeline.h"

#include <malloc.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/runtime_layout.h"
#include "daemon/procmem/mono_clock.h"
#include "daemon/procmem/snapshot.h"
#include "daemon/session/gobin_symbolizer.h"
#include "daemon/session/snapshot_convert.h"
#include "encoder/trace_writer.h"

namespace gotraced::session {
namespace {

// Records may wait this long behind the newest one delivered, so the model's ordering can
// still put a record of another thread first (ns).
constexpr std::uint64_t kModelSlackNs = 1'000'000;
// The model is advanced every this many records within a batch, not only at its end:
// a drain of a quiet ring's 64 ms holds ~3,000 records of a 50k events/s server, and
// queueing them all before applying any kept ~1 MB of records in flight (decoded, queued,
// applied, encoded), out of the caches: 0.63 us per event in the replay bench against
// 0.35 us with the model kept within ~256 records of the decoder. The consumer delivers
// in ts order, so everything up to the newest record less the slack is there.
constexpr std::uint32_t kAdvanceEvery = 256;
// The model waits behind a record the decoder holds (RecordDecoder::OldestHeldTs) for at
// most this long; past it (a thread off CPU for longer between releasep and its
// casgstatus) the others go on and the held one costs a repair.
constexpr std::uint64_t kHoldCapNs = 50'000'000;

}  // namespace

RecordPipeline::RecordPipeline(encoder::Sink &sink, const PipelineConfig &cfg) : cfg_(cfg) {
  const gobin::GoBinary &bin = *cfg.bin;
  const gobin::RuntimeLayout &layout = *cfg.layout;
  if (encoder::IsLegacy(cfg.version)) {
    encoder::LegacyWriterOptions lo;
    lo.version = cfg.version;
    lo.tick_divisor = cfg.tick_divisor ? cfg.tick_divisor : 64;
    if (!cfg.launched && cfg.snapshot && cfg.snapshot->gomaxprocs > 0)
      lo.gomaxprocs = static_cast<std::uint64_t>(cfg.snapshot->gomaxprocs);
    // A sink that keeps a window of generations (the flight recorder) takes each one's
    // restart prelude by being a LegacyRestartSink too.
    encoder::LegacyRestartSink *restart = cfg.legacy_restart;
    if (!restart) restart = dynamic_cast<encoder::LegacyRestartSink *>(&sink);
    writer_ = std::make_unique<encoder::LegacyTraceWriter>(sink, lo, restart);
  } else {
    encoder::WriterOptions wo;
    wo.version = cfg.version;
    wo.tick_divisor = cfg.tick_divisor ? cfg.tick_divisor : 64;
    writer_ = std::make_unique<encoder::TraceWriter>(sink, wo);
  }
  sym_ = std::make_unique<GobinSymbolizer>(bin, cfg.load_bias);

  model::ModelOptions mo;
  mo.on_repair = cfg.on_repair;
  mo.stack_pool = &stack_pool_;
  mo.sparse = cfg.sparse;  // capture level "low" (model_sparse.cc)
  mo.kernel_view = cfg.kernel_view;
  mo.labels = cfg.labels;
  model_ = std::make_unique<model::Model>(*writer_, sym_.get(), mo);
  // Sparse mode (level low) keeps no goroutine between observations: nothing to give up.
  if (cfg.live_goroutines && !cfg.sparse)
    pruner_ = std::make_unique<LostEndPruner>(cfg.live_goroutines, [] { return procmem::MonoNowNs(); });

  model::DecoderConfig dc;
  dc.go_minor = bin.go_version().minor;
  dc.plan = cfg.plan;
  dc.block_reasons = layout.trace_block_reason_strings;
  if (dc.block_reasons.empty())
    spdlog::warn("gotraced: no traceBlockReasonStrings for this Go version: block reasons will read \"unspecified\"");
  GobinSymbolizer *sym = sym_.get();
  dc.load_bias = cfg.load_bias;
  dc.func_chain = [sym](std::uint64_t pc, std::vector<std::string_view> &names) { sym->FuncChain(pc, names); };
  dc.stw_reasons = layout.stw_reason_strings;
  dc.heap_live_from_zero = cfg.launched;
  if (!cfg.launched && cfg.snapshot && cfg.snapshot->heap_live_known) {
    dc.heap_live_seed = cfg.snapshot->heap_live;
    dc.heap_live_seed_ts = cfg.snapshot->heap_live_ts_ns;
  }
  dc.cpu_samples = cfg.cpu_samples;
  dc.sparse = cfg.sparse;
  dc.kernel_view = cfg.kernel_view;
  dc.fd_namer = cfg.kernel_view ? cfg.fd_namer : nullptr;  // named at decode time (record_decoder.h)
  dc.stack_pool = &stack_pool_;
  dc.sp_delta = [&bin, bias = cfg.load_bias](std::uint64_t pc) -> std::optional<std::int32_t> {
    auto f = bin.pclntab().FuncForPC(pc - bias);
    if (!f) return std::nullopt;
    return bin.pclntab().PcValue(*f, f->pcsp, pc - bias);
  };
  decoder_ = std::make_unique<model::RecordDecoder>(std::move(dc));

  if (!cfg.launched && cfg.snapshot) model_->SetSnapshot(ConvertSnapshot(*cfg.snapshot, layout));
  if (cfg.initial_heap_goal) model_->SetInitialHeapGoal(*cfg.initial_heap_goal);
}

RecordPipeline::~RecordPipeline() = default;

void RecordPipeline::OnRecord(const capture::RecordView &v) {
  scratch_.clear();
  decoder_->Decode(v, scratch_);
  if (std::FILE *log = cfg_.record_log) {
    std::fprintf(log, "# %s\n", v.Describe().c_str());
    for (const model::Record &r : scratch_)
      std::fprintf(log, "%llu M%llu %s p=%lld g=%lld target_g=%llu target_p=%lld victim=%llu reason=%.*s skip=%u nstack=%zu\n",
                   static_cast<unsigned long long>(r.ts), static_cast<unsigned long long>(r.m),
                   std::string(model::RecordKindName(r.kind)).c_str(), static_cast<long long>(r.p),
                   static_cast<long long>(r.g), static_cast<unsigned long long>(r.target_g),
                   static_cast<long long>(r.target_p), static_cast<unsigned long long>(r.victim_m),
                   static_cast<int>(r.reason.size()), r.reason.data(), r.stack_skip, r.stack.size());
  }
  if (cfg_.triggers)
    for (const model::Record &r : scratch_) cfg_.triggers->OnRecord(r);
  for (model::Record &r : scratch_) model_->Push(std::move(r));
  max_ts_ = std::max(max_ts_, v.ts());
  if (++since_advance_ >= kAdvanceEvery) {
    since_advance_ = 0;
    if (max_ts_ > kModelSlackNs) model_->Advance(Watermark(max_ts_));
  }
}

// How far the model may go when `top` is the newest time delivered: the slack behind it,
// and not past a record the decoder still holds. Seen (tests/serve/level-switch.sh, 1 run
// in 8 under load): a thread preempted for 1.8 ms between entersyscallblock's releasep
// and its casgstatus; another M's ProcStart of that P, 11 us after the held ProcStop,
// was applied first and repaired ("P 0 still held").
std::uint64_t RecordPipeline::Watermark(std::uint64_t top) const {
  std::uint64_t w = top - kModelSlackNs;
  if (const std::uint64_t held = decoder_->OldestHeldTs(); held && held <= w && top - held < kHoldCapNs)
    w = held - 1;
  return w;
}

void RecordPipeline::OnStateSample(std::uint64_t ts, std::string message, std::string category) {
  model::Record r;
  r.ts = ts;
  r.m = model::kStateSampleM;
  r.kind = model::RecordKind::kStateSample;
  r.p = model::kNoP;
  r.g = model::kNoG;
  r.text = std::move(message);
  r.text2 = std::move(category);
  model_->Push(std::move(r));
}

bool RecordPipeline::Advance(bool cut_requested, std::uint64_t delivered_up_to) {
  // The model goes up to what the capture has delivered, not only to the newest record:
  // a quiet target (level low, a throttled process) may write nothing for hundreds of ms,
  // and a generation cut then (by its period, or asked for by a dump or a trigger's save)
  // must still end at the time it is cut, or the moment a save is about falls outside the
  // window saved. Nothing older than delivered_up_to can still arrive (ring_consumer.h).
  std::uint64_t top = std::max(max_ts_, delivered_up_to);
  if (top <= kModelSlackNs) return false;
  const std::uint64_t watermark = Watermark(top);
  const std::uint64_t gens = model_->stats().generations;
  model_->Advance(watermark);
  // The model cuts a generation of its own after a loss, every drain while losses go on
  // (then the period never comes due): the pruner looks at every cut.
  if (pruner_ && model_->stats().generations != gens) pruner_->AfterCut(*model_, watermark);
  const auto period = static_cast<std::uint64_t>(cfg_.generation_period.count());
  const bool due = period > 0 && watermark >= model_->generation_start() + period;
  // An early cut needs something after the generation's start (an empty one is not
  // worth a dump's wait); the request stays until then.
  const bool asked = cut_requested && watermark > model_->generation_start();
  if (model_->generation_start() != 0 && (due || asked)) {
    model_->CutGeneration(watermark);
    if (pruner_) pruner_->AfterCut(*model_, watermark);
    TrimHeap();
    return true;
  }
  return false;
}

// A generation's buffers (batches, tables, records) are freed when it ends, but glibc
// keeps freed pages for reuse: a load burst's high-water mark stayed in RSS for the rest
// of a recording, and the steps of a soak's RSS were such marks, not live memory (the
// go1.19 HTTP soak: in-use bytes flat within 1.7 MB while RSS stepped up; issue 30).
// malloc_trim(3) gives the free pages back (madvise, every arena); at most every 10 s,
// it costs well under a millisecond for the daemon's few tens of MB.
void RecordPipeline::TrimHeap() {
  const auto now = std::chrono::steady_clock::now();
  if (now - last_trim_ < std::chrono::seconds(10)) return;
  last_trim_ = now;
  malloc_trim(0);
}

void RecordPipeline::Finish(std::uint64_t now_ns) {
  if (finished_) return;
  finished_ = true;
  scratch_.clear();
  decoder_->Flush(scratch_);
  for (model::Record &r : scratch_) model_->Push(std::move(r));
  model_->Finish(std::max(max_ts_, now_ns));
  writer_->Close();
}

}  // namespace gotraced::session
