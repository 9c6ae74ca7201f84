// Probe sites of one Go function (x86-64), decoded with capstone: the entry, the cheap
// site right after the stack-check prologue, every RET, and JMPs that leave the function
// (tail calls), each with its uprobe file offset and how the kernel will handle a uprobe
// there.
//
// Why the instruction matters (shared/docs/perf-anchors.md): a uprobe on an instruction
// the kernel must single-step out of line costs 12-20 us on our VMs; one the kernel
// emulates costs ~1 us. Per arch/x86/kernel/uprobes.c (Linux 6.x):
//   * emulated (branch_setup_xol_ops): jcc rel8/rel32, jmp rel8/rel32, call rel32, and
//     NOPs (insn_is_nop: 0x90 and the 0f 1f long NOPs; kernels before the insn_is_nop
//     change emulate only 0x90 and single-step long NOPs); a 0x66 prefix on a branch is
//     refused (-ENOTSUPP: the probe cannot be attached);
//   * emulated (push_setup_xol_ops): push r64 (50+r, or 41 50+r for r8-r15);
//   * optimized (6.18+): the 5-byte NOP 0f 1f 44 00 00 becomes a call into the uprobe
//     trampoline (~0.6 us, no trap);
//   * int3 (cc) is refused (prepare_uprobe: is_trap_insn);
//   * everything else, RET included, is single-stepped (12-20 us here).
//
// Go's prologue (cmd/internal/obj/x86/obj6.go, stacksplit), for a function that may grow
// its stack, is one of
//   small frame (<= StackSmall=128):  CMPQ SP, 16(R14)             ; JLS morestack
//   large frame (<= StackBig=4096):   LEAQ -(frame-128)(SP), R12 ; CMPQ R12, 16(R14) ; JLS
//   huge frame:                       MOVQ SP, R12 ; SUBQ $(frame-128), R12 ; JCS ; CMPQ R12, 16(R14) ; JLS
// The CMP is single-stepped; the JLS (JBE) after it is emulated and runs with the same
// registers as the entry (arguments in RAX, RBX, ..., g in R14, SP unchanged), so it is
// the site to use ("after_check", entry+4 for small frames). NOSPLIT functions
// (casgstatus, ...) have no check; their entry instruction is often PUSH RBP, which is
// emulated too.
//
// NOTE for the probes engineer: the after_check site fires AGAIN when the function grows
// its stack: morestack returns to the function's entry, the check runs again and falls
// through. Deduplicate in BPF: at the site, the jump will be taken (this hit is the one
// before morestack: drop it) iff (SP - guard_adjust) <= *(u64 *)(R14 + 16) (unsigned),
// with guard_adjust from FunctionProbeSites (0 for small frames). Only the hit where the
// jump is not taken is the real entry.
//
// RET sites are single-stepped (12-20 us each): prefer the entry site of the function
// that runs next where the model allows. RET probes miss tail calls (tail_jumps),
// panics and functions that never return.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/gobin/result.h"

namespace gotraced::gobin {

class ElfFile;
class GoBinary;

enum class InsnKind : uint8_t {
  kStackCheck,  // CMP SP/R12, 16(g): the stack-bound check
  kJcc,
  kJmp,
  kCallRel,
  kNop,
  kNop5,  // 0f 1f 44 00 00
  kPush,
  kRet,
  kInt3,
  kOther,
};
std::string_view InsnKindName(InsnKind k);

enum class UprobeHandling : uint8_t {
  kEmulated,       // ~1 us
  kNop5Optimized,  // 6.18+: trampoline call, ~0.6 us (emulated on older kernels)
  kSingleStep,     // XOL single-step, 12-20 us
  kRefused,        // the kernel refuses a uprobe here
};
std::string_view UprobeHandlingName(UprobeHandling h);

struct InsnSite {
  uint64_t vaddr = 0;        // link-time vaddr
  uint64_t file_offset = 0;  // what uprobe attach takes (PT_LOAD mapping; PIE-aware)
  uint8_t length = 0;
  InsnKind kind = InsnKind::kOther;
  UprobeHandling handling = UprobeHandling::kSingleStep;
  std::string text;  // "jbe 0x44ecaf"
  bool operator==(const InsnSite &) const = default;
};

enum class PrologueKind : uint8_t {
  kNoCheck,     // nosplit / assembly: no stack-bound check at the entry
  kSmallFrame,  // CMP SP, 16(g)
  kLargeFrame,  // LEA -n(SP), R12; CMP R12, 16(g)
  kHugeFrame,   // MOV SP, R12; SUB $n, R12; JCS; CMP R12, 16(g)
};
std::string_view PrologueKindName(PrologueKind k);

struct FunctionProbeSites {
  std::string name;
  uint64_t entry = 0, end = 0;
  InsnSite entry_site;
  PrologueKind prologue = PrologueKind::kNoCheck;
  int64_t guard_adjust = 0;            // bytes subtracted from SP before the compare
  std::optional<InsnSite> after_check;  // the JLS after the check (entry+4 for small frames)
  InsnSite best;                        // the cheapest site with entry registers
  std::vector<InsnSite> returns;        // every RET in [entry, end)
  std::vector<InsnSite> tail_jumps;     // JMP rel leaving [entry, end)
  uint32_t decode_errors = 0;           // bytes capstone could not decode (skipped)
  // CALL rel32 instructions in Go text that target the entry (CountDirectCalls: not
  // filled by FindProbeSites, whose callers, the recorder's planner, do not need it and
  // should not pay a scan of the whole text per function, ~3 ms on a test binary). A
  // function the compiler inlined at a call site is not called there: a probe on it
  // misses those (pitfall 3). 0 with an out-of-line copy = only reached indirectly (or
  // inlined everywhere it is used). A byte-pattern count: an e8 byte inside another
  // instruction that happens to point at the entry would be miscounted (not seen so far).
  uint32_t direct_calls = 0;
};

// Decodes `code` (the bytes of [entry, entry+code.size())). `elf` (may be null) converts
// vaddrs to file offsets; without it file_offset = 0.
FunctionProbeSites AnalyzeFunctionCode(std::span<const uint8_t> code, uint64_t entry, const ElfFile *elf);

// The function by name via the pclntab (works stripped). Errors: "function X not found
// (inlined everywhere, or not linked in)", "function X: code not in the file".
Result<FunctionProbeSites> FindProbeSites(const GoBinary &bin, std::string_view function);

// Fills s.direct_calls (a scan of the whole text for CALLs to s.entry): for humans
// (inspect) and tests.
void CountDirectCalls(const GoBinary &bin, FunctionProbeSites &s);
// The addresses of those e8 rel32 bytes aimed at `entry` inside Go functions (candidates:
// a byte inside another instruction could match; decode the caller to confirm).
std::vector<uint64_t> DirectCallSitesTo(const GoBinary &bin, uint64_t entry);

// How the kernel handles a uprobe on the instruction starting at `insn` (its bytes).
UprobeHandling ClassifyForUprobe(std::span<const uint8_t> insn, InsnKind *kind = nullptr);

// Lines for `gotraced inspect`: entry, best site, prologue, RET count ...
std::string DescribeProbeSites(const FunctionProbeSites &s);

}  // namespace gotraced::gobin
