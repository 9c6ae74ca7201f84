// LabelReader: the model's LabelSource for one target (model/label_source.h): reads the
// label set at a g.labels pointer (label_set.h), then the words that identify it
// (label_identity.h), and drops the set when they are not the ones BPF copied with the
// pointer (its memory was freed and reused since the record). Keeps each text by pointer
// and identity, at most kMaxCached of them (then it starts over), until Forget (a GC
// cycle ended): a pointer that comes back with other words is read again.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <unordered_map>

#include "daemon/model/label_source.h"
#include "daemon/procmem/label_set.h"
#include "daemon/procmem/process_memory.h"

namespace gotraced::procmem {

struct LabelReaderStats {
  std::uint64_t reads = 0;     // sets read from the target
  std::uint64_t failed = 0;    // ... unreadable (text "")
  std::uint64_t cut = 0;       // ... over a bound (label_text.h)
  std::uint64_t hits = 0;      // answered from the cache
  std::uint64_t stale = 0;     // ... read, and dropped: not the set the record named
};

class LabelReader final : public model::LabelSource {
 public:
  static constexpr std::size_t kMaxCached = 4096;
  LabelReader(pid_t pid, int go_minor);
  std::optional<std::string_view> Text(std::uint64_t ptr, std::uint64_t id) override;
  void Forget() override { cache_.clear(); }
  // The set at ptr now, unchecked: for a pointer read from the target's memory a moment
  // ago (level low's state samples, state_sampler.h), not one a record carried. "" when
  // unreadable.
  std::string_view TextNow(std::uint64_t ptr);
  const LabelReaderStats &stats() const { return stats_; }

 private:
  ProcessMemory mem_;
  LabelRepr repr_;
  struct Entry {
    std::uint64_t id;  // LabelSetId of the words read after the set
    std::string text;
  };
  std::unordered_map<std::uint64_t, Entry> cache_;
  std::string scratch_;  // "" of a failed read
  LabelReaderStats stats_;
};

}  // namespace gotraced::procmem
