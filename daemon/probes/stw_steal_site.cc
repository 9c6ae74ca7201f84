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

constexpr size_t kMaxSteps = 32;  // instructions walked from the CAS to the site, and from the site on

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

// `INCL off(reg)`: `pp.syscalltick++` (the P reloaded into any register after a call).
bool IncAt(const gobin::DisasmInsn &in, int32_t off) {
  const cs_x86 &x = in.x86();
  return in->id == X86_INS_INC && x.op_count == 1 && x.operands[0].type == X86_OP_MEM &&
         x.operands[0].mem.index == X86_REG_INVALID && x.operands[0].mem.disp == off &&
         GtReg(x.operands[0].mem.base) != GT_REG_NONE;
}

// The straight-line code from insns[i] (JMPs followed, CALLs stepped over) reaches
// `pp.syscalltick++` before any other branch: stopTheWorldWithSema's next statement, or
// entersyscall_gcwait's after `pp.gcStopTime = nanotime()` (1.23+).
bool ReachesTickIncrement(const std::vector<gobin::DisasmInsn> &insns, size_t i, int32_t off) {
  for (size_t step = 0; step < kMaxSteps && i < insns.size(); ++step) {
    const gobin::DisasmInsn &in = insns[i];
    if (IncAt(in, off)) return true;
    if (in->id == X86_INS_RET || IsJcc(in)) return false;
    i = in->id == X86_INS_JMP ? IndexAt(insns, Target(in)) : i + 1;
  }
  return false;
}

}  // namespace

std::optional<StwStealSite> FindStwStealSite(const gobin::GoBinary &bin, const char *fn, int32_t p_status_off,
                                             int32_t p_syscalltick_off, std::string *why) {
  auto code = gobin::FunctionDisasm::Of(bin, fn, 1 << 14);
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
    *why = fmt::format("{}: {} CAS on p.status (expected 1)", fn, n);
    return std::nullopt;
  }
  const uint32_t p = GtReg(insns[cas].x86().operands[0].mem.base);
  const bool sete = cas + 1 < insns.size() && insns[cas + 1]->id == X86_INS_SETE &&
                    insns[cas + 1].x86().operands[0].type == X86_OP_REG;
  if (p == GT_REG_NONE || !sete) {
    *why = fmt::format("{}: the CAS on p.status is not `LOCK CMPXCHGL r, status(P); SETE F`", fn);
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
      if (!ReachesTickIncrement(insns, IndexAt(insns, Target(in)), p_syscalltick_off)) break;
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
          *why = fmt::format("{}: the P's register is written between the CAS and the tracer test", fn);
          return std::nullopt;
        }
    ++i;
  }
  *why = fmt::format("{}: no tracer test skipping to `pp.syscalltick++` on the CAS's success path", fn);
  return std::nullopt;
}

void AddStwStealSites(const gobin::GoBinary &bin, const gobin::RuntimeLayout &layout, ProbePlan &plan) {
  struct Fn {
    const char *name;
    ProbeRole role;
  };
  for (const Fn fn : {Fn{"runtime.stopTheWorldWithSema", ProbeRole::kSTWSyscallSteal},
                      Fn{"runtime.entersyscall_gcwait", ProbeRole::kEnterSyscallGCStop}}) {
    auto skip = [&plan](const std::string &why) {
      plan.notes.push_back(why + ": a stop-the-world's steal of a P in a syscall is inferred at the syscall's exit");
    };
    if (!layout.p.status.present() || !layout.p.syscalltick.present()) return skip("p.status/p.syscalltick unknown");
    std::string why;
    auto at = FindStwStealSite(bin, fn.name, layout.p.status.offset, layout.p.syscalltick.offset, &why);
    if (!at) {
      skip(why);
      continue;
    }
    auto off = bin.elf().VaddrToFileOffset(at->vaddr);
    if (!off) {
      skip(fmt::format("{}: site not backed by the file", fn.name));
      continue;
    }
    ProbeSite s;
    s.id = uint16_t(plan.sites.size());
    s.role = fn.role;
    s.function = fn.name;
    s.kind = SiteKind::kEntry;  // a Jcc inside the body (emulated), frame set up
    s.vaddr = at->vaddr;
    s.file_offset = *off;
    s.flags = GT_CALL_ARG0_P | GT_SITE_FRAME_READY;
    s.cookie_hi = at->p_reg << (GT_ARG0_REG_COOKIE_SHIFT - 32);
    s.required = false;
    s.insn = fmt::format("Jcc of the tracer test after the _Psyscall -> _Pgcstop CAS (line {})", at->line);
    plan.sites.push_back(std::move(s));
  }
}

}  // namespace gotraced::probes
