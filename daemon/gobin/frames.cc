// PC -> inline-expanded frames, mirroring the runtime of the binary's own Go version:
//   runtime/symtabinl.go  newInlineUnwinder / resolveInternal / next / srcFunc (1.21+;
//                         1.19's Frames.Next and gentraceback do the same walk inline)
//   runtime/symtab.go     Frames.Next (pc-- for return addresses; 1.23+ inserts the
//                         virtual PCs of inlined callers missing from the list)
//   runtime/traceback.go  tracebackPCs (virtual PC = parentPc+1; wrapper elision)
#include "daemon/gobin/frames.h"

#include "daemon/gobin/go_binary.h"

namespace gotraced::gobin {

namespace {

// A corrupt inline tree could form a cycle; real inlining depth is far below this.
constexpr int kMaxInlineDepth = 256;

// inlineFrame + the unwinder state it needs.
struct InlFrame {
  uint64_t pc = 0;  // 0 = invalid (inlineFrame.valid)
  int32_t index = -1;
};

class InlineUnwinder {
 public:
  InlineUnwinder(const GoBinary &bin, const FuncRecord &f)
      : bin_(bin), f_(f), has_tree_(bin.pclntab().FuncdataRaw(f, kFuncdataInlTree).has_value()) {}

  InlFrame Resolve(uint64_t pc) const {
    if (!has_tree_) return {pc, -1};
    return {pc, bin_.pclntab().PcdataValue(f_, kPcdataInlTreeIndex, pc).value_or(-1)};
  }
  InlFrame Next(const InlFrame &uf) const {
    if (uf.index < 0) return {0, -1};
    auto call = bin_.InlineTreeEntry(f_, uf.index);
    if (!call) return {0, -1};
    return Resolve(f_.entry + static_cast<uint64_t>(static_cast<int64_t>(call->parent_pc)));
  }
  // srcFunc: the (possibly inlined) function at uf.
  void Fill(const InlFrame &uf, Frame *fr) const {
    fr->pc = uf.pc;
    fr->entry = f_.entry;
    std::optional<InlinedCall> call;
    if (uf.index >= 0) call = bin_.InlineTreeEntry(f_, uf.index);
    if (call) {
      fr->function = bin_.PrintName(call->name_off);
      fr->start_line = call->start_line;
      fr->func_id = call->func_id;
      fr->inlined = true;
    } else {
      fr->function = bin_.PrintName(f_.name_off);
      fr->start_line = f_.start_line;
      fr->func_id = f_.func_id;
      fr->inlined = false;
    }
    // funcline1(f, pc, false): ("?", 0) when the tables do not cover pc.
    if (auto fl = bin_.pclntab().FileLine(f_, uf.pc)) {
      fr->file = fl->first;
      fr->line = fl->second;
    } else {
      fr->file = "?";
      fr->line = 0;
    }
  }
  uint8_t FuncIdAt(const InlFrame &uf) const {
    if (uf.index >= 0) {
      if (auto call = bin_.InlineTreeEntry(f_, uf.index)) return call->func_id;
    }
    return f_.func_id;
  }

 private:
  const GoBinary &bin_;
  const FuncRecord &f_;
  bool has_tree_;
};

// elideWrapperCalling (runtime/traceback.go): wrappers are hidden unless they called a
// panic function.
bool ElideWrapperCalling(const GoBinary &bin, uint8_t callee_id) {
  return !(bin.FuncIdIs(callee_id, "gopanic") || bin.FuncIdIs(callee_id, "sigpanic") ||
           bin.FuncIdIs(callee_id, "panicwrap"));
}

}  // namespace

bool FramesForPC(const GoBinary &bin, uint64_t pc, PcKind kind, std::vector<Frame> *out) {
  auto f = bin.pclntab().FuncForPC(pc);
  if (!f) return false;
  // Frames.Next: "if pc > entry { pc-- }" backs a return address into the CALL.
  uint64_t lookup = (kind == PcKind::kReturnAddress && pc > f->entry) ? pc - 1 : pc;
  InlineUnwinder u(bin, *f);
  InlFrame uf = u.Resolve(lookup);
  for (int depth = 0; uf.pc != 0 && depth < kMaxInlineDepth; depth++) {
    Frame fr;
    u.Fill(uf, &fr);
    out->push_back(fr);
    uf = u.Next(uf);
  }
  return true;
}

std::vector<Frame> CallersFrames(const GoBinary &bin, std::span<const uint64_t> callers) {
  std::vector<Frame> frames;
  const GoVersion &v = bin.go_version();
  // Go 1.23 added the insertion of missing virtual PCs to Frames.Next (ci.nextPC);
  // unknown versions are treated as current.
  const bool insert_virtual = !v.known() || v.AtLeast(1, 23);
  size_t i = 0;
  uint64_t next_pc = 0;
  while (i < callers.size()) {
    uint64_t pc;
    if (next_pc != 0) {
      pc = next_pc;
      next_pc = 0;
    } else {
      pc = callers[i++];
    }
    auto f = bin.pclntab().FuncForPC(pc);
    if (!f) continue;  // no cgo symbolizer: non-Go PCs are dropped
    if (pc > f->entry) pc--;
    InlineUnwinder u(bin, *f);
    InlFrame uf = u.Resolve(pc);
    if (uf.index >= 0 && insert_virtual) {
      uint8_t sf_id = u.FuncIdAt(uf);
      InlFrame un = u.Next(uf);
      for (int depth = 0; un.pc != 0 && i < callers.size() && callers[i] != un.pc + 1 && depth < kMaxInlineDepth;
           depth++, un = u.Next(un)) {
        if (bin.FuncIdIs(u.FuncIdAt(un), "wrapper") && ElideWrapperCalling(bin, sf_id)) continue;
        next_pc = un.pc + 1;
        break;
      }
    }
    Frame fr;
    u.Fill(uf, &fr);
    frames.push_back(fr);
  }
  return frames;
}

std::vector<Frame> SymbolizeStack(const GoBinary &bin, std::span<const uint64_t> pcs, bool first_is_instruction) {
  // tracebackPCs: for each physical frame, the inline frames at its symbolic PC, with
  // wrappers elided depending on the callee's FuncID; then Frames.Next on the result
  // (which undoes the +1 of the virtual PCs).
  std::vector<Frame> out;
  int callee_id = -1;  // u.calleeFuncID starts as FuncIDNormal
  for (size_t k = 0; k < pcs.size(); k++) {
    const PcKind kind = (k == 0 && first_is_instruction) ? PcKind::kInstruction : PcKind::kReturnAddress;
    std::vector<Frame> fr;
    if (!FramesForPC(bin, pcs[k], kind, &fr)) continue;
    for (const Frame &f : fr) {
      bool elide = bin.FuncIdIs(f.func_id, "wrapper") && (callee_id < 0 || ElideWrapperCalling(bin, static_cast<uint8_t>(callee_id)));
      if (!elide) out.push_back(f);
      callee_id = f.func_id;
    }
  }
  return out;
}

}  // namespace gotraced::gobin
