// Probe plan selection on real binaries of every Go toolchain on the machine, in the
// link modes gobin handles (plain, stripped, PIE, PIE+stripped): built by
// tests/gobin-layouts/build_targets.sh (shared with gobin's tests).
#include <gtest/gtest.h>

#include <set>

#include "daemon/capture/bpf_config_fill.h"
#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/layout_resolver.h"
#include "daemon/gobin/runtime_layout.h"
#include "daemon/probes/probe_plan.h"
#include "tests/unit/gobin-layout/targets.h"

namespace gotraced::probes {
namespace {

struct Case {
  std::string version, mode;
};
void PrintTo(const Case &c, std::ostream *os) { *os << c.version << "/" << c.mode; }

std::vector<Case> Cases() {
  std::vector<Case> out;
  for (const auto &v : gobin::testing::AllVersions())
    for (const char *m : {"plain", "stripped", "pie", "pie-stripped"}) out.push_back({v, m});
  return out;
}

class PlanTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    std::string why;
    bin_ = gobin::testing::OpenTarget(GetParam().version, GetParam().mode, &why);
    if (!bin_) GTEST_SKIP() << why;
    auto layout = gobin::ResolveRuntimeLayout(bin_->elf(), bin_->go_version());
    ASSERT_TRUE(layout.ok()) << layout.error();
    layout_ = *layout;
    auto plan = PlanFor(*bin_, layout_);
    ASSERT_TRUE(plan.ok()) << plan.error();
    plan_ = *plan;
  }
  const ProbeSite *Role(ProbeRole r) const {
    for (const auto &s : plan_.sites)
      if (s.role == r) return &s;
    return nullptr;
  }
  std::vector<uint8_t> Bytes(uint64_t vaddr, size_t n) const {
    auto b = bin_->elf().ReadVirtual(vaddr, n);
    return b ? std::vector<uint8_t>(b->begin(), b->end()) : std::vector<uint8_t>{};
  }
  std::unique_ptr<gobin::GoBinary> bin_;
  gobin::RuntimeLayout layout_;
  ProbePlan plan_;
};

// The instruction at every site is one the kernel emulates (perf-anchors: ~1 us), never
// a single-stepped one (12-20 us).
TEST_P(PlanTest, EverySiteIsEmulated) {
  for (const auto &s : plan_.sites) {
    auto b = Bytes(s.vaddr, 2);
    ASSERT_EQ(b.size(), 2u) << s.function;
    bool push_bp = b[0] == 0x55;
    bool nop = b[0] == 0x90;
    bool jcc = (b[0] >= 0x70 && b[0] <= 0x7f) || (b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f);
    bool call = s.kind == SiteKind::kCall && b[0] == 0xe8;  // CALL rel32: emulated
    EXPECT_TRUE(push_bp || nop || jcc || call) << s.function << " probed at " << s.insn;
    if (s.kind == SiteKind::kAfterStackCheck) {
      EXPECT_TRUE(b[0] == 0x76 || (b[0] == 0x0f && b[1] == 0x86)) << s.function << ": expected JBE, got " << s.insn;
      EXPECT_TRUE(s.flags & (GT_CALL_CHECK_MORESTACK | GT_CALL_CHECK_MORESTACK_R12)) << s.function;
    }
    auto off = bin_->elf().VaddrToFileOffset(s.vaddr);
    ASSERT_TRUE(off.has_value());
    EXPECT_EQ(s.file_offset, *off) << s.function;
    EXPECT_EQ(s.id, &s - plan_.sites.data());
  }
  for (const auto &n : plan_.notes) EXPECT_EQ(n.find("single-stepped"), std::string::npos) << n;
}

