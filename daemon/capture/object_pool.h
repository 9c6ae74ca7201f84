// ObjectPool: which loaded BPF objects serve keeps after their process exited, and which
// one the next process of the same executable takes (capture.cc ObjectReuse).
//
// Loading and verifying a recording's object is most of an attach (docs/probe-plan.md
// §11: ~37 ms of CPU, the same for every process of one binary); a process that lives
// 400 ms paid it in full. An object whose process exited is detached from everything
// (uprobes, the dispatcher's hooks), so the next process of the same executable, with
// the same options and load bias (the `key`), can take it and only attach.
//
// The policy alone, so that it is tested without BPF (object_pool_test.cc): at most
// `per_key` objects of one key, `total` in all and `max_bytes` of their sizes together
// (the oldest goes first), none kept idle longer than `idle`. What leaves the pool is handed back to the caller, which
// destroys it outside the pool's lock. Thread-safe.
//
//   ObjectPool<Obj> pool({.per_key = 2, .total = 8, .max_bytes = 16 << 20, .idle = 10s});
//   auto out = pool.Put(key, std::move(obj), bytes, now);   // destroy what is in `out`
//   std::optional<Obj> o = pool.Take(key, now, &out);
#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gotraced::capture {

struct ObjectPoolLimits {
  std::size_t per_key = 2;
  std::size_t total = 8;
  std::size_t max_bytes = std::size_t{16} << 20;  // (a kept object's ring is kernel memory)
  std::chrono::steady_clock::duration idle = std::chrono::seconds(10);
};

template <typename T>
class ObjectPool {
 public:
  using Clock = std::chrono::steady_clock;
  explicit ObjectPool(ObjectPoolLimits limits = {}) : limits_(limits) {}

  void set_limits(ObjectPoolLimits limits) {
    std::lock_guard<std::mutex> lock(mu_);
    limits_ = limits;
  }

  // Keeps `obj` (of `bytes`) under `key`. Returns what no longer fits or waited too long
  // (with per_key or total 0, or bytes over max_bytes: `obj` itself).
  std::vector<T> Put(const std::string &key, T obj, std::size_t bytes, Clock::time_point now) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<T> out = ExpireLocked(now);
    entries_.push_back(Entry{key, now, bytes, std::move(obj)});
    std::size_t same = 0;
    for (const auto &e : entries_) same += e.key == key;
    // The oldest of the key first, then the oldest of all.
    for (auto it = entries_.begin(); same > limits_.per_key && it != entries_.end();) {
      if (it->key != key) {
        ++it;
        continue;
      }
      out.push_back(std::move(it->obj));
      it = entries_.erase(it);
      same--;
    }
    while (!entries_.empty() && (entries_.size() > limits_.total || BytesLocked() > limits_.max_bytes)) {
      out.push_back(std::move(entries_.front().obj));
      entries_.pop_front();
    }
    return out;
  }

  // The most recently kept object of `key`, if any. `expired` receives what waited too long.
  std::optional<T> Take(const std::string &key, Clock::time_point now, std::vector<T> *expired) {
    std::lock_guard<std::mutex> lock(mu_);
    std::vector<T> old = ExpireLocked(now);
    if (expired)
      for (auto &o : old) expired->push_back(std::move(o));
    for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
      if (it->key != key) continue;
      T obj = std::move(it->obj);
      entries_.erase(std::next(it).base());
      return obj;
    }
    return std::nullopt;
  }

  // What waited longer than `idle`.
  std::vector<T> Expire(Clock::time_point now) {
    std::lock_guard<std::mutex> lock(mu_);
    return ExpireLocked(now);
  }

  // The oldest object, whatever its key (a resource it holds is wanted elsewhere).
  std::optional<T> TakeOldest() {
    std::lock_guard<std::mutex> lock(mu_);
    if (entries_.empty()) return std::nullopt;
    T obj = std::move(entries_.front().obj);
    entries_.pop_front();
    return obj;
  }

  std::size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return entries_.size();
  }

  std::size_t bytes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return BytesLocked();
  }

 private:
  struct Entry {
    std::string key;
    Clock::time_point since;
    std::size_t bytes;
    T obj;
  };

  std::size_t BytesLocked() const {
    std::size_t n = 0;
    for (const auto &e : entries_) n += e.bytes;
    return n;
  }

  std::vector<T> ExpireLocked(Clock::time_point now) {
    std::vector<T> out;
    for (auto it = entries_.begin(); it != entries_.end();) {
      if (now - it->since >= limits_.idle) {
        out.push_back(std::move(it->obj));
        it = entries_.erase(it);
      } else {
        ++it;
      }
    }
    return out;
  }

  mutable std::mutex mu_;
  ObjectPoolLimits limits_;
  std::list<Entry> entries_;  // oldest first
};

}  // namespace gotraced::capture
