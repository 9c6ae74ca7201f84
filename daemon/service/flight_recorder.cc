// Flight recorder rings and the cross-process cap. See flight_recorder.h.
#include "daemon/service/flight_recorder.h"

#include <algorithm>

namespace gotraced::service {

namespace {
double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }
}  // namespace

// ---- FlightRecorder ---------------------------------------------------------------------

FlightRecorder::FlightRecorder(FlightStore &store, pid_t pid, FlightWindow w)
    : store_(store), pid_(pid), window_(w), last_end_(Clock::now()) {}

FlightRecorder::~FlightRecorder() {
  std::lock_guard<std::mutex> lock(store_.mu_);
  store_.bytes_ -= ring_bytes_;
  auto &v = store_.recorders_;
  v.erase(std::remove(v.begin(), v.end(), this), v.end());
}

void FlightRecorder::WriteHeader(std::span<const std::uint8_t> header) {
  std::lock_guard<std::mutex> lock(store_.mu_);
  header_.assign(header.begin(), header.end());
}

void FlightRecorder::WriteGeneration(std::uint64_t gen, std::span<const std::uint8_t> bytes) {
  // Copy outside the lock: the span is only valid during this call, and a generation can
  // be megabytes.
  auto copy = std::make_shared<std::vector<std::uint8_t>>(bytes.begin(), bytes.end());
  const Clock::time_point now = Clock::now();
  {
    std::lock_guard<std::mutex> lock(store_.mu_);
    GenerationChunk c{gen, std::move(copy), last_end_, now, nullptr};
    if (pending_restart_ && pending_restart_gen_ == gen) c.legacy_restart = std::move(pending_restart_);
    pending_restart_.reset();
    last_end_ = now;
    counters_.generations_received++;
    counters_.bytes_received += c.size();
    for (Subscription *s : subs_) {
      if (s->gap_) continue;
      if (s->queue_.size() >= s->max_queue_) {
        s->gap_ = true;
        s->queue_.clear();
        continue;
      }
      s->queue_.push_back(c);
    }
    ring_bytes_ += c.size();
    store_.bytes_ += c.size();
    ring_.push_back(std::move(c));
    TrimLocked(now);
    store_.EnforceLocked();
  }
  store_.cv_.notify_all();
}

void FlightRecorder::WriteLegacyPrelude(std::uint64_t gen, const encoder::LegacyRestart &restart) {
  auto stored = std::make_shared<const encoder::StoredLegacyRestart>(encoder::StoredLegacyRestart::From(restart));
  std::lock_guard<std::mutex> lock(store_.mu_);
  pending_restart_ = std::move(stored);
  pending_restart_gen_ = gen;
}

void FlightRecorder::Close() {
  {
    std::lock_guard<std::mutex> lock(store_.mu_);
    closed_ = true;
  }
  store_.cv_.notify_all();
}

// runtime/trace/recorder.go endGeneration: keep the newest generation; walk back adding
// older ones until the kept size exceeds the byte target or the oldest kept generation
// already reaches back past the time target.
void FlightRecorder::TrimLocked(Clock::time_point now) {
  if (ring_.empty()) return;
  std::size_t keep = 1;
  std::size_t size = ring_.back().size();
  const auto want_dur = std::chrono::duration<double>(window_.seconds);
  for (std::size_t i = ring_.size() - 1; i-- > 0;) {
    const GenerationChunk &oldest_kept = ring_[ring_.size() - keep];
    if (size > window_.bytes || now - oldest_kept.started > want_dur) break;
    size += ring_[i].size();
    keep++;
  }
  while (ring_.size() > keep) {
    ring_bytes_ -= ring_.front().size();
    store_.bytes_ -= ring_.front().size();
    ring_.pop_front();
    counters_.generations_trimmed++;
  }
}

void FlightRecorder::SetWindow(FlightWindow w) {
  std::lock_guard<std::mutex> lock(store_.mu_);
  window_ = w;
  TrimLocked(Clock::now());
}

FlightWindow FlightRecorder::window() const {
  std::lock_guard<std::mutex> lock(store_.mu_);
  return window_;
}

FlightStats FlightRecorder::Stats() const {
  std::lock_guard<std::mutex> lock(store_.mu_);
  FlightStats s = counters_;
  s.generations_held = ring_.size();
  s.bytes_held = ring_bytes_;
  s.closed = closed_;
  if (!ring_.empty()) {
    s.seconds_held = Seconds(ring_.back().finished - ring_.front().started);
    s.first_gen = ring_.front().gen;
    s.last_gen = ring_.back().gen;
  }
  return s;
}

