// Synthetic recording: a tiny scheduler script played in real time through the real
// model (daemon/model) and trace writer (encoder), so the service's flight recorder,
// endpoint and eviction are exercised with model-made generations where BPF capture is
// unavailable. Enabled by the undocumented `[testing] synthetic = true`.
//
// Script: M1 holds P0 and runs goroutine 1 for the whole run; three goroutines created at
// start stay blocked forever (so every generation must restate them, as traceAdvance
// does); every 5 ms goroutine 1 creates a worker that M2 runs on P1: it blocks on a
// channel, is unblocked by goroutine 1, makes a syscall and exits.
#include <signal.h>
#include <time.h>

#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "daemon/model/model.h"
#include "daemon/service/discovery.h"
#include "daemon/service/recording.h"
#include "daemon/session/model_counters.h"
#include "encoder/legacy_writer.h"
#include "encoder/trace_writer.h"

namespace gotraced::service {

namespace {

using model::Goid;
using model::ProcId;
using model::Record;
using model::RecordKind;
using model::ThreadId;

std::uint64_t NowNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(ts.tv_nsec);
}

class NameSymbolizer final : public model::Symbolizer {
 public:
  void Expand(std::span<const std::uint64_t> pcs, std::vector<encoder::Frame> &out) override {
    for (std::uint64_t pc : pcs) out.push_back({pc - 1, Name(pc), "/synthetic/main.go", pc % 997});
  }
  void StartFrame(std::uint64_t start_pc, std::vector<encoder::Frame> &out) override {
    out.push_back({start_pc, Name(start_pc), "/synthetic/main.go", start_pc % 997});
  }

 private:
  const std::string &Name(std::uint64_t pc) {
    for (auto &[p, n] : names_)
      if (p == pc) return n;
    names_.emplace_back(pc, "main.synthetic_" + std::to_string(pc & 0xfff));
    return names_.back().second;
  }
  std::vector<std::pair<std::uint64_t, std::string>> names_;
};

encoder::Version EncoderVersion(session::TraceVersion v) {
  switch (v) {
    case session::TraceVersion::kGo119: return encoder::Version::kGo119;
    case session::TraceVersion::kGo121: return encoder::Version::kGo121;
    case session::TraceVersion::kGo122: return encoder::Version::kGo122;
    case session::TraceVersion::kGo123: return encoder::Version::kGo123;
    case session::TraceVersion::kGo125: return encoder::Version::kGo125;
    default: return encoder::Version::kGo126;
  }
}

class SyntheticRecording final : public Recording {
 public:
  explicit SyntheticRecording(const RecordingOptions &o)
      : o_(o), writer_(MakeWriter(o)), model_(*writer_, &sym_) {}

  bool Start(std::string *error) override {
    if (o_.pid > 0 && kill(o_.pid, 0) != 0 && errno == ESRCH) {
      if (error) *error = "no such process";
      return false;
    }
    std::uint64_t t = NowNs();
    gen_start_ = t;
    last_round_ = t;
    Push(Base(t, 1, 0, 1, RecordKind::kProcsChange)).value = 2;
    for (Goid g = 2; g <= 4; g++) {
      Record &r = Push(Base(t + g, 1, 0, 1, RecordKind::kGoCreate));
      r.target_g = g;
      r.flag = true;  // created parked, never woken
      r.value = 0x7000 + g;
    }
    next_g_ = 10;
    Advance(t + 10);
    std::lock_guard<std::mutex> lock(mu_);
    stats_.go_version = "synthetic";
    stats_.trace_format = "go1." + std::to_string(static_cast<int>(EncoderVersion(o_.version)));
    stats_.probe_plan = "synthetic";
    return true;
  }

  bool Poll(std::chrono::milliseconds timeout) override {
    std::this_thread::sleep_for(std::min(timeout, std::chrono::milliseconds(20)));
    if (o_.pid > 0 && o_.start_time && !ProcessAlive(o_.pid, o_.start_time)) {
      std::lock_guard<std::mutex> lock(mu_);
      stats_.target_exited = true;
      return false;
    }
    const std::uint64_t now = NowNs();
    int rounds = 0;
    while (last_round_ + kRoundNs <= now && rounds < 50) {
      last_round_ += kRoundNs;
      Round(last_round_);
      rounds++;
    }
    if (rounds == 50) last_round_ = now;
    Advance(now);
    if (advance_ || now - gen_start_ >= static_cast<std::uint64_t>(o_.generation_period.count()) * 1'000'000ull) {
      advance_ = false;
      model_.CutGeneration(now);
      gen_start_ = now;
      UpdateStats();
    }
    return true;
  }

