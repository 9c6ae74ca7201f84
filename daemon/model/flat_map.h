// FlatMap / FlatSet: the model's and the decoder's hash maps, keyed by integers (thread,
// goroutine and P ids, g pointers, PCs), without a heap allocation per entry.
//
// std::unordered_map allocates a node per insert and frees it per erase; the daemon
// inserts and erases per record (a goroutine's state at its creation and end, a thread's
// pending syscall exit ...), and `perf record` of a recording put malloc/free at ~13% and
// the node lookups at ~8% of the daemon's CPU (issue 13). Here:
//   * the index is an open-addressing table (linear probing, backward-shift deletion, no
//     tombstones) of (key, slot) pairs: one cache line per probe, no allocation per key;
//   * FlatMap's values live in a std::deque of slots, reused through a free list:
//     references and pointers to a value stay valid until that key is erased, as with
//     std::unordered_map (the model keeps `MState &` across inserts of other Ms), and
//     a value's slot is recycled, not freed, when its key goes.
// Iteration order is slot order (not sorted, like unordered_map's); erasing the entry an
// iterator points at (erase(it)) returns the next one and leaves the others valid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <iterator>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace gotraced::model {

namespace flat_detail {

inline std::uint64_t Mix(std::uint64_t x) {
  // fmix64 (MurmurHash3's finalizer): ids are often sequential or aligned pointers.
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// key -> uint32 payload, open addressing. kEmpty marks a free slot's payload.
template <typename K>
class Index {
 public:
  static constexpr std::uint32_t kEmpty = ~std::uint32_t{0};

  std::uint32_t Find(K key) const {
    if (used_ == 0) return kEmpty;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = Home(key, mask);; i = (i + 1) & mask) {
      const Slot &s = slots_[i];
      if (s.v == kEmpty) return kEmpty;
      if (s.k == key) return s.v;
    }
  }
  // Inserts key (absent) with payload v.
  void Insert(K key, std::uint32_t v) {
    if ((used_ + 1) * 8 > slots_.size() * 7 || slots_.empty()) Grow();
    Place(key, v);
    ++used_;
  }
  // Removes key if present; returns its payload or kEmpty.
  std::uint32_t Erase(K key) {
    if (used_ == 0) return kEmpty;
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = Home(key, mask);
    for (;; i = (i + 1) & mask) {
      if (slots_[i].v == kEmpty) return kEmpty;
      if (slots_[i].k == key) break;
    }
    const std::uint32_t v = slots_[i].v;
    // Backward-shift deletion: pull later entries of the probe run into the hole, so a
    // lookup never needs a tombstone to keep probing.
    for (std::size_t j = (i + 1) & mask;; j = (j + 1) & mask) {
      if (slots_[j].v == kEmpty) break;
      const std::size_t h = Home(slots_[j].k, mask);
      // Entry j may move to i if its home is not in (i, j] (cyclically).
      const bool in_range = i <= j ? (h > i && h <= j) : (h > i || h <= j);
      if (!in_range) {
        slots_[i] = slots_[j];
        i = j;
      }
    }
    slots_[i] = Slot{};
    --used_;
    return v;
  }
  void Clear() {
    slots_.assign(slots_.size(), Slot{});
    used_ = 0;
  }
  std::size_t size() const { return used_; }
  // Every (key, payload), in table order.
  template <typename F>
  void ForEach(F &&f) const {
    for (const Slot &s : slots_)
      if (s.v != kEmpty) f(s.k, s.v);
  }

 private:
  struct Slot {
    K k{};
    std::uint32_t v = kEmpty;
  };
  static std::size_t Home(K key, std::size_t mask) {
    return static_cast<std::size_t>(Mix(static_cast<std::uint64_t>(key))) & mask;
  }
  void Place(K key, std::uint32_t v) {
    const std::size_t mask = slots_.size() - 1;
    std::size_t i = Home(key, mask);
    while (slots_[i].v != kEmpty) i = (i + 1) & mask;
    slots_[i] = Slot{key, v};
  }
  void Grow() {
    std::vector<Slot> old(slots_.empty() ? 16 : slots_.size() * 2);
    old.swap(slots_);
    for (const Slot &s : old)
      if (s.v != kEmpty) Place(s.k, s.v);
  }
  std::vector<Slot> slots_;
  std::size_t used_ = 0;
};

}  // namespace flat_detail

template <typename K, typename V>
class FlatMap {
  using Entry = std::optional<std::pair<const K, V>>;

 public:
  using key_type = K;
  using mapped_type = V;
  using value_type = std::pair<const K, V>;

  template <bool Const>
  class Iter {
    using Map = std::conditional_t<Const, const FlatMap, FlatMap>;

   public:
    using iterator_category = std::forward_iterator_tag;
    using difference_type = std::ptrdiff_t;
    using value_type = FlatMap::value_type;
    using reference = std::conditional_t<Const, const value_type &, value_type &>;
    using pointer = std::conditional_t<Const, const value_type *, value_type *>;
    Iter() = default;
    Iter(Map *m, std::size_t i) : m_(m), i_(i) { Skip(); }
    struct AtLive {};  // i is a live slot or the end: nothing to skip
    Iter(Map *m, std::size_t i, AtLive) : m_(m), i_(i) {}
    // A const_iterator from an iterator. A constructor of Iter<true>, not a conversion
    // operator of Iter<false>: clang's -Wclass-conversion flags the operator in the
    // Iter<true> instantiation (a conversion to itself), constrained or not.
    template <bool C = Const>
      requires(C)
    Iter(const Iter<false> &o) : m_(o.m_), i_(o.i_) {}  // NOLINT(google-explicit-constructor)
    reference operator*() const { return *m_->slots_[i_]; }
    pointer operator->() const { return &*m_->slots_[i_]; }
    Iter &operator++() {
      ++i_;
      Skip();
      return *this;
    }
    bool operator==(const Iter &o) const { return i_ == o.i_; }
    bool operator!=(const Iter &o) const { return i_ != o.i_; }
    std::size_t slot() const { return i_; }

