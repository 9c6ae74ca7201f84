// LabelReader: the model's LabelSource for one target (model/label_source.h): reads the
// label set at a g.labels pointer (label_set.h), then the words that identify it
// (label_identity.h), and drops the set when they are not the ones BPF copied with the
// pointer (its memory was freed and reused since the record).
//
// When it reads. A set lives only until the goroutine drops it and a GC cycle frees it;
// the model asks for it a drain interval (up to 64 ms: ring_consumer.h), the reorder
// slack and the model's slack after its record, and on go1.19 at 3,000 requests/s 57% of
// the sets were gone by then. So the session reads each set as its record comes off the
// ring (Prefetch, from session/label_prefetch.h), before the sort and the model, and the
// model's Text finds the answer kept for that pointer and identity. Without a prefetch
// (the replay, tests) Text reads when asked, as before.
//
// What it keeps: an answer (the text, or "cannot be told": its words had changed) per
// pointer AND identity, so two records of one pointer, freed and reused between them,
// keep an answer each until the model asks. At most kMaxCached answers in the newer of
// two maps; when it fills, the older one is dropped and the newer one becomes the older
// (an answer read at a drain outlives at least kMaxCached reads after it). Forget (a GC
// cycle ended: freed memory may hold another set with words the identity cannot tell
// apart, label_identity.h) starts a new epoch: an answer of an older epoch still answers
// the model (its record was read before the cycle ended), but a prefetch reads again.
// A reader that prefetches is told of the cycle's end at the drain (ForgetAtDrain): the
// model's Forget, which comes later, is then ignored.
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
  std::uint64_t hits = 0;      // answered from what was kept
  std::uint64_t stale = 0;     // ... read, and dropped: not the set the record named
  std::uint64_t prefetched = 0;  // reads at the drain (Prefetch)
  std::uint64_t prefetch_age_ns = 0;  // sum over them: how long after its record each was read
};

class LabelReader final : public model::LabelSource {
 public:
  static constexpr std::size_t kMaxCached = 4096;
  LabelReader(pid_t pid, int go_minor);
  std::optional<std::string_view> Text(std::uint64_t ptr, std::uint64_t id) override;
  void Forget() override;
  // A record naming the set at ptr (identity id, never 0) came off the ring at
  // record_ts (CLOCK_MONOTONIC): read it now unless this epoch has its answer.
  void Prefetch(std::uint64_t ptr, std::uint64_t id, std::uint64_t record_ts);
  // A GC cycle's end came off the ring (before the records after it are prefetched).
  void ForgetAtDrain();
  // The set at ptr now, unchecked: for a pointer read from the target's memory a moment
  // ago (level low's state samples, state_sampler.h), not one a record carried. "" when
  // unreadable.
  std::string_view TextNow(std::uint64_t ptr);
  const LabelReaderStats &stats() const { return stats_; }

 private:
  struct Key {
    std::uint64_t ptr, id;
    bool operator==(const Key &) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key &k) const { return std::hash<std::uint64_t>{}(k.ptr ^ (k.id * 0x9e3779b97f4a7c15ull)); }
  };
  struct Answer {
    bool known = false;  // false: the words had changed (stale): nothing may be said
    std::uint64_t epoch = 0;
    std::string text;
  };
  using Map = std::unordered_map<Key, Answer, KeyHash>;
  Answer *Find(const Key &k);
  // Reads the set at k.ptr now; nullptr when unreadable (nothing kept: a later ask may
  // read it).
  Answer *Read(const Key &k);

  ProcessMemory mem_;
  LabelRepr repr_;
  Map newer_, older_;
  std::uint64_t epoch_ = 0;
  bool prefetching_ = false;  // Prefetch was called: the drain forgets, not the model
  LabelReaderStats stats_;
};

}  // namespace gotraced::procmem
