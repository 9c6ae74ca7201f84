// Open-addressing map from a precomputed 64-bit hash to a small integer id, with the
// key comparison supplied by the caller. The string and stack tables keep their keys in
// their own storage and use this only as the index, so a lookup hashes once, touches one
// cache line per probe and allocates nothing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace gotraced::encoder {

inline constexpr std::uint64_t MixHash(std::uint64_t h, std::uint64_t x) {
  // One round of a multiply-xorshift mixer (as in MurmurHash3's fmix64).
  h ^= x + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

class IdHashMap {
 public:
  static constexpr std::uint32_t kNotFound = 0;  // ids stored here are >= 1

  IdHashMap() { slots_.resize(kInitialSlots); }

  // Returns the id whose key equals (per `eq(id)`) the probed key, or kNotFound.
  template <typename Eq>
  std::uint32_t Find(std::uint64_t hash, Eq &&eq) const {
    std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot &s = slots_[i];
      if (s.id == kNotFound) return kNotFound;
      if (s.hash == hash && eq(s.id)) return s.id;
    }
  }

  // Inserts id (>= 1) under hash; the caller has checked it is absent.
  void Insert(std::uint64_t hash, std::uint32_t id) {
    if ((used_ + 1) * 4 > slots_.size() * 3) Rehash(slots_.size() * 2);
    Place(hash, id);
    ++used_;
  }

  void Clear() {
    if (used_ == 0) return;
    // Shrink back if a burst generation grew the table a lot, so Clear stays cheap.
    if (slots_.size() > kInitialSlots * 64 && used_ * 16 < slots_.size()) {
      slots_.assign(kInitialSlots, Slot{});
    } else {
      std::fill(slots_.begin(), slots_.end(), Slot{});
    }
    used_ = 0;
  }
  std::size_t size() const { return used_; }

 private:
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t id = kNotFound;
  };
  static constexpr std::size_t kInitialSlots = 256;

  void Place(std::uint64_t hash, std::uint32_t id) {
    std::size_t mask = slots_.size() - 1;
    std::size_t i = hash & mask;
    while (slots_[i].id != kNotFound) i = (i + 1) & mask;
    slots_[i] = Slot{hash, id};
  }
  void Rehash(std::size_t n) {
    std::vector<Slot> old(n);
    old.swap(slots_);
    for (const Slot &s : old)
      if (s.id != kNotFound) Place(s.hash, s.id);
  }

  std::vector<Slot> slots_;
  std::size_t used_ = 0;
};

}  // namespace gotraced::encoder
