// LabelReader: the model's LabelSource for one target (model/label_source.h): reads the
// label set at a g.labels pointer (label_set.h) and keeps its text by pointer, at most
// kMaxCached of them (then it starts over), until Forget (a GC cycle ended).
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
};

class LabelReader final : public model::LabelSource {
 public:
  static constexpr std::size_t kMaxCached = 4096;
  LabelReader(pid_t pid, int go_minor);
  std::string_view Text(std::uint64_t ptr) override;
  void Forget() override { cache_.clear(); }
  const LabelReaderStats &stats() const { return stats_; }

 private:
  ProcessMemory mem_;
  LabelRepr repr_;
  std::unordered_map<std::uint64_t, std::string> cache_;
  std::string scratch_;  // "" of a failed read
  LabelReaderStats stats_;
};

}  // namespace gotraced::procmem
