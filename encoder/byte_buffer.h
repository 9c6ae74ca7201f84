// A growable byte buffer written through a raw cursor: the per-event path checks room
// once and then appends varints without per-byte bounds checks or value-initialising
// growth (std::vector::resize would zero the new bytes).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <span>
#include <string_view>

#include "encoder/varint.h"

namespace gotraced::encoder {

class ByteBuffer {
 public:
  ByteBuffer() = default;
  ~ByteBuffer() { std::free(data_); }
  ByteBuffer(const ByteBuffer &) = delete;
  ByteBuffer &operator=(const ByteBuffer &) = delete;
  ByteBuffer(ByteBuffer &&o) noexcept : data_(o.data_), size_(o.size_), cap_(o.cap_) {
    o.data_ = nullptr;
    o.size_ = o.cap_ = 0;
  }
  ByteBuffer &operator=(ByteBuffer &&o) noexcept {
    if (this != &o) {
      std::free(data_);
      data_ = o.data_;
      size_ = o.size_;
      cap_ = o.cap_;
      o.data_ = nullptr;
      o.size_ = o.cap_ = 0;
    }
    return *this;
  }

  // Guarantees room for n more bytes.
  void Reserve(std::size_t n) {
    if (cap_ - size_ < n) Grow(size_ + n);
  }
  std::uint8_t *cursor() { return data_ + size_; }
  // Commits the bytes written through cursor() up to `end`.
  void CommitTo(std::uint8_t *end) { size_ = static_cast<std::size_t>(end - data_); }

  void PutByte(std::uint8_t b) {
    Reserve(1);
    data_[size_++] = b;
  }
  void PutVarint(std::uint64_t v) {
    Reserve(kMaxVarintLen);
    CommitTo(encoder::PutVarint(cursor(), v));
  }
  void PutBytes(std::span<const std::uint8_t> b) {
    if (b.empty()) return;
    Reserve(b.size());
    std::memcpy(data_ + size_, b.data(), b.size());
    size_ += b.size();
  }
  void PutBytes(std::string_view s) {
    PutBytes(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t *>(s.data()), s.size()));
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  const std::uint8_t *data() const { return data_; }
  std::span<const std::uint8_t> span() const { return {data_, size_}; }
  std::span<const std::uint8_t> span(std::size_t off, std::size_t len) const { return {data_ + off, len}; }
  void Clear() { size_ = 0; }  // keeps the memory for the next generation
  // Drops the bytes from `n` on (n <= size()).
  void Truncate(std::size_t n) { size_ = n < size_ ? n : size_; }

 private:
  void Grow(std::size_t need) {
    std::size_t cap = cap_ ? cap_ : 4096;
    while (cap < need) cap *= 2;
    auto *p = static_cast<std::uint8_t *>(std::realloc(data_, cap));
    if (!p) throw std::bad_alloc();
    data_ = p;
    cap_ = cap;
  }
  std::uint8_t *data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t cap_ = 0;
};

}  // namespace gotraced::encoder