  void RequestAdvance() override { advance_ = true; }

  bool Stop(std::string *) override {
    if (stopped_) return true;
    stopped_ = true;
    model_.Finish(NowNs());
    writer_->Close();
    UpdateStats();
    return true;
  }

  session::SessionStats Stats() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return stats_;
  }
  std::string last_error() const override { return {}; }

 private:
  static constexpr std::uint64_t kRoundNs = 5'000'000;

  static Record Base(std::uint64_t ts, ThreadId m, ProcId p, Goid g, RecordKind k) {
    Record r;
    r.ts = ts;
    r.m = m;
    r.p = p;
    r.g = g;
    r.kind = k;
    if (g != model::kNoG) r.stack = {0x4100 + static_cast<std::uint64_t>(k), 0x4200 + g % 3};
    return r;
  }
  Record &Push(Record r) {
    pending_.push_back(std::move(r));
    return pending_.back();
  }
  void Advance(std::uint64_t watermark) {
    for (Record &r : pending_) {
      records_++;
      model_.Push(std::move(r));
    }
    pending_.clear();
    model_.Advance(watermark);
  }

  void Round(std::uint64_t t) {
    const Goid w = next_g_++;
    Record &c = Push(Base(t, 1, 0, 1, RecordKind::kGoCreate));
    c.target_g = w;
    c.value = 0x7100;
    Record &ps = Push(Base(t + 1000, 2, model::kNoP, model::kNoG, RecordKind::kProcStart));
    ps.target_p = 1;
    Record &gs = Push(Base(t + 2000, 2, 1, model::kNoG, RecordKind::kGoStart));
    gs.target_g = w;
    Push(Base(t + 3000, 2, 1, w, RecordKind::kGoBlock)).reason = "chan receive";
    Record &u = Push(Base(t + 4000, 1, 0, 1, RecordKind::kGoUnblock));
    u.target_g = w;
    Record &gs2 = Push(Base(t + 5000, 2, 1, model::kNoG, RecordKind::kGoStart));
    gs2.target_g = w;
    Push(Base(t + 6000, 2, 1, w, RecordKind::kGoSyscallBegin));
    Push(Base(t + 7000, 2, 1, w, RecordKind::kGoSyscallEnd));
    Push(Base(t + 8000, 2, 1, w, RecordKind::kGoEnd));
    Push(Base(t + 9000, 2, 1, model::kNoG, RecordKind::kProcStop));
  }

  void UpdateStats() {
    model::ModelStats ms = model_.stats();
    const encoder::WriterStats &ws = writer_->stats();
    std::lock_guard<std::mutex> lock(mu_);
    session::FillModelCounters(ms, ws, stats_);
    stats_.records = records_;
    stats_.events = ms.events;
    stats_.records_discarded = ms.records_discarded;
  }

  // The writer of the version, as the session's pipeline makes it (a legacy writer gives
  // a flight recorder its restart preludes).
  static std::unique_ptr<encoder::EventWriter> MakeWriter(const RecordingOptions &o) {
    const encoder::Version v = EncoderVersion(o.version);
    if (encoder::IsLegacy(v))
      return std::make_unique<encoder::LegacyTraceWriter>(*o.sink, encoder::LegacyWriterOptions{.version = v},
                                                          dynamic_cast<encoder::LegacyRestartSink *>(o.sink));
    return std::make_unique<encoder::TraceWriter>(*o.sink, encoder::WriterOptions{.version = v});
  }

  RecordingOptions o_;
  NameSymbolizer sym_;
  std::unique_ptr<encoder::EventWriter> writer_;
  model::Model model_;
  std::vector<Record> pending_;
  std::uint64_t gen_start_ = 0, last_round_ = 0, records_ = 0;
  Goid next_g_ = 10;
  bool stopped_ = false;
  bool advance_ = false;  // RequestAdvance: cut at the next Poll
  mutable std::mutex mu_;
  session::SessionStats stats_;
};

}  // namespace

std::unique_ptr<Recording> MakeSyntheticRecording(const RecordingOptions &o) {
  return std::make_unique<SyntheticRecording>(o);
}

}  // namespace gotraced::service
