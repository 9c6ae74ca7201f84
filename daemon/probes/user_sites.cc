#include "daemon/probes/user_sites.h"

#include <fmt/format.h>

#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/probe_sites.h"
#include "daemon/gobin/runtime_globals.h"

namespace gotraced::probes {

namespace {

// A string in registers args[n-1], args[n] (GT_USER_COOKIE_STR*: RAX=1, RBX=2, RCX=3,
// RDI=4, RSI=5), per Go's ABIInternal (integer registers RAX, RBX, RCX, RDI, RSI, R8, R9,
// R10, R11 in order; a string is two words, a context.Context interface two words).
constexpr uint64_t Str0(uint64_t nib) { return nib << GT_USER_COOKIE_STR0_SHIFT; }
constexpr uint64_t Str1(uint64_t nib) { return nib << GT_USER_COOKIE_STR1_SHIFT; }

struct UserWant {
  ProbeRole role;
  const char *function;
  uint64_t cookie;  // GT_USER_COOKIE_* (bits 32..63)
};

// Identical in Go 1.19-1.27 (runtime/trace/annotation.go has not changed its calls into
// the runtime; the runtime implements them as trace_user* linknamed to these names:
// 1.26/1.27 traceruntime.go, 1.23 traceruntime.go, 1.22 trace2runtime.go (and trace.go),
// 1.19/1.21 trace.go).
const UserWant kWants[] = {
    // trace_userTaskCreate(id, parentID uint64, taskType string): RAX, RBX, (RCX, RDI).
    {ProbeRole::kUserTaskCreate, "runtime/trace.userTaskCreate", Str0(3)},
    // trace_userTaskEnd(id uint64): RAX.
    {ProbeRole::kUserTaskEnd, "runtime/trace.userTaskEnd", 0},
    // trace_userRegion(id, mode uint64, name string): RAX, RBX, (RCX, RDI).
    {ProbeRole::kUserRegion, "runtime/trace.userRegion", Str0(3)},
    // trace_userLog(id uint64, category, message string): RAX, (RBX, RCX), (RDI, RSI).
    {ProbeRole::kUserLog, "runtime/trace.userLog", Str0(2) | Str1(4)},
    // StartRegion(ctx context.Context, regionType string): (RAX, RBX), (RCX, RDI).
    {ProbeRole::kUserStartRegion, "runtime/trace.StartRegion", Str0(3) | GT_USER_COOKIE_CTX_ARG1},
    // Logf(ctx, category, format string, args ...any): (RAX, RBX), (RCX, RDI), (RSI, R8).
    {ProbeRole::kUserLogf, "runtime/trace.Logf", Str0(3) | Str1(5) | GT_USER_COOKIE_CTX_ARG1},
};

}  // namespace

void AddUserSites(const gobin::GoBinary &bin, const gobin::RuntimeLayout &layout, bool stacks, ProbePlan &plan) {
  bool package_sites = false;
  // A program that does not link runtime/trace has none of these functions: nothing to
  // tell its user. Notes are kept for a package that is there only in part.
  std::vector<std::string> missing;
  size_t found = 0;
  for (const UserWant &w : kWants) {
    auto sites = gobin::FindProbeSites(bin, w.function);
    if (!sites) {
      missing.push_back(fmt::format("{}: not probed ({})", w.function, sites.error()));
      continue;
    }
    found++;
    ProbeSite s;
    s.id = uint16_t(plan.sites.size());
    s.role = w.role;
    s.function = w.function;
    s.required = false;
    // Every user event carries a stack in-process (tl.stack(2 or 3)).
    s.flags = stacks ? GT_CALL_STACK : 0;
    s.cookie_hi = uint32_t((w.cookie | GT_USER_COOKIE_USER) >> 32);
    const gobin::InsnSite *at = nullptr;
    if (sites->prologue != gobin::PrologueKind::kNoCheck && sites->after_check) {
      // The JBE after the stack check (emulated; entry registers). These functions are
      // ordinary splittable Go functions: the check is against stackguard0.
      at = &*sites->after_check;
      s.kind = SiteKind::kAfterStackCheck;
      s.flags |= sites->prologue == gobin::PrologueKind::kSmallFrame ? GT_CALL_CHECK_MORESTACK
                                                                     : GT_CALL_CHECK_MORESTACK_R12;
    } else if (sites->entry_site.handling == gobin::UprobeHandling::kEmulated) {
      at = &sites->entry_site;
      s.kind = SiteKind::kEntry;
    } else {
      // Never single-step: a user annotation is not worth 12-20 us per call.
      plan.notes.push_back(fmt::format("{}: not probed (no emulated site: entry is {})", w.function,
                                       sites->entry_site.text));
      continue;
    }
    s.vaddr = at->vaddr;
    s.file_offset = at->file_offset;
    s.insn = at->text.empty() ? std::string(gobin::InsnKindName(at->kind)) : at->text;
    if (!s.file_offset) {
      auto off = bin.elf().VaddrToFileOffset(s.vaddr);
      if (!off) continue;
      s.file_offset = *off;
    }
    if (w.role == ProbeRole::kUserStartRegion || w.role == ProbeRole::kUserLogf) package_sites = true;
    plan.sites.push_back(std::move(s));
  }
  if (found)
    for (std::string &m : missing) plan.notes.push_back(std::move(m));
  if (!package_sites) return;
  // StartRegion and Logf reach the runtime only while tracing is on (annotation.go
  // `if !IsEnabled()`); BPF reads the runtime's own flag at their entry so the decoder
  // knows which case a hit is (runtime/trace's tracing.enabled is set right after the
  // runtime's StartTrace and cleared before its StopTrace).
  gobin::RuntimeGlobals g = gobin::FindRuntimeGlobals(bin, &layout);
  const gobin::GlobalAddr &flag = g[gobin::GlobalId::kTraceEnabled];
  if (flag.found() && (flag.size == 1 || flag.size == 8)) {
    plan.user_tracing_flag_vaddr = flag.vaddr;
    plan.user_tracing_flag_size = uint32_t(flag.size);
  } else {
    plan.notes.push_back("runtime trace.enabled not found: trace.StartRegion/Logf hits are dropped "
                         "(they cannot be told from the runtime call that follows them when tracing is on)");
  }
}

}  // namespace gotraced::probes
