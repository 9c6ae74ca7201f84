// PC -> source frames, inline-expanded, exactly as runtime.CallersFrames reports them in
// the same binary. Authority: $GOROOT/src/runtime/symtab.go (Frames.Next, funcline1,
// funcNameForPrint), src/runtime/symtabinl.go (inlineUnwinder, Go 1.21+),
// src/runtime/traceback.go (tracebackPCs: how runtime.Callers emits one "virtual" PC per
// inlined frame, and elides wrapper frames).
//
// How the runtime reports a return address R in function F (Frames.Next):
//   * pc = R-1 when R > F.entry (backs into the CALL), else R;
//   * the innermost frame is the inline-tree entry at pc (PCDATA_InlTreeIndex), or F;
//     Frame.PC = pc, Frame.Entry = F.entry, File/Line = funcline1(F, pc);
//   * each enclosing inlined frame k has Frame.PC = F.entry + inltree[k].parentPc and
//     File/Line = funcline1(F, Frame.PC) (runtime.Callers put parentPc+1 in its list).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace gotraced::gobin {

class GoBinary;

struct Frame {
  uint64_t pc = 0;              // runtime.Frame.PC (link-time vaddr)
  std::string_view function;    // runtime.Frame.Function (funcNameForPrint: "F[...]" for generics)
  std::string_view file;        // runtime.Frame.File
  int32_t line = 0;             // runtime.Frame.Line
  uint64_t entry = 0;           // runtime.Frame.Entry: the physical function's entry
  int32_t start_line = 0;       // func's first line (Go 1.20+; 0 before)
  bool inlined = false;         // runtime.Frame.Func == nil for a Go frame
  uint8_t func_id = 0;          // raw FuncID of the (possibly inlined) function
  bool operator==(const Frame &) const = default;
};

// How to read a PC.
enum class PcKind {
  kReturnAddress,  // from a stack walk or runtime.Callers: look up pc-1 (if pc > entry)
  kInstruction,    // the address of the instruction itself (a sampled IP, a probe site)
};

// Frames for one physical PC, innermost first. Appends to *out; returns false (and
// appends nothing) when pc is in no Go function. Strings view into the binary image.
// Thread-safe (const, no caches).
bool FramesForPC(const GoBinary &bin, uint64_t pc, PcKind kind, std::vector<Frame> *out);

// runtime.CallersFrames over a runtime.Callers list (which already holds one virtual
// PC per inlined frame), for this binary's Go version — including Go >= 1.23's insertion
// of missing virtual PCs and <= 1.20's per-PC lookup. PCs in no Go function are skipped
// (as the runtime does without a cgo symbolizer).
std::vector<Frame> CallersFrames(const GoBinary &bin, std::span<const uint64_t> callers);

// A stack of physical return addresses (as a frame-pointer walk yields them; the first
// may be an exact instruction if `first_is_instruction`) -> the frames that
// runtime.Callers followed by runtime.CallersFrames would give: inline expansion plus
// tracebackPCs' wrapper elision.
std::vector<Frame> SymbolizeStack(const GoBinary &bin, std::span<const uint64_t> pcs,
                                  bool first_is_instruction);

}  // namespace gotraced::gobin
