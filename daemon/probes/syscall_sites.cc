#include "daemon/probes/syscall_sites.h"

#include <capstone/capstone.h>
#include <fmt/format.h>

#include <string_view>

#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/function_disasm.h"
#include "daemon/gobin/go_binary.h"

namespace gotraced::probes {
namespace {

// Bytes of one of the runtime functions whose calls we look for: they are a few hundred
// bytes to a few KiB; the bound only stops a corrupt symbol table from decoding the text.
constexpr uint64_t kMaxFunctionBytes = 64 * 1024;

struct CallSite {
  uint64_t vaddr = 0;
  std::string_view callee;
};

// Every `CALL rel32` in `caller` whose target is the entry of one of `callees`.
gobin::Result<std::vector<CallSite>> CallsIn(const gobin::GoBinary &bin, std::string_view caller,
                                              std::initializer_list<std::string_view> callees) {
  auto d = gobin::FunctionDisasm::Of(bin, caller, kMaxFunctionBytes);
  if (!d) return gobin::Error{d.error()};
  std::vector<std::pair<uint64_t, std::string_view>> targets;
  for (std::string_view c : callees)
    if (const gobin::FunctionSym *f = bin.FindFunction(c)) targets.emplace_back(f->entry, c);
  std::vector<CallSite> out;
  for (const gobin::DisasmInsn &in : d->insns()) {
    const cs_x86 &x = in.x86();
    if (in->id != X86_INS_CALL || in->size != 5 || x.op_count != 1 || x.operands[0].type != X86_OP_IMM) continue;
    for (const auto &[entry, name] : targets)
      if (static_cast<uint64_t>(x.operands[0].imm) == entry) out.push_back({in->address, name});
  }
  return out;
}

ProbeRole RoleOfCallee(std::string_view callee) {
  return callee == "runtime.exitsyscall" ? ProbeRole::kExitSyscall : ProbeRole::kEnterSyscall;
}

}  // namespace

bool UseSyscallTracepoints(const gobin::GoBinary &bin, ProbePlan &plan) {
  if (plan.go_minor < 26 || plan.tls_g_offset == 0 || plan.offsets.g_atomicstatus < 0 || plan.offsets.g_syscallpc < 0)
    return false;
  ProbeSite *enter = nullptr, *exit = nullptr;
  for (ProbeSite &s : plan.sites) {
    if (s.role == ProbeRole::kEnterSyscall && s.kind != SiteKind::kCall) enter = &s;
    if (s.role == ProbeRole::kExitSyscall && s.kind != SiteKind::kCall) exit = &s;
  }
  const gobin::FunctionSym *futex = bin.FindFunction("runtime.futex");
  if (!enter || !exit || !futex) {
    plan.notes.push_back("syscalls: kept the uprobes at entersyscall/exitsyscall (runtime.futex not found)");
    return false;
  }
  // The call sites first: if one caller's code is not as expected, nothing changes.
  struct Want {
    const char *caller;
    std::initializer_list<std::string_view> callees;
    size_t expected;  // calls the runtime source makes (0: any)
  };
  const Want wants[] = {
      {"runtime.cgocall", {"runtime.entersyscall", "runtime.exitsyscall"}, 2},
      {"runtime.cgocallbackg", {"runtime.reentersyscall", "runtime.exitsyscall"}, 2},
      {"runtime.notetsleepg", {"runtime.exitsyscall"}, 1},
  };
  std::vector<ProbeSite> added;
  for (const Want &w : wants) {
    if (!bin.FindFunction(w.caller)) continue;  // not linked in (no cgo: no cgocallbackg)
    auto calls = CallsIn(bin, w.caller, w.callees);
    if (!calls || (w.expected && calls->size() != w.expected)) {
      plan.notes.push_back(fmt::format("syscalls: kept the uprobes at entersyscall/exitsyscall ({}: {})", w.caller,
                                       calls ? fmt::format("{} calls of the syscall functions, expected {}",
                                                           calls->size(), w.expected)
                                             : calls.error()));
      return false;
    }
    for (const CallSite &c : *calls) {
      ProbeSite s;
      s.role = RoleOfCallee(c.callee);
      s.function = w.caller;
      s.kind = SiteKind::kCall;
      s.vaddr = c.vaddr;
      auto off = bin.elf().VaddrToFileOffset(c.vaddr);
      if (!off) return false;
      s.file_offset = *off;
      s.required = false;
      // The record of the callee's entry (GT_SITE_AT_CALL). reentersyscall(pc, sp, bp)
      // gets the stack of its arguments, as traceStack takes it from syscallpc/bp.
      s.flags = GT_SITE_AT_CALL;
      if (s.role == ProbeRole::kEnterSyscall && (enter->flags & GT_CALL_STACK)) {  // not with --no-stacks
        s.flags |= GT_CALL_STACK;
        if (c.callee == "runtime.reentersyscall") s.flags |= GT_CALL_STACK_FROM_ARGS;
      }
      s.insn = fmt::format("call {} (at {:#x})", c.callee, c.vaddr);
      added.push_back(std::move(s));
    }
  }
  enter->via_tracepoint = true;
  exit->via_tracepoint = true;
  plan.syscall_tp = true;
  plan.go_text = {bin.text_start(), bin.pclntab().text_end()};
  plan.sys_skip = {futex->entry, futex->end};
  for (ProbeSite &s : added) {
    s.id = uint16_t(plan.sites.size());
    plan.sites.push_back(std::move(s));
  }
  return true;
}

}  // namespace gotraced::probes
