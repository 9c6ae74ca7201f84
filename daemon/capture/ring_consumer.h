// RingConsumer: drains the BPF ring buffer written by bpf/gotrace.bpf.c and hands the
// records to the caller in timestamp order.
//
// Why a timed drain: the BPF side submits with BPF_RB_NO_WAKEUP (the default wakeup
// costs 1.7-9 us per record on these machines, shared/docs/perf-anchors.md §4), so the
// consumer drains on a timer instead of sleeping in epoll. The timer adapts: a drain
// that found the ring less than 1/32 full doubles the interval (up to
// `max_drain_interval`, 64 ms), one that found it more than 1/8 full halves it (down to
// `drain_interval`, 1 ms). A drain costs a wake-up, a sort of the reorder buffer, the
// session's bookkeeping and, mostly, re-reading the daemon's state after the target ran
// on the CPU: at a fixed 1 ms that was ~20 ms of CPU per second idle, 0.5 us per event of
// a 50k events/s HTTP server; 16 -> 32 -> 64 ms: 1.04 -> 0.92 -> 0.90 us per event there
// (go1.26 server, 3,000 req/s). A 64 MiB ring at 64 ms fills only above ~4 M records/s,
// and the interval halves long before. The wait ends early when `wake_fd` (the target's
// pidfd) says the target exited, so the recording still ends promptly.
//
// Order: records of one thread are in program order in the ring; across threads they
// are not sorted (ts is read after the reservation, so reservation order ≈ ts order,
// but not exactly). The consumer keeps a reorder buffer and releases records with
// ts <= watermark, watermark = (CLOCK_MONOTONIC at the start of the last complete drain)
// - reorder_slack: everything reserved before that drain was seen (the ring hands out
// records in reservation order and stops at a record still being written), and anything
// reserved after it reads its ts after it. `reorder_slack` covers a BPF program that was
// preempted between its reservation and its commit. A record that still arrives below an
// already released watermark is delivered at once and counted in `late` (the model must
// tolerate it; it has never been seen in tests).
//
// Memory: a drain reads the ring in chunks of at most kChunkBytes into the reorder buffer
// and releases each chunk before reading on (the records up to the last one read, less
// reorder_slack: anything later in the ring was reserved after it, so it reads its ts
// after that one's reservation). Reading a full 64 MiB ring in one go (a daemon starved
// of CPU for a while) made the buffer and its compaction copy 2 x 64 MiB plus an entry
// per record, whose capacity stayed: RSS rose by ~50 MB at one such moment of a soak
// (issue 30). Now the buffer's high-water mark is a chunk, whatever the ring's size.
// And a chunk's capacity is not kept: the compaction targets are given back after a
// drain when they hold more than kKeepBytes (ShedBurstCapacity), so a burst (the daemon
// starved for a second or two) costs its memory for one drain, not for the rest of the
// recording: a soak's RSS stepped up 4 -> 8 -> 16 MiB at such moments, minutes in.
//
// Loss: per-CPU counters of failed reservations, read from the BPF object's .bss,
// plus the per-CPU header.seq gaps the consumer sees; both are in Stats().
//
// Threading: single-threaded; the owner calls Drain() from its loop (or runs
// Capture's thread, see capture.h).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "daemon/capture/record_view.h"

struct ring_buffer;

namespace gotraced::capture {

struct ConsumerOptions {
  std::chrono::microseconds drain_interval{1000};       // shortest interval (a busy ring)
  std::chrono::microseconds max_drain_interval{64000};  // longest (a quiet one)
  // A file descriptor that becomes readable when waiting should end (the target's pidfd:
  // its exit), or -1. WaitAndDrain sleeps on it instead of sleeping blind. Not owned.
  int wake_fd = -1;
  // An eventfd (EFD_NONBLOCK) that also ends the wait, for the owner's other threads: a
  // detach or a dump's cut need not wait out a long drain interval (serve's loop waits
  // 250 ms at level low). The consumer reads it back to zero when it fires. -1: none.
  // Not owned.
  int interrupt_fd = -1;
  // How far behind "now" records are held for sorting. 0 with sort=false: deliver in
  // ring order as soon as read.
  std::chrono::microseconds reorder_slack{2000};
  bool sort_by_time = true;
  // Each valid record as it comes off the ring, in ring order, before the reorder buffer
  // holds it for up to a drain (may be empty). For what must not wait for the sort: the
  // session reads the pprof label sets records name then (session/label_prefetch.h).
  std::function<void(const RecordView &)> on_read;
};

struct ConsumerStats {
  uint64_t records = 0;             // records delivered
  uint64_t bytes = 0;               // ring bytes read
  uint64_t per_kind[GT_REC_KIND_COUNT] = {};
  uint64_t invalid = 0;             // samples too short / unknown kind (dropped, counted)
  uint64_t late = 0;                // delivered below an already released watermark
  uint64_t seq_gaps = 0;            // records missing per the per-CPU header.seq
  std::vector<uint64_t> seq_gaps_per_cpu;  // the same by CPU (index = header.cpu)
  std::vector<uint64_t> lost_per_cpu;  // kernel-side failed reservations, per CPU
  uint64_t lost() const {
    uint64_t n = 0;
    for (auto v : lost_per_cpu) n += v;
    return n;
  }
  uint64_t drains = 0;
  uint64_t max_buffered = 0;        // largest reorder buffer seen (records)
  uint64_t max_drain_bytes = 0;     // most bytes one drain read
};

class RingConsumer {
 public:
  using Callback = std::function<void(const RecordView &)>;
  // `lost_counter` reads the kernel side's per-CPU loss counters (may be empty).
  RingConsumer(int ring_map_fd, ConsumerOptions opts,
               std::function<std::vector<uint64_t>()> lost_counter = {});
  ~RingConsumer();
  RingConsumer(const RingConsumer &) = delete;
  RingConsumer &operator=(const RingConsumer &) = delete;

