// RecordQueue: one M's records waiting to be applied (Model::Push / ProcessUpTo), a ring
// buffer of Records that grows by doubling and keeps its storage.
//
// A std::deque<Record> allocates a 512-byte node for every two Records (a Record is ~200
// bytes) and frees it as they are applied: one malloc/free pair per two records, the
// largest single allocation site of the daemon in `perf record` (issue 13). The queue of
// a busy M holds a drain's worth of records at most (~16 ms), so its storage settles at
// that size and is reused from then on. A burst (the daemon starved of CPU for a while)
// doubles it, and before ShedIdleCapacity the doubled storage stayed for the recording's
// life, its stale slots still holding their stacks: the go1.19 soak's in-use bytes rose
// by ~0.5 MB a minute at 11k goroutines/s, one rare burst after another (issue 30).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "daemon/model/record.h"

namespace gotraced::model {

class RecordQueue {
 public:
  bool empty() const { return n_ == 0; }
  std::size_t size() const { return n_; }
  Record &front() { return buf_[head_]; }
  const Record &front() const { return buf_[head_]; }
  Record &back() { return buf_[Slot(n_ - 1)]; }
  Record &at(std::size_t i) { return buf_[Slot(i)]; }  // i-th from the front
  const Record &back() const { return buf_[Slot(n_ - 1)]; }

  void push_back(Record &&r) {
    if (n_ == buf_.size()) Grow();
    buf_[Slot(n_)] = std::move(r);
    ++n_;
    peak_ = std::max(peak_, n_);
  }
  // Removes the front record and returns it (moved out).
  Record pop_front() {
    Record r = std::move(buf_[head_]);
    drop_front();
    return r;
  }
  // Removes the front record; its slot keeps what is left of it until a push overwrites
  // it (the strings' and stack's storage is then reused or freed by that assignment).
  void drop_front() {
    head_ = (head_ + 1) & (buf_.size() - 1);
    --n_;
  }
  // Inserts in timestamp order after every record with ts <= r.ts (a capture path that
  // delivers a thread's records slightly out of order; rare).
  // Called once per generation: storage more than four times what the queue held at its
  // fullest since the last call is given back (down to twice that peak), with the stale
  // slots' stacks. A queue that stays busy keeps its storage; one burst does not.
  void ShedIdleCapacity() {
    const std::size_t want = std::bit_ceil(std::max<std::size_t>(kMinSlots, peak_ * 2));
    if (buf_.size() > kMinSlots && want < buf_.size() / 2) Resize(want);
    peak_ = n_;
  }
  std::size_t capacity() const { return buf_.size(); }

  void insert_sorted(Record &&r) {
    push_back(std::move(r));
    // Bubble the new last record back to its place (stable: after equal timestamps).
    for (std::size_t i = n_ - 1; i > 0; --i) {
      Record &a = buf_[Slot(i - 1)];
      Record &b = buf_[Slot(i)];
      if (a.ts <= b.ts) break;
      std::swap(a, b);
    }
  }

 private:
  std::size_t Slot(std::size_t i) const { return (head_ + i) & (buf_.size() - 1); }
  static constexpr std::size_t kMinSlots = 16;
  void Grow() { Resize(buf_.empty() ? kMinSlots : buf_.size() * 2); }
  void Resize(std::size_t slots) {  // slots: a power of two >= n_
    std::vector<Record> other(slots);
    for (std::size_t i = 0; i < n_; ++i) other[i] = std::move(buf_[Slot(i)]);
    buf_.swap(other);
    head_ = 0;
  }
  std::vector<Record> buf_;  // size is a power of two
  std::size_t head_ = 0, n_ = 0;
  std::size_t peak_ = 0;  // most records held since the last ShedIdleCapacity
};

}  // namespace gotraced::model
