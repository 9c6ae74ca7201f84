// Probe sites: on real binaries of every Go, RET sites lie inside the function and are
// RETs in the file at their uprobe offset; the site after the stack check is the
// emulated JLS at entry+4 (small frames); nosplit functions report their entry; and the
// decoder handles synthetic large/huge-frame prologues and the kernel's emulation rules.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "daemon/gobin/probe_sites.h"
#include "tests/unit/gobin-layout/targets.h"

namespace gotraced::gobin {
namespace {

std::vector<uint8_t> ReadFile(const std::string &p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

// Functions the probe plan uses that have an out-of-line copy in every version.
const char *const kFunctions[] = {"runtime.execute", "runtime.newproc1", "runtime.gopark", "runtime.ready",
                                  "runtime.park_m", "runtime.schedule", "runtime.casgstatus",
                                  "runtime.goexit1", "runtime.exitsyscall", "runtime.mstart1"};

class ProbeSitesTest : public ::testing::TestWithParam<std::string> {};

void CheckSites(const GoBinary &bin, const std::string &path) {
  const std::vector<uint8_t> file = ReadFile(path);
  ASSERT_FALSE(file.empty());
  for (const char *fn : kFunctions) {
    SCOPED_TRACE(fn);
    auto s = FindProbeSites(bin, fn);
    ASSERT_TRUE(s) << s.error();
    const FunctionSym *f = bin.FindFunction(fn);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(s->entry, f->entry);
    EXPECT_EQ(s->end, f->end);
    EXPECT_EQ(s->decode_errors, 0u);
    EXPECT_EQ(s->entry_site.vaddr, f->entry);
    // Every site's file offset holds the instruction's bytes.
    auto at_offset = [&](const InsnSite &site) {
      auto mem = bin.elf().ReadVirtual(site.vaddr, site.length);
      ASSERT_TRUE(mem);
      ASSERT_LE(site.file_offset + site.length, file.size());
      EXPECT_TRUE(std::equal(mem->begin(), mem->end(), file.begin() + site.file_offset)) << site.text;
    };
    at_offset(s->entry_site);
    at_offset(s->best);
    for (const auto &r : s->returns) {
      EXPECT_GE(r.vaddr, f->entry);
      EXPECT_LT(r.vaddr, f->end);
      EXPECT_EQ(r.kind, InsnKind::kRet);
      EXPECT_EQ(r.handling, UprobeHandling::kSingleStep);
      EXPECT_EQ(file[r.file_offset], 0xc3) << std::hex << r.vaddr;
      at_offset(r);
    }
    if (std::string(fn) != "runtime.goexit1" && std::string(fn) != "runtime.mstart1" &&
        std::string(fn) != "runtime.schedule") {
      EXPECT_FALSE(s->returns.empty());  // (those three never return normally)
    }
    if (s->prologue == PrologueKind::kNoCheck) {
      EXPECT_EQ(s->best.vaddr, f->entry);
    } else {
      ASSERT_TRUE(s->after_check);
      EXPECT_EQ(s->entry_site.kind, s->prologue == PrologueKind::kSmallFrame ? InsnKind::kStackCheck : s->entry_site.kind);
      EXPECT_EQ(s->best.kind, InsnKind::kJcc);
      EXPECT_EQ(s->best.handling, UprobeHandling::kEmulated);
      if (s->prologue == PrologueKind::kSmallFrame) {
        EXPECT_EQ(s->best.vaddr, f->entry + 4);
        EXPECT_EQ(s->guard_adjust, 0);
      } else {
        EXPECT_GT(s->guard_adjust, 0);
      }
    }
  }
}

TEST_P(ProbeSitesTest, PlainAndPie) {
  for (const char *mode : {"plain", "pie", "stripped", "pie-stripped"}) {
    SCOPED_TRACE(mode);
    GOBIN_OPEN_OR_SKIP(bin, GetParam(), mode);
    CheckSites(*bin, bin_path);
  }
}

TEST_P(ProbeSitesTest, KnownPrologues) {
  GOBIN_OPEN_OR_SKIP(bin, GetParam(), "plain");
  // execute/newproc1/gopark check the stack with a small frame on every version; the
  // JBE at entry+4 is the cheap site. casgstatus is nosplit (proc.go //go:nosplit).
  for (const char *fn : {"runtime.execute", "runtime.gopark"}) {
    auto s = FindProbeSites(*bin, fn);
    ASSERT_TRUE(s) << s.error();
    EXPECT_EQ(s->prologue, PrologueKind::kSmallFrame) << fn;
    EXPECT_EQ(s->entry_site.handling, UprobeHandling::kSingleStep) << fn;
  }
  // Called directly from many places on every version.
  for (const char *fn : {"runtime.casgstatus", "runtime.gopark", "runtime.ready"}) {
    auto s = FindProbeSites(*bin, fn);
    ASSERT_TRUE(s) << s.error();
    EXPECT_EQ(s->direct_calls, 0u) << fn << ": FindProbeSites does not scan the text";
    CountDirectCalls(*bin, *s);
    EXPECT_GE(s->direct_calls, 2u) << fn;
  }
  // goready is inlined into every caller from Go 1.21 on (no out-of-line copy): a probe
  // plan must use runtime.ready there.
  EXPECT_EQ(bin->FindFunction("runtime.goready") != nullptr, !bin->go_version().AtLeast(1, 21));
  auto cas = FindProbeSites(*bin, "runtime.casgstatus");
  ASSERT_TRUE(cas);
  EXPECT_EQ(cas->prologue, PrologueKind::kNoCheck);
  EXPECT_EQ(FindProbeSites(*bin, "runtime.noSuchFunction").ok(), false);
}

INSTANTIATE_TEST_SUITE_P(AllGo, ProbeSitesTest, ::testing::ValuesIn(testing::AllVersions()),
                         [](const auto &info) { return info.param.substr(2, 1) + "_" + info.param.substr(4); });

std::vector<uint8_t> Bytes(std::initializer_list<int> b) { return std::vector<uint8_t>(b.begin(), b.end()); }

TEST(ClassifyTest, KernelEmulationRules) {
  InsnKind k;
  EXPECT_EQ(ClassifyForUprobe(Bytes({0x0f, 0x86, 1, 2, 3, 4}), &k), UprobeHandling::kEmulated);
  EXPECT_EQ(k, InsnKind::kJcc);
  EXPECT_EQ(ClassifyForUprobe(Bytes({0x76, 0x10}), &k), UprobeHandling::kEmulated);
  EXPECT_EQ(ClassifyForUprobe(Bytes({0xe9, 0, 0, 0, 0}), &k), UprobeHandling::kEmulated);
  EXPECT_EQ(k, InsnKind::kJmp);
  EXPECT_EQ(ClassifyForUprobe(Bytes({0xe8, 0, 0, 0, 0}), &k), UprobeHandling::kEmulated);
  EXPECT_EQ(k, InsnKind::kCallRel);
  EXPECT_EQ(ClassifyForUprobe(Bytes({0x55}), &k), UprobeHandling::kEmulated);
  EXPECT_EQ(k, InsnKind::kPush);
  EXPECT_EQ(ClassifyForUprobe(Bytes({0x41, 0x56}), &k), UprobeHandling::kEmulated);  // push r14
  EXPECT_EQ(ClassifyForUprobe(Bytes({0x90}), &k), UprobeHandling::kEmulated);
  EXPECT_EQ(ClassifyForUprobe(Bytes({0xf3, 0x90}), &k), UprobeHandling::kSingleStep);  // pause
  EXPECT_EQ(ClassifyForUprobe(Bytes({0x0f, 0x1f, 0x44, 0, 0}), &k), UprobeHandling::kNop5Optimized);
  EXPECT_EQ(ClassifyForUprobe(Bytes({0x0f, 0x1f, 0x40, 0}), &k), UprobeHandling::kEmulated);
  EXPECT_EQ(k, InsnKind::kNop);
  EXPECT_EQ(ClassifyForUprobe(Bytes({0x66, 0xe8, 0, 0}), &k), UprobeHandling::kRefused);
  EXPECT_EQ(ClassifyForUprobe(Bytes({0xcc}), &k), UprobeHandling::kRefused);
  EXPECT_EQ(ClassifyForUprobe(Bytes({0xc3}), &k), UprobeHandling::kSingleStep);
  EXPECT_EQ(k, InsnKind::kRet);
  EXPECT_EQ(ClassifyForUprobe(Bytes({0x49, 0x3b, 0x66, 0x10}), &k), UprobeHandling::kSingleStep);  // CMPQ SP,16(R14)
  EXPECT_EQ(ClassifyForUprobe(Bytes({0x48, 0x89, 0xe5}), &k), UprobeHandling::kSingleStep);  // mov rbp, rsp
}

TEST(AnalyzeTest, LargeFramePrologue) {
  // LEAQ -0x100(SP), R12; CMPQ R12, 16(R14); JLS +0x20; PUSH RBP; RET
  auto code = Bytes({0x4c, 0x8d, 0xa4, 0x24, 0x00, 0xff, 0xff, 0xff, 0x4d, 0x3b, 0x66, 0x10, 0x0f, 0x86, 0x20, 0, 0,
                     0, 0x55, 0xc3});
  auto s = AnalyzeFunctionCode(code, 0x1000, nullptr);
  EXPECT_EQ(s.prologue, PrologueKind::kLargeFrame);
  EXPECT_EQ(s.guard_adjust, 0x100);
  ASSERT_TRUE(s.after_check);
  EXPECT_EQ(s.after_check->vaddr, 0x100cu);
  EXPECT_EQ(s.best.vaddr, 0x100cu);
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_EQ(s.returns[0].vaddr, 0x1013u);
}

TEST(AnalyzeTest, HugeFramePrologueAndTailJump) {
  // MOVQ SP, R12; SUBQ $0x2000, R12; JCS +0x30; CMPQ R12, 16(R14); JLS +0x20; JMP -0x2000 (out)
  auto code = Bytes({0x49, 0x89, 0xe4, 0x49, 0x81, 0xec, 0x00, 0x20, 0, 0, 0x72, 0x30, 0x4d, 0x3b, 0x66, 0x10, 0x76,
                     0x20, 0xe9, 0x00, 0xe0, 0xff, 0xff});
  auto s = AnalyzeFunctionCode(code, 0x4000, nullptr);
  EXPECT_EQ(s.prologue, PrologueKind::kHugeFrame);
  EXPECT_EQ(s.guard_adjust, 0x2000);
  ASSERT_TRUE(s.after_check);
  EXPECT_EQ(s.after_check->vaddr, 0x4010u);
  ASSERT_EQ(s.tail_jumps.size(), 1u);
  EXPECT_EQ(s.tail_jumps[0].vaddr, 0x4012u);
}

TEST(AnalyzeTest, NosplitPushEntryAndGarbage) {
  auto s = AnalyzeFunctionCode(Bytes({0x55, 0x48, 0x89, 0xe5, 0x5d, 0xc3}), 0x2000, nullptr);
  EXPECT_EQ(s.prologue, PrologueKind::kNoCheck);
  EXPECT_EQ(s.best.vaddr, 0x2000u);
  EXPECT_EQ(s.best.handling, UprobeHandling::kEmulated);
  // Undecodable bytes are skipped and counted, never read past the span.
  auto g = AnalyzeFunctionCode(Bytes({0x0f, 0x0b, 0xff, 0xff}), 0x3000, nullptr);
  EXPECT_EQ(g.end, 0x3004u);
  EXPECT_TRUE(AnalyzeFunctionCode({}, 0x5000, nullptr).returns.empty());
}

}  // namespace
}  // namespace gotraced::gobin
