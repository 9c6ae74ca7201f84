#include "daemon/procmem/label_set.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace gotraced::procmem {

namespace {

struct GoString {
  std::uint64_t ptr = 0, len = 0;
};

// A Go string's bytes, the first kMaxStringBytes of them.
bool ReadString(const MemRead &read, GoString s, std::string *out, bool *cut) {
  std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(s.len, kMaxStringBytes));
  if (n < s.len) *cut = true;
  out->assign(n, '\0');
  return n == 0 || read(s.ptr, out->data(), n);
}

bool AddLabel(const MemRead &read, GoString k, GoString v, LabelSet *out) {
  std::string key, value;
  if (!ReadString(read, k, &key, &out->cut) || !ReadString(read, v, &value, &out->cut)) return false;
  out->labels.emplace_back(std::move(key), std::move(value));
  return true;
}

// Go 1.24+: *labelMap -> {list []label}: a slice header, then {key, value string} pairs.
bool ReadSlice(const MemRead &read, std::uint64_t ptr, LabelSet *out) {
  std::uint64_t hdr[3];  // data, len, cap
  if (!read(ptr, hdr, sizeof(hdr))) return false;
  out->total = static_cast<std::size_t>(hdr[1]);
  const std::size_t n = std::min<std::uint64_t>(hdr[1], kMaxLabels);
  if (n < hdr[1]) out->cut = true;
  if (n == 0) return true;
  std::vector<GoString> kv(2 * n);
  if (!read(hdr[0], kv.data(), kv.size() * sizeof(GoString))) return false;
  for (std::size_t i = 0; i < n; i++)
    if (!AddLabel(read, kv[2 * i], kv[2 * i + 1], out)) return false;
  return true;
}

// runtime/map.go (Go 1.19-1.23) for map[string]string.
constexpr std::size_t kBucketCnt = 8;          // abi.MapBucketCount / bucketCnt
constexpr std::uint8_t kEvacuatedX = 2, kEvacuatedEmpty = 4, kMinTopHash = 5;
constexpr std::uint8_t kSameSizeGrow = 8;      // hmap.flags
constexpr std::size_t kMaxB = 8;               // 256 buckets: a set that large is cut
constexpr std::size_t kMaxOverflow = 4;        // overflow buckets followed per chain
struct Bucket {
  std::array<std::uint8_t, kBucketCnt> tophash;
  GoString keys[kBucketCnt];
  GoString elems[kBucketCnt];
  std::uint64_t overflow;
};
static_assert(sizeof(Bucket) == 272, "bmap of map[string]string on amd64");

// The entries of one bucket chain. `old`: a bucket of oldbuckets during a grow, whose
// entries are in the new buckets once it is evacuated (tophash[0] in evacuatedX..Empty).
bool ReadChain(const MemRead &read, std::uint64_t addr, bool old, LabelSet *out,
               std::vector<std::pair<GoString, GoString>> *kv) {
  for (std::size_t depth = 0; addr != 0 && depth <= kMaxOverflow; depth++) {
    Bucket b;
    if (!read(addr, &b, sizeof(b))) return false;
    if (old && depth == 0 && b.tophash[0] >= kEvacuatedX && b.tophash[0] <= kEvacuatedEmpty) return true;
    for (std::size_t i = 0; i < kBucketCnt; i++)
      if (b.tophash[i] >= kMinTopHash) kv->emplace_back(b.keys[i], b.elems[i]);
    addr = b.overflow;
    if (addr != 0 && depth == kMaxOverflow) out->cut = true;
  }
  return true;
}

// Go 1.19-1.23: *labelMap -> map[string]string, a *hmap.
bool ReadMap(const MemRead &read, std::uint64_t ptr, LabelSet *out) {
  std::uint64_t h = 0;
  if (!read(ptr, &h, 8)) return false;
  if (h == 0) return true;  // a nil map: no labels
  struct {
    std::int64_t count;
    std::uint8_t flags, B;
    std::uint16_t noverflow;
    std::uint32_t hash0;
    std::uint64_t buckets, oldbuckets;
  } hm;
  static_assert(sizeof(hm) == 32, "runtime.hmap's first fields on amd64");
  if (!read(h, &hm, sizeof(hm))) return false;
  out->total = hm.count > 0 ? static_cast<std::size_t>(hm.count) : 0;
  if (hm.count <= 0) return true;
  if (hm.B > kMaxB) {
    out->cut = true;
    return true;
  }
  std::vector<std::pair<GoString, GoString>> kv;
  const std::size_t bsize = sizeof(Bucket);
  for (std::size_t i = 0; i < (std::size_t{1} << hm.B); i++)
    if (!ReadChain(read, hm.buckets + i * bsize, false, out, &kv)) return false;
  if (hm.oldbuckets != 0) {
    const std::size_t oldB = (hm.flags & kSameSizeGrow) ? hm.B : hm.B - 1;
    for (std::size_t i = 0; hm.B > 0 && i < (std::size_t{1} << oldB); i++)
      if (!ReadChain(read, hm.oldbuckets + i * bsize, true, out, &kv)) return false;
  }
  // The first kMaxLabels keys in order are the ones kept (as for a sorted slice).
  std::vector<std::pair<std::string, std::size_t>> keys;
  for (std::size_t i = 0; i < kv.size(); i++) {
    std::string k;
    bool cut = false;
    if (!ReadString(read, kv[i].first, &k, &cut)) return false;
    keys.emplace_back(std::move(k), i);
  }
  std::sort(keys.begin(), keys.end());
  if (keys.size() > kMaxLabels || keys.size() < out->total) out->cut = true;
  keys.resize(std::min(keys.size(), kMaxLabels));
  for (const auto &[k, i] : keys)
    if (!AddLabel(read, kv[i].first, kv[i].second, out)) return false;
  return true;
}

}  // namespace

LabelRepr LabelReprFor(int go_minor) { return go_minor >= 24 ? LabelRepr::kSlice : LabelRepr::kMap; }

bool ReadLabelSet(const MemRead &read, std::uint64_t ptr, LabelRepr repr, LabelSet *out) {
  *out = LabelSet{};
  if (ptr == 0) return true;
  return repr == LabelRepr::kSlice ? ReadSlice(read, ptr, out) : ReadMap(read, ptr, out);
}

}  // namespace gotraced::procmem