TEST_P(PlanTest, SitesPerVersion) {
  const int minor = plan_.go_minor;
  const ProbeSite *cas = Role(ProbeRole::kCasgstatus);
  ASSERT_NE(cas, nullptr);
  EXPECT_EQ(cas->kind, SiteKind::kEntry);
  if (minor == 19) {
    EXPECT_TRUE(cas->flags & GT_SITE_FRAME_READY) << "1.19 casgstatus has no PUSHQ BP: the NOP after its frame";
  } else {
    EXPECT_EQ(cas->flags, 0u);
    EXPECT_EQ(cas->vaddr, bin_->FindFunction("runtime.casgstatus")->entry);
  }
  EXPECT_NE(Role(ProbeRole::kAcquireP), nullptr);
  EXPECT_NE(Role(ProbeRole::kReleaseP), nullptr);
  // 1.26 entersyscall/exitsyscall bypass casgstatus with their own CAS.
  EXPECT_EQ(Role(ProbeRole::kEnterSyscall) != nullptr, minor >= 26);
  EXPECT_EQ(Role(ProbeRole::kExitSyscall) != nullptr, minor >= 26);
  EXPECT_EQ(Role(ProbeRole::kHandoffP) != nullptr, minor <= 25);
  EXPECT_EQ(Role(ProbeRole::kAcquireP)->function, minor >= 26 ? "runtime.acquirepNoTrace" : "runtime.acquirep");
  // //go:systemstack functions compare with stackguard1 (proc.go marks
  // stopTheWorldWithSema //go:systemstack from 1.25 on, not in 1.23/1.24).
  ASSERT_NE(Role(ProbeRole::kPreemptPark), nullptr);
  EXPECT_TRUE(Role(ProbeRole::kPreemptPark)->flags & GT_CALL_GUARD_STACKGUARD1);
  ASSERT_NE(Role(ProbeRole::kSTWStart), nullptr);
  EXPECT_EQ((Role(ProbeRole::kSTWStart)->flags & GT_CALL_GUARD_STACKGUARD1) != 0, minor >= 25);
  EXPECT_FALSE(Role(ProbeRole::kAcquireP)->flags & GT_CALL_GUARD_STACKGUARD1);
  EXPECT_TRUE(Role(ProbeRole::kAcquireP)->flags & GT_CALL_ARG0_P);
  EXPECT_TRUE(Role(ProbeRole::kPreemptPark)->flags & GT_CALL_ARG0_G);
  EXPECT_EQ(plan_.ready_traceskip_spilled, minor >= 22);
  EXPECT_EQ(plan_.stack_prefers_syscall, minor >= 23);
}

TEST_P(PlanTest, OffsetsAndStackMasks) {
  const BpfOffsets &o = plan_.offsets;
  for (int32_t v : {o.g_m, o.g_goid, o.g_sched_pc, o.g_sched_sp, o.g_sched_bp, o.g_syscallsp, o.g_syscallpc,
                    o.g_waitreason, o.g_startpc, o.g_gopc, o.m_curg, o.m_p, o.m_id, o.m_syscalltick, o.p_id,
                    o.p_status, o.p_syscalltick, o.p_goidcache, o.m_wait_trace_block_reason, o.m_wait_trace_skip})
    EXPECT_GE(v, 0);
  EXPECT_EQ(o.g_stackguard0, 16) << "the prologue's CMPQ SP, 16(R14)";
  EXPECT_EQ(o.g_syscallbp >= 0, plan_.go_minor >= 23);
  EXPECT_EQ(o.g_parent_goid >= 0, plan_.go_minor >= 21);
  // CPU samples outside Go code (bpf/gotrace_cpu.bpf.h cpu_ext_start): m.vdsoSP/vdsoPC
  // (adjacent in runtime2.go), m.ncgo, and g's TLS slot from the code, stripped or not
  // (these targets are linked by Go's linker: -8, runtime.tlsg).
  EXPECT_GE(o.m_ncgo, 0);
  EXPECT_GE(o.m_vdso_sp, 0);
  EXPECT_EQ(o.m_vdso_pc, o.m_vdso_sp + 8);
  EXPECT_EQ(plan_.tls_g_offset, -8);
  auto bit = [&](uint32_t o, uint32_t n) { return (plan_.stack_for_old[o] >> n) & 1; };
  using namespace gobin;
  EXPECT_TRUE(bit(kGdead, kGrunnable));      // GoCreate
  EXPECT_TRUE(bit(kGrunning, kGwaiting));    // GoBlock
  EXPECT_TRUE(bit(kGwaiting, kGrunnable));   // GoUnblock
  EXPECT_TRUE(bit(kGrunning, kGrunnable));   // GoStop
  EXPECT_TRUE(bit(kGrunning, kGsyscall));    // GoSyscallBegin
  EXPECT_FALSE(bit(kGrunnable, kGrunning));  // GoStart has no stack
  EXPECT_FALSE(bit(kGrunning, kGdead));      // GoDestroy neither
}

