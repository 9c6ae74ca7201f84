#include "daemon/procmem/label_reader.h"

#include "daemon/procmem/label_identity.h"
#include "daemon/procmem/mono_clock.h"

namespace gotraced::procmem {

LabelReader::LabelReader(pid_t pid, int go_minor) : mem_(pid), repr_(LabelReprFor(go_minor)) {}

LabelReader::Answer *LabelReader::Find(const Key &k) {
  if (auto it = newer_.find(k); it != newer_.end()) return &it->second;
  if (auto it = older_.find(k); it != older_.end()) return &it->second;
  return nullptr;
}

LabelReader::Answer *LabelReader::Read(const Key &k) {
  ++stats_.reads;
  LabelSet set;
  const MemRead read = [this](std::uint64_t a, void *d, std::size_t n) { return mem_.Read(a, d, n); };
  // The set first, its words after: words that still match were not rewritten before the
  // set's own reads (a set that lives is never written: label_set.h).
  LabelIdWords w;
  if (!ReadLabelSet(read, k.ptr, repr_, &set) || !ReadLabelIdWords(read, k.ptr, repr_, &w)) {
    ++stats_.failed;  // nothing kept: a later ask may read it
    return nullptr;
  }
  Answer a;
  a.epoch = epoch_;
  a.known = k.id == 0 || LabelSetId(repr_, w) == k.id;
  if (!a.known) {
    ++stats_.stale;  // kept as such: the record's set cannot be told, however often asked
  } else {
    if (set.cut) ++stats_.cut;
    a.text = LabelText(std::move(set));
  }
  if (newer_.size() >= kMaxCached) {
    older_ = std::move(newer_);
    newer_.clear();
  }
  Answer &slot = newer_[k];
  slot = std::move(a);
  return &slot;
}

std::optional<std::string_view> LabelReader::Text(std::uint64_t ptr, std::uint64_t id) {
  const Key k{ptr, id};
  Answer *a = Find(k);
  // An answer of an earlier epoch is the one read at its record's drain, before the GC
  // cycle's end (prefetching); an unchecked one (id 0) holds only within its epoch.
  if (a != nullptr && (a->epoch == epoch_ || (prefetching_ && id != 0))) {
    ++stats_.hits;
  } else if ((a = Read(k)) == nullptr) {
    return std::nullopt;
  }
  if (!a->known) return std::nullopt;
  return std::string_view(a->text);
}

void LabelReader::Prefetch(std::uint64_t ptr, std::uint64_t id, std::uint64_t record_ts) {
  prefetching_ = true;
  const Key k{ptr, id};
  if (const Answer *a = Find(k); a != nullptr && a->epoch == epoch_) return;
  const std::uint64_t now = MonoNowNs();
  ++stats_.prefetched;
  if (now > record_ts) stats_.prefetch_age_ns += now - record_ts;
  Read(k);
}

void LabelReader::ForgetAtDrain() {
  prefetching_ = true;
  ++epoch_;
}

void LabelReader::Forget() {
  if (!prefetching_) ++epoch_;  // else the drain saw this cycle's end already
}

std::string_view LabelReader::TextNow(std::uint64_t ptr) {
  std::optional<std::string_view> t = Text(ptr, 0);
  return t ? *t : std::string_view();
}

}  // namespace gotraced::procmem
