#include "daemon/probes/stw_steal_site.h"

#include <capstone/capstone.h>
#include <fmt/format.h>

#include <span>
#include <vector>

#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/function_disasm.h"
#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/probe_sites.h"
#include "daemon/gobin/runtime_layout.h"
#include "daemon/probes/site_regs.h"

namespace gotraced::probes {

namespace {

constexpr const char *kFn = "runtime.stopTheWorldWithSema";
constexpr size_t kMaxSteps = 32;  // instructions walked from the CAS to the site

// Index of the instruction at `addr`, or insns.size().
size_t IndexAt(const std::vector<gobin::DisasmInsn> &insns, uint64_t addr) {
  for (size_t i = 0; i < insns.size(); ++i)
    if (insns[i]->address == addr) return i;
  return insns.size();
}

bool IsJcc(const gobin::DisasmInsn &in) {
  gobin::InsnKind kind = gobin::InsnKind::kOther;
  gobin::ClassifyForUprobe(std::span<const uint8_t>(in->bytes, in->size), &kind);
  return kind == gobin::InsnKind::kJcc;
}

// The target of a direct JMP / Jcc (0: not one).
uint64_t Target(const gobin::DisasmInsn &in) {
  const cs_x86 &x = in.x86();
  return x.op_count == 1 && x.operands[0].type == X86_OP_IMM ? static_cast<uint64_t>(x.operands[0].imm) : 0;
}

// `INCL off(reg)` with reg = GT_REG_* p.
bool IncOf(const gobin::DisasmInsn &in, uint32_t p, int32_t off) {
  const cs_x86 &x = in.x86();
  return in->id == X86_INS_INC && x.op_count == 1 && x.operands[0].type == X86_OP_MEM &&
         x.operands[0].mem.index == X86_REG_INVALID && x.operands[0].mem.disp == off &&
         GtReg(x.operands[0].mem.base) == p;
}

}  // namespace

std::optional<StwStealSite> FindStwStealSite(const gobin::GoBinary &bin, int32_t p_status_off,
                                             int32_t p_syscalltick_off, std::string *why) {
  auto code = gobin::FunctionDisasm::Of(bin, kFn, 1 << 14);
  if (!code) {
    *why = code.error();
    return std::nullopt;
  }
  const std::vector<gobin::DisasmInsn> &insns = code->insns();
  size_t cas = insns.size();
  int n = 0;
  for (size_t i = 0; i < insns.size(); ++i) {
    const cs_x86 &x = insns[i].x86();
    if (insns[i]->id != X86_INS_CMPXCHG || x.op_count != 2 || x.operands[0].type != X86_OP_MEM) continue;
    if (x.operands[0].mem.disp != p_status_off || x.operands[0].mem.index != X86_REG_INVALID) continue;
    ++n;
    cas = i;
  }
  if (n != 1) {
    *why = fmt::format("{}: {} CAS on p.status (expected 1)", kFn, n);
    return std::nullopt;
  }
  const uint32_t p = GtReg(insns[cas].x86().operands[0].mem.base);
  const bool sete = cas + 1 < insns.size() && insns[cas + 1]->id == X86_INS_SETE &&
                    insns[cas + 1].x86().operands[0].type == X86_OP_REG;
  if (p == GT_REG_NONE || !sete) {
    *why = fmt::format("{}: the CAS on p.status is not `LOCK CMPXCHGL r, status(P); SETE F`", kFn);
    return std::nullopt;
  }
  const uint32_t flag = GtRegAnyWidth(insns[cas + 1].x86().operands[0].reg);
  // Walk the success path: JMPs followed, the CAS's result test (TEST F, F; JE: falls
  // through on success; JNE: jumps), then the next Jcc is the site.
  bool tested = false;
  uint32_t last_test = GT_REG_NONE;
  size_t i = cas + 2;
  for (size_t step = 0; step < kMaxSteps && i < insns.size() && insns[i].skipped_before == 0; ++step) {
    const gobin::DisasmInsn &in = insns[i];
    const cs_x86 &x = in.x86();
    if (in->id == X86_INS_CALL || in->id == X86_INS_RET) break;
    if (in->id == X86_INS_JMP) {
      i = IndexAt(insns, Target(in));
      continue;
    }
    if (IsJcc(in)) {
      if (!tested) {
        if (last_test != flag || (in->id != X86_INS_JE && in->id != X86_INS_JNE)) break;
        tested = true;
        i = in->id == X86_INS_JE ? i + 1 : IndexAt(insns, Target(in));
        continue;
      }
      const size_t taken = IndexAt(insns, Target(in));
      if (taken >= insns.size() || !IncOf(insns[taken], p, p_syscalltick_off)) break;
      StwStealSite site;
      site.vaddr = in->address;
      site.p_reg = p;
      std::vector<gobin::Frame> frames = bin.FramesForPC(in->address, gobin::PcKind::kInstruction);
      site.line = frames.empty() ? -1 : frames.back().line;
      return site;
    }
    last_test = GT_REG_NONE;
    if (in->id == X86_INS_TEST && x.op_count == 2 && x.operands[0].type == X86_OP_REG &&
        x.operands[1].type == X86_OP_REG && GtRegAnyWidth(x.operands[0].reg) == GtRegAnyWidth(x.operands[1].reg))
      last_test = GtRegAnyWidth(x.operands[0].reg);
    cs_regs rr, rw;
    uint8_t nr = 0, nw = 0;
    if (code->RegsAccess(in.get(), rr, &nr, rw, &nw))
      for (uint8_t k = 0; k < nw; ++k)
        if (GtRegAnyWidth(rw[k]) == p) {
          *why = fmt::format("{}: the P's register is written between the CAS and the tracer test", kFn);
          return std::nullopt;
        }
    ++i;
  }
  *why = fmt::format("{}: no tracer test skipping to `INCL syscalltick(P)` on the CAS's success path", kFn);
  return std::nullopt;
}

void AddStwStealSite(const gobin::GoBinary &bin, const gobin::RuntimeLayout &layout, ProbePlan &plan) {
  auto skip = [&plan](const std::string &why) {
    plan.notes.push_back(why + ": a stop-the-world's steal of a P in a syscall is inferred at the syscall's exit");
  };
  if (!layout.p.status.present() || !layout.p.syscalltick.present()) return skip("p.status/p.syscalltick unknown");
  std::string why;
  auto at = FindStwStealSite(bin, layout.p.status.offset, layout.p.syscalltick.offset, &why);
  if (!at) return skip(why);
  auto off = bin.elf().VaddrToFileOffset(at->vaddr);
  if (!off) return skip(fmt::format("{}: site not backed by the file", kFn));
  ProbeSite s;
  s.id = uint16_t(plan.sites.size());
  s.role = ProbeRole::kSTWSyscallSteal;
  s.function = kFn;
  s.kind = SiteKind::kEntry;  // a Jcc inside the body (emulated), frame set up
  s.vaddr = at->vaddr;
  s.file_offset = *off;
  s.flags = GT_CALL_ARG0_P | GT_SITE_FRAME_READY;
  s.cookie_hi = at->p_reg << (GT_ARG0_REG_COOKIE_SHIFT - 32);
  s.required = false;
  s.insn = fmt::format("Jcc of the tracer test after the _Psyscall -> _Pgcstop CAS (line {})", at->line);
  plan.sites.push_back(std::move(s));
}

}  // namespace gotraced::probes
