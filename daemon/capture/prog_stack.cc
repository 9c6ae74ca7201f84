#include "daemon/capture/prog_stack.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/bpf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <map>

#include <fmt/format.h>

namespace gotraced::capture {

namespace {

bool IsWide(const bpf_insn &in) { return in.code == (BPF_LD | BPF_IMM | BPF_DW); }
bool IsCall(const bpf_insn &in) { return in.code == (BPF_JMP | BPF_CALL) && in.src_reg == BPF_PSEUDO_CALL; }
bool IsFuncRef(const bpf_insn &in) { return IsWide(in) && in.src_reg == BPF_PSEUDO_FUNC; }

}  // namespace

std::optional<SubprogGraph> GraphFromInsns(const bpf_insn *insns, size_t n, InsnSource source,
                                           std::vector<uint32_t> starts, std::string *why) {
  const bool from_kernel = source == InsnSource::kKernelDump;
  if (starts.empty()) {
    // The verifier's subprogs (add_subprog_and_kfunc): the entry and every target of a
    // bpf-to-bpf call or callback reference, in instruction order.
    starts.push_back(0);
    for (size_t i = 0; i < n; i++) {
      if (IsCall(insns[i]) || IsFuncRef(insns[i])) {
        const int64_t t = int64_t(i) + insns[i].imm + 1;
        if (t >= 0 && size_t(t) < n) starts.push_back(uint32_t(t));
      }
      if (IsWide(insns[i])) i++;
    }
    std::sort(starts.begin(), starts.end());
    starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  }
  std::map<uint32_t, uint32_t> start_to_subprog;
  for (uint32_t k = 0; k < starts.size(); k++) start_to_subprog[starts[k]] = k;
  SubprogGraph g;
  g.callees.resize(starts.size());
  auto subprog_of = [&](int64_t insn) -> int64_t {  // the subprog that holds `insn`
    auto it = start_to_subprog.upper_bound(uint32_t(std::max<int64_t>(insn, 0)));
    if (it == start_to_subprog.begin()) return -1;
    return int64_t(std::prev(it)->second);
  };
  auto starting_at = [&](int64_t insn) -> int64_t {
    auto it = start_to_subprog.find(uint32_t(insn));
    return insn >= 0 && it != start_to_subprog.end() ? int64_t(it->second) : -1;
  };
  for (size_t i = 0; i < n; i++) {
    const bpf_insn &in = insns[i];
    const bool wide = IsWide(in);  // a 16-byte load: skip its second half
    int64_t target = -1;
    // A call's relative offset is in `imm` as libbpf hands it to the kernel; after JIT the
    // kernel's dump has it in `off` (verifier.c jit_subprogs, "make now unused
    // interpreter insns ... consistent for later dump"). A callback reference keeps it in
    // the first half's `imm`.
    if (IsCall(in))
      target = int64_t(i) + (from_kernel ? in.off : in.imm) + 1;
    else if (IsFuncRef(in))
      target = int64_t(i) + in.imm + 1;
    if (target >= 0) {
      const int64_t caller = subprog_of(int64_t(i));
      int64_t callee = starting_at(target);
      // Should a kernel leave a call's relative offset in `imm` instead.
      if (callee < 0 && from_kernel && !wide) callee = starting_at(int64_t(i) + in.imm + 1);
      if (caller < 0 || callee < 0) {
        *why = fmt::format("the call at instruction {} does not lead to a subprog's start", i);
        return std::nullopt;
      }
      auto &c = g.callees[size_t(caller)];
      if (std::find(c.begin(), c.end(), uint32_t(callee)) == c.end()) c.push_back(uint32_t(callee));
    }
    if (wide) i++;
  }
  return g;
}

std::optional<SubprogGraph> ReadSubprogGraph(int prog_fd, std::string *why) {
  bpf_prog_info info{};
  uint32_t len = sizeof(info);
  if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0) {
    *why = fmt::format("BPF_OBJ_GET_INFO_BY_FD: {}", std::strerror(errno));
    return std::nullopt;
  }
  const uint32_t nfunc = info.nr_func_info;
  const uint32_t rec = info.func_info_rec_size;
  const uint32_t xlated_len = info.xlated_prog_len;
  const uint32_t btf_id = info.btf_id;
  if (nfunc == 0 || rec < sizeof(bpf_func_info)) {
    *why = "the program has no BTF func_info";
    return std::nullopt;
  }
  if (xlated_len == 0) {
    *why = "the kernel withholds the translated instructions (needs the privilege to dump them)";
    return std::nullopt;
  }
  if (info.jited_prog_len == 0) {
    *why = "the program is not JIT-compiled (its calls are rewritten for the interpreter)";
    return std::nullopt;
  }
  std::vector<uint8_t> funcs(size_t(nfunc) * rec);
  std::vector<bpf_insn> insns(xlated_len / sizeof(bpf_insn));
  info = bpf_prog_info{};
  info.nr_func_info = nfunc;
  info.func_info_rec_size = rec;
  info.func_info = reinterpret_cast<uint64_t>(funcs.data());
  info.xlated_prog_len = uint32_t(insns.size() * sizeof(bpf_insn));
  info.xlated_prog_insns = reinterpret_cast<uint64_t>(insns.data());
  len = sizeof(info);
  if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0) {
    *why = fmt::format("BPF_OBJ_GET_INFO_BY_FD: {}", std::strerror(errno));
    return std::nullopt;
  }

  // Subprog i starts at func_info[i].insn_off (the kernel rewrites them to translated
  // offsets: verifier.c adjust_btf_func).
  std::vector<uint32_t> starts(nfunc), type_ids(nfunc);
  for (uint32_t i = 0; i < nfunc; i++) {
    bpf_func_info fi;
    std::memcpy(&fi, funcs.data() + size_t(i) * rec, sizeof(fi));
    starts[i] = fi.insn_off;
    type_ids[i] = fi.type_id;
  }
  SubprogGraph g;
  g.names.resize(nfunc);
  if (btf *b = btf_id ? btf__load_from_kernel_by_id(btf_id) : nullptr) {
    for (uint32_t i = 0; i < nfunc; i++)
      if (const btf_type *t = btf__type_by_id(b, type_ids[i])) g.names[i] = btf__name_by_offset(b, t->name_off);
    btf__free(b);
  }
  auto edges = GraphFromInsns(insns.data(), insns.size(), InsnSource::kKernelDump, starts, why);
  if (!edges) return std::nullopt;
  g.callees = std::move(edges->callees);
  return g;
}

