// A program's call graph from its instructions (libbpf's, and the kernel's dump after
// JIT) and the deepest chain's stack as check_max_stack_depth counts it on Linux 6.1.
#include <linux/bpf.h>

#include <gtest/gtest.h>

#include "daemon/capture/prog_stack.h"

namespace gotraced::capture {
namespace {

bpf_insn Mov0() {
  bpf_insn i{};
  i.code = BPF_ALU64 | BPF_MOV | BPF_K;
  return i;
}
bpf_insn Exit() {
  bpf_insn i{};
  i.code = BPF_JMP | BPF_EXIT;
  return i;
}
// A bpf-to-bpf call at `at` to instruction `to`: libbpf keeps the relative offset in imm,
// the kernel's dump after JIT in off (and the callee's index in imm).
bpf_insn Call(int at, int to, bool kernel_dump, int32_t callee_index = 0) {
  bpf_insn i{};
  i.code = BPF_JMP | BPF_CALL;
  i.src_reg = BPF_PSEUDO_CALL;
  if (kernel_dump) {
    i.off = int16_t(to - at - 1);
    i.imm = callee_index;
  } else {
    i.imm = to - at - 1;
  }
  return i;
}
// A callback reference (bpf_loop's callback): ld_imm64 with BPF_PSEUDO_FUNC.
void FuncRef(std::vector<bpf_insn> &v, int to) {
  bpf_insn a{}, b{};
  a.code = BPF_LD | BPF_IMM | BPF_DW;
  a.src_reg = BPF_PSEUDO_FUNC;
  a.dst_reg = 2;
  a.imm = to - int(v.size()) - 1;
  v.push_back(a);
  v.push_back(b);
}

// main: calls A (insn 6) and passes B (insn 8) to bpf_loop; A calls C (insn 10).
//   0 call A   1 ld_imm64 B (2 slots)   3 mov   4 mov   5 exit
//   6 call C   7 exit   8 mov   9 exit   10 mov   11 exit
std::vector<bpf_insn> Program(bool kernel_dump) {
  std::vector<bpf_insn> v;
  v.push_back(Call(0, 6, kernel_dump, 1));
  FuncRef(v, 8);
  v.push_back(Mov0());
  v.push_back(Mov0());
  v.push_back(Exit());
  v.push_back(Call(6, 10, kernel_dump, 3));
  v.push_back(Exit());
  v.push_back(Mov0());
  v.push_back(Exit());
  v.push_back(Mov0());
  v.push_back(Exit());
  return v;
}

TEST(ProgStack, GraphFromLibbpfInstructionsFindsTheSubprogs) {
  auto insns = Program(false);
  std::string why;
  auto g = GraphFromInsns(insns.data(), insns.size(), InsnSource::kLibbpf, {}, &why);
  ASSERT_TRUE(g) << why;
  ASSERT_EQ(g->callees.size(), 4u);  // main, A, B, C in instruction order
  EXPECT_EQ(g->callees[0], (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(g->callees[1], (std::vector<uint32_t>{3}));
  EXPECT_TRUE(g->callees[2].empty());
  EXPECT_TRUE(g->callees[3].empty());
}

TEST(ProgStack, GraphFromKernelDumpUsesOffAndTheGivenStarts) {
  auto insns = Program(true);
  std::string why;
  auto g = GraphFromInsns(insns.data(), insns.size(), InsnSource::kKernelDump, {0, 6, 8, 10}, &why);
  ASSERT_TRUE(g) << why;
  EXPECT_EQ(g->callees[0], (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(g->callees[1], (std::vector<uint32_t>{3}));
  // A call that leads nowhere a subprog starts is an error, not a guess.
  EXPECT_FALSE(GraphFromInsns(insns.data(), insns.size(), InsnSource::kKernelDump, {0, 7, 8, 10}, &why));
  EXPECT_FALSE(why.empty());
}

TEST(ProgStack, RoundedFrameIsLinux61s) {
  EXPECT_EQ(RoundedFrame(0), 32u);  // round_up(max(depth, 1), 32)
  EXPECT_EQ(RoundedFrame(1), 32u);
  EXPECT_EQ(RoundedFrame(32), 32u);
  EXPECT_EQ(RoundedFrame(33), 64u);
  EXPECT_EQ(RoundedFrame(408), 416u);
}

TEST(ProgStack, DeepestChainIsNotTheSumOfSiblings) {
  SubprogGraph g;
  g.callees = {{1, 2}, {3}, {}, {}};
  // main 8, A 100, B 300 (a sibling of A), C 50 below A.
  std::vector<uint32_t> depths = {8, 100, 300, 50};
  std::vector<uint32_t> chain;
  // main+B = 32+320 = 352 beats main+A+C = 32+128+64 = 224.
  EXPECT_EQ(DeepestChainStack(depths, g, &chain), 352u);
  EXPECT_EQ(chain, (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(AllFramesStack(depths), 32u + 128u + 320u + 64u);
  depths = {8, 300, 100, 50};
  EXPECT_EQ(DeepestChainStack(depths, g, &chain), 32u + 320u + 64u);
  EXPECT_EQ(chain, (std::vector<uint32_t>{0, 1, 3}));
}

TEST(ProgStack, CyclesAndMissingEdgesDoNotLoop) {
  SubprogGraph g;
  g.callees = {{1}, {0, 7}};  // a cycle (the verifier refuses it) and a subprog that is not there
  std::vector<uint32_t> chain;
  EXPECT_EQ(DeepestChainStack({16, 16}, g, &chain), 64u);
  EXPECT_EQ(chain, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(DeepestChainStack({}, g), 0u);
}

}  // namespace
}  // namespace gotraced::capture
