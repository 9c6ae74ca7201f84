// Entries of one structural section (strings, stacks or CPU samples) of the current
// generation, cut into batches of at most 64 KiB when the generation is written. The
// runtime splits these the same way when a trace buffer fills (runtime/tracestring.go
// writeString, tracestack.go dump, tracecpu.go traceReadCPU): every batch restarts
// with the section marker.
#pragma once

#include <cstdint>
#include <vector>

#include "encoder/byte_buffer.h"
#include "encoder/event_table.h"

namespace gotraced::encoder {

// tracev2.MaxBatchSize: the largest batch length (data after the header) the parser accepts.
inline constexpr std::size_t kMaxBatchData = 64 << 10;

class SectionBuffer {
 public:
  explicit SectionBuffer(EventType marker) : marker_(marker) {}

  // Room for one entry of at most max_len bytes; cut a new batch first if it would
  // not fit. Write the entry through buf() and then call EndEntry().
  ByteBuffer &BeginEntry(std::size_t max_len) {
    if (chunk_starts_.empty() || bytes_.size() - chunk_starts_.back() + 1 + max_len > kMaxBatchData)
      chunk_starts_.push_back(bytes_.size());
    bytes_.Reserve(max_len);
    return bytes_;
  }
  void EndEntry() { ++entries_; }

  // Appends this section as batches (header gen, m = none, base_ts, len) to out.
  void WriteBatches(ByteBuffer &out, std::uint64_t gen, std::uint64_t base_ts) const {
    for (std::size_t i = 0; i < chunk_starts_.size(); ++i) {
      std::size_t begin = chunk_starts_[i];
      std::size_t end = i + 1 < chunk_starts_.size() ? chunk_starts_[i + 1] : bytes_.size();
      out.PutByte(static_cast<std::uint8_t>(EventType::kEventBatch));
      out.PutVarint(gen);
      out.PutVarint(~std::uint64_t{0});  // no thread
      out.PutVarint(base_ts);
      out.PutVarint(1 + end - begin);
      out.PutByte(static_cast<std::uint8_t>(marker_));
      out.PutBytes(bytes_.span(begin, end - begin));
    }
  }
  std::size_t batches() const { return chunk_starts_.size(); }
  std::size_t entries() const { return entries_; }
  std::size_t bytes() const { return bytes_.size(); }
  bool empty() const { return entries_ == 0; }
  void Clear() {
    bytes_.Clear();
    chunk_starts_.clear();
    entries_ = 0;
  }

 private:
  EventType marker_;
  ByteBuffer bytes_;
  std::vector<std::size_t> chunk_starts_;
  std::size_t entries_ = 0;
};

}  // namespace gotraced::encoder
