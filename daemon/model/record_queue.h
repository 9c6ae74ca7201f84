// RecordQueue: one M's records waiting to be applied (Model::Push / ProcessUpTo), a ring
// buffer of Records that grows by doubling and keeps its storage.
//
// A std::deque<Record> allocates a 512-byte node for every two Records (a Record is ~200
// bytes) and frees it as they are applied: one malloc/free pair per two records, the
// largest single allocation site of the daemon in `perf record` (issue 13). The queue of
// a busy M holds a drain's worth of records at most (~16 ms), so its storage settles at
// that size and is reused from then on.
#pragma once

#include <algorithm>
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
  void Grow() {
    std::vector<Record> bigger(buf_.empty() ? 16 : buf_.size() * 2);
    for (std::size_t i = 0; i < n_; ++i) bigger[i] = std::move(buf_[Slot(i)]);
    buf_.swap(bigger);
    head_ = 0;
  }
  std::vector<Record> buf_;  // size is a power of two
  std::size_t head_ = 0, n_ = 0;
};

}  // namespace gotraced::model
