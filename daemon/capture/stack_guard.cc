#include "daemon/capture/stack_guard.h"

#include <bpf/libbpf.h>
#include <sys/utsname.h>

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
    VerifierStats st = ParseVerifierStats(std::string_view(l.buf.get(), strnlen(l.buf.get(), kLogBytes)));
    const char *name = bpf_program__name(l.prog);
    if (st.subprog_depths.empty())
      return fmt::format("the kernel did not report the stack depths of BPF program {}, so gotraced cannot check "
                         "that it stays off the per-CPU private stack that this kernel's JIT uses for frames of "
                         ">= {} bytes, which preemption makes unsafe for uprobe programs (docs/preemption.md); "
                         "refusing to record rather than risk the host",
                         name, kPrivStackMinSize);
    if (st.MaxSubprogDepth() >= kPrivStackMinSize)
      return fmt::format("BPF program {} has a function with {} bytes of BPF stack: this kernel's JIT (x86-64, "
                         "Linux >= 6.13) would run it on a per-CPU private stack, which a preempted uprobe program "
                         "shares with the next one on its CPU (a kernel bug that crashes the host: "
                         "docs/preemption.md). Refusing to record. This is a gotraced build problem (its BPF "
                         "programs keep every frame under {} bytes when built with the pinned clang): please "
                         "report it with `gotraced selftest` output",
                         name, st.MaxSubprogDepth(), kPrivStackMinSize);
  }
  return std::nullopt;
}

}  // namespace gotraced::capture
