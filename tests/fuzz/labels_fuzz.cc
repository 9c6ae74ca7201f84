// libFuzzer target: the pprof label-set reader (daemon/procmem/label_set.h) on a target
// memory image made of the input, in both of runtime/pprof's layouts (Go 1.19-1.23's
// map[string]string, Go 1.24+'s sorted slice), then the text written into the trace
// (label_text.h LabelText) and its reading back (ParseLabelText, what `gotraced report
// --by-label` does with a trace's logs). A target's memory is untrusted: a set being
// freed, a bad offset or another process's bytes must give an unreadable set or a bounded
// one, never a crash, a hang or an out-of-bounds read.
//
// Input: byte 0 bit 0 = layout (0 map, 1 slice); bytes 1..4 = where g.labels points, as
// an offset into the image (modulo its size); the image is the whole input, mapped at
// kBase (pointers inside it are kBase + offset; scripts/fuzz.sh labels writes seeds of
// both layouts). Checked besides memory safety: the text is within its bound, parses
// back, and its labels are the set's first ones in key order (all of them unless cut).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "daemon/procmem/label_identity.h"
#include "daemon/procmem/label_set.h"
#include "daemon/procmem/label_text.h"

namespace {

constexpr std::uint64_t kBase = 0x1000;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  using namespace gotraced::procmem;
  if (size < 5) return 0;
  const LabelRepr repr = (data[0] & 1) ? LabelRepr::kSlice : LabelRepr::kMap;
  std::uint32_t off = 0;
  std::memcpy(&off, data + 1, sizeof(off));
  const std::uint64_t ptr = kBase + off % size;
  std::uint64_t bytes_read = 0;
  const MemRead read = [&](std::uint64_t addr, void *dst, std::size_t n) {
    if (addr < kBase || addr - kBase > size || n > size - (addr - kBase)) return false;
    bytes_read += n;
    std::memcpy(dst, data + (addr - kBase), n);
    return true;
  };
  // The identity words the daemon checks a set against (label_identity.h): any image,
  // bounded reads (16 bytes at the pointer, 56 at the first word), a fingerprint never 0.
  LabelIdWords words;
  if (ReadLabelIdWords(read, ptr, repr, &words) && LabelSetId(repr, words) == 0) std::abort();
  if (bytes_read > 16 + 56 + 8) std::abort();
  bytes_read = 0;
  LabelSet set;
  const bool ok = ReadLabelSet(read, ptr, repr, &set);
  // Bounded work whatever the image says: a map's 256 buckets (B <= 8) and as many old
  // ones, chains of 5 buckets of 272 bytes, every key read once to sort them, kMaxLabels
  // labels read again; a slice's kMaxLabels pairs.
  constexpr std::uint64_t kChains = 2 * 256 * 5, kBucketBytes = 272, kEntries = kChains * 8;
  constexpr std::uint64_t kMaxRead =
      64 + kChains * kBucketBytes + kEntries * kMaxStringBytes + 2 * kMaxLabels * (16 + kMaxStringBytes);
  if (bytes_read > kMaxRead) std::abort();
  if (set.labels.size() > kMaxLabels) std::abort();
  for (const auto &[k, v] : set.labels)
    if (k.size() > kMaxStringBytes || v.size() > kMaxStringBytes) std::abort();
  if (!ok) return 0;  // unreadable: the daemon writes no log for it

  const std::string text = LabelText(set);
  if (text.size() > kMaxTextBytes) std::abort();
  std::vector<std::pair<std::string, std::string>> back;
  if (!ParseLabelText(text, &back)) std::abort();
  std::vector<std::pair<std::string, std::string>> sorted = set.labels;
  std::sort(sorted.begin(), sorted.end());
  if (back.size() > sorted.size() || !std::equal(back.begin(), back.end(), sorted.begin())) std::abort();
  const bool cut_tail = text.find("[cut: ") != std::string::npos;
  if (!cut_tail && back.size() != sorted.size()) std::abort();

  // The report reads any trace's logs: the parser on the raw bytes too.
  (void)ParseLabelText(std::string_view(reinterpret_cast<const char *>(data), size), &back);
  return 0;
}
