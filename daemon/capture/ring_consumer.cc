#include "daemon/capture/ring_consumer.h"
#include "daemon/procmem/mono_clock.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <poll.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <thread>

namespace gotraced::capture {
namespace {

// Bytes of a record that carry data (a stack reservation is rounded up to a size class).
size_t UsedBytes(const RecordView &v) {
  if (const gt_stack_tail *t = v.stack_tail())
    return RecordBodySize(v.header().kind) + sizeof(gt_stack_tail) + size_t(t->nframes) * 8;
  return RecordBodySize(v.header().kind);
}

}  // namespace

// Records arrive nearly in ts order (reservation order ~ ts order; a record is out of
// place only by the few others reserved while its program ran), so an insertion sort
// moves each by its small displacement: linear in practice, where std::sort's introsort
// was ~3% of the daemon. Past a budget of moves (something arrived far out of order) it
// hands over to std::sort. Ties keep arrival order (`order`).
void RingConsumer::SortNearlySorted(std::span<Entry> v) {
  auto less = [](const Entry &a, const Entry &b) { return a.ts != b.ts ? a.ts < b.ts : a.order < b.order; };
  std::size_t budget = 8 * v.size() + 64;
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (!less(v[i], v[i - 1])) continue;
    Entry e = v[i];
    std::size_t j = i;
    while (j > 0 && less(e, v[j - 1])) {
      v[j] = v[j - 1];
      --j;
      if (--budget == 0) {
        v[j] = e;
        std::sort(v.begin(), v.end(), less);
        return;
      }
    }
    v[j] = e;
  }
}

// The ring's data is mapped twice (2 x 64 MiB by default) and every fork of the daemon
// copied its page tables: AttachedProbes::ReleaseInBackground's fork at every recording's
// end (copy_page_range and the child's unmap were ~8% of a short `gotraced --out F --
// PROG`'s CPU, perf), and serve forks with every recorded process's ring mapped. No child
// of the daemon touches BPF memory (they poll, or exec), so its BPF mappings are not
// inherited (MADV_DONTFORK). libbpf keeps the addresses to itself: they are found in
// /proc/self/maps by their file, "anon_inode:bpf-map".
static void NoForkBpfMappings() {
  std::FILE *f = std::fopen("/proc/self/maps", "re");
  if (!f) return;
  char line[512];
  while (std::fgets(line, sizeof(line), f)) {
    if (!std::strstr(line, "anon_inode:bpf-map")) continue;
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line, "%lx-%lx", &lo, &hi) == 2 && hi > lo)
      madvise(reinterpret_cast<void *>(lo), hi - lo, MADV_DONTFORK);
  }
  std::fclose(f);
}

RingConsumer::RingConsumer(int ring_map_fd, ConsumerOptions opts, std::function<std::vector<uint64_t>()> lost_counter)
    : opts_(opts), lost_counter_(std::move(lost_counter)), interval_(opts.drain_interval) {
  rb_ = ring_buffer__new(ring_map_fd, &RingConsumer::OnSample, this, nullptr);
  // The ring's size (a ring buffer map's max_entries, in bytes) sets how long it may go
  // undrained.
  bpf_map_info info{};
  uint32_t len = sizeof(info);
  if (rb_ && bpf_obj_get_info_by_fd(ring_map_fd, &info, &len) == 0) ring_bytes_ = info.max_entries;
  if (rb_) NoForkBpfMappings();
  if (opts_.max_drain_interval < opts_.drain_interval) opts_.max_drain_interval = opts_.drain_interval;
}

RingConsumer::~RingConsumer() {
  if (rb_) ring_buffer__free(rb_);
}

void RingConsumer::Account(const RecordView &v) {
  const auto &h = v.header();
  stats_.per_kind[h.kind < GT_REC_KIND_COUNT ? h.kind : 0]++;
  if (h.kind == GT_REC_HELLO) return;  // the hello program does not number its records
  if (h.cpu >= seq_.size()) seq_.resize(size_t(h.cpu) + 1);
  SeqTrack &t = seq_[h.cpu];
  if (!t.any) {
    t.any = true;
    t.first = t.max = h.seq;
  } else {
    t.first = std::min(t.first, h.seq);
    t.max = std::max(t.max, h.seq);
  }
  t.seen++;
}

