// Symbolizer: what the model needs to turn PCs into trace stack frames. The session
// implements it on gobin (daemon/gobin/frames.h); tests implement it with a table.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "encoder/trace_types.h"

namespace gotraced::model {

class Symbolizer {
 public:
  virtual ~Symbolizer() = default;
  // Physical return addresses (a frame-pointer walk, leaf first) -> logical frames,
  // leaf first, exactly as the runtime's fpunwindExpand followed by makeTraceFrames
  // would produce them (runtime/tracestack.go): inline expansion, wrapper elision, no
  // skip applied. Strings must stay valid for the symbolizer's lifetime. PCs in no Go
  // function are kept as a frame with empty names (fpunwindExpand keeps them).
  virtual void Expand(std::span<const std::uint64_t> pcs, std::vector<encoder::Frame> &out) = 0;
  // The one-frame "new stack" of GoCreate: the goroutine's start function, as
  // runtime/traceevent.go startPC does (startPCForTrace(pc) + PCQuantum as a return PC,
  // so wrappers resolve to the wrapped function).
  virtual void StartFrame(std::uint64_t start_pc, std::vector<encoder::Frame> &out) = 0;
};

}  // namespace gotraced::model