// Sweeps (sweep_sites.cc): on every version and flavour the brackets' tracer tests are
// found (deductSweepCredit 1+1, cacheSpan 1+2, reclaim 1+1, reclaimChunk's span 1), plus
// (*sweepLocked).sweep with the span deref; --no-gc drops them (NoStacksOption).
TEST_P(PlanTest, SweepSites) {
  int n[4] = {0, 0, 0, 0};
  for (const auto &s : plan_.sites) {
    if (s.role == ProbeRole::kGCSweepStart) {
      n[0]++;
      EXPECT_EQ(s.flags, uint32_t{GT_CALL_SWEEP_OPEN});
    }
    if (s.role == ProbeRole::kGCSweepSpan) {
      n[1]++;
      EXPECT_TRUE(s.flags & GT_CALL_SPAN_REGS);
      EXPECT_TRUE(s.flags & GT_CALL_SWEEP_IN);
      // mgcsweep.go sweep: the span and nfreed are in DX and CX at the reclaimed test in
      // every supported version and flavour (one register each, not the same one).
      const uint32_t span_reg = (s.cookie_hi >> (GT_SPAN_REG_COOKIE_SHIFT - 32)) & 15;
      const uint32_t nfreed_reg = (s.cookie_hi >> (GT_NFREED_REG_COOKIE_SHIFT - 32)) & 15;
      EXPECT_EQ(span_reg, uint32_t{GT_REG_DX});
      EXPECT_EQ(nfreed_reg, uint32_t{GT_REG_CX});
      // GCSweepBegin's stack: walked at the span site, after a prefix of two return
      // addresses (in traceLocker.GCSweepSpan, 1.19/1.21 traceGCSweepSpan; in sweep).
      EXPECT_TRUE(s.flags & GT_CALL_STACK);
    }
    if (s.role == ProbeRole::kGCSweepDone) {
      n[2]++;
      EXPECT_EQ(s.flags, uint32_t{GT_CALL_SWEEP_CLOSE});
    }
    if (s.role == ProbeRole::kGCSweepChunk) {
      n[3]++;
      EXPECT_EQ(s.flags, uint32_t{GT_CALL_SWEEP_IN} | uint32_t{GT_CALL_STACK});
    }
  }
  for (const auto &note : plan_.notes) EXPECT_EQ(note.find("sweeps not recorded"), std::string::npos) << note;
  EXPECT_EQ(n[0], 3);
  EXPECT_EQ(n[1], 1);
  EXPECT_EQ(n[2], 4);
  EXPECT_EQ(n[3], 1);
  ASSERT_EQ(plan_.sweep_begin_prefix.size(), 2u);
  // 1.22+: skip 1, the inlined traceLocker.stack; 1.19/1.21: traceGCSweepSpan's call of
  // traceEvent is in its own frame.
  EXPECT_EQ(plan_.sweep_begin_skip, plan_.go_minor >= 22 ? 1u : 0u);
  for (uint64_t pc : plan_.sweep_begin_prefix) EXPECT_NE(pc, 0u);
  EXPECT_GE(plan_.offsets.span_npages, 0);
  EXPECT_GE(plan_.offsets.span_elemsize, 0);
}

// STWEnd where the runtime writes STWDone: startTheWorldWithSema's only CALL of wakep,
// after the world restarted (gc_sites.cc), in every version.
TEST_P(PlanTest, StwDoneAtTheCallOfWakep) {
  const ProbeSite *s = Role(ProbeRole::kSTWDone);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->kind, SiteKind::kCall) << s->insn;
  auto b = Bytes(s->vaddr, 5);
  ASSERT_EQ(b.size(), 5u);
  ASSERT_EQ(b[0], 0xe8);
  const int32_t rel = int32_t(uint32_t(b[1]) | uint32_t(b[2]) << 8 | uint32_t(b[3]) << 16 | uint32_t(b[4]) << 24);
  EXPECT_EQ(s->vaddr + 5 + int64_t(rel), bin_->FindFunction("runtime.wakep")->entry);
  const gobin::FunctionSym *f = bin_->FindFunction("runtime.startTheWorldWithSema");
  ASSERT_NE(f, nullptr);
  EXPECT_GT(s->vaddr, f->entry);
  EXPECT_LT(s->vaddr, f->end);
  EXPECT_FALSE(s->flags & (GT_CALL_CHECK_MORESTACK | GT_CALL_CHECK_MORESTACK_R12));
  EXPECT_TRUE(s->flags & GT_SITE_AT_CALL);
}