FlightRecorder::Dump FlightRecorder::Snapshot() const {
  std::lock_guard<std::mutex> lock(store_.mu_);
  Dump d;
  d.header = header_;
  d.generations.assign(ring_.begin(), ring_.end());
  d.closed = closed_;
  return d;
}

std::vector<std::uint8_t> FlightRecorder::Header() const {
  std::lock_guard<std::mutex> lock(store_.mu_);
  return header_;
}

std::unique_ptr<FlightRecorder::Subscription> FlightRecorder::Subscribe() {
  auto s = std::unique_ptr<Subscription>(new Subscription());
  s->rec_ = self_.lock();
  std::lock_guard<std::mutex> lock(store_.mu_);
  subs_.push_back(s.get());
  return s;
}

FlightRecorder::Subscription::~Subscription() {
  if (!rec_) return;
  std::lock_guard<std::mutex> lock(rec_->store_.mu_);
  auto &v = rec_->subs_;
  v.erase(std::remove(v.begin(), v.end(), this), v.end());
}

std::optional<GenerationChunk> FlightRecorder::Subscription::Next(Clock::time_point deadline,
                                                                  const std::function<bool()> &cancel, bool *gap) {
  if (!rec_) return std::nullopt;
  FlightStore &store = rec_->store_;
  std::unique_lock<std::mutex> lock(store.mu_);
  while (true) {
    if (gap_) {
      if (gap) *gap = true;
      return std::nullopt;
    }
    if (!queue_.empty()) {
      GenerationChunk c = std::move(queue_.front());
      queue_.pop_front();
      return c;
    }
    if (rec_->closed_) return std::nullopt;
    const auto now = Clock::now();
    if (now >= deadline) return std::nullopt;
    if (cancel) {
      lock.unlock();
      bool stop = cancel();
      lock.lock();
      if (stop) return std::nullopt;
    }
    store.cv_.wait_until(lock, std::min(deadline, now + std::chrono::milliseconds(100)));
  }
}

// ---- FlightStore ------------------------------------------------------------------------

FlightStore::FlightStore(std::size_t cap_bytes) : cap_(cap_bytes) {}

FlightStore::~FlightStore() = default;

std::shared_ptr<FlightRecorder> FlightStore::Create(pid_t pid, FlightWindow w) {
  std::shared_ptr<FlightRecorder> r(new FlightRecorder(*this, pid, w));
  r->self_ = r;
  std::lock_guard<std::mutex> lock(mu_);
  recorders_.push_back(r.get());
  return r;
}

void FlightStore::SetCap(std::size_t cap_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  cap_ = cap_bytes;
  EnforceLocked();
}

// Oldest first across processes: the candidate of each ring is its front (evicting
// anything else would leave a hole in its generation numbers).
void FlightStore::EnforceLocked() {
  while (bytes_ > cap_) {
    FlightRecorder *victim = nullptr;
    for (FlightRecorder *r : recorders_) {
      if (r->ring_.empty()) continue;
      if (!victim || r->ring_.front().finished < victim->ring_.front().finished) victim = r;
    }
    if (!victim) break;
    const std::size_t n = victim->ring_.front().size();
    victim->ring_.pop_front();
    victim->ring_bytes_ -= n;
    victim->counters_.generations_evicted++;
    bytes_ -= n;
    evicted_generations_++;
    evicted_bytes_ += n;
  }
}

StoreStats FlightStore::Stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return StoreStats{bytes_, cap_, recorders_.size(), evicted_generations_, evicted_bytes_};
}

std::vector<std::uint8_t> Concatenate(const FlightRecorder::Dump &d) {
  std::vector<std::uint8_t> out;
  TraceChunker chunker;
  for (const GenerationChunk &g : d.generations)
    if (!chunker.Next(d.header, g, out)) return {};
  if (d.generations.empty()) out = d.header;
  return out;
}

bool TraceChunker::Next(const std::vector<std::uint8_t> &header, const GenerationChunk &c,
                        std::vector<std::uint8_t> &out, std::string *error) {
  if (!started_) {
    started_ = true;
    out.insert(out.end(), header.begin(), header.end());
    if (c.legacy_restart) {
      rebaser_ = std::make_unique<encoder::LegacyRebaser>(*c.legacy_restart);
      out.insert(out.end(), c.legacy_restart->prelude.begin(), c.legacy_restart->prelude.end());
    }
  }
  if (rebaser_) return rebaser_->Rewrite(*c.bytes, out, error);
  out.insert(out.end(), c.bytes->begin(), c.bytes->end());
  return true;
}

}  // namespace gotraced::service
