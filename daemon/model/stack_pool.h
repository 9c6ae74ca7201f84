// StackPool: recycled pc vectors for Record::stack. Most records carry a stack (a copy of
// the record's raw return addresses, made by the decoder), and the model is done with it
// once the record is applied; without the pool each was a malloc in the decoder and a
// free in the model, in batches of a drain (~700 records) that overflow malloc's
// per-thread cache. The decoder takes vectors here, the model gives them back after
// Apply (both optional: without a pool, plain vectors).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace gotraced::model {

class StackPool {
 public:
  // A vector holding `pcs` (recycled storage when there is some).
  std::vector<std::uint64_t> Take(std::span<const std::uint64_t> pcs) {
    std::vector<std::uint64_t> v;
    if (!free_.empty()) {
      v = std::move(free_.back());
      free_.pop_back();
      low_ = std::min(low_, free_.size());
    }
    v.assign(pcs.begin(), pcs.end());
    return v;
  }
  // Keeps v's storage for a later Take (bounded: a burst does not pin its peak).
  void Give(std::vector<std::uint64_t> &&v) {
    if (v.capacity() == 0 || v.capacity() > kMaxKeptCapacity || free_.size() >= kMaxKept) return;
    free_.push_back(std::move(v));
  }
  std::size_t kept() const { return free_.size(); }
  // Called once per generation: the vectors that sat in the pool the whole time since the
  // last call (its low-water mark) are freed. Without it the pool filled toward its bound
  // a little more with each larger burst, minutes into a recording (issue 30).
  void ShedIdle() {
    const std::size_t keep = free_.size() - std::min(low_, free_.size());
    free_.resize(keep);
    free_.shrink_to_fit();
    low_ = free_.size();
  }

 private:
  static constexpr std::size_t kMaxKept = 8192;          // a few drains of records
  static constexpr std::size_t kMaxKeptCapacity = 160;   // > GT_MAX_FRAMES + the few frames added
  std::vector<std::vector<std::uint64_t>> free_;
  std::size_t low_ = 0;  // fewest vectors in free_ since the last ShedIdle
};

}  // namespace gotraced::model