// Go <= 1.25: the stop-the-world's steals of Ps in syscalls, at the Jcc of the tracer test
// right after the CAS _Psyscall -> _Pgcstop of stopTheWorldWithSema and of
// entersyscall_gcwait (stw_steal_site.cc), the P in the CAS's base register; 1.26+ steal
// through syscallingThread.releaseP (probed): no such site.
TEST_P(PlanTest, StwStealsAfterTheCas) {
  std::vector<const ProbeSite *> sites;
  for (const auto &s : plan_.sites)
    if (s.role == ProbeRole::kSTWSyscallSteal || s.role == ProbeRole::kEnterSyscallGCStop) sites.push_back(&s);
  if (plan_.go_minor >= 26) {
    EXPECT_TRUE(sites.empty());
    return;
  }
  ASSERT_EQ(sites.size(), 2u);
  EXPECT_EQ(sites[0]->function, "runtime.stopTheWorldWithSema");
  EXPECT_EQ(sites[0]->role, ProbeRole::kSTWSyscallSteal);
  EXPECT_EQ(sites[1]->function, "runtime.entersyscall_gcwait");
  EXPECT_EQ(sites[1]->role, ProbeRole::kEnterSyscallGCStop);
  for (const ProbeSite *s : sites) {
    const gobin::FunctionSym *f = bin_->FindFunction(s->function);
    ASSERT_NE(f, nullptr);
    EXPECT_GT(s->vaddr, f->entry);
    EXPECT_LT(s->vaddr, f->end);
    EXPECT_EQ(s->flags, uint32_t(GT_CALL_ARG0_P | GT_SITE_FRAME_READY));
    const uint32_t reg = (s->cookie_hi >> (GT_ARG0_REG_COOKIE_SHIFT - 32)) & 15;
    EXPECT_NE(reg, uint32_t(GT_REG_NONE));
    // A short Jcc (7x rel8); on stopTheWorldWithSema its target is `INCL syscalltick(P)`
    // (REX.B 41 when P is R8-R15).
    auto b = Bytes(s->vaddr, 2);
    ASSERT_EQ(b.size(), 2u);
    ASSERT_TRUE(b[0] >= 0x70 && b[0] <= 0x7f) << s->insn;
    if (s != sites[0]) continue;
    auto inc = Bytes(s->vaddr + 2 + int8_t(b[1]), 4);
    ASSERT_EQ(inc.size(), 4u);
    const bool rex = inc[0] == 0x41;
    EXPECT_EQ(inc[rex ? 1 : 0], 0xff);
    EXPECT_EQ(inc[rex ? 3 : 2], uint8_t(layout_.p.syscalltick.offset)) << s->insn;
    EXPECT_EQ(rex, reg >= GT_REG_R8) << s->insn;
  }
  PlanOptions low;
  low.sched_probes = false;
  auto plan = PlanFor(*bin_, layout_, low);
  ASSERT_TRUE(plan.ok());
  for (const auto &t : plan->sites) {
    EXPECT_NE(t.role, ProbeRole::kSTWSyscallSteal);
    EXPECT_NE(t.role, ProbeRole::kEnterSyscallGCStop);
  }
}

// Go <= 1.21: GCMarkAssistStart's stack starts at gcAssistAlloc's call of traceEvent,
// whose logical frames are [traceGCMarkAssistStart (inlined), gcAssistAlloc] (gc_sites.cc).
TEST_P(PlanTest, LegacyMarkAssistBeginPc) {
  if (plan_.go_minor >= 22) {
    EXPECT_EQ(plan_.assist_begin_pc, 0u);
    return;
  }
  ASSERT_NE(plan_.assist_begin_pc, 0u);
  std::vector<gobin::Frame> frames = bin_->FramesForPC(plan_.assist_begin_pc, gobin::PcKind::kReturnAddress);
  ASSERT_GE(frames.size(), 2u);
  EXPECT_EQ(frames[0].function, "runtime.traceGCMarkAssistStart");
  EXPECT_EQ(frames[1].function, "runtime.gcAssistAlloc");
}

