#include "daemon/procmem/label_reader.h"

#include "daemon/procmem/label_identity.h"

namespace gotraced::procmem {

LabelReader::LabelReader(pid_t pid, int go_minor) : mem_(pid), repr_(LabelReprFor(go_minor)) {}

std::optional<std::string_view> LabelReader::Text(std::uint64_t ptr, std::uint64_t id) {
  if (auto it = cache_.find(ptr); it != cache_.end() && (id == 0 || it->second.id == id)) {
    ++stats_.hits;
    return std::string_view(it->second.text);
  }
  if (cache_.size() >= kMaxCached) cache_.clear();
  ++stats_.reads;
  LabelSet set;
  const MemRead read = [this](std::uint64_t a, void *d, std::size_t n) { return mem_.Read(a, d, n); };
  // The set first, its words after: words that still match were not rewritten before the
  // set's own reads (a set that lives is never written: label_set.h).
  LabelIdWords w;
  if (!ReadLabelSet(read, ptr, repr_, &set) || !ReadLabelIdWords(read, ptr, repr_, &w)) {
    ++stats_.failed;  // not cached: a later start may read it
    return std::nullopt;
  }
  const std::uint64_t now = LabelSetId(repr_, w);
  if (id != 0 && now != id) {
    ++stats_.stale;  // not cached either: the memory holds something else now
    return std::nullopt;
  }
  if (set.cut) ++stats_.cut;
  Entry &e = cache_[ptr];
  e = Entry{now, LabelText(std::move(set))};
  return std::string_view(e.text);
}

std::string_view LabelReader::TextNow(std::uint64_t ptr) {
  std::optional<std::string_view> t = Text(ptr, 0);
  return t ? *t : std::string_view();
}

}  // namespace gotraced::procmem
