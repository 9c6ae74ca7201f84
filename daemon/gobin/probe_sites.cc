#include "daemon/gobin/probe_sites.h"

#include <capstone/capstone.h>

#include <cstring>

#include <fmt/format.h>

#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/function_disasm.h"
#include "daemon/gobin/go_binary.h"

namespace gotraced::gobin {

std::string_view InsnKindName(InsnKind k) {
  switch (k) {
    case InsnKind::kStackCheck: return "stack-check cmp";
    case InsnKind::kJcc: return "jcc";
    case InsnKind::kJmp: return "jmp";
    case InsnKind::kCallRel: return "call rel32";
    case InsnKind::kNop: return "nop";
    case InsnKind::kNop5: return "nop5";
    case InsnKind::kPush: return "push";
    case InsnKind::kRet: return "ret";
    case InsnKind::kInt3: return "int3";
    case InsnKind::kOther: return "other";
  }
  return "?";
}

std::string_view UprobeHandlingName(UprobeHandling h) {
  switch (h) {
    case UprobeHandling::kEmulated: return "emulated";
    case UprobeHandling::kNop5Optimized: return "optimized nop5";
    case UprobeHandling::kSingleStep: return "single-stepped";
    case UprobeHandling::kRefused: return "refused";
  }
  return "?";
}

std::string_view PrologueKindName(PrologueKind k) {
  switch (k) {
    case PrologueKind::kNoCheck: return "no stack check (nosplit/asm)";
    case PrologueKind::kSmallFrame: return "small frame: CMP SP, 16(g)";
    case PrologueKind::kLargeFrame: return "large frame: LEA -n(SP), R12; CMP R12, 16(g)";
    case PrologueKind::kHugeFrame: return "huge frame: MOV SP, R12; SUB $n, R12; JCS; CMP R12, 16(g)";
  }
  return "?";
}

// Mirrors arch/x86/kernel/uprobes.c (arch_uprobe_analyze_insn -> branch_setup_xol_ops,
// push_setup_xol_ops) and kernel/events/uprobes.c (prepare_uprobe refuses int3).
UprobeHandling ClassifyForUprobe(std::span<const uint8_t> b, InsnKind *kind_out) {
  InsnKind kind = InsnKind::kOther;
  UprobeHandling h = UprobeHandling::kSingleStep;
  size_t i = 0;
  bool p66 = false, pf3 = false;
  uint8_t rex = 0;
  // Legacy prefixes, then REX.
  while (i < b.size()) {
    uint8_t c = b[i];
    if (c == 0x66 || c == 0x67 || c == 0xf2 || c == 0xf3 || c == 0xf0 || c == 0x2e || c == 0x36 ||
        c == 0x3e || c == 0x26 || c == 0x64 || c == 0x65) {
      p66 |= c == 0x66;
      pf3 |= c == 0xf3;
      ++i;
      continue;
    }
    break;
  }
  if (i < b.size() && (b[i] & 0xf0) == 0x40) rex = b[i++];
  if (i >= b.size()) {
    if (kind_out) *kind_out = kind;
    return h;
  }
  const uint8_t op = b[i];
  const uint8_t op2 = i + 1 < b.size() ? b[i + 1] : 0;
  bool branch = false;
  if (op == 0x90 && !pf3) {  // (0xf3 0x90 is PAUSE)
    kind = InsnKind::kNop;
    h = UprobeHandling::kEmulated;
  } else if (op == 0x0f && op2 == 0x1f) {
    static constexpr uint8_t kNop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
    if (b.size() == 5 && std::equal(b.begin(), b.end(), kNop5)) {
      kind = InsnKind::kNop5;
      h = UprobeHandling::kNop5Optimized;
    } else {
      kind = InsnKind::kNop;
      h = UprobeHandling::kEmulated;
    }
  } else if (op == 0xeb || op == 0xe9) {
    kind = InsnKind::kJmp;
    branch = true;
  } else if (op == 0xe8) {
    kind = InsnKind::kCallRel;
    branch = true;
  } else if ((op >= 0x70 && op <= 0x7f) || (op == 0x0f && op2 >= 0x80 && op2 <= 0x8f)) {
    kind = InsnKind::kJcc;
    branch = true;
  } else if (op >= 0x50 && op <= 0x57) {
    kind = InsnKind::kPush;
    // push_setup_xol_ops: length 1, or 2 with exactly REX 0x41 (r8-r15).
    if (b.size() == 1 || (b.size() == 2 && rex == 0x41 && i == 1)) h = UprobeHandling::kEmulated;
  } else if (op == 0xc3 || op == 0xc2) {
    kind = InsnKind::kRet;
  } else if (op == 0xcc) {
    kind = InsnKind::kInt3;
    h = UprobeHandling::kRefused;
  }
  if (branch) h = p66 ? UprobeHandling::kRefused : UprobeHandling::kEmulated;
  if (kind_out) *kind_out = kind;
  return h;
}

namespace {

InsnSite MakeSite(const cs_insn *in, const ElfFile *elf) {
  InsnSite s;
  s.vaddr = in->address;
  s.length = static_cast<uint8_t>(in->size);
  s.handling = ClassifyForUprobe(std::span<const uint8_t>(in->bytes, in->size), &s.kind);
  s.text = fmt::format("{} {}", in->mnemonic, in->op_str);
  if (!s.text.empty() && s.text.back() == ' ') s.text.pop_back();
  if (elf) {
    if (auto off = elf->VaddrToFileOffset(in->address)) s.file_offset = *off;
  }
  return s;
}

// CMP reg, [base+16]: the stack-bound check against g.stackguard0 (obj6.go stacksplit;
// 24 = stackguard1 for the runtime's C-ABI functions).
bool IsStackCheck(const cs_insn *in, x86_reg g_reg, x86_reg *lhs) {
  if (in->id != X86_INS_CMP) return false;
  const cs_x86 &x = in->detail->x86;
  if (x.op_count != 2 || x.operands[0].type != X86_OP_REG || x.operands[1].type != X86_OP_MEM) return false;
  const x86_op_mem &m = x.operands[1].mem;
  if (m.base != g_reg || m.index != X86_REG_INVALID || (m.disp != 16 && m.disp != 24)) return false;
  if (m.segment != X86_REG_INVALID) return false;
  *lhs = static_cast<x86_reg>(x.operands[0].reg);
  return *lhs == X86_REG_RSP || *lhs == X86_REG_R12;
}

bool IsJcc(const cs_insn *in) {
  InsnKind k;
  ClassifyForUprobe(std::span<const uint8_t>(in->bytes, in->size), &k);
  return k == InsnKind::kJcc;
}

// The sites of one decoded function (AnalyzeFunctionCode, FindProbeSites).
FunctionProbeSites Analyze(const FunctionDisasm &code, const ElfFile *elf) {
  FunctionProbeSites out;
  out.entry = code.entry();
  out.end = code.end();
  // Prologue state over the first few instructions.
  int index = 0;
  x86_reg g_reg = X86_REG_R14;   // ABIInternal; ABI0 loads g from TLS into some register
  int64_t lea_adjust = 0, sub_adjust = 0;
  bool saw_lea = false, saw_sub = false, pending_check = false;
  x86_reg check_lhs = X86_REG_INVALID;

  out.decode_errors = code.undecodable_bytes();
  for (const DisasmInsn &d : code.insns()) {
    index += static_cast<int>(d.skipped_before);  // each undecodable byte counted as one
    const cs_insn *i = d.get();
    InsnSite site = MakeSite(i, elf);
    if (index == 0) out.entry_site = site;
    if (index < 8 && out.prologue == PrologueKind::kNoCheck && !out.after_check) {
      const cs_x86 &x = i->detail->x86;
      x86_reg lhs;
      if (pending_check) {
        pending_check = false;
        if (IsJcc(i)) {
          out.after_check = site;
          if (check_lhs == X86_REG_RSP) {
            out.prologue = PrologueKind::kSmallFrame;
          } else if (saw_sub) {
            out.prologue = PrologueKind::kHugeFrame;
            out.guard_adjust = sub_adjust;
          } else if (saw_lea) {
            out.prologue = PrologueKind::kLargeFrame;
            out.guard_adjust = lea_adjust;
          } else {
            out.after_check.reset();  // CMP R12 without a computed R12: not a prologue
          }
        }
      } else if (IsStackCheck(i, g_reg, &lhs)) {
        pending_check = true;
        check_lhs = lhs;
        site.kind = InsnKind::kStackCheck;
        if (index == 0) out.entry_site.kind = InsnKind::kStackCheck;
      } else if (i->id == X86_INS_LEA && x.op_count == 2 && x.operands[0].type == X86_OP_REG &&
                 x.operands[0].reg == X86_REG_R12 && x.operands[1].type == X86_OP_MEM &&
                 x.operands[1].mem.base == X86_REG_RSP && x.operands[1].mem.index == X86_REG_INVALID) {
        saw_lea = true;
        lea_adjust = -x.operands[1].mem.disp;
      } else if (i->id == X86_INS_SUB && x.op_count == 2 && x.operands[0].type == X86_OP_REG &&
                 x.operands[0].reg == X86_REG_R12 && x.operands[1].type == X86_OP_IMM) {
        saw_sub = true;
        sub_adjust = x.operands[1].imm;
      } else if (i->id == X86_INS_MOV && x.op_count == 2 && x.operands[0].type == X86_OP_REG &&
                 x.operands[1].type == X86_OP_MEM && x.operands[1].mem.segment == X86_REG_FS) {
        g_reg = static_cast<x86_reg>(x.operands[0].reg);  // ABI0: MOVQ (TLS), CX
      }
    }
    if (site.kind == InsnKind::kRet) out.returns.push_back(site);
    if (i->id == X86_INS_JMP && site.kind == InsnKind::kJmp) {
      const cs_x86 &x = i->detail->x86;
      if (x.op_count == 1 && x.operands[0].type == X86_OP_IMM) {
        uint64_t target = static_cast<uint64_t>(x.operands[0].imm);
        if (target < out.entry || target >= out.end) out.tail_jumps.push_back(site);
      }
    }
    ++index;
  }
  out.best = out.after_check ? *out.after_check : out.entry_site;
  return out;
}

}  // namespace

FunctionProbeSites AnalyzeFunctionCode(std::span<const uint8_t> code, uint64_t entry, const ElfFile *elf) {
  auto d = FunctionDisasm::Decode(code, entry);
  if (!d) {
    FunctionProbeSites out;
    out.entry = entry;
    out.end = entry + code.size();
    return out;
  }
  return Analyze(*d, elf);
}

namespace {

}  // namespace

std::vector<uint64_t> DirectCallSitesTo(const GoBinary &bin, uint64_t entry) {
  std::vector<uint64_t> out;
  const uint64_t start = bin.pclntab().text_start(), end = bin.pclntab().text_end();
  if (end <= start || end - start > (1ull << 31)) return out;
  auto text = bin.elf().ReadVirtual(start, end - start);
  if (!text) return out;
  const uint8_t *t = text->data();
  for (size_t i = 0; i + 5 <= text->size(); ++i) {
    if (t[i] != 0xe8) continue;
    int32_t rel;
    std::memcpy(&rel, t + i + 1, 4);
    if (start + i + 5 + static_cast<int64_t>(rel) == entry && bin.FuncForPC(start + i)) out.push_back(start + i);
  }
  return out;
}

Result<FunctionProbeSites> FindProbeSites(const GoBinary &bin, std::string_view function) {
  auto code = FunctionDisasm::Of(bin, function, 64u << 20);
  if (!code) return Error{code.error()};
  FunctionProbeSites s = Analyze(*code, &bin.elf());
  s.name = std::string(function);
  return s;
}

void CountDirectCalls(const GoBinary &bin, FunctionProbeSites &s) {
  s.direct_calls = static_cast<uint32_t>(DirectCallSitesTo(bin, s.entry).size());
}

std::string DescribeProbeSites(const FunctionProbeSites &s) {
  auto site = [](const InsnSite &x) {
    return fmt::format("0x{:x} (file +0x{:x}) {} [{}, {}]", x.vaddr, x.file_offset, x.text, InsnKindName(x.kind),
                       UprobeHandlingName(x.handling));
  };
  std::string out = fmt::format("{}: [0x{:x}, 0x{:x}) {}, {} direct call site(s)\n", s.name, s.entry, s.end,
                                PrologueKindName(s.prologue), s.direct_calls);
  out += "    entry: " + site(s.entry_site) + "\n";
  out += "    best:  " + site(s.best);
  if (s.prologue != PrologueKind::kNoCheck)
    out += s.guard_adjust ? fmt::format("  (fires twice on stack growth: drop when SP-{} <= g.stackguard0)", s.guard_adjust)
                          : std::string("  (fires twice on stack growth: drop when SP <= g.stackguard0)");
  out += "\n";
  out += fmt::format("    {} RET site(s){}", s.returns.size(), s.returns.empty() ? "" : ":");
  for (const auto &r : s.returns) out += fmt::format(" 0x{:x}", r.vaddr);
  out += "\n";
  if (!s.tail_jumps.empty()) {
    out += fmt::format("    {} tail jump(s) out:", s.tail_jumps.size());
    for (const auto &t : s.tail_jumps) out += fmt::format(" 0x{:x} ({})", t.vaddr, t.text);
    out += "\n";
  }
  if (s.decode_errors) out += fmt::format("    {} undecodable byte(s)\n", s.decode_errors);
  return out;
}

}  // namespace gotraced::gobin
