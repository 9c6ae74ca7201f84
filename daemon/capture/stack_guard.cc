#include "daemon/capture/stack_guard.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "daemon/capture/verifier_stats.h"

namespace gotraced::capture {

namespace {
constexpr size_t kLogBytes = 4096;  // stats only: a few hundred bytes
}

bool KernelHasBpfPrivateStack() {
  utsname u{};
  if (uname(&u) != 0) return true;  // unknown: assume the worst
  if (std::string_view(u.machine) != "x86_64") return false;  // only the x86 JIT has it (6.13)
  int major = 0, minor = 0;
  if (std::sscanf(u.release, "%d.%d", &major, &minor) != 2) return true;
  return major > 6 || (major == 6 && minor >= 13);
}

std::optional<bool> JitUsesPrivateStack(int prog_fd) {
  bpf_prog_info info{};
  uint32_t len = sizeof(info);
  if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0 || info.jited_prog_len == 0) return std::nullopt;
  std::vector<uint8_t> image(info.jited_prog_len);
  std::vector<uint32_t> func_lens(info.nr_jited_func_lens ? info.nr_jited_func_lens : 1);
  const uint32_t nfuncs = info.nr_jited_func_lens;
  bpf_prog_info again{};
  again.jited_prog_len = uint32_t(image.size());
  again.jited_prog_insns = reinterpret_cast<uint64_t>(image.data());
  again.nr_jited_func_lens = nfuncs;
  again.jited_func_lens = nfuncs ? reinterpret_cast<uint64_t>(func_lens.data()) : 0;
  len = sizeof(again);
  if (bpf_obj_get_info_by_fd(prog_fd, &again, &len) != 0) return std::nullopt;
  bool any = false;
  for (uint8_t b : image) any |= b != 0;
  if (!any) return std::nullopt;  // withheld (bpf_dump_raw_ok: kptr_restrict)
  if (!nfuncs) func_lens[0] = uint32_t(image.size());
  static constexpr uint8_t kAddR9Gs[] = {0x65, 0x4c, 0x03, 0x0c, 0x25};
  size_t start = 0;
  for (uint32_t flen : func_lens) {
    // The prologue: endbr, nop5, push rbp / mov rbp,rsp, the private frame: well within 64 bytes.
    size_t end = std::min<size_t>(start + std::min<uint32_t>(flen, 64), image.size());
    for (size_t i = start; i + sizeof(kAddR9Gs) <= end; i++)
      if (std::memcmp(image.data() + i, kAddR9Gs, sizeof(kAddR9Gs)) == 0) return true;
    start += flen;
  }
  return false;
}

std::unique_ptr<UprobeStackLogs> UprobeStackLogs::Enable(bpf_object *obj) {
  auto out = std::make_unique<UprobeStackLogs>();
  bpf_program *p = nullptr;
  bpf_object__for_each_program(p, obj) {
    if (!bpf_program__autoload(p) || std::string_view(bpf_program__section_name(p)) != "uprobe") continue;
    Log l{p, std::make_unique<char[]>(kLogBytes)};
    l.buf[0] = 0;
    bpf_program__set_log_buf(p, l.buf.get(), kLogBytes);
    bpf_program__set_log_level(p, 4);  // BPF_LOG_STATS
    out->logs_.push_back(std::move(l));
  }
  return out;
}

std::optional<std::string> UprobeStackLogs::Check() const {
  if (!KernelHasBpfPrivateStack()) return std::nullopt;
  for (const Log &l : logs_) {
    const char *name = bpf_program__name(l.prog);
    // The JIT image says it directly where the kernel shows it; the verifier's depths
    // otherwise (Linux 7.x no longer prints them at BPF_LOG_STATS).
    std::optional<bool> jit = JitUsesPrivateStack(bpf_program__fd(l.prog));
    VerifierStats st = ParseVerifierStats(std::string_view(l.buf.get(), strnlen(l.buf.get(), kLogBytes)));
    if (jit == true || (!jit && st.MaxSubprogDepth() >= kPrivStackMinSize))
      return fmt::format("BPF program {} runs a function on the kernel's per-CPU private BPF stack ({}): this "
                         "kernel's JIT (x86-64, Linux >= 6.13) uses it for frames of >= {} bytes, and a preempted "
                         "uprobe program shares it with the next one on its CPU (a kernel bug that crashes the host: "
                         "docs/preemption.md). Refusing to record. This is a gotraced build problem (its BPF programs "
                         "keep every frame under {} bytes when built with the pinned clang): please report it with "
                         "`gotraced selftest` output",
                         name,
                         jit ? std::string("seen in its JIT image")
                             : fmt::format("a function with {} bytes of stack", st.MaxSubprogDepth()),
                         kPrivStackMinSize, kPrivStackMinSize);
    if (!jit && st.subprog_depths.empty())
      return fmt::format("gotraced cannot check that BPF program {} stays off the per-CPU private stack that this "
                         "kernel's JIT uses for frames of >= {} bytes, which preemption makes unsafe for uprobe "
                         "programs (docs/preemption.md): the kernel neither shows the program's JIT image nor reports "
                         "its stack depths. Refusing to record rather than risk the host",
                         name, kPrivStackMinSize);
  }
  return std::nullopt;
}

}  // namespace gotraced::capture
