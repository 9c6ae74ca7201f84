// The string table of one generation: interns strings to ids 1, 2, ... and serialises
// each new one as a String entry ([5][id][len][bytes]) as it is added, like the runtime
// (runtime/tracestring.go traceStringTable.put). Reset at every generation.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "encoder/id_hash_map.h"
#include "encoder/section_buffer.h"

namespace gotraced::encoder {

// tracev2.MaxEventTrailerDataSize: the longest string the parser accepts.
inline constexpr std::size_t kMaxStringLen = 1 << 10;

// runtime/tracestring.go writeString keeps the first 1024 bytes.
constexpr std::string_view TruncateStringHead(std::string_view s) {
  return s.size() > kMaxStringLen ? s.substr(0, kMaxStringLen) : s;
}
// runtime/tracestack.go makeTraceFrame keeps the last 1024 bytes of func and file names
// (the end of a path or qualified name is the informative part).
constexpr std::string_view TruncateStringTail(std::string_view s) {
  return s.size() > kMaxStringLen ? s.substr(s.size() - kMaxStringLen) : s;
}

class StringTable {
 public:
  StringTable();
  // Id of s, adding it if new. s must already be at most kMaxStringLen bytes; "" is 0.
  std::uint64_t Intern(std::string_view s);
  // Text of an id of this generation.
  std::string_view Text(std::uint64_t id) const { return views_[id]; }
  bool Has(std::uint64_t id) const { return id < views_.size(); }
  std::size_t size() const { return views_.size() - 1; }  // defined strings, excluding ""
  const SectionBuffer &section() const { return section_; }
  void Reset();

 private:
  char *Store(std::string_view s);
  IdHashMap index_;
  std::vector<std::string_view> views_;  // by id; views_[0] = ""
  // Text storage: blocks that never move, so views_ stay valid until Reset.
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::size_t block_used_ = 0;
  std::size_t block_cap_ = 0;
  SectionBuffer section_{EventType::kStrings};
};

}  // namespace gotraced::encoder
