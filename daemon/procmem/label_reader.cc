#include "daemon/procmem/label_reader.h"

namespace gotraced::procmem {

LabelReader::LabelReader(pid_t pid, int go_minor) : mem_(pid), repr_(LabelReprFor(go_minor)) {}

std::string_view LabelReader::Text(std::uint64_t ptr) {
  if (auto it = cache_.find(ptr); it != cache_.end()) {
    ++stats_.hits;
    return it->second;
  }
  if (cache_.size() >= kMaxCached) cache_.clear();
  ++stats_.reads;
  LabelSet set;
  const MemRead read = [this](std::uint64_t a, void *d, std::size_t n) { return mem_.Read(a, d, n); };
  if (!ReadLabelSet(read, ptr, repr_, &set)) {
    ++stats_.failed;  // not cached: a later start may read it
    scratch_ = std::string();
    return scratch_;
  }
  if (set.cut) ++stats_.cut;
  return cache_.emplace(ptr, LabelText(std::move(set))).first->second;
}

}  // namespace gotraced::procmem