// --no-sweeps: the other GC sites stay, the sweep sites go.
TEST_P(PlanTest, NoSweepsOption) {
  PlanOptions opts;
  opts.sweep_probes = false;
  auto plan = PlanFor(*bin_, layout_, opts);
  ASSERT_TRUE(plan.ok());
  bool gc_start = false;
  for (const auto &s : plan->sites) {
    gc_start = gc_start || s.role == ProbeRole::kGCStart;
    EXPECT_NE(s.role, ProbeRole::kGCSweepSpan);
    EXPECT_NE(s.role, ProbeRole::kGCSweepStart);
  }
  EXPECT_TRUE(gc_start);
  EXPECT_EQ(plan->sites.size() + 9, plan_.sites.size());
}

TEST_P(PlanTest, NoStacksOption) {
  PlanOptions opts;
  opts.stacks = false;
  opts.gc_probes = false;
  auto plan = PlanFor(*bin_, layout_, opts);
  ASSERT_TRUE(plan.ok());
  for (auto m : plan->stack_for_old) EXPECT_EQ(m, 0);
  for (const auto &s : plan->sites) {
    EXPECT_FALSE(s.flags & GT_CALL_STACK) << s.function;
    EXPECT_NE(s.role, ProbeRole::kGCStart);
    EXPECT_NE(s.role, ProbeRole::kGCSweepSpan);
    EXPECT_NE(s.role, ProbeRole::kGCSweepDone);
  }
  EXPECT_LT(plan->sites.size(), plan_.sites.size());
}

// Go 1.26+: the syscall sites are written by the sys_enter/sys_exit tracepoints (no
// uprobe), and the runtime's own calls of entersyscall/exitsyscall around C code and the
// futex sleep are probed at their CALL instructions (syscall_sites.h).
TEST_P(PlanTest, SyscallTracepoints) {
  if (plan_.go_minor < 26) {
    // Without uprobe multi links (the default here), Go <= 1.25 keeps casgstatus' entry.
    EXPECT_FALSE(plan_.syscall_tp);
    for (const auto &s : plan_.sites) EXPECT_FALSE(s.via_tracepoint) << s.function;
    // With them: casgstatus at its call sites, none in reentersyscall / exitsyscall /
    // newstack, its entry site turned into the sys_enter one.
    PlanOptions multi;
    multi.uprobe_multi = true;
    multi.legacy_syscall_tracepoints = true;
    auto plan = PlanFor(*bin_, layout_, multi);
    ASSERT_TRUE(plan.ok());
    ASSERT_TRUE(plan->syscall_tp);
    int cas_calls = 0, via = 0;
    for (const auto &s : plan->sites) {
      EXPECT_EQ(s.id, &s - plan->sites.data());
      via += s.via_tracepoint;
      if (s.role != ProbeRole::kCasgstatus) continue;
      EXPECT_EQ(s.kind, SiteKind::kCall) << s.function;
      EXPECT_EQ(Bytes(s.vaddr, 1), std::vector<uint8_t>{0xe8}) << s.insn;
      EXPECT_NE(s.function, "runtime.reentersyscall");
      EXPECT_NE(s.function, "runtime.exitsyscall");
      EXPECT_NE(s.function, "runtime.newstack");
      ++cas_calls;
    }
    EXPECT_EQ(via, 2);
    EXPECT_GE(cas_calls, 20);
    EXPECT_EQ(plan->sites[0].role, ProbeRole::kEnterSyscall);
    return;
  }
  ASSERT_TRUE(plan_.syscall_tp);
  int via = 0, calls = 0;
  for (const auto &s : plan_.sites) {
    if (s.via_tracepoint) {
      ++via;
      EXPECT_TRUE(s.role == ProbeRole::kEnterSyscall || s.role == ProbeRole::kExitSyscall) << s.function;
    }
    if (s.kind == SiteKind::kCall) {
      ++calls;
      EXPECT_TRUE(s.flags & GT_SITE_AT_CALL) << s.function;
      EXPECT_EQ(Bytes(s.vaddr, 1), std::vector<uint8_t>{0xe8}) << s.insn;
      EXPECT_EQ((s.flags & GT_CALL_STACK) != 0, s.role == ProbeRole::kEnterSyscall) << s.insn;
    }
  }
  EXPECT_EQ(via, 2);
  // cgocall (enter + exit) and notetsleepg (exit) are in every binary; cgocallbackg
  // (exit + reenter) with cgo.
  EXPECT_GE(calls, 3);
  EXPECT_LT(plan_.go_text.lo, plan_.sys_skip.lo);
  EXPECT_LT(plan_.sys_skip.hi, plan_.go_text.hi);
  // runtime.usleep and runtime.osyield are skipped too: inside Go text, apart from futex.
  for (const auto &r : plan_.sys_skip_more) {
    EXPECT_LT(plan_.go_text.lo, r.lo);
    EXPECT_LT(r.lo, r.hi);
    EXPECT_LE(r.hi, plan_.go_text.hi);
    EXPECT_TRUE(r.hi <= plan_.sys_skip.lo || r.lo >= plan_.sys_skip.hi);
  }
  EXPECT_EQ(plan_.sys_skip_more[0].lo, bin_->FindFunction("runtime.usleep")->entry);
  PlanOptions off;
  off.syscalls_from_tracepoints = false;
  auto plan = PlanFor(*bin_, layout_, off);
  ASSERT_TRUE(plan.ok());
  EXPECT_FALSE(plan->syscall_tp);
  for (const auto &s : plan->sites)  // (STWEnd is at a CALL whatever the syscall path: gc_sites.cc)
    EXPECT_FALSE(s.via_tracepoint || (s.kind == SiteKind::kCall && s.role != ProbeRole::kSTWDone)) << s.function;
}