   private:
    template <bool>
    friend class Iter;
    void Skip() {
      while (i_ < m_->slots_.size() && !m_->slots_[i_].has_value()) ++i_;
    }
    Map *m_ = nullptr;
    std::size_t i_ = 0;
  };
  using iterator = Iter<false>;
  using const_iterator = Iter<true>;

  iterator begin() { return iterator(this, 0); }
  iterator end() { return iterator(this, slots_.size(), typename iterator::AtLive{}); }
  const_iterator begin() const { return const_iterator(this, 0); }
  const_iterator end() const { return const_iterator(this, slots_.size(), typename const_iterator::AtLive{}); }

  std::size_t size() const { return index_.size(); }
  bool empty() const { return index_.size() == 0; }

  iterator find(K key) {
    const std::uint32_t s = Lookup(key);
    return s == kNone ? end() : iterator(this, s, typename iterator::AtLive{});
  }
  const_iterator find(K key) const {
    const std::uint32_t s = Lookup(key);
    return s == kNone ? end() : const_iterator(this, s, typename const_iterator::AtLive{});
  }
  std::size_t count(K key) const { return Lookup(key) == kNone ? 0 : 1; }
  bool contains(K key) const { return count(key) != 0; }
  // The value, or nullptr: one lookup where find() + end() would read as two.
  V *get(K key) {
    const std::uint32_t s = Lookup(key);
    return s == kNone ? nullptr : &slots_[s]->second;
  }
  const V *get(K key) const {
    const std::uint32_t s = Lookup(key);
    return s == kNone ? nullptr : &slots_[s]->second;
  }

  template <typename... Args>
  std::pair<iterator, bool> try_emplace(K key, Args &&...args) {
    const std::uint32_t s = Lookup(key);
    if (s != kNone) return {iterator(this, s, typename iterator::AtLive{}), false};
    std::uint32_t n;
    if (!free_.empty()) {
      n = free_.back();
      free_.pop_back();
    } else {
      n = static_cast<std::uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    slots_[n].emplace(std::piecewise_construct, std::forward_as_tuple(key),
                      std::forward_as_tuple(std::forward<Args>(args)...));
    index_.Insert(key, n);
    last_key_ = key;
    last_slot_ = n;
    return {iterator(this, n, typename iterator::AtLive{}), true};
  }
  std::pair<iterator, bool> emplace(K key, V value) { return try_emplace(key, std::move(value)); }
  std::pair<iterator, bool> insert(std::pair<K, V> kv) { return try_emplace(kv.first, std::move(kv.second)); }
  V &operator[](K key) { return try_emplace(key).first->second; }

  std::size_t erase(K key) {
    const std::uint32_t s = index_.Erase(key);
    if (s == kNone) return 0;
    Release(s);
    return 1;
  }
  iterator erase(const_iterator it) {
    const std::size_t s = it.slot();
    index_.Erase(slots_[s]->first);
    Release(static_cast<std::uint32_t>(s));
    return iterator(this, s + 1);
  }
  iterator erase(iterator it) { return erase(const_iterator(it)); }
  void clear() {
    slots_.clear();
    free_.clear();
    index_.Clear();
    last_slot_ = kNone;
  }

 private:
  static constexpr std::uint32_t kNone = flat_detail::Index<K>::kEmpty;
  // The slot of key, or kNone. The last key found is remembered: the model asks for the
  // same M or goroutine several times while applying one record.
  std::uint32_t Lookup(K key) const {
    if (last_slot_ != kNone && last_key_ == key) return last_slot_;
    const std::uint32_t s = index_.Find(key);
    if (s != kNone) {
      last_key_ = key;
      last_slot_ = s;
    }
    return s;
  }
  void Release(std::uint32_t s) {
    if (last_slot_ == s) last_slot_ = kNone;
    slots_[s].reset();
    free_.push_back(s);
  }
  flat_detail::Index<K> index_;
  std::deque<Entry> slots_;  // stable addresses (deque never moves its elements)
  std::vector<std::uint32_t> free_;
  mutable K last_key_{};
  mutable std::uint32_t last_slot_ = kNone;
};

// A set of integer keys: FlatMap's index alone (keys are not iterated in a stable order
// while the set changes, and nothing refers into it).
template <typename K>
class FlatSet {
 public:
  // (position, inserted) like std::unordered_set::insert; only .second is meaningful.
  std::pair<bool, bool> insert(K key) {
    if (index_.Find(key) != kNone) return {true, false};
    index_.Insert(key, 0);
    return {true, true};
  }
  std::size_t count(K key) const { return index_.Find(key) == kNone ? 0 : 1; }
  bool contains(K key) const { return count(key) != 0; }
  std::size_t erase(K key) { return index_.Erase(key) == kNone ? 0 : 1; }
  std::size_t size() const { return index_.size(); }
  bool empty() const { return index_.size() == 0; }
  void clear() { index_.Clear(); }
  template <typename F>
  void ForEach(F &&f) const {
    index_.ForEach([&](K k, std::uint32_t) { f(k); });
  }

 private:
  static constexpr std::uint32_t kNone = flat_detail::Index<K>::kEmpty;
  flat_detail::Index<K> index_;
};

}  // namespace gotraced::model
