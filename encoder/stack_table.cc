#include "encoder/stack_table.h"

namespace gotraced::encoder {

std::uint64_t StackTable::Intern(std::span<const Frame> frames) {
  if (frames.size() > kMaxFramesPerStack) frames = frames.first(kMaxFramesPerStack);
  if (frames.empty()) return 0;
  // Hash pcs and lines only: cheap, and the parser itself treats the pc as the frame's
  // identity (internal/trace/generation.go addStack). Equality still checks names.
  std::uint64_t h = frames.size();
  for (const Frame &f : frames) h = MixHash(MixHash(h, f.pc), f.line);
  std::uint32_t id = index_.Find(h, [&](std::uint32_t i) {
    const StackRef &s = stacks_[i];
    if (s.count != frames.size()) return false;
    for (std::size_t k = 0; k < frames.size(); ++k) {
      const StoredFrame &a = frames_[s.first + k];
      const Frame &b = frames[k];
      if (a.pc != b.pc || a.line != b.line || strings_.Text(a.func) != TruncateStringTail(b.func) ||
          strings_.Text(a.file) != TruncateStringTail(b.file))
        return false;
    }
    return true;
  });
  if (id != IdHashMap::kNotFound) return id;

  id = static_cast<std::uint32_t>(stacks_.size());
  StackRef ref{static_cast<std::uint32_t>(frames_.size()), static_cast<std::uint32_t>(frames.size())};
  for (const Frame &f : frames) {
    frames_.push_back(StoredFrame{f.pc, f.line, strings_.Intern(TruncateStringTail(f.func)),
                                  strings_.Intern(TruncateStringTail(f.file))});
  }
  stacks_.push_back(ref);
  index_.Insert(h, id);

  ByteBuffer &b = section_.BeginEntry(1 + 2 * kMaxVarintLen + frames.size() * 4 * kMaxVarintLen);
  std::uint8_t *p = b.cursor();
  *p++ = static_cast<std::uint8_t>(EventType::kStack);
  p = PutVarint(p, id);
  p = PutVarint(p, frames.size());
  for (std::uint32_t k = 0; k < ref.count; ++k) {
    const StoredFrame &f = frames_[ref.first + k];
    p = PutVarint(p, f.pc);
    p = PutVarint(p, f.func);
    p = PutVarint(p, f.file);
    p = PutVarint(p, f.line);
  }
  b.CommitTo(p);
  section_.EndEntry();
  return id;
}

void StackTable::Reset() {
  index_.Clear();
  stacks_.resize(1);
  frames_.clear();
  section_.Clear();
  pcs_index_.Clear();
  pcs_refs_.resize(1);
  pcs_.clear();
}

}  // namespace gotraced::encoder