// The BPF side's P id cache (proto/bpf_config.h p_id_cache) is safe only while the
// procresize site empties it: on with that site, named by its probe id; off without it.
TEST_P(PlanTest, PIdCacheOnlyWithProcresize) {
  const ProbeSite *resize = Role(ProbeRole::kProcResize);
  ASSERT_NE(resize, nullptr);
  gt_bpf_config c{};
  capture::FillConfig(plan_, 1234, &c);
  EXPECT_EQ(c.p_id_cache, 1);
  EXPECT_EQ(c.procresize_probe_id, resize->id);
  ProbePlan without = plan_;
  std::erase_if(without.sites, [](const ProbeSite &s) { return s.role == ProbeRole::kProcResize; });
  gt_bpf_config d{};
  capture::FillConfig(without, 1234, &d);
  EXPECT_EQ(d.p_id_cache, 0);
}

INSTANTIATE_TEST_SUITE_P(AllGo, PlanTest, ::testing::ValuesIn(Cases()), [](const auto &i) {
  std::string n = i.param.version + "_" + i.param.mode;
  for (char &c : n)
    if (c == '.' || c == '-') c = '_';
  return n;
});

TEST(ProbeRole, NamesAreDistinct) {
  // Values are grouped by owner (user annotations 30..39): gaps are named "?".
  std::set<std::string_view> names;
  size_t named = 0;
  for (int i = 0; i < int(ProbeRole::kCount); i++) {
    if (ProbeRoleName(ProbeRole(i)) == "?") continue;
    ++named;
    names.insert(ProbeRoleName(ProbeRole(i)));
  }
  EXPECT_EQ(names.size(), named);
  EXPECT_GE(named, size_t(14));
  EXPECT_EQ(ProbeRoleName(ProbeRole::kCount), "?");
}

TEST(Cookie, IdAndFlags) {
  ProbeSite s;
  s.id = 7;
  s.flags = GT_CALL_STACK | GT_CALL_CHECK_MORESTACK;
  EXPECT_EQ(CookieFor(s), 7u | (uint64_t(GT_CALL_STACK | GT_CALL_CHECK_MORESTACK) << 16));
}

}  // namespace
}  // namespace gotraced::probes
