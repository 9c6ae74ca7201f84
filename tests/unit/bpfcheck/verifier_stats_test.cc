// ParseVerifierStats against logs in the shape kernel/bpf/verifier.c
// print_verification_stats() writes them (the accepted ones as Linux 6.18 printed them
// here for gotrace's programs).
#include <gtest/gtest.h>

#include "daemon/capture/verifier_stats.h"

namespace gotraced::capture {
namespace {

TEST(VerifierStats, AcceptedProgramAtStatsLevel) {
  const char *log =
      "verification time 9912 usec\n"
      "stack depth 8+48+56+16+40+0+24+24\n"
      "processed 11601 insns (limit 1000000) max_states_per_insn 4 total_states 713 peak_states 402 mark_read 57\n";
  VerifierStats st = ParseVerifierStats(log);
  ASSERT_TRUE(st.processed_insns);
  EXPECT_EQ(*st.processed_insns, 11601u);
  EXPECT_EQ(st.insn_limit, 1000000u);
  EXPECT_EQ(st.max_states_per_insn, 4u);
  EXPECT_EQ(st.total_states, 713u);
  EXPECT_EQ(st.peak_states, 402u);
  EXPECT_EQ(st.mark_read, 57u);
  EXPECT_EQ(st.subprog_depths, (std::vector<uint32_t>{8, 48, 56, 16, 40, 0, 24, 24}));
  ASSERT_TRUE(st.verification_usec);
  EXPECT_EQ(*st.verification_usec, 9912u);
  EXPECT_EQ(st.MaxSubprogDepth(), 56u);
  EXPECT_EQ(st.SumOfDepths(), 216u);
  EXPECT_NEAR(st.PercentOfLimit(), 1.1601, 1e-9);
  EXPECT_FALSE(st.too_large_combined);
}

TEST(VerifierStats, OneSubprogAndZeroDepth) {
  VerifierStats st = ParseVerifierStats("verification time 31 usec\nstack depth 0\nprocessed 31 insns (limit 1000000) "
                                        "max_states_per_insn 0 total_states 2 peak_states 2 mark_read 1\n");
  EXPECT_EQ(st.subprog_depths, (std::vector<uint32_t>{0}));
  EXPECT_EQ(st.MaxSubprogDepth(), 0u);
}

// A refusal at the instruction limit still prints the figures (bpf_check prints the
// stats after do_check returns either way).
TEST(VerifierStats, RefusedAtTheInstructionLimit) {
  const char *log =
      "BPF program is too large. Processed 1000001 insn\n"
      "verification time 4211790 usec\n"
      "stack depth 408+16+0\n"
      "processed 1000001 insns (limit 1000000) max_states_per_insn 43 total_states 61502 peak_states 4466 mark_read 36\n";
  VerifierStats st = ParseVerifierStats(log);
  EXPECT_EQ(*st.processed_insns, 1000001u);
  EXPECT_GT(st.PercentOfLimit(), 100.0);
  EXPECT_EQ(st.MaxSubprogDepth(), 408u);
}

TEST(VerifierStats, CombinedStackTooLarge) {
  const char *log =
      "combined stack size of 2 calls is 640. Too large\n"
      "verification time 2412 usec\n"
      "stack depth 136+504\n"
      "processed 435 insns (limit 1000000) max_states_per_insn 0 total_states 29 peak_states 29 mark_read 0\n";
  VerifierStats st = ParseVerifierStats(log);
  ASSERT_TRUE(st.too_large_combined);
  EXPECT_EQ(*st.too_large_combined, 640u);
  EXPECT_EQ(st.too_large_calls, 2u);
  EXPECT_EQ(st.SumOfDepths(), 640u);
}

// A level-1 log: the instruction trace before the stats, source lines starting with ';'
// and register states that mention "stack" must not be taken for the stats.
TEST(VerifierStats, InstructionTraceIsIgnored) {
  const char *log =
      "func#0 @0\n"
      "0: R1=ctx() R10=fp0\n"
      "; if (x) { @ stack depth.c:12\n"
      "3845: (79) r2 = *(u64 *)(r2 +0)\n"
      "dereference of modified ctx ptr R2 off=40 disallowed\n"
      "processed 435 insns (limit 1000000) max_states_per_insn 0 total_states 29 peak_states 29 mark_read 0\n";
  VerifierStats st = ParseVerifierStats(log);
  EXPECT_EQ(*st.processed_insns, 435u);
  EXPECT_TRUE(st.subprog_depths.empty());
  EXPECT_FALSE(st.verification_usec);
  EXPECT_EQ(st.MaxSubprogDepth(), 0u);
}

TEST(VerifierStats, EmptyAndTruncatedLogs) {
  VerifierStats st = ParseVerifierStats("");
  EXPECT_FALSE(st.processed_insns);
  EXPECT_EQ(st.PercentOfLimit(), 0.0);
  // A rotated log (6.4+) may begin inside a line: a fragment is not a stats line.
  st = ParseVerifierStats("ed 1234 insns (limit 1000000)\nstack depth 24+8\n");
  EXPECT_FALSE(st.processed_insns);
  EXPECT_EQ(st.subprog_depths, (std::vector<uint32_t>{24, 8}));
  // CRLF, trailing blanks and the NUL of a C buffer.
  constexpr char kCrlf[] = "stack depth 16+32 \r\nverification time 7 usec\0";
  st = ParseVerifierStats(std::string_view(kCrlf, sizeof(kCrlf) - 1));
  EXPECT_EQ(st.subprog_depths, (std::vector<uint32_t>{16, 32}));
  EXPECT_EQ(*st.verification_usec, 7u);
}

TEST(VerifierStats, LastOccurrenceCounts) {
  VerifierStats st = ParseVerifierStats(
      "processed 10 insns (limit 1000000) max_states_per_insn 0 total_states 1 peak_states 1 mark_read 0\n"
      "processed 20 insns (limit 1000000) max_states_per_insn 0 total_states 1 peak_states 1 mark_read 0\n");
  EXPECT_EQ(*st.processed_insns, 20u);
}

}  // namespace
}  // namespace gotraced::capture