int RingConsumer::OnSample(void *ctx, void *data, size_t size) {
  auto *self = static_cast<RingConsumer *>(ctx);
  self->stats_.bytes += size;
  RecordView v(data, size);
  if (!v.valid()) {
    self->stats_.invalid++;
    return 0;
  }
  self->Account(v);
  if (self->opts_.on_read) self->opts_.on_read(v);
  if (self->direct_) {
    (*self->direct_)(v);
    self->direct_n_++;
    self->stats_.records++;
    return 0;
  }
  size_t used = UsedBytes(v);
  Entry e{v.ts(), self->arrival_++, uint32_t(self->arena_.size()), uint32_t(used)};
  self->arena_.insert(self->arena_.end(), v.data(), v.data() + used);
  self->pending_.push_back(e);
  self->last_ring_ts_ = v.ts();
  // libbpf's ringbuf_process_ring stops at a negative return, this sample consumed.
  return self->arena_.size() >= self->chunk_limit_ ? kChunkFull : 0;
}

int RingConsumer::ConsumeChunk() {
  chunk_limit_ = arena_.size() + kChunkBytes;
  const int r = ring_buffer__consume(rb_);
  chunk_limit_ = ~size_t{0};
  return r;
}

size_t RingConsumer::Release(uint64_t watermark, const Callback &cb) {
  // Everything up to a drain's watermark is delivered once this returns, records or not
  // (delivered_up_to: a quiet target's generations still end on time). Flush's infinite
  // watermark says nothing about time.
  struct Mark {
    RingConsumer &c;
    uint64_t w;
    ~Mark() {
      if (w != ~uint64_t{0}) c.released_ = std::max(c.released_, w);
    }
  } mark{*this, watermark};
  if (pending_.empty()) return 0;
  stats_.max_buffered = std::max<uint64_t>(stats_.max_buffered, pending_.size());
  SortNearlySorted(pending_);
  size_t n = 0;
  while (n < pending_.size() && pending_[n].ts <= watermark) n++;
  for (size_t i = 0; i < n; i++) {
    const Entry &e = pending_[i];
    if (e.ts < released_) stats_.late++;
    cb(RecordView(arena_.data() + e.offset, e.size));
  }
  stats_.records += n;
  if (n) released_ = std::max(released_, pending_[n - 1].ts);
  // Compact what stays (the last reorder_slack worth of records).
  std::vector<uint8_t> &arena = arena_spare_;
  std::vector<Entry> &rest = pending_spare_;
  arena.clear();
  rest.clear();
  for (size_t i = n; i < pending_.size(); i++) {
    Entry e = pending_[i];
    uint32_t off = uint32_t(arena.size());
    arena.insert(arena.end(), arena_.begin() + e.offset, arena_.begin() + e.offset + e.size);
    e.offset = off;
    rest.push_back(e);
  }
  arena_.swap(arena);
  pending_.swap(rest);
  ShedBurstCapacity();
  return n;
}

// The spares (what held this drain's records) keep their capacity for the next
// compaction only while it is a quiet drain's: a burst's is given back at once.
void RingConsumer::ShedBurstCapacity() {
  if (arena_spare_.capacity() > kKeepBytes) std::vector<uint8_t>().swap(arena_spare_);
  if (pending_spare_.capacity() * sizeof(Entry) > kKeepBytes / 2) std::vector<Entry>().swap(pending_spare_);
}

