#include "daemon/probes/gc_sites.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>
#include <optional>

#include <capstone/capstone.h>

#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/function_disasm.h"
#include "daemon/gobin/go_binary.h"

namespace gotraced::probes {

namespace {

// runtime.gcPaceScavenger(memoryLimit int64, heapGoal, lastHeapGoal uint64) is a frameless
// leaf (no stack check, no PUSHQ BP): its entry would be single-stepped. Its first
// instructions (mgcscavenge.go: `memoryLimitGoal := uint64(float64(memoryLimit) *
// (1 - reduceExtraPercent/100.0))`) touch only X0/X1 and the flags, then branch:
//   XORPS X0,X0; CVTSI2SDQ AX,X0; MOVSD $c(SB),X1; MULSD X0,X1; MOVSD $c(SB),X0;
//   UCOMISD X1,X0; JBE rel8
// (identical in go1.22, 1.23, 1.26, 1.27). At that JBE (emulated by the kernel) RBX still
// holds heapGoal. Returns its address, or nothing when the code differs.
std::optional<uint64_t> PaceScavengerSite(const gobin::GoBinary &bin) {
  const gobin::FunctionSym *f = bin.FindFunction("runtime.gcPaceScavenger");
  if (!f) return std::nullopt;
  auto code = bin.elf().ReadVirtual(f->entry, 40);
  if (!code || code->size() < 36) return std::nullopt;
  const auto &b = *code;
  // -1 = any byte (RIP-relative displacements of the two constants).
  static constexpr std::array<int, 36> kShape = {
      0x0f, 0x57, 0xc0,                                      // XORPS X0, X0
      0xf2, 0x48, 0x0f, 0x2a, 0xc0,                          // CVTSI2SDQ AX, X0
      0xf2, 0x0f, 0x10, 0x0d, -1,   -1,   -1,   -1,          // MOVSD c(RIP), X1
      0xf2, 0x0f, 0x59, 0xc8,                                // MULSD X0, X1
      0xf2, 0x0f, 0x10, 0x05, -1,   -1,   -1,   -1,          // MOVSD c(RIP), X0
      0x66, 0x0f, 0x2e, 0xc1,                                // UCOMISD X1, X0
      0x76, -1,                                              // JBE rel8
      0xf2, 0x48};                                           // (next: CVTTSD2SIQ)
  for (size_t i = 0; i < kShape.size(); i++)
    if (kShape[i] >= 0 && b[i] != uint8_t(kShape[i])) return std::nullopt;
  return f->entry + 32;  // the JBE
}

// Go <= 1.21: gcAssistAlloc writes GCMarkAssistStart through traceGCMarkAssistStart
// (trace.go, inlined there: traceEvent(traceEvGCMarkAssistStart, 1)), so the in-process
// stack is [traceGCMarkAssistStart, gcAssistAlloc at that call, its caller, ...]. Returns
// the return address after that CALL of traceEvent: its logical frames are those two.
std::optional<uint64_t> LegacyAssistBeginPc(const gobin::GoBinary &bin) {
  auto code = gobin::FunctionDisasm::Of(bin, "runtime.gcAssistAlloc", 1 << 14);
  if (!code) return std::nullopt;
  std::optional<uint64_t> found;
  for (const gobin::DisasmInsn &in : code->insns()) {
    const cs_x86 &x = in.x86();
    if (in->id != X86_INS_CALL || x.op_count != 1 || x.operands[0].type != X86_OP_IMM) continue;
    const gobin::FunctionSym *callee = bin.symbols().FuncForPC(static_cast<uint64_t>(x.operands[0].imm));
    if (!callee || callee->name != "runtime.traceEvent") continue;
    const uint64_t ret = in->address + in->size;
    std::vector<gobin::Frame> frames = bin.FramesForPC(ret, gobin::PcKind::kReturnAddress);
    if (frames.size() < 2 || frames[0].function != "runtime.traceGCMarkAssistStart") continue;
    if (found) return std::nullopt;  // not the expected shape: two such calls
    found = ret;
  }
  return found;
}

// STWEnd: startTheWorldWithSema writes STWDone after it has restarted the world
// (netpoll, procresize, the idle Ms woken), right before `wakep()`, and stops the clock
// of the runtime's own pause metrics there (proc.go, 1.19-1.27: traceGCSTWDone /
// traceSTWDone / trace.STWDone, then wakep). Its entry is the start of that work, which
// under load was 30-35% of the pause, 8% on a loaded machine (tests/report/check_metrics.py
// measured it against /gc/pauses). The CALL of wakep, the only one in the function, is
// the runtime's own moment; a CALL rel32 is emulated by the kernel. Nothing when the
// shape differs (none, or two such calls): the entry site stays, and a note says so.
std::optional<uint64_t> StwDoneCallSite(const gobin::GoBinary &bin) {
  auto code = gobin::FunctionDisasm::Of(bin, "runtime.startTheWorldWithSema", 1 << 14);
  const gobin::FunctionSym *wakep = bin.FindFunction("runtime.wakep");
  if (!code || !wakep) return std::nullopt;
  std::optional<uint64_t> found;
  for (const gobin::DisasmInsn &in : code->insns()) {
    const cs_x86 &x = in.x86();
    if (in->id != X86_INS_CALL || in->size != 5 || x.op_count != 1 || x.operands[0].type != X86_OP_IMM) continue;
    if (static_cast<uint64_t>(x.operands[0].imm) != wakep->entry) continue;
    if (found) return std::nullopt;
    found = in->address;
  }
  return found;
}

void MoveStwDoneToWakepCall(const gobin::GoBinary &bin, ProbePlan &plan) {
  for (ProbeSite &s : plan.sites) {
    if (s.role != ProbeRole::kSTWDone) continue;
    auto at = StwDoneCallSite(bin);
    auto off = at ? bin.elf().VaddrToFileOffset(*at) : std::nullopt;
    if (!off) {
      plan.notes.push_back("runtime.startTheWorldWithSema: no single CALL of wakep, STWEnd at its entry "
                           "(before the world restarts: STW spans come out short)");
      return;
    }
    s.kind = SiteKind::kCall;
    s.vaddr = *at;
    s.file_offset = *off;
    // Not after a stack check: no morestack double hit to drop. The record is the one
    // wakep's entry would write (GT_SITE_AT_CALL: caller_pc = the call's return address).
    s.flags &= ~uint32_t(GT_CALL_CHECK_MORESTACK | GT_CALL_CHECK_MORESTACK_R12 | GT_CALL_GUARD_STACKGUARD1);
    s.flags |= GT_SITE_AT_CALL;
    s.insn = "CALL runtime.wakep (right after STWDone)";
    return;
  }
}

}  // namespace

void AddGcSites(const gobin::GoBinary &bin, ProbePlan &plan) {
  MoveStwDoneToWakepCall(bin, plan);
  if (plan.go_minor <= 21) {
    if (auto pc = LegacyAssistBeginPc(bin)) plan.assist_begin_pc = *pc;
    else plan.notes.push_back("runtime.gcAssistAlloc: no call of traceEvent in traceGCMarkAssistStart, "
                              "GCMarkAssistStart's stack starts at gcAssistAlloc's systemstack call");
  }
  auto at = PaceScavengerSite(bin);
  if (!at) {
    plan.notes.push_back("runtime.gcPaceScavenger: unexpected code, HeapGoal not recorded");
    return;
  }
  auto off = bin.elf().VaddrToFileOffset(*at);
  if (!off) {
    plan.notes.push_back("runtime.gcPaceScavenger: site not backed by the file, HeapGoal not recorded");
    return;
  }
  ProbeSite s;
  s.id = uint16_t(plan.sites.size());
  s.role = ProbeRole::kGCHeapGoal;
  s.function = "runtime.gcPaceScavenger";
  s.kind = SiteKind::kEntry;  // registers as at entry: RAX, RBX, RCX are the arguments
  s.vaddr = *at;
  s.file_offset = *off;
  s.flags = 0;
  s.required = false;
  s.insn = "JBE at entry+0x20 (frameless leaf: only X0, X1 and flags written before it)";
  plan.sites.push_back(std::move(s));
}

}  // namespace gotraced::probes
