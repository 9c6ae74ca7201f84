// A duration histogram of bounded size: 16 buckets per power of two (a quantile within
// 1/16 = 6.25% of the exact one), exact count, sum and max. The report keeps one per
// goroutine group and section, so its memory is the number of groups, not of events.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

namespace gotraced::report {

class Histogram {
 public:
  static constexpr int kSub = 16;
  void Add(std::uint64_t ns) {
    ++buckets_[Bucket(ns)];
    ++count_;
    sum_ += ns;
    max_ = std::max(max_, ns);
  }
  void Merge(const Histogram &o) {
    for (std::size_t i = 0; i < buckets_.size(); ++i) buckets_[i] += o.buckets_[i];
    count_ += o.count_;
    sum_ += o.sum_;
    max_ = std::max(max_, o.max_);
  }
  std::uint64_t count() const { return count_; }
  std::uint64_t sum() const { return sum_; }
  std::uint64_t max() const { return max_; }
  // The q-quantile (0 < q <= 1): the upper bound of its bucket, never above max.
  std::uint64_t Quantile(double q) const {
    if (count_ == 0) return 0;
    const auto rank = static_cast<std::uint64_t>(q * static_cast<double>(count_) + 0.999999);
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < buckets_.size(); ++i) {
      seen += buckets_[i];
      if (seen >= rank) return std::min(Upper(i), max_);
    }
    return max_;
  }

 private:
  static std::size_t Bucket(std::uint64_t v) {
    if (v < kSub) return v;
    const int e = std::bit_width(v) - 1;  // >= 4
    const std::uint64_t sub = (v >> (e - 4)) & (kSub - 1);
    return static_cast<std::size_t>((e - 3) * kSub) + sub;
  }
  static std::uint64_t Upper(std::size_t i) {
    if (i < kSub) return i;
    const int e = static_cast<int>(i / kSub) + 3;
    const std::uint64_t sub = i % kSub;
    return ((kSub + sub + 1) << (e - 4)) - 1;
  }
  // The sums first: an Add touches their cache line and its bucket's, not a third.
  std::uint64_t count_ = 0, sum_ = 0, max_ = 0;
  std::array<std::uint32_t, 61 * kSub> buckets_{};
};

}  // namespace gotraced::report