uint32_t DeepestChainStack(const std::vector<uint32_t> &depths, const SubprogGraph &graph,
                           std::vector<uint32_t> *chain) {
  if (depths.empty()) return 0;
  std::vector<uint32_t> best(depths.size(), 0), next(depths.size(), UINT32_MAX);
  std::vector<uint8_t> state(depths.size(), 0);  // 0 new, 1 on the path, 2 done
  std::function<uint32_t(uint32_t)> deepest = [&](uint32_t i) -> uint32_t {
    if (state[i] == 2) return best[i];
    if (state[i] == 1) return 0;  // a cycle: not followed twice
    state[i] = 1;
    uint32_t below = 0;
    if (i < graph.callees.size())
      for (uint32_t c : graph.callees[i]) {
        if (c >= depths.size()) continue;
        uint32_t d = deepest(c);
        if (d > below) below = d, next[i] = c;
      }
    state[i] = 2;
    best[i] = RoundedFrame(depths[i]) + below;
    return best[i];
  };
  uint32_t total = deepest(0);
  if (chain) {
    chain->clear();
    for (uint32_t i = 0; i != UINT32_MAX && chain->size() < depths.size(); i = next[i]) chain->push_back(i);
  }
  return total;
}

uint32_t AllFramesStack(const std::vector<uint32_t> &depths) {
  uint32_t s = 0;
  for (uint32_t d : depths) s += RoundedFrame(d);
  return s;
}

}  // namespace gotraced::capture
