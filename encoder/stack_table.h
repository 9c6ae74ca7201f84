// The stack table of one generation: interns stacks to ids 1, 2, ... and serialises
// each new one as a Stack entry ([3][id][n]{pc func file line}xn, leaf first) as it is
// added, like runtime/tracestack.go (traceStackTable.put / dumpStacksRec). Frames' func
// and file names go through the generation's StringTable. Reset at every generation.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "encoder/id_hash_map.h"
#include "encoder/section_buffer.h"
#include "encoder/string_table.h"
#include "encoder/trace_types.h"

namespace gotraced::encoder {

// tracev2.MaxFramesPerStack.
inline constexpr std::size_t kMaxFramesPerStack = 128;

class StackTable {
 public:
  explicit StackTable(StringTable &strings) : strings_(strings) { stacks_.push_back({0, 0}); }

  // Id of the stack (leaf first; at most kMaxFramesPerStack frames are kept), adding it if
  // new. Empty -> 0. Identity is the whole frame list (pc, line, func, file).
  std::uint64_t Intern(std::span<const Frame> frames);
  // Id for a list of raw pcs; `resolve` maps pcs to frames and runs only on the first
  // sighting of this pc list in the generation. Empty -> 0.
  template <typename Resolve>
  std::uint64_t InternPcs(std::span<const std::uint64_t> pcs, Resolve &&resolve);
  // The same for the pc list [head, pcs...] (a caller's parameter word in front), without
  // building it: the list is assembled only on a miss, for `resolve` and the table.
  template <typename Resolve>
  std::uint64_t InternPcs(std::uint64_t head, std::span<const std::uint64_t> pcs, Resolve &&resolve);

  bool Has(std::uint64_t id) const { return id < stacks_.size(); }
  std::size_t size() const { return stacks_.size() - 1; }
  const SectionBuffer &section() const { return section_; }
  void Reset();

 private:
  struct StoredFrame {
    std::uint64_t pc, line, func, file;  // func/file: string ids
  };
  struct StackRef {
    std::uint32_t first, count;  // into frames_
  };
  struct PcsRef {
    std::uint32_t first, count;  // into pcs_
    std::uint64_t stack;
  };

  StringTable &strings_;
  IdHashMap index_;
  std::vector<StackRef> stacks_;  // by id; [0] = no stack
  std::vector<StoredFrame> frames_;
  SectionBuffer section_{EventType::kStacks};
  // The pc-list index of InternPcs: pc list -> stack id.
  IdHashMap pcs_index_;
  std::vector<PcsRef> pcs_refs_{PcsRef{0, 0, 0}};  // [0] unused (ids start at 1)
  std::vector<std::uint64_t> pcs_;
  std::vector<Frame> resolved_;  // scratch for the resolver's output
  std::vector<std::uint64_t> joined_;  // scratch: [head, pcs...] on a miss
};

inline std::uint64_t HashPcs(std::span<const std::uint64_t> pcs) {
  std::uint64_t h = pcs.size();
  for (std::uint64_t pc : pcs) h = MixHash(h, pc);
  return h;
}

template <typename Resolve>
std::uint64_t StackTable::InternPcs(std::span<const std::uint64_t> pcs, Resolve &&resolve) {
  if (pcs.empty()) return 0;
  std::uint64_t h = HashPcs(pcs);
  std::uint32_t ref = pcs_index_.Find(h, [&](std::uint32_t i) {
    const PcsRef &r = pcs_refs_[i];
    if (r.count != pcs.size()) return false;
    for (std::size_t k = 0; k < pcs.size(); ++k)
      if (pcs_[r.first + k] != pcs[k]) return false;
    return true;
  });
  if (ref != IdHashMap::kNotFound) return pcs_refs_[ref].stack;
  resolved_.clear();
  resolve(pcs, resolved_);
  std::uint64_t stack = Intern(resolved_);
  PcsRef r{static_cast<std::uint32_t>(pcs_.size()), static_cast<std::uint32_t>(pcs.size()), stack};
  pcs_.insert(pcs_.end(), pcs.begin(), pcs.end());
  pcs_refs_.push_back(r);
  pcs_index_.Insert(h, static_cast<std::uint32_t>(pcs_refs_.size() - 1));
  return stack;
}

template <typename Resolve>
std::uint64_t StackTable::InternPcs(std::uint64_t head, std::span<const std::uint64_t> pcs, Resolve &&resolve) {
  // HashPcs of the joined list, computed piecewise.
  std::uint64_t h = MixHash(pcs.size() + 1, head);
  for (std::uint64_t pc : pcs) h = MixHash(h, pc);
  std::uint32_t ref = pcs_index_.Find(h, [&](std::uint32_t i) {
    const PcsRef &r = pcs_refs_[i];
    if (r.count != pcs.size() + 1 || pcs_[r.first] != head) return false;
    for (std::size_t k = 0; k < pcs.size(); ++k)
      if (pcs_[r.first + 1 + k] != pcs[k]) return false;
    return true;
  });
  if (ref != IdHashMap::kNotFound) return pcs_refs_[ref].stack;
  joined_.clear();
  joined_.push_back(head);
  joined_.insert(joined_.end(), pcs.begin(), pcs.end());
  resolved_.clear();
  resolve(std::span<const std::uint64_t>(joined_), resolved_);
  std::uint64_t stack = Intern(resolved_);
  PcsRef r{static_cast<std::uint32_t>(pcs_.size()), static_cast<std::uint32_t>(joined_.size()), stack};
  pcs_.insert(pcs_.end(), joined_.begin(), joined_.end());
  pcs_refs_.push_back(r);
  pcs_index_.Insert(h, static_cast<std::uint32_t>(pcs_refs_.size() - 1));
  return stack;
}

}  // namespace gotraced::encoder
