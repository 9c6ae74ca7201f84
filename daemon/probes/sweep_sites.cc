#include "daemon/probes/sweep_sites.h"

#include <capstone/capstone.h>
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string_view>

#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/function_disasm.h"
#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/probe_sites.h"
#include "daemon/gobin/runtime_globals.h"
#include "daemon/gobin/runtime_layout.h"
#include "daemon/probes/site_regs.h"

namespace gotraced::probes {

namespace {

// The brackets (Go 1.19-1.27, same shape in every version): each function calls the
// tracer's GCSweepStart once and GCSweepDone once per exit path that may have swept:
//   mgcsweep.go deductSweepCredit      Start; sweepone() loop; Done
//   mcentral.go (*mcentral).cacheSpan  Start; s.sweep(true) loops; Done (before grow) and
//                                      Done at havespan (`if !traceDone`)
//   mheap.go    (*mheap).reclaim       Start; reclaimChunk loop; Done
//   mheap.go    (*mheap).reclaimChunk  its trailing GCSweepSpan((n0 - nFreed) * pageSize)
// 1.22+ call trace.GCSweepStart() etc. (traceLocker methods, after `trace :=
// traceAcquire(); if trace.ok()`: the inlined traceEnabled() test); 1.19/1.21 call
// traceGCSweepStart() etc. under `if trace.enabled`. Either way a load or compare of the
// tracer's flag, then a Jcc, sits 1-4 lines above the call, and runs whether or not the
// target traces itself.
struct Bracket {
  const char *function;
  int starts, dones, chunks;  // expected count of each guarded call
};
constexpr Bracket kBrackets[] = {
    {"runtime.deductSweepCredit", 1, 1, 0},
    {"runtime.(*mcentral).cacheSpan", 1, 2, 0},
    {"runtime.(*mheap).reclaim", 1, 1, 0},
    {"runtime.(*mheap).reclaimChunk", 0, 0, 1},
};

// The tracer entry points, by version (the call may be inlined: then its frames say so).
std::optional<ProbeRole> MarkerRole(std::string_view fn, bool chunk) {
  if (fn == "runtime.traceLocker.GCSweepStart" || fn == "runtime.traceGCSweepStart")
    return ProbeRole::kGCSweepStart;
  if (fn == "runtime.traceLocker.GCSweepDone" || fn == "runtime.traceGCSweepDone") return ProbeRole::kGCSweepDone;
  if (chunk && (fn == "runtime.traceLocker.GCSweepSpan" || fn == "runtime.traceGCSweepSpan"))
    return ProbeRole::kGCSweepChunk;
  return std::nullopt;
}

// The bound on the functions read here (all a few KiB in 1.19-1.27).
constexpr uint64_t kMaxFunction = 1u << 16;

// Whether the instruction reads or writes the global at `vaddr` (a RIP-relative operand:
// how Go code addresses a package variable such as the tracer's flag).
bool RefsGlobal(const gobin::DisasmInsn &in, uint64_t vaddr) {
  const cs_x86 &x = in.x86();
  for (uint8_t k = 0; k < x.op_count; ++k) {
    const cs_x86_op &op = x.operands[k];
    if (op.type == X86_OP_MEM && op.mem.base == X86_REG_RIP && op.mem.index == X86_REG_INVALID &&
        in->address + in->size + static_cast<uint64_t>(op.mem.disp) == vaddr)
      return true;
  }
  return false;
}

// Test sites and guarded calls of one function, by the source line of the outermost
// (physical) frame: the line of `trace := traceAcquire()` / `if trace.enabled` for a test,
// the line of the call for a marker.
bool ScanFunction(const gobin::GoBinary &bin, const Bracket &b, uint64_t flag, std::vector<SweepTestSite> &out,
                  std::string *why) {
  auto code = gobin::FunctionDisasm::Of(bin, b.function, kMaxFunction);
  if (!code) {
    *why = code.error();
    return false;
  }
  const bool chunk = b.chunks > 0;
  std::map<int32_t, uint64_t> tests;    // outer line -> Jcc vaddr
  std::map<int32_t, ProbeRole> marks;   // outer line -> guarded call
  int32_t pending_line = -1;            // a flag test waiting for its Jcc
  int pending_left = 0;
  for (const gobin::DisasmInsn &in : code->insns()) {
    const cs_x86 &x = in.x86();
    const uint64_t at = in->address;
    std::vector<gobin::Frame> frames = bin.FramesForPC(at, gobin::PcKind::kInstruction);
    const int32_t outer = frames.empty() ? -1 : frames.back().line;
    if (RefsGlobal(in, flag)) {
      pending_line = outer;
      pending_left = 3;
    } else if (pending_left > 0) {
      gobin::InsnKind kind = gobin::InsnKind::kOther;
      gobin::ClassifyForUprobe(std::span<const uint8_t>(in->bytes, in->size), &kind);
      if (kind == gobin::InsnKind::kJcc) {
        tests.emplace(pending_line, at);
        pending_left = 0;
      } else {
        --pending_left;
      }
    }
    // A guarded call: a CALL to the tracer function, or its inlined body.
    std::optional<ProbeRole> role;
    if (in->id == X86_INS_CALL && x.op_count == 1 && x.operands[0].type == X86_OP_IMM) {
      const gobin::FunctionSym *callee = bin.symbols().FuncForPC(static_cast<uint64_t>(x.operands[0].imm));
      if (callee && callee->entry == static_cast<uint64_t>(x.operands[0].imm)) role = MarkerRole(callee->name, chunk);
    }
    for (size_t k = 0; !role && k + 1 < frames.size(); ++k) role = MarkerRole(frames[k].function, chunk);
    if (role && outer > 0) marks.emplace(outer, *role);
  }
  int n[3] = {0, 0, 0};
  for (const auto &[line, role] : marks) {
    // The test guarding the call: the nearest test line at most 4 lines above it
    // (reclaimChunk: `trace := traceAcquire(); if trace.ok() { unlock(&h.lock); //
    // comment; trace.GCSweepSpan(...)`).
    auto it = tests.lower_bound(line);
    if (it == tests.begin()) continue;
    --it;
    if (line - it->first > 4) continue;
    out.push_back(SweepTestSite{role, b.function, it->second, line});
    n[role == ProbeRole::kGCSweepStart ? 0 : role == ProbeRole::kGCSweepDone ? 1 : 2]++;
  }
  if (n[0] != b.starts || n[1] != b.dones || n[2] != b.chunks) {
    *why = fmt::format("{}: {} start, {} done, {} span tests of the tracer (expected {}, {}, {})", b.function, n[0],
                       n[1], n[2], b.starts, b.dones, b.chunks);
    return false;
  }
  return true;
}

bool Is16(unsigned r) {
  switch (r) {
    case X86_REG_AX: case X86_REG_BX: case X86_REG_CX: case X86_REG_DX: case X86_REG_SI: case X86_REG_DI:
    case X86_REG_R8W: case X86_REG_R9W: case X86_REG_R10W: case X86_REG_R11W: case X86_REG_R12W:
    case X86_REG_R13W: case X86_REG_R15W:
      return true;
    default:
      return false;
  }
}

// The fall-through of one flag test in sweep: `reclaimed += uintptr(nfreed) * s.elemsize`
// reads nfreed (a uint16: MOVZX from a 16-bit register) and s.elemsize (a load at the
// elemsize offset from the span's register) before it adds to memory. Both registers
// must hold their value at the Jcc: nothing in between writes them. `next` indexes the
// instruction after the Jcc; the look-ahead (16 at most) stops at the first byte capstone
// could not decode.
std::optional<SweepReclaimSite> ReclaimAfter(const gobin::FunctionDisasm &code, size_t next, int32_t elemsize_off) {
  uint32_t span = GT_REG_NONE, nfreed = GT_REG_NONE;
  bool adds_to_memory = false;
  std::vector<uint32_t> written;
  auto clean = [&](uint32_t r) { return r != GT_REG_NONE && std::find(written.begin(), written.end(), r) == written.end(); };
  const std::vector<gobin::DisasmInsn> &insns = code.insns();
  for (size_t j = next; j < next + 16 && j < insns.size() && insns[j].skipped_before == 0; ++j) {
    const gobin::DisasmInsn &in = insns[j];
    const cs_x86 &x = in.x86();
    if (in->id == X86_INS_CALL || in->id == X86_INS_RET || in->id == X86_INS_JMP) break;
    for (uint8_t k = 0; k < x.op_count; ++k) {
      const cs_x86_op &op = x.operands[k];
      if (op.type == X86_OP_MEM && op.mem.index == X86_REG_INVALID && op.mem.disp == elemsize_off && op.size == 8 &&
          clean(GtReg(op.mem.base)) && span == GT_REG_NONE)
        span = GtReg(op.mem.base);
      if (op.type == X86_OP_MEM && k == 0 && in->id == X86_INS_ADD) adds_to_memory = true;
    }
    if (in->id == X86_INS_MOVZX && x.op_count == 2 && x.operands[1].type == X86_OP_REG && Is16(x.operands[1].reg) &&
        clean(GtReg(x.operands[1].reg)) && nfreed == GT_REG_NONE)
      nfreed = GtReg(x.operands[1].reg);
    cs_regs rr, rw;
    uint8_t nr = 0, nw = 0;
    if (code.RegsAccess(in.get(), rr, &nr, rw, &nw))
      for (uint8_t k = 0; k < nw; ++k) written.push_back(GtReg(rw[k]));
  }
  if (span == GT_REG_NONE || nfreed == GT_REG_NONE || !adds_to_memory) return std::nullopt;
  return SweepReclaimSite{0, span, nfreed, 0};
}

}  // namespace

std::optional<SweepReclaimSite> FindSweepReclaimSite(const gobin::GoBinary &bin, uint64_t flag,
                                                     int32_t elemsize_off, std::string *why) {
  constexpr const char *kFn = "runtime.(*sweepLocked).sweep";
  auto code = gobin::FunctionDisasm::Of(bin, kFn, kMaxFunction);
  if (!code) {
    *why = code.error();
    return std::nullopt;
  }
  std::vector<SweepReclaimSite> found;
  int pending_left = 0;
  const std::vector<gobin::DisasmInsn> &insns = code->insns();
  for (size_t i = 0; i < insns.size(); ++i) {
    const gobin::DisasmInsn &in = insns[i];
    const uint64_t at = in->address;
    if (RefsGlobal(in, flag)) {
      pending_left = 3;
      continue;
    }
    if (pending_left == 0) continue;
    gobin::InsnKind kind = gobin::InsnKind::kOther;
    gobin::ClassifyForUprobe(std::span<const uint8_t>(in->bytes, in->size), &kind);
    if (kind != gobin::InsnKind::kJcc) {
      --pending_left;
      continue;
    }
    pending_left = 0;
    if (auto r = ReclaimAfter(*code, i + 1, elemsize_off)) {
      r->vaddr = at;
      std::vector<gobin::Frame> frames = bin.FramesForPC(at, gobin::PcKind::kInstruction);
      r->line = frames.empty() ? -1 : frames.back().line;
      found.push_back(*r);
    }
  }
  if (found.size() != 1) {
    *why = fmt::format("{}: {} tracer tests guarding `reclaimed += nfreed * s.elemsize` (expected 1)", kFn,
                       found.size());
    return std::nullopt;
  }
  return found.front();
}

std::vector<SweepTestSite> FindSweepTestSites(const gobin::GoBinary &bin, uint64_t trace_flag_vaddr,
                                              std::string *why) {
  std::vector<SweepTestSite> out;
  std::string dummy;
  if (!why) why = &dummy;
  if (!trace_flag_vaddr) {
    *why = "the tracer's flag (trace.enabled / trace.gen) was not found";
    return {};
  }
  for (const Bracket &b : kBrackets)
    if (!ScanFunction(bin, b, trace_flag_vaddr, out, why)) return {};
  return out;
}

namespace {
// The return address after the one CALL in `fn` whose target is one of `callees`.
std::optional<uint64_t> ReturnAfterCall(const gobin::GoBinary &bin, const char *fn,
                                        std::initializer_list<std::string_view> callees, std::string *why) {
  auto code = gobin::FunctionDisasm::Of(bin, fn, kMaxFunction);
  if (!code) {
    *why = code.error();
    return std::nullopt;
  }
  std::vector<uint64_t> found;
  for (const gobin::DisasmInsn &in : code->insns()) {
    const cs_x86 &x = in.x86();
    if (in->id != X86_INS_CALL || x.op_count != 1 || x.operands[0].type != X86_OP_IMM) continue;
    const auto target = static_cast<uint64_t>(x.operands[0].imm);
    const gobin::FunctionSym *callee = bin.symbols().FuncForPC(target);
    if (!callee || callee->entry != target) continue;
    for (std::string_view c : callees)
      if (callee->name == c) found.push_back(in->address + in->size);
  }
  if (found.size() != 1) {
    *why = fmt::format("{}: {} calls of the tracer (expected 1)", fn, found.size());
    return std::nullopt;
  }
  return found.front();
}
}  // namespace

// Go 1.22+ (traceruntime.go / trace2runtime.go): sweep calls trace.GCSweepSpan(bytes)
// (not inlined: it writes an event), whose `tl.stack(1)` is traceLocker.stack inlined
// around a CALL of traceStack; fpTracebackPCs then yields [ret in GCSweepSpan, ret in
// sweep, ret in sweep's caller, ...] and skip 1 drops the traceLocker.stack frame.
// Go 1.19/1.21 (trace.go): sweep calls traceGCSweepSpan, which calls
// traceEvent(traceEvGCSweepStart, 1); traceEvent adds 1 for its own frame on the
// goroutine's stack and traceStackID drops traceEventLocked and traceEvent (1.21: the
// skip on fpTracebackPCs' frames, 1.19: callers(skip+1)), so the stack is again [ret in
// traceGCSweepSpan, ret in sweep, ...], with no frame of its own to drop (both seen in
// the in-process trace: runtime.traceGCSweepSpan trace.go:1549 on top on 1.21).
std::optional<SweepBeginStack> FindSweepBeginStack(const gobin::GoBinary &bin, int go_minor, std::string *why) {
  const bool legacy = go_minor <= 21;
  const char *kSpan = legacy ? "runtime.traceGCSweepSpan" : "runtime.traceLocker.GCSweepSpan";
  auto in_sweep = ReturnAfterCall(bin, "runtime.(*sweepLocked).sweep", {kSpan}, why);
  if (!in_sweep) return std::nullopt;
  auto in_span = legacy ? ReturnAfterCall(bin, kSpan, {"runtime.traceEvent"}, why)
                        : ReturnAfterCall(bin, kSpan, {"runtime.traceStack", "runtime.traceLocker.stack"}, why);
  if (!in_span) return std::nullopt;
  // Logical frames at the return address up to GCSweepSpan's own: the ones to drop
  // (traceLocker.stack when inlined; none when it is a call of its own, whose frame
  // traceStack's skip 1 drops in-process and our prefix never has).
  std::vector<gobin::Frame> frames = bin.FramesForPC(*in_span, gobin::PcKind::kReturnAddress);
  uint32_t skip = 0;
  while (skip < frames.size() && frames[skip].function != kSpan) ++skip;
  if (skip == frames.size()) {
    *why = fmt::format("{}: its call of the tracer is not in its own frames", kSpan);
    return std::nullopt;
  }
  return SweepBeginStack{{*in_span, *in_sweep}, skip};
}

void AddSweepSites(const gobin::GoBinary &bin, const gobin::RuntimeLayout &layout, bool stacks, ProbePlan &plan) {
  auto skip = [&](const std::string &why) {
    plan.notes.push_back("GC sweeps not recorded: " + why);
  };
  if (!layout.mspan.npages.present()) return skip("runtime.mspan layout unknown");
  gobin::RuntimeGlobals g = gobin::FindRuntimeGlobals(bin, &layout);
  const gobin::GlobalAddr &flag = g[gobin::GlobalId::kTraceEnabled];
  std::string why;
  std::vector<SweepTestSite> tests = FindSweepTestSites(bin, flag.found() ? flag.vaddr : 0, &why);
  if (tests.empty()) return skip(why);
  // (*sweepLocked).sweep(preserve): every span swept passes mgcsweep.go's `if
  // traceEnabled() { getg().m.p.ptr().trace.reclaimed += uintptr(nfreed) * s.elemsize }`
  // (after `s.allocCount = nalloc`; small and large spans alike: the size-class split
  // comes after it), the same in 1.19-1.27 (1.19: `if trace.enabled`, p.traceReclaimed).
  // Its Jcc is the span's one site: the span (npages for GCSweepSpan's bytes, elemsize)
  // and nfreed are in registers there. No return between GCSweepSpan at the top and this
  // test but throws, so it counts the same spans.
  const int32_t elemsize_off = layout.mspan.elemsize.present() ? layout.mspan.elemsize.offset : -1;
  if (elemsize_off < 0 || !layout.mspan.allocCount.present()) return skip("runtime.mspan layout unknown");
  auto reclaim = FindSweepReclaimSite(bin, flag.vaddr, elemsize_off, &why);
  if (!reclaim) return skip(why);
  std::vector<ProbeSite> add;
  {
    ProbeSite s;
    s.role = ProbeRole::kGCSweepSpan;
    s.function = "runtime.(*sweepLocked).sweep";
    s.kind = SiteKind::kEntry;  // a Jcc inside the body (emulated), frame set up
    s.flags = GT_CALL_SPAN_REGS | GT_CALL_SWEEP_IN | GT_SITE_FRAME_READY;
    if (stacks) {
      std::string stack_why;
      if (auto st = FindSweepBeginStack(bin, plan.go_minor, &stack_why)) {
        s.flags |= GT_CALL_STACK;
        plan.sweep_begin_prefix = st->prefix;
        plan.sweep_begin_skip = st->skip;
      } else {
        plan.notes.push_back("GCSweepBegin without stacks: " + stack_why);
      }
    }
    s.cookie_hi = (reclaim->span_reg << (GT_SPAN_REG_COOKIE_SHIFT - 32)) |
                  (reclaim->nfreed_reg << (GT_NFREED_REG_COOKIE_SHIFT - 32));
    s.vaddr = reclaim->vaddr;
    s.insn = fmt::format("Jcc of the tracer test before `reclaimed +=` (line {})", reclaim->line);
    s.required = false;
    auto off = bin.elf().VaddrToFileOffset(s.vaddr);
    if (!off) return skip("runtime.(*sweepLocked).sweep: site not backed by the file");
    s.file_offset = *off;
    add.push_back(std::move(s));
  }
  for (const SweepTestSite &t : tests) {
    auto off = bin.elf().VaddrToFileOffset(t.vaddr);
    if (!off) return skip(fmt::format("{}: site {:#x} not backed by the file", t.function, t.vaddr));
    ProbeSite s;
    s.role = t.role;
    s.function = t.function;
    s.kind = SiteKind::kEntry;  // a Jcc inside the body (emulated); only ctx is read
    s.vaddr = t.vaddr;
    s.file_offset = *off;
    s.insn = fmt::format("Jcc of the tracer test guarding line {}", t.line);
    s.flags = t.role == ProbeRole::kGCSweepStart  ? GT_CALL_SWEEP_OPEN
              : t.role == ProbeRole::kGCSweepDone ? GT_CALL_SWEEP_CLOSE
                                                  : GT_CALL_SWEEP_IN;
    // reclaimChunk's GCSweepSpan begins a reclaim bracket that swept no span first; it
    // runs on the system stack (mheap.alloc's systemstack(reclaim)), where traceStack
    // walks curg.sched as our SCHED walk does.
    if (t.role == ProbeRole::kGCSweepChunk && !plan.sweep_begin_prefix.empty()) s.flags |= GT_CALL_STACK;
    s.required = false;
    add.push_back(std::move(s));
  }
  for (ProbeSite &s : add) {
    s.id = uint16_t(plan.sites.size());
    plan.sites.push_back(std::move(s));
  }
}

}  // namespace gotraced::probes
