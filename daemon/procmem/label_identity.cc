#include "daemon/procmem/label_identity.h"

namespace gotraced::procmem {

namespace {

std::uint64_t Mix(std::uint64_t h, std::uint64_t v) {  // splitmix64's finalizer over h ^ v
  std::uint64_t z = (h ^ v) + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

std::array<std::int32_t, 2> LabelIdOffsets(LabelRepr repr) {
  return repr == LabelRepr::kMap ? std::array<std::int32_t, 2>{8, 16} : std::array<std::int32_t, 2>{16, 48};
}

std::uint64_t LabelSetId(LabelRepr repr, const LabelIdWords &w) {
  std::uint64_t h = Mix(0, w[0]);
  if (repr == LabelRepr::kMap) {
    h = Mix(h, w[2] >> 32);  // hash0
    h = Mix(h, w[3]);        // buckets
    h = Mix(h, w[1]);        // the first bucket's tophash bytes
  } else {
    h = Mix(h, w[1]);  // len
    if (w[1] >= 1) h = Mix(h, w[2]);
    if (w[1] >= 2) h = Mix(h, w[3]);
  }
  return h | 1;
}

std::int32_t LabelIdHead(LabelRepr repr) { return repr == LabelRepr::kMap ? 8 : 16; }

bool ReadLabelIdWords(const MemRead &read, std::uint64_t ptr, LabelRepr repr, LabelIdWords *w) {
  *w = {};
  if (ptr == 0 || !read(ptr, w->data(), static_cast<std::size_t>(LabelIdHead(repr)))) return false;
  if ((*w)[0] == 0) return true;  // a nil map or array: BPF stops there too
  const auto off = LabelIdOffsets(repr);
  const std::uint64_t at = (*w)[0] + static_cast<std::uint64_t>(off[0]);
  std::uint64_t span[7] = {};
  const std::size_t n = static_cast<std::size_t>(off[1] - off[0]) + 8;
  if (!read(at, span, n)) return read(at, &(*w)[2], 8);
  (*w)[2] = span[0];
  (*w)[3] = span[(off[1] - off[0]) / 8];
  // A map's first bucket: its first word (bpf_config.h labels_id_w1_at_w3).
  if (repr == LabelRepr::kMap && (*w)[3] != 0 && !read((*w)[3], &(*w)[1], 8)) return false;
  return true;
}

}  // namespace gotraced::procmem
