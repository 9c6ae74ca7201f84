// The stack of a loaded BPF program's deepest call chain, as the verifier's
// check_max_stack_depth() (kernel/bpf/verifier.c) counts it against MAX_BPF_STACK (512):
// it walks every call chain from the program's entry, through direct bpf-to-bpf calls
// and callback references (bpf_loop's callback: a BPF_PSEUDO_FUNC load), adding each
// subprog's own depth rounded up to a frame. The depths come from the verifier's log
// (verifier_stats.h); who calls whom from the kernel (BPF_OBJ_GET_INFO_BY_FD: func_info
// gives each subprog's first instruction and BTF name, the translated instructions the
// calls). The sum of all subprogs' depths is the fallback when the kernel does not say.
//
// Frame rounding: Linux 6.1 (the oldest kernel gotraced supports) rounds each frame up
// to 32 bytes and counts an empty one as 32 (round_up(max(depth, 1), 32)); later kernels
// round JIT-compiled frames to 16. This uses 6.1's rule, the larger figure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

struct bpf_insn;

namespace gotraced::capture {

struct SubprogGraph {
  std::vector<std::string> names;                 // subprog i's function (BTF); "" when unknown
  std::vector<std::vector<uint32_t>> callees;     // subprog i calls (or passes as callback) these
};

// Who calls whom in `insns`. kLibbpf: the instructions as libbpf loads them
// (bpf_program__insns(); a refused program's too), subprogs found as the verifier finds
// them when `starts` is empty; kKernelDump: a loaded program's translated instructions,
// with the subprogs' first instructions in `starts`. nullopt with *why when a call does
// not lead to a subprog's start.
enum class InsnSource { kLibbpf, kKernelDump };
std::optional<SubprogGraph> GraphFromInsns(const bpf_insn *insns, size_t n, InsnSource source,
                                           std::vector<uint32_t> starts, std::string *why);

// Reads the subprogs of the loaded program `prog_fd`; nullopt with *why when the kernel
// does not tell (no BTF func_info, the translated instructions withheld without the
// privilege to dump them, or not JIT-compiled).
std::optional<SubprogGraph> ReadSubprogGraph(int prog_fd, std::string *why);

// One frame as Linux 6.1 counts it.
inline uint32_t RoundedFrame(uint32_t depth) { return ((depth ? depth : 1) + 31) / 32 * 32; }

// The deepest call chain's rounded stack from subprog 0, with that chain in *chain
// (subprog indices, entry first) when given. Depths beyond graph.callees count as
// leaves; a cycle (the verifier refuses recursion) is not followed twice.
uint32_t DeepestChainStack(const std::vector<uint32_t> &depths, const SubprogGraph &graph,
                           std::vector<uint32_t> *chain = nullptr);

// Every subprog's rounded frame summed: the bound when the call graph is unknown.
uint32_t AllFramesStack(const std::vector<uint32_t> &depths);

}  // namespace gotraced::capture
