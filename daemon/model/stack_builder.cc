#include "daemon/model/stack_builder.h"

#include <algorithm>

namespace gotraced::model {
namespace {

// tracev2.MaxFramesPerStack (internal/trace/tracev2/events.go).
constexpr std::size_t kMaxFrames = 128;
// The key handed to the encoder's per-generation stack cache is the pc list prefixed by
// one word that carries the trimming parameters, so equal pcs with different skips do
// not share an id. Bit 63 marks a start-PC stack.
constexpr std::uint64_t kG1Bit = std::uint64_t{1} << 32;
constexpr std::uint64_t kStartBit = std::uint64_t{1} << 63;
// Bit 62: a CPU sample's stack (BuildLogical): no goexit/main trimming.
constexpr std::uint64_t kLogicalBit = std::uint64_t{1} << 62;

}  // namespace

const std::vector<encoder::Frame> &StackBuilder::FramesFor(std::uint64_t pc) {
  auto it = pc_cache_.find(pc);
  if (it != pc_cache_.end()) return it->second;
  std::vector<encoder::Frame> frames;
  std::uint64_t one[1] = {pc};
  sym_->Expand(one, frames);
  return pc_cache_.emplace(pc, std::move(frames)).first->second;
}

void StackBuilder::Resolve(std::span<const std::uint64_t> key, std::vector<encoder::Frame> &out) {
  const std::uint64_t params = key[0];
  std::span<const std::uint64_t> pcs = key.subspan(1);
  if (params & kStartBit) {
    sym_->StartFrame(pcs[0], out);
    if (out.size() > 1) out.resize(1);
    return;
  }
  const std::uint32_t skip = static_cast<std::uint32_t>(params & 0xffffffffu);
  const bool g1 = (params & kG1Bit) != 0;

  // Expand PC by PC through the cache. Wrapper elision in fpunwindExpand depends on the
  // previous logical frame (elideWrapperCalling(lastFuncID)); the symbolizer applies it
  // within one PC's expansion, which is where wrappers appear in practice (a wrapper
  // frame is the physical caller of the wrapped method's frame).
  scratch_.clear();
  for (std::uint64_t pc : pcs) {
    const auto &f = FramesFor(pc);
    scratch_.insert(scratch_.end(), f.begin(), f.end());
  }
  // traceStack drops the outermost physical frame (runtime.goexit), and runtime.main for
  // goroutine 1. We match by name so a truncated walk keeps its last real frame.
  if (!(params & kLogicalBit) && !scratch_.empty() && scratch_.back().func == "runtime.goexit") {
    scratch_.pop_back();
    if (g1 && !scratch_.empty() && scratch_.back().func == "runtime.main") scratch_.pop_back();
  }
  std::size_t first = std::min<std::size_t>(skip, scratch_.size());
  std::size_t last = std::min(scratch_.size(), first + kMaxFrames);
  out.insert(out.end(), scratch_.begin() + static_cast<std::ptrdiff_t>(first),
             scratch_.begin() + static_cast<std::ptrdiff_t>(last));
}

encoder::StackId StackBuilder::Build(std::span<const std::uint64_t> pcs, std::uint32_t skip, bool goroutine1) {
  if (pcs.empty() || sym_ == nullptr) return encoder::kNoStack;
  return writer_.InternStackPcs(std::uint64_t{skip} | (goroutine1 ? kG1Bit : 0), pcs,
                                [this](std::span<const std::uint64_t> k, std::vector<encoder::Frame> &out) {
                                  Resolve(k, out);
                                });
}

encoder::StackId StackBuilder::BuildLogical(std::span<const std::uint64_t> pcs) {
  if (pcs.empty() || sym_ == nullptr) return encoder::kNoStack;
  return writer_.InternStackPcs(kLogicalBit, pcs, [this](std::span<const std::uint64_t> k, std::vector<encoder::Frame> &out) {
    Resolve(k, out);
  });
}

encoder::StackId StackBuilder::StartStack(std::uint64_t start_pc) {
  if (start_pc == 0 || sym_ == nullptr) return encoder::kNoStack;
  const std::uint64_t key[2] = {kStartBit, start_pc};
  return writer_.InternStackPcs(key, [this](std::span<const std::uint64_t> k, std::vector<encoder::Frame> &out) {
    Resolve(k, out);
  });
}

}  // namespace gotraced::model
