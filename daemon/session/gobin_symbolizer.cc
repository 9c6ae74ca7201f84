#include "daemon/session/gobin_symbolizer.h"

#include "daemon/gobin/frames.h"

namespace gotraced::session {

void GobinSymbolizer::Expand(std::span<const std::uint64_t> pcs, std::vector<encoder::Frame> &out) {
  // runtime/tracestack.go fpunwindExpand + makeTraceFrames: every PC is a return address
  // (callPC = retPC - 1), inline-expanded, wrappers elided; PCs in no Go function are
  // dropped by CallersFrames (no cgo symbolizer).
  std::vector<std::uint64_t> link(pcs.size());
  for (std::size_t i = 0; i < pcs.size(); ++i) link[i] = pcs[i] - bias_;
  for (const gobin::Frame &f : gobin::SymbolizeStack(bin_, link, /*first_is_instruction=*/false))
    out.push_back({f.pc + bias_, f.function, f.file, static_cast<std::uint64_t>(f.line)});
}

void GobinSymbolizer::StartFrame(std::uint64_t start_pc, std::vector<encoder::Frame> &out) {
  // runtime/traceevent.go startPC: startPCForTrace(pc) + PCQuantum as a return PC, which
  // CallersFrames reports at the function's entry.
  std::vector<gobin::Frame> fr = bin_.FramesForPC(start_pc - bias_, gobin::PcKind::kInstruction);
  if (fr.empty()) return;
  const gobin::Frame &f = fr.back();  // the physical function (no inlining at an entry)
  out.push_back({f.pc + bias_, f.function, f.file, static_cast<std::uint64_t>(f.line)});
}

void GobinSymbolizer::FuncChain(std::uint64_t pc, std::vector<std::string_view> &names) {
  auto it = chains_.find(pc);
  if (it == chains_.end()) {
    std::vector<std::string_view> chain;
    for (const gobin::Frame &f : bin_.FramesForPC(pc - bias_, gobin::PcKind::kReturnAddress))
      chain.push_back(f.function);
    it = chains_.emplace(pc, std::move(chain)).first;
  }
  names.insert(names.end(), it->second.begin(), it->second.end());
}

}  // namespace gotraced::session