size_t RingConsumer::Drain(const Callback &cb) {
  if (!rb_) return 0;
  stats_.drains++;
  uint64_t t0 = procmem::MonoNowNs();
  const uint64_t bytes_before = stats_.bytes;
  struct Adapt {  // the next interval, from how full the ring was (see the header)
    RingConsumer &c;
    uint64_t before;
    ~Adapt() {
      const uint64_t read = c.stats_.bytes - before;
      c.stats_.max_drain_bytes = std::max(c.stats_.max_drain_bytes, read);
      if (c.ring_bytes_ == 0) return;
      if (read > c.ring_bytes_ / 8) c.interval_ = std::max(c.opts_.drain_interval, c.interval_ / 2);
      else if (read < c.ring_bytes_ / 32) c.interval_ = std::min(c.opts_.max_drain_interval, c.interval_ * 2);
    }
  } adapt{*this, bytes_before};
  if (!opts_.sort_by_time) {
    direct_ = &cb;
    direct_n_ = 0;
    ring_buffer__consume(rb_);
    direct_ = nullptr;
    released_ = t0;
    return direct_n_;
  }
  uint64_t slack = uint64_t(opts_.reorder_slack.count()) * 1000;
  uint64_t watermark = t0 > slack ? t0 - slack : 0;
  size_t n = 0;
  // A chunk at a time (see the header); what a chunk leaves for sorting waits for the
  // next. The drain ends at records written since it began (the next drain's), and after
  // one ring's worth at most: a producer faster than this loop must not keep it from
  // returning (the session ends generations between drains).
  std::size_t chunks = ring_bytes_ / kChunkBytes + 1;
  while (ConsumeChunk() == kChunkFull && last_ring_ts_ < t0 && chunks-- > 0) {
    const uint64_t sure = last_ring_ts_ > slack ? last_ring_ts_ - slack : 0;
    n += Release(std::min(watermark, sure), cb);
  }
  return n + Release(watermark, cb);
}

size_t RingConsumer::Flush(const Callback &cb) {
  size_t n = Drain(cb);
  return n + Release(~uint64_t{0}, cb);
}

size_t RingConsumer::WaitAndDrain(const Callback &cb, std::chrono::milliseconds max_wait) {
  auto now = std::chrono::steady_clock::now();
  if (next_drain_ > now) {
    auto wait = std::min<std::chrono::steady_clock::duration>(next_drain_ - now, max_wait);
    // Sleep on the wake fd (the target's pidfd: its exit ends the wait at once, so a long
    // drain interval does not delay the end of a recording) and the interrupt fd (the
    // owner's detach or cut).
    pollfd p[2];
    nfds_t n = 0;
    if (opts_.wake_fd >= 0 && !woken_) p[n++] = pollfd{opts_.wake_fd, POLLIN, 0};
    if (opts_.interrupt_fd >= 0) p[n++] = pollfd{opts_.interrupt_fd, POLLIN, 0};
    if (n > 0) {
      const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(wait).count();
      timespec ts{static_cast<time_t>(ns / 1000000000), static_cast<long>(ns % 1000000000)};
      if (ppoll(p, n, &ts, nullptr) > 0) {
        for (nfds_t i = 0; i < n; ++i) {
          if (p[i].revents == 0) continue;
          if (p[i].fd == opts_.wake_fd) {
            woken_ = true;  // stays readable: poll it no more
          } else {
            std::uint64_t count = 0;  // back to zero (EFD_NONBLOCK: never blocks)
            [[maybe_unused]] const ssize_t r = read(p[i].fd, &count, sizeof(count));
          }
        }
      }
    } else {
      std::this_thread::sleep_for(wait);
    }
  }
  next_drain_ = std::chrono::steady_clock::now() + interval_;
  return Drain(cb);
}

ConsumerStats RingConsumer::stats() const {
  ConsumerStats s = stats_;
  s.seq_gaps = 0;
  s.seq_gaps_per_cpu.assign(seq_.size(), 0);
  for (size_t cpu = 0; cpu < seq_.size(); ++cpu) {
    const SeqTrack &t = seq_[cpu];
    if (!t.any) continue;
    uint64_t span = uint64_t(t.max) + 1;  // a fresh BPF object numbers from 0
    if (span > t.seen) s.seq_gaps_per_cpu[cpu] = span - t.seen;
    s.seq_gaps += s.seq_gaps_per_cpu[cpu];
  }
  if (lost_counter_) s.lost_per_cpu = lost_counter_();
  return s;
}

}  // namespace gotraced::capture