  bool ok() const { return rb_ != nullptr; }

  // Reads everything in the ring now and delivers every buffered record with
  // ts <= watermark, in ts order (ties: ring order). Returns the number delivered.
  size_t Drain(const Callback &cb);
  // Delivers everything still buffered, in ts order (call after the producers stopped,
  // e.g. after detaching the probes, and one last Drain()).
  size_t Flush(const Callback &cb);
  // Sleeps until the next drain is due (at most `max_wait`), then Drain().
  size_t WaitAndDrain(const Callback &cb, std::chrono::milliseconds max_wait);
  // wake_fd fired: the target exited (it stays readable, so it is polled no more).
  bool woken() const { return woken_; }

  ConsumerStats stats() const;
  // Monotonic ns up to which all records have been delivered (the last watermark).
  uint64_t delivered_up_to() const { return released_; }

 private:
  static int OnSample(void *ctx, void *data, size_t size);
  void Account(const RecordView &v);
  size_t Release(uint64_t watermark, const Callback &cb);
  struct Entry;
  static void SortNearlySorted(std::span<Entry> v);

  ring_buffer *rb_ = nullptr;
  ConsumerOptions opts_;
  std::function<std::vector<uint64_t>()> lost_counter_;
  // Reorder buffer: record bytes in `arena_`, one Entry per record.
  struct Entry {
    uint64_t ts;
    uint64_t order;  // arrival order (ties)
    uint32_t offset;
    uint32_t size;
  };
  std::vector<uint8_t> arena_;
  std::vector<Entry> pending_;
  // Compaction targets, swapped with the two above on every Release so their capacity is
  // reused instead of allocating two fresh vectors every drain (~1 ms).
  std::vector<uint8_t> arena_spare_;
  std::vector<Entry> pending_spare_;
  // Per-CPU header.seq accounting: missing = (max - first + 1) - seen.
  struct SeqTrack {
    bool any = false;
    uint32_t first = 0, max = 0;
    uint64_t seen = 0;
  };
  std::vector<SeqTrack> seq_;
  uint64_t arrival_ = 0;
  uint64_t released_ = 0;
  // A drain's chunk (see the header): OnSample stops ring_buffer__consume with
  // kChunkFull once kChunkBytes more were read (the buffer reaches chunk_limit_);
  // last_ring_ts_ is the ts of the last record read in ring order.
  static constexpr size_t kChunkBytes = 4 << 20;
  // What a quiet drain needs (1,000 records/ms for 10 ms, ~64 bytes each) is kept.
  static constexpr size_t kKeepBytes = 1 << 20;
  void ShedBurstCapacity();
  static constexpr int kChunkFull = -7;  // -E2BIG: what OnSample returns to stop the consume
  size_t chunk_limit_ = ~size_t{0};
  uint64_t last_ring_ts_ = 0;
  int ConsumeChunk();
  const Callback *direct_ = nullptr;  // sort_by_time == false: deliver while reading
  size_t direct_n_ = 0;
  std::chrono::steady_clock::time_point next_drain_{};
  std::chrono::microseconds interval_{};  // the current drain interval (adaptive)
  bool woken_ = false;                    // wake_fd fired (it stays readable)
  uint64_t ring_bytes_ = 0;               // the ring's size (0: unknown: interval stays short)
  ConsumerStats stats_;
};

}  // namespace gotraced::capture
