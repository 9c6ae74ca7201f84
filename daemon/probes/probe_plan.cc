#include "daemon/probes/probe_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/probe_sites.h"
#include "daemon/gobin/runtime_layout.h"
#include "daemon/probes/tls_g.h"
#include "daemon/probes/user_sites.h"
#include "daemon/probes/gc_sites.h"
#include "daemon/probes/stw_steal_site.h"
#include "daemon/probes/sweep_sites.h"
#include "daemon/probes/syscall_sites.h"
#include "daemon/probes/version_support.h"
#include "proto/bpf_config.h"

namespace gotraced::probes {

std::string_view ProbeRoleName(ProbeRole r) {
  switch (r) {
    case ProbeRole::kCasgstatus: return "casgstatus";
    case ProbeRole::kEnterSyscall: return "entersyscall";
    case ProbeRole::kEnterSyscallBlock: return "entersyscallblock";
    case ProbeRole::kExitSyscall: return "exitsyscall";
    case ProbeRole::kAcquireP: return "acquirep";
    case ProbeRole::kReleaseP: return "releasep";
    case ProbeRole::kProcResize: return "procresize";
    case ProbeRole::kPreemptPark: return "preemptPark";
    case ProbeRole::kHandoffP: return "handoffp";
    case ProbeRole::kGCStart: return "gcStart";
    case ProbeRole::kGCDone: return "gcMarkTermination";
    case ProbeRole::kSTWStart: return "stopTheWorld";
    case ProbeRole::kSTWDone: return "startTheWorld";
    case ProbeRole::kSyscallReleaseP: return "syscallReleaseP";
    case ProbeRole::kSTWSyscallSteal: return "stwSyscallSteal";
    case ProbeRole::kEnterSyscallGCStop: return "entersyscallGCStop";
    case ProbeRole::kUserTaskCreate: return "userTaskCreate";
    case ProbeRole::kUserTaskEnd: return "userTaskEnd";
    case ProbeRole::kUserRegion: return "userRegion";
    case ProbeRole::kUserLog: return "userLog";
    case ProbeRole::kUserStartRegion: return "trace.StartRegion";
    case ProbeRole::kUserLogf: return "trace.Logf";
    case ProbeRole::kGCHeapUpdate: return "heapLiveUpdate";
    case ProbeRole::kGCHeapReset: return "heapLiveReset";
    case ProbeRole::kGCHeapGoal: return "heapGoal";
    case ProbeRole::kGCDrain: return "gcDrain";
    case ProbeRole::kGCAssist: return "gcAssistAlloc1";
    case ProbeRole::kGCSweepStart: return "sweepStart";
    case ProbeRole::kGCSweepSpan: return "sweepSpan";
    case ProbeRole::kGCSweepDone: return "sweepDone";
    case ProbeRole::kGCSweepChunk: return "sweepChunk";
    case ProbeRole::kCount: break;
  }
  return "?";
}

namespace {

// One row of the plan before it is resolved against the binary.
struct Want {
  ProbeRole role;
  const char *function;
  uint32_t flags;   // GT_CALL_STACK / GT_CALL_ARG0_* (site flags are added from the code)
  bool required;
  int min_minor;    // 0 = any
  int max_minor;    // 0 = any
  bool gc;          // dropped when !PlanOptions::gc_probes
};

// The runtime functions per Go version; docs/probe-plan.md explains every row.
const std::vector<Want> &Wants() {
  static const std::vector<Want> w = {
      // Every G transition that goes through casgstatus (all versions).
      {ProbeRole::kCasgstatus, "runtime.casgstatus", 0, true, 0, 0, false},
      // Go 1.26 entersyscall/exitsyscall CAS the status themselves (proc.go: "Try to do a
      // quick CAS to avoid calling into casgstatus in the common case").
      {ProbeRole::kEnterSyscall, "runtime.reentersyscall", GT_CALL_STACK, true, 26, 0, false},
      // (entersyscallblock still uses casgstatus in 1.26/1.27: no probe of its own.)
      {ProbeRole::kExitSyscall, "runtime.exitsyscall", 0, true, 26, 0, false},
      {ProbeRole::kSyscallReleaseP, "runtime.syscallingThread.releaseP", 0, false, 26, 0, false},
      // P ownership: acquirep emits ProcStart, releasep ProcStop (proc.go), never inlined
      // (checked: CALL count == source call sites in 1.21-1.27).
      {ProbeRole::kAcquireP, "runtime.acquirep", GT_CALL_ARG0_P, true, 0, 25, false},
      // 1.26+: acquirepNoTrace is both acquirep's body and exitsyscall's slow path
      // (which then emits ProcStart itself): one probe sees every acquisition once;
      // caller_pc says which.
      {ProbeRole::kAcquireP, "runtime.acquirepNoTrace", GT_CALL_ARG0_P, true, 26, 0, false},
      {ProbeRole::kReleaseP, "runtime.releasep", 0, true, 0, 0, false},
      // retake -> handoffp after stealing a P in a syscall (ProcSteal, Go <= 1.25).
      {ProbeRole::kHandoffP, "runtime.handoffp", GT_CALL_ARG0_P, false, 0, 25, false},
      {ProbeRole::kProcResize, "runtime.procresize", GT_CALL_STACK, false, 0, 0, false},
      // suspendG's preemption park bypasses casgstatus (casGToPreemptScan).
      {ProbeRole::kPreemptPark, "runtime.preemptPark", GT_CALL_ARG0_G | GT_CALL_STACK, false, 0, 0, false},
      // GC (docs/probe-plan.md §3.9). gcStart may return without starting a cycle (its
      // trigger re-test under work.startSema fails); gcBgMarkStartWorkers is called once
      // it has written GCBegin (mgc.go gcStart, 1.19-1.27).
      {ProbeRole::kGCStart, "runtime.gcBgMarkStartWorkers", GT_CALL_STACK, false, 0, 0, true},
      {ProbeRole::kGCDone, "runtime.gcMarkTermination", 0, false, 0, 0, true},
      {ProbeRole::kSTWStart, "runtime.stopTheWorldWithSema", GT_CALL_STACK, false, 0, 0, true},
      {ProbeRole::kSTWDone, "runtime.startTheWorldWithSema", 0, false, 0, 0, true},
      // Heap metrics (mgcpacer.go): heapLive changes only in update (Add) and resetLive
      // (Store). HeapGoal (gcPaceScavenger, a frameless leaf): gc_sites.cc.
      {ProbeRole::kGCHeapUpdate, "runtime.(*gcControllerState).update", 0, false, 0, 0, true},
      {ProbeRole::kGCHeapReset, "runtime.(*gcControllerState).resetLive", 0, false, 0, 0, true},
      // Mark workers: gcBgMarkWorker drains through gcDrain with per-mode flags (mgcmark.go
      // gcDrainMarkWorker*), the GoLabel the runtime writes at the worker's GoStart.
      {ProbeRole::kGCDrain, "runtime.gcDrain", 0, false, 0, 0, true},
      // Mark assists: gcAssistAlloc writes GCMarkAssistStart, then does the work in
      // gcAssistAlloc1 on the system stack (mgcmark.go).
      {ProbeRole::kGCAssist, "runtime.gcAssistAlloc1", GT_CALL_STACK, false, 0, 0, true},
  };
  return w;
}

// The sites a goroutine switch, a P hand-over or a syscall traps (left out at capture
// level "low", PlanOptions::sched_probes): casgstatus is every G transition; acquirep /
// releasep every idle/wake cycle of an M; the syscall uprobes every syscall.
bool PerSwitch(ProbeRole r) {
  switch (r) {
    case ProbeRole::kCasgstatus:
    case ProbeRole::kEnterSyscall:
    case ProbeRole::kExitSyscall:
    case ProbeRole::kSyscallReleaseP:
    case ProbeRole::kAcquireP:
    case ProbeRole::kReleaseP:
    case ProbeRole::kHandoffP:
    case ProbeRole::kPreemptPark: return true;
    default: return false;
  }
}

// GC sites hit per span or per worker run, not per cycle (PlanOptions::gc_detail).
bool GcDetail(ProbeRole r) {
  return r == ProbeRole::kGCHeapUpdate || r == ProbeRole::kGCDrain || r == ProbeRole::kGCAssist;
}

int32_t Off(const gobin::FieldLoc &f) { return f.present() ? f.offset : -1; }

}  // namespace

BpfOffsets OffsetsFrom(const gobin::RuntimeLayout &l) {
  BpfOffsets o;
  o.g_stackguard0 = Off(l.g.stackguard0);
  o.g_m = Off(l.g.m);
  o.g_sched_pc = Off(l.g.sched_pc);
  o.g_sched_sp = Off(l.g.sched_sp);
  o.g_sched_bp = Off(l.g.sched_bp);
  o.g_syscallsp = Off(l.g.syscallsp);
  o.g_syscallpc = Off(l.g.syscallpc);
  o.g_syscallbp = Off(l.g.syscallbp);
  o.g_atomicstatus = Off(l.g.atomicstatus);
  o.g_goid = Off(l.g.goid);
  o.g_waitreason = Off(l.g.waitreason);
  o.g_parent_goid = Off(l.g.parent_goid);
  o.g_gopc = Off(l.g.gopc);
  o.g_startpc = Off(l.g.startpc);
  o.m_id = Off(l.m.id);
  o.m_procid = Off(l.m.procid);
  o.m_curg = Off(l.m.curg);
  o.m_p = Off(l.m.p);
  o.m_oldp = Off(l.m.oldp);
  o.m_syscalltick = Off(l.m.syscalltick);
  o.g_sync_safe_point = Off(l.g.sync_safe_point);
  o.m_wait_trace_block_reason = Off(l.m.wait_trace_block_reason);
  o.m_wait_trace_skip = Off(l.m.wait_trace_skip);
  o.p_id = Off(l.p.id);
  o.p_status = Off(l.p.status);
  o.p_m = Off(l.p.m);
  o.p_syscalltick = Off(l.p.syscalltick);
  o.p_goidcache = Off(l.p.goidcache);
  o.span_npages = Off(l.mspan.npages);
  o.span_nelems = Off(l.mspan.nelems);
  o.span_alloc_count = Off(l.mspan.allocCount);
  o.span_elemsize = Off(l.mspan.elemsize);
  o.g_labels = Off(l.g.labels);
  o.p_goidcacheend = Off(l.p.goidcacheend);
  o.m_vdso_sp = Off(l.m.vdso_sp);
  o.m_vdso_pc = Off(l.m.vdso_pc);
  o.m_ncgo = Off(l.m.ncgo);
  return o;
}

namespace {

// Go 1.19's casgstatus has no PUSHQ BP: "SUBQ $n, SP; MOVQ BP, k(SP); LEAQ k(SP), BP"
// (single-stepped), then spills of the argument registers, BT and a 1-byte NOP (an
// inline mark), which the kernel emulates. Returns the address of the first NOP or Jcc
// after such a frame setup when nothing before it writes a register other than SP/BP,
// so the arguments (RAX, RBX, RCX ...) and R14 are intact there and RBP is the function's
// own frame (GT_SITE_FRAME_READY).
std::optional<uint64_t> FrameReadySite(const gobin::ElfFile &elf, uint64_t entry) {
  auto code = elf.ReadVirtual(entry, 64);
  if (!code) return std::nullopt;
  const auto &b = *code;
  size_t i = 0;
  // SUBQ $imm8, SP (48 83 ec ib) or $imm32 (48 81 ec id)
  if (b[0] == 0x48 && b[1] == 0x83 && b[2] == 0xec) i = 4;
  else if (b[0] == 0x48 && b[1] == 0x81 && b[2] == 0xec) i = 7;
  else return std::nullopt;
  // MOVQ BP, disp(SP): 48 89 6c 24 d8 | 48 89 ac 24 d32
  if (b[i] == 0x48 && b[i + 1] == 0x89 && b[i + 2] == 0x6c && b[i + 3] == 0x24) i += 5;
  else if (b[i] == 0x48 && b[i + 1] == 0x89 && b[i + 2] == 0xac && b[i + 3] == 0x24) i += 8;
  else return std::nullopt;
  // LEAQ disp(SP), BP: 48 8d 6c 24 d8 | 48 8d ac 24 d32
  if (b[i] == 0x48 && b[i + 1] == 0x8d && b[i + 2] == 0x6c && b[i + 3] == 0x24) i += 5;
  else if (b[i] == 0x48 && b[i + 1] == 0x8d && b[i + 2] == 0xac && b[i + 3] == 0x24) i += 8;
  else return std::nullopt;
  while (i + 8 < b.size()) {
    uint8_t x = b[i];
    if (x == 0x90) return entry + i;                                      // NOP: emulated
    if (x >= 0x70 && x <= 0x7f) return entry + i;                         // Jcc rel8
    if (x == 0x0f && b[i + 1] >= 0x80 && b[i + 1] <= 0x8f) return entry + i;  // Jcc rel32
    size_t j = i;
    if (b[j] == 0x48 || b[j] == 0x44 || b[j] == 0x4c) j++;
    // MOV r, disp(SP) (89 /r with a SIB byte 24): a store, registers unchanged.
    if (b[j] == 0x89 && (b[j + 1] & 7) == 4 && b[j + 2] == 0x24) {
      int mod = b[j + 1] >> 6;
      if (mod != 1 && mod != 2) return std::nullopt;
      i = j + 3 + (mod == 1 ? 1 : 4);
      continue;
    }
    if (b[j] == 0x0f && b[j + 1] == 0xba && (b[j + 2] >> 3 & 7) == 4) {  // BT $imm8, r: flags only
      i = j + 4;
      continue;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

// Reads the stack-check CMP at `at` and says whether it compares with stackguard1
// (16+8(R14): //go:systemstack functions, e.g. preemptPark, stopTheWorldWithSema).
bool ComparesStackguard1(const gobin::ElfFile &elf, uint64_t at) {
  auto b = elf.ReadVirtual(at, 4);
  if (!b) return false;
  // 49 3b 66 18 = CMPQ SP, 0x18(R14); 4d 3b 66 18 = CMPQ R12, 0x18(R14)
  return ((*b)[0] == 0x49 || (*b)[0] == 0x4d) && (*b)[1] == 0x3b && (*b)[2] == 0x66 && (*b)[3] == 0x18;
}

// runtime.ready(gp *g, traceskip int, next bool) keeps traceskip for the trace call
// after casgstatus (proc.go ready: trace.GoUnpark(gp, traceskip)), and Go's register ABI
// spills it to its slot in the caller's frame: MOVQ BX, (frame+16)(SP), frame = the
// bytes between SP and the return address. Checked on the first 96 bytes of code.
bool ReadySpillsTraceskip(const gobin::GoBinary &bin) {
  const gobin::FunctionSym *f = bin.FindFunction("runtime.ready");
  if (!f) return false;
  auto code = bin.elf().ReadVirtual(f->entry, std::min<uint64_t>(96, f->end - f->entry));
  if (!code) return false;
  const auto &b = *code;
  int64_t frame = -1;
  size_t i = 0;
  // Optional stack check (CMPQ SP, 16(R14); JBE rel32|rel8).
  if (b.size() > 10 && b[0] == 0x49 && b[1] == 0x3b && b[2] == 0x66) {
    i = 4;
    i += (b[i] == 0x0f) ? 6 : 2;
  }
  if (b[i] == 0x55) {  // PUSHQ BP; MOVQ SP, BP; SUBQ $n, SP
    i += 4;
    if (b[i] == 0x48 && b[i + 1] == 0x83 && b[i + 2] == 0xec) frame = b[i + 3] + 8;
    else if (b[i] == 0x48 && b[i + 1] == 0x81 && b[i + 2] == 0xec) frame = int64_t(b[i + 3] | b[i + 4] << 8) + 8;
  } else if (b[i] == 0x48 && b[i + 1] == 0x83 && b[i + 2] == 0xec) {
    frame = b[i + 3];  // Go 1.19: SUBQ $n, SP; MOVQ BP, n-8(SP)
  }
  if (frame < 0) return false;
  int64_t want = frame + 16;  // 8 (return address) + 8 (gp's slot)
  for (size_t k = 0; k + 5 <= b.size(); k++) {
    if (b[k] == 0x48 && b[k + 1] == 0x89 && b[k + 2] == 0x5c && b[k + 3] == 0x24 && b[k + 4] == want) return true;
    if (k + 8 <= b.size() && b[k] == 0x48 && b[k + 1] == 0x89 && b[k + 2] == 0x9c && b[k + 3] == 0x24 &&
        int64_t(b[k + 4] | b[k + 5] << 8) == want)
      return true;
  }
  return false;
}

std::string InsnText(const gobin::InsnSite &s) { return s.text.empty() ? std::string(gobin::InsnKindName(s.kind)) : s.text; }

}  // namespace

gobin::Result<ProbePlan> PlanFor(const gobin::GoBinary &bin, const gobin::RuntimeLayout &layout,
                                 const PlanOptions &opts) {
  ProbePlan plan;
  const auto &v = bin.go_version();
  const VersionVerdict support = ClassifyGoVersion(v);
  if (support.support == VersionSupport::kUnsupported) return gobin::Error{support.why};
  plan.untested = support.support == VersionSupport::kUntested;
  plan.go_minor = v.minor;
  plan.name = fmt::format("go1.{}", v.minor);
  std::string missing;
  if (!layout.Complete(&missing))
    return gobin::Error{fmt::format("runtime struct offsets incomplete for go1.{}: {}", v.minor, missing)};
  plan.offsets = OffsetsFrom(layout);
  if (!opts.labels) plan.offsets.g_labels = -1;
  plan.stack_prefers_syscall = v.minor >= 23;  // runtime/tracestack.go "case (3)" since 1.23
  plan.ready_traceskip_spilled = ReadySpillsTraceskip(bin);
  if (auto off = TlsGOffset(bin))
    plan.tls_g_offset = *off;
  else
    plan.notes.push_back("no %fs:disp32 access to g found in gogo/mstart0/rt0_go: CPU samples in C or VDSO code keep the frame-pointer walk");
  if (!plan.ready_traceskip_spilled)
    plan.notes.push_back("runtime.ready does not spill traceskip where expected: GoUnblock skip unknown");

  // casgstatus transitions that carry a stack in the in-process trace.
  using gobin::kGdead, gobin::kGrunnable, gobin::kGrunning, gobin::kGsyscall, gobin::kGwaiting;
  const PlanOptions &opts_eff = opts;
  if (opts_eff.stacks) {
    auto set = [&](uint32_t o, uint32_t n) { plan.stack_for_old[o] |= uint16_t(1u << n); };
    set(kGdead, kGrunnable);      // GoCreate: the creator's stack (newproc1)
    set(kGdead, kGwaiting);       // GoCreateBlocked (1.23+ newproc1 parked)
    set(kGrunning, kGwaiting);    // GoBlock (park_m)
    set(kGrunning, kGrunnable);   // GoStop: Gosched / preempt (goschedImpl)
    set(kGrunning, kGsyscall);    // GoSyscallBegin (reentersyscall / entersyscallblock)
    set(kGwaiting, kGrunnable);   // GoUnblock: the unblocker's stack (ready)
  }

  // Optional reads per casgstatus transition (each bpf_probe_read_user costs ~50 ns
  // here): creation facts for _Gdead -> *, block facts around _Gwaiting, syscall ticks
  // around _Gsyscall, ready's traceskip for _Gwaiting -> _Grunnable.
  for (uint32_t o = 0; o < 16; o++)
    for (uint32_t n = 0; n < 16; n++) {
      uint8_t g = 0;
      if (o == kGdead) g |= GT_READ_CREATE;
      if (o == kGwaiting || n == kGwaiting) g |= GT_READ_BLOCK;
      if (o == kGsyscall || n == kGsyscall) g |= GT_READ_SYSCALL;
      if (o == kGwaiting && n == kGrunnable) g |= GT_READ_SPILL;
      // The g's pprof labels when it starts running, and when it blocks or stops: a set
      // that pprof.Do put on it while it ran is seen at the end of that interval too.
      if (opts.labels && (n == kGrunning || (o == kGrunning && (n == kGwaiting || n == kGrunnable))))
        g |= GT_READ_LABELS;
      plan.gstatus_groups[o][n] = g;
    }

  for (const Want &w : Wants()) {
    if (w.min_minor && v.minor < w.min_minor) continue;
    if (w.max_minor && v.minor > w.max_minor) continue;
    if (w.gc && !opts.gc_probes) continue;
    if (!opts.sched_probes && PerSwitch(w.role)) continue;  // capture level "low"
    if (!opts.gc_detail && GcDetail(w.role)) continue;
    auto sites = gobin::FindProbeSites(bin, w.function);
    if (!sites) {
      if (w.required)
        return gobin::Error{fmt::format("{} not found in this binary (go1.{}.{}): {}", w.function, v.minor, v.patch,
                                        sites.error())};
      plan.notes.push_back(fmt::format("{}: not probed ({})", w.function, sites.error()));
      continue;
    }
    ProbeSite s;
    s.id = uint16_t(plan.sites.size());
    s.role = w.role;
    s.function = w.function;
    s.required = w.required;
    s.flags = opts_eff.stacks ? w.flags : (w.flags & ~uint32_t(GT_CALL_STACK));
    // Go <= 1.20 has no stwReason: the decoder tells the traced stops (gcStart's,
    // gcMarkDone's) from the others by the stack (record_decoder_gc.cc LegacyStwReason),
    // so that site keeps its walk without stacks too (a few hits per GC cycle).
    if (w.role == ProbeRole::kSTWStart && v.minor <= 20) s.flags |= w.flags & GT_CALL_STACK;
    const gobin::InsnSite *at = nullptr;
    gobin::InsnSite frame_site;
    if (sites->prologue != gobin::PrologueKind::kNoCheck && sites->after_check) {
      // The JBE after the stack check: emulated, entry registers; drop the hit that
      // morestack will repeat.
      at = &*sites->after_check;
      s.kind = SiteKind::kAfterStackCheck;
      s.flags |= sites->prologue == gobin::PrologueKind::kSmallFrame ? GT_CALL_CHECK_MORESTACK
                                                                     : GT_CALL_CHECK_MORESTACK_R12;
      // The CMP is the instruction right before the JBE.
      uint64_t cmp_at = sites->prologue == gobin::PrologueKind::kSmallFrame ? sites->entry : at->vaddr - 4;
      if (ComparesStackguard1(bin.elf(), cmp_at)) s.flags |= GT_CALL_GUARD_STACKGUARD1;
    } else if (sites->entry_site.handling != gobin::UprobeHandling::kSingleStep &&
               sites->entry_site.handling != gobin::UprobeHandling::kRefused) {
      at = &sites->entry_site;  // PUSHQ BP of a nosplit function
      s.kind = SiteKind::kEntry;
    } else if (auto fr = FrameReadySite(bin.elf(), sites->entry)) {
      // Go 1.19 casgstatus: the NOP after the frame setup.
      frame_site.vaddr = *fr;
      frame_site.file_offset = bin.elf().VaddrToFileOffset(*fr).value_or(0);
      frame_site.text = fmt::format("nop/jcc at entry+{:#x} (frame set up)", *fr - sites->entry);
      at = &frame_site;
      s.kind = SiteKind::kEntry;
      s.flags |= GT_SITE_FRAME_READY;
    } else {
      at = &sites->entry_site;
      s.kind = SiteKind::kEntry;
      plan.notes.push_back(fmt::format("{}: no cheap probe site (entry is {}): single-stepped, ~12-20 us per hit",
                                       w.function, InsnText(sites->entry_site)));
    }
    s.vaddr = at->vaddr;
    s.file_offset = at->file_offset;
    s.insn = InsnText(*at);
    if (!s.file_offset) {
      auto off = bin.elf().VaddrToFileOffset(s.vaddr);
      if (!off) return gobin::Error{fmt::format("{}: address {:#x} is not backed by the file", w.function, s.vaddr)};
      s.file_offset = *off;
    }
    plan.sites.push_back(std::move(s));
  }
  // A P event like handoffp's steal (needed for syscalls with or without the GC probes),
  // hit once per P in a syscall per stop-the-world.
  if (opts.sched_probes && v.minor <= 25) AddStwStealSites(bin, layout, plan);  // stw_steal_site.cc
  if (opts.gc_probes) {
    AddGcSites(bin, plan);              // gc_sites.cc
    if (opts.sweep_probes) AddSweepSites(bin, layout, opts_eff.stacks, plan);  // sweep_sites.cc
  }
  if (opts.user_probes) AddUserSites(bin, layout, opts_eff.stacks, plan);  // user_sites.cc
  if (!opts.sched_probes) {
    if (opts.low_syscalls) {  // level low; else no syscall at all
      UseSyscallTracepointsOnly(bin, plan);  // syscall_sites.cc
      plan.syscall_min_ns = opts.syscall_min_ns;
      plan.syscall_sample = plan.syscall_pair && opts.syscall_sample && opts.syscall_min_ns > 0;
      if (plan.syscall_sample)
        plan.syscall_sample_period_ns = std::clamp<uint64_t>(opts.syscall_min_ns / 4, 250'000, 100'000'000);
      // A short syscall rarely leaves the CPU: without a threshold, the tracepoints.
      plan.syscall_switch = plan.syscall_pair && !plan.syscall_sample && opts.syscall_switch && opts.syscall_min_ns > 0;
    }
  } else if (opts.syscalls_from_tracepoints &&
           (v.minor >= 26 || (opts.uprobe_multi && opts.legacy_syscall_tracepoints)))
    UseSyscallTracepoints(bin, plan);  // syscall_sites.cc
  if (opts.sched_switch) UseKernelViewSyscalls(bin, plan);  // syscall_sites.cc
  return plan;
}

std::string DescribePlan(const ProbePlan &plan) {
  std::string out = fmt::format("probe plan {} ({} sites)\n", plan.name, plan.sites.size());
  for (const auto &s : plan.sites) {
    const char *kind = s.via_tracepoint                      ? "tracepoint"
                       : s.kind == SiteKind::kEntry           ? "entry"
                       : s.kind == SiteKind::kAfterStackCheck ? "after-check"
                       : s.kind == SiteKind::kCall            ? "call"
                                                              : "ret";
    out += fmt::format("  [{:2}] {:<18} {:<36} {:<11} vaddr={:#x} off={:#x} flags={:#x} insn={}{}\n", s.id,
                       ProbeRoleName(s.role), s.function, kind, s.vaddr, s.file_offset, s.flags, s.insn,
                       s.required ? "" : " (optional)");
  }
  out += fmt::format("  stack_prefers_syscall={} ready_traceskip_spilled={} tls_g_offset={}\n",
                     plan.stack_prefers_syscall, plan.ready_traceskip_spilled, plan.tls_g_offset);
  for (const auto &n : plan.notes) out += "  note: " + n + "\n";
  return out;
}

}  // namespace gotraced::probes
