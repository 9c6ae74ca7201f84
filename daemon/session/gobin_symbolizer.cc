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

namespace {

// runtime/tracestack.go startPCForTrace: a `go f(x)` statement starts the compiler's
// wrapper (main.main.gowrap1); its FUNCDATA_WrapInfo (internal/abi FUNCDATA_WrapInfo = 7)
// holds the wrapped function's text offset, and the trace names that function.
std::uint64_t StartPCForTrace(const gobin::GoBinary &bin, std::uint64_t pc) {
  constexpr std::uint32_t kFuncdataWrapInfo = 7;
  const auto &mod = bin.moduledata();
  if (!mod || mod->gofunc == 0) return pc;
  auto f = bin.pclntab().FuncForPC(pc);
  if (!f) return pc;
  auto raw = bin.pclntab().FuncdataRaw(*f, kFuncdataWrapInfo);
  if (!raw) return pc;
  auto bytes = bin.elf().ReadVirtual(mod->gofunc + *raw, 4);
  if (!bytes || bytes->size() < 4) return pc;
  std::uint32_t off = 0;
  for (int i = 3; i >= 0; --i) off = (off << 8) | (*bytes)[static_cast<std::size_t>(i)];
  return bin.text_start() + off;  // moduledata.textAddr (one text section)
}

}  // namespace

void GobinSymbolizer::StartFrame(std::uint64_t start_pc, std::vector<encoder::Frame> &out) {
  // runtime/traceevent.go startPC: startPCForTrace(pc) + PCQuantum as a return PC, which
  // CallersFrames reports at the function's entry.
  const std::uint64_t pc = StartPCForTrace(bin_, start_pc - bias_);
  std::vector<gobin::Frame> fr = bin_.FramesForPC(pc, gobin::PcKind::kInstruction);
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
