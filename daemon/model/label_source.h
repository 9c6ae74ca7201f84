// LabelSource: the text of a goroutine's pprof label set, given the pointer the runtime
// keeps in g.labels (runtime2.go `labels unsafe.Pointer // profiler labels`, stored by
// runtime/pprof SetGoroutineLabels / Do). The session's implementation reads the target's
// memory (procmem/label_reader.h) and caches by pointer; the model only asks.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gotraced::model {

class LabelSource {
 public:
  virtual ~LabelSource() = default;
  // "k=v k2=v2" (keys sorted; procmem/label_set.h LabelText), "" for no label. `id`: the
  // fingerprint of the words BPF copied with the pointer (procmem/label_identity.h; 0:
  // none, not checked). nullopt: the set cannot be told, so nothing may be said of it:
  // unreadable, or the memory no longer holds the set the record named (freed and
  // reused since: its words differ). Valid until the next call.
  virtual std::optional<std::string_view> Text(std::uint64_t ptr, std::uint64_t id) = 0;
  // A GC cycle ended: memory the target freed may hold another set at a cached pointer.
  virtual void Forget() = 0;
};

}  // namespace gotraced::model
