#include "encoder/string_table.h"

#include <cstring>
#include <functional>

namespace gotraced::encoder {
namespace {
constexpr std::size_t kBlockSize = 64 << 10;
}  // namespace

StringTable::StringTable() { views_.emplace_back(); }

std::uint64_t StringTable::Intern(std::string_view s) {
  if (s.empty()) return 0;
  std::uint64_t h = std::hash<std::string_view>{}(s);
  std::uint32_t id = index_.Find(h, [&](std::uint32_t i) { return views_[i] == s; });
  if (id != IdHashMap::kNotFound) return id;
  id = static_cast<std::uint32_t>(views_.size());
  views_.emplace_back(Store(s), s.size());
  index_.Insert(h, id);
  ByteBuffer &b = section_.BeginEntry(1 + 2 * kMaxVarintLen + s.size());
  b.PutByte(static_cast<std::uint8_t>(EventType::kString));
  b.PutVarint(id);
  b.PutVarint(s.size());
  b.PutBytes(s);
  section_.EndEntry();
  return id;
}

char *StringTable::Store(std::string_view s) {
  if (block_cap_ - block_used_ < s.size()) {
    // kMaxStringLen < kBlockSize, so one fresh block always fits a string.
    blocks_.emplace_back(new char[kBlockSize]);
    block_used_ = 0;
    block_cap_ = kBlockSize;
  }
  char *p = blocks_.back().get() + block_used_;
  std::memcpy(p, s.data(), s.size());
  block_used_ += s.size();
  return p;
}

void StringTable::Reset() {
  index_.Clear();
  views_.resize(1);
  if (blocks_.size() > 1) blocks_.erase(blocks_.begin() + 1, blocks_.end());
  block_used_ = 0;
  block_cap_ = blocks_.empty() ? 0 : kBlockSize;
  section_.Clear();
}

}  // namespace gotraced::encoder
