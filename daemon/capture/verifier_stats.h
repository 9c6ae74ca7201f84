// What the kernel's BPF verifier says about a program it checked, read from its log at
// BPF_LOG_STATS (level 4: bpf_program__set_log_level(prog, 4) with a log buffer). The
// authority is kernel/bpf/verifier.c print_verification_stats(), the same format from
// Linux 5.2 to 6.18:
//   verification time 1234 usec            (BPF_LOG_STATS only)
//   stack depth 40+320+0                   (BPF_LOG_STATS only; one number per subprog,
//                                           each subprog's OWN depth, in subprog order)
//   processed 41823 insns (limit 1000000) max_states_per_insn 4 total_states 2311
//   peak_states 1877 mark_read 21           (every log level; one line)
// and, when the call chain's stack is too deep (check_max_stack_depth),
//   combined stack size of 2 calls is 640. Too large
// The lines are printed whether the program was accepted or refused (bpf_check prints
// the stats after the check ends either way), so a refusal for the 1M limit still says
// how far it got.
//
// The per-subprog depths matter on their own: on x86 from Linux 6.13 the JIT gives a
// subprog whose own depth is >= 64 bytes (BPF_PRIV_STACK_MIN_SIZE) a per-CPU private
// stack in some program types, which a uprobe program that is preempted and re-entered
// on the same CPU must not share (issue 12): MaxSubprogDepth() is the figure to test.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gotraced::capture {

// BPF_COMPLEXITY_LIMIT_INSNS (include/linux/bpf.h) for privileged loads since 5.2.
inline constexpr uint64_t kVerifierInsnLimit = 1000000;
// BPF_PRIV_STACK_MIN_SIZE (kernel/bpf/verifier.c, 6.13+).
inline constexpr uint32_t kPrivStackMinSize = 64;
// MAX_BPF_STACK (include/linux/filter.h): the combined stack limit of a call chain.
inline constexpr uint32_t kMaxBpfStack = 512;

struct VerifierStats {
  std::optional<uint64_t> processed_insns;  // "processed N insns"
  uint64_t insn_limit = 0;                  // "(limit N)", 0 when not printed
  uint64_t max_states_per_insn = 0, total_states = 0, peak_states = 0, mark_read = 0;
  // "stack depth A+B+C": subprog 0 (the program itself) first. Empty when not printed.
  std::vector<uint32_t> subprog_depths;
  std::optional<uint64_t> verification_usec;  // "verification time T usec"
  // "combined stack size of N calls is M. Too large": M and N, when the log says so.
  std::optional<uint32_t> too_large_combined;
  uint32_t too_large_calls = 0;

  // The deepest single subprog (0 when no depths were printed).
  uint32_t MaxSubprogDepth() const;
  // Sum of all subprogs' depths: an upper bound of any call chain's stack (a chain
  // visits each subprog at most once: the verifier refuses recursion).
  uint32_t SumOfDepths() const;
  // processed_insns as a percentage of the limit (printed or kVerifierInsnLimit).
  double PercentOfLimit() const;
};

// Parses the stats lines anywhere in `log` (other lines are ignored). When a line occurs
// more than once (a log of several passes), the last one counts.
VerifierStats ParseVerifierStats(std::string_view log);

}  // namespace gotraced::capture
