// StackBuilder: a record's raw stack -> a stack id of the current generation, with the
// runtime's own trimming rules (runtime/tracestack.go traceStack and fpunwindExpand):
//   1. inline-expand the physical return addresses and elide wrappers (Symbolizer);
//   2. drop the first `skip` logical frames (the skip argument of the runtime's
//      tl.stack(skip) call, counted after expansion, wrappers not counted);
//   3. drop the outermost frame when it is runtime.goexit (traceStack: "nstk-- // skip
//      runtime.goexit"), and for goroutine 1 also runtime.main ("skip runtime.main");
//   4. keep at most 128 frames (tracev2.MaxFramesPerStack), leaf-most.
// Symbolized frames are cached per PC for the whole session; the encoder interns each
// distinct (pcs, skip, g1) once per generation.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "daemon/model/flat_map.h"
#include "daemon/model/symbolizer.h"
#include "encoder/trace_types.h"
#include "encoder/event_writer.h"

namespace gotraced::model {

class StackBuilder {
 public:
  StackBuilder(encoder::EventWriter &writer, Symbolizer *symbolizer) : writer_(writer), sym_(symbolizer) {}

  // kNoStack for an empty stack or when there is no symbolizer.
  encoder::StackId Build(std::span<const std::uint64_t> pcs, std::uint32_t skip, bool goroutine1);
  // A CPU sample's stack (model_cpu.cc): return PCs, inline-expanded, nothing trimmed but
  // the 128-frame limit, like the runtime's sigprof -> tracebackPCs, which keeps
  // runtime.goexit and applies no skip (runtime/tracecpu.go traceReadCPU stores it with
  // logicalStackSentinel, so fpunwindExpand passes it through unchanged).
  encoder::StackId BuildLogical(std::span<const std::uint64_t> pcs);
  // GoCreate's one-frame "new stack" for a start PC.
  encoder::StackId StartStack(std::uint64_t start_pc);

  std::uint64_t cached_pcs() const { return pc_cache_.size(); }

 private:
  void Resolve(std::span<const std::uint64_t> key, std::vector<encoder::Frame> &out);
  const std::vector<encoder::Frame> &FramesFor(std::uint64_t pc);

  encoder::EventWriter &writer_;
  Symbolizer *sym_;
  FlatMap<std::uint64_t, std::vector<encoder::Frame>> pc_cache_;
  std::vector<encoder::Frame> scratch_;
};

}  // namespace gotraced::model
