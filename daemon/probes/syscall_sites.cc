#include "daemon/probes/syscall_sites.h"

#include <capstone/capstone.h>
#include <fmt/format.h>

#include <optional>
#include <string_view>

#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/function_disasm.h"
#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/probe_sites.h"
#include "daemon/gobin/runtime_layout.h"

namespace gotraced::probes {

namespace {

// The runtime's other syscall functions that never enter through entersyscall (sysmon's
// usleep, osyield): the tracepoint filters skip them by IP (bpf_config.h sys_skip2/3),
// so a busy server's ~2k sysmon sleeps per second cost no read of its memory.
void SkipRuntimeSleeps(const gobin::GoBinary &bin, ProbePlan &plan) {
  int i = 0;
  for (const char *name : {"runtime.usleep", "runtime.osyield"}) {
    if (const gobin::FunctionSym *f = bin.FindFunction(name)) plan.sys_skip_more[i] = {f->entry, f->end};
    i++;
  }
}


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


// Every verified `CALL runtime.casgstatus` in Go text, by caller (CallSite::callee holds
// the caller's name here): gobin's byte scan for e8 rel32 aimed at its entry, each
// candidate confirmed by decoding its function.
gobin::Result<std::vector<CallSite>> CasgstatusCalls(const gobin::GoBinary &bin, uint64_t entry) {
  std::vector<std::string_view> callers;
  for (uint64_t at : gobin::DirectCallSitesTo(bin, entry)) {
    const gobin::FunctionSym *f = bin.FuncForPC(at);
    if (f && (callers.empty() || callers.back() != f->name)) callers.push_back(f->name);
  }
  std::vector<CallSite> out;
  for (std::string_view c : callers) {
    auto calls = CallsIn(bin, c, {"runtime.casgstatus"});
    if (!calls) return gobin::Error{calls.error()};
    for (CallSite &cs : *calls) {
      cs.callee = c;
      out.push_back(cs);
    }
  }
  return out;
}

// A probe site at the CALL at `vaddr` in `function`, standing for the entry of the
// function it calls (GT_SITE_AT_CALL); nullopt when the address is not in the file.
std::optional<ProbeSite> CallProbeSite(const gobin::GoBinary &bin, ProbeRole role, std::string_view function,
                                       uint64_t vaddr, std::string_view callee, uint32_t flags) {
  auto off = bin.elf().VaddrToFileOffset(vaddr);
  if (!off) return std::nullopt;
  ProbeSite s;
  s.role = role;
  s.function = std::string(function);
  s.kind = SiteKind::kCall;
  s.vaddr = vaddr;
  s.file_offset = *off;
  s.required = false;
  s.flags = GT_SITE_AT_CALL | flags;
  s.insn = fmt::format("call {} (at {:#x})", callee, vaddr);
  return s;
}

}  // namespace

bool UseSyscallTracepoints(const gobin::GoBinary &bin, ProbePlan &plan) {
  if (plan.tls_g_offset == 0 || plan.offsets.g_atomicstatus < 0 || plan.offsets.g_syscallpc < 0) return false;
  // Go <= 1.25: entersyscall and exitsyscall change the status through casgstatus, whose
  // entry uprobe would still trap at every syscall: casgstatus is probed at its call
  // sites instead, all but those of reentersyscall (GoSyscallBegin: sys_enter), exitsyscall
  // (the fast exit: sys_exit) and newstack (_Gcopystack around every stack growth, which
  // the tracer ignores).
  const bool old = plan.go_minor <= 25;
  ProbeSite *enter = nullptr, *exit = nullptr, *cas = nullptr;
  for (ProbeSite &s : plan.sites) {
    if (s.role == ProbeRole::kEnterSyscall && s.kind != SiteKind::kCall) enter = &s;
    if (s.role == ProbeRole::kExitSyscall && s.kind != SiteKind::kCall) exit = &s;
    if (s.role == ProbeRole::kCasgstatus && s.kind == SiteKind::kEntry) cas = &s;
  }
  const gobin::FunctionSym *futex = bin.FindFunction("runtime.futex");
  if ((old ? !cas : (!enter || !exit)) || !futex) {
    plan.notes.push_back("syscalls: kept the uprobes at entersyscall/exitsyscall (runtime.futex not found)");
    return false;
  }
  std::vector<ProbeSite> added;
  if (old) {
    const gobin::FunctionSym *f = bin.FindFunction("runtime.casgstatus");
    auto calls = f ? CasgstatusCalls(bin, f->entry) : gobin::Result<std::vector<CallSite>>(gobin::Error{"no casgstatus"});
    if (!calls || calls->size() < 10) {
      plan.notes.push_back(fmt::format("syscalls: kept the uprobes at casgstatus ({})",
                                       calls ? fmt::format("{} calls of casgstatus", calls->size()) : calls.error()));
      return false;
    }
    for (const CallSite &c : *calls) {
      if (c.callee == "runtime.reentersyscall" || c.callee == "runtime.exitsyscall" || c.callee == "runtime.newstack")
        continue;
      auto site = CallProbeSite(bin, ProbeRole::kCasgstatus, c.callee, c.vaddr, "runtime.casgstatus", 0);
      if (!site) return false;
      added.push_back(std::move(*site));
    }
  }
  // The runtime's own calls of the syscall functions; if one caller's code is not as
  // expected, nothing changes.
  struct Want {
    const char *caller;
    std::initializer_list<std::string_view> callees;
    size_t expected;  // calls the runtime source makes
  };
  const Want wants[] = {
      {"runtime.cgocall", {"runtime.entersyscall", "runtime.exitsyscall"}, 2},
      {"runtime.cgocallbackg", {"runtime.reentersyscall", "runtime.exitsyscall"}, 2},
      {"runtime.notetsleepg", {"runtime.exitsyscall"}, 1},
  };
  const bool stacks = old ? plan.stack_for_old[gobin::kGrunning] != 0 : (enter->flags & GT_CALL_STACK) != 0;
  for (const Want &w : wants) {
    if (!bin.FindFunction(w.caller)) continue;  // not linked in (no cgo: no cgocallbackg)
    auto calls = CallsIn(bin, w.caller, w.callees);
    if (!calls || calls->size() != w.expected) {
      plan.notes.push_back(fmt::format("syscalls: kept the uprobes at entersyscall/exitsyscall ({}: {})", w.caller,
                                       calls ? fmt::format("{} calls of the syscall functions, expected {}",
                                                           calls->size(), w.expected)
                                             : calls.error()));
      return false;
    }
    for (const CallSite &c : *calls) {
      const ProbeRole role = RoleOfCallee(c.callee);
      // reentersyscall(pc, sp, bp) gets the stack of its arguments, as traceStack takes it
      // from syscallpc/bp.
      uint32_t flags = 0;
      if (role == ProbeRole::kEnterSyscall && stacks)  // not with --no-stacks
        flags |= GT_CALL_STACK | (c.callee == "runtime.reentersyscall" ? GT_CALL_STACK_FROM_ARGS : 0);
      if (old && role == ProbeRole::kExitSyscall) flags |= GT_CALL_DEREF_OLDP;  // m.p is 0 there
      auto site = CallProbeSite(bin, role, w.caller, c.vaddr, c.callee, flags);
      if (!site) return false;
      added.push_back(std::move(*site));
    }
  }
  if (old) {
    // The casgstatus entry site becomes the sys_enter tracepoint's (site ids are indexes:
    // none moves), and the sys_exit one is added.
    const gobin::FunctionSym *rs = bin.FindFunction("runtime.reentersyscall");
    const gobin::FunctionSym *es = bin.FindFunction("runtime.exitsyscall");
    cas->role = ProbeRole::kEnterSyscall;
    cas->function = "runtime.reentersyscall";
    cas->vaddr = rs ? rs->entry : 0;
    cas->flags = stacks ? GT_CALL_STACK : 0;
    cas->insn = "sys_enter tracepoint";
    cas->file_offset = 0;
    cas->via_tracepoint = true;
    ProbeSite x;
    x.role = ProbeRole::kExitSyscall;
    x.function = "runtime.exitsyscall";
    x.vaddr = es ? es->entry : 0;
    x.insn = "sys_exit tracepoint";
    x.via_tracepoint = true;
    added.insert(added.begin(), std::move(x));
  } else {
    enter->via_tracepoint = true;
    exit->via_tracepoint = true;
  }
  plan.syscall_tp = true;
  plan.go_text = {bin.text_start(), bin.pclntab().text_end()};
  plan.sys_skip = {futex->entry, futex->end};
  SkipRuntimeSleeps(bin, plan);
  for (ProbeSite &s : added) {
    s.id = uint16_t(plan.sites.size());
    plan.sites.push_back(std::move(s));
  }
  return true;
}

bool UseSyscallTracepointsOnly(const gobin::GoBinary &bin, ProbePlan &plan) {
  const gobin::FunctionSym *futex = bin.FindFunction("runtime.futex");
  if (plan.tls_g_offset == 0 || plan.offsets.g_atomicstatus < 0 || plan.offsets.g_syscallpc < 0 || !futex) {
    plan.notes.push_back("syscalls: not recorded (no TLS g offset, g.atomicstatus, g.syscallpc or runtime.futex)");
    return false;
  }
  const gobin::FunctionSym *rs = bin.FindFunction("runtime.reentersyscall");
  const gobin::FunctionSym *es = bin.FindFunction("runtime.exitsyscall");
  ProbeSite enter;
  enter.role = ProbeRole::kEnterSyscall;
  enter.function = "runtime.reentersyscall";
  enter.vaddr = rs ? rs->entry : 0;
  enter.insn = "sys_enter tracepoint";
  enter.required = false;
  enter.via_tracepoint = true;
  ProbeSite exit = enter;
  exit.role = ProbeRole::kExitSyscall;
  exit.function = "runtime.exitsyscall";
  exit.vaddr = es ? es->entry : 0;
  exit.insn = "sys_exit tracepoint";
  for (ProbeSite *s : {&enter, &exit}) {
    s->id = uint16_t(plan.sites.size());
    plan.sites.push_back(std::move(*s));
  }
  plan.syscall_tp = true;
  plan.syscall_pair = true;
  plan.go_text = {bin.text_start(), bin.pclntab().text_end()};
  plan.sys_skip = {futex->entry, futex->end};
  SkipRuntimeSleeps(bin, plan);
  return true;
}

bool UseKernelViewSyscalls(const gobin::GoBinary &bin, ProbePlan &plan) {
  if (plan.syscall_tp) return false;
  const gobin::FunctionSym *futex = bin.FindFunction("runtime.futex");
  if (plan.tls_g_offset == 0 || plan.offsets.g_atomicstatus < 0 || !futex) {
    plan.notes.push_back("kernel view: syscalls not named (no TLS g offset, g.atomicstatus or runtime.futex)");
    return false;
  }
  plan.kernel_syscalls = true;
  plan.go_text = {bin.text_start(), bin.pclntab().text_end()};
  plan.sys_skip = {futex->entry, futex->end};
  SkipRuntimeSleeps(bin, plan);
  return true;
}

}  // namespace gotraced::probes
