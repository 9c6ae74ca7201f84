// The recorder's guard against the kernel bug of docs/preemption.md: on x86-64 from
// Linux 6.13 the BPF JIT runs any function whose own BPF stack is >= 64 bytes
// (BPF_PRIV_STACK_MIN_SIZE) on a per-CPU private stack, and uprobe programs run
// preemptibly, so a second task entering the same program on that CPU overwrites the
// first one's frame (kernel oopses seen on every Debian kernel 6.16-7.3 in its default
// PREEMPT_LAZY mode). gotrace's programs keep every frame smaller than that; this guard
// checks it on the running kernel, from the verifier's own figures, before anything is
// attached, and refuses to record rather than risk the host.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

struct bpf_object;
struct bpf_program;

namespace gotraced::capture {

// True when the running kernel may give a BPF program a private stack (x86-64, >= 6.13).
bool KernelHasBpfPrivateStack();

// Whether the JIT image of loaded program `prog_fd` runs a function on a private stack:
// the x86 JIT's prologue then sets R9 to this CPU's frame (arch/x86/net/bpf_jit_comp.c
// emit_priv_frame_ptr: movabs r9, <percpu frame>; add r9, gs:[this_cpu_off]), whose
// `add` is the byte sequence 65 4c 03 0c 25. nullopt when the image cannot be read
// (no JIT, or the kernel withholds it).
std::optional<bool> JitUsesPrivateStack(int prog_fd);

// Verifier-stats logs (BPF_LOG_STATS: three short lines) for the uprobe programs of an
// opened, not yet loaded object: created before bpf_object__load, read after it.
class UprobeStackLogs {
 public:
  static std::unique_ptr<UprobeStackLogs> Enable(bpf_object *obj);
  // After a successful load: a refusal message when a loaded uprobe program has a
  // function with >= 64 bytes of its own stack and this kernel would put it on a private
  // stack (or when the kernel did not report the depths there); nullopt when safe.
  std::optional<std::string> Check() const;

 private:
  struct Log {
    bpf_program *prog;
    std::unique_ptr<char[]> buf;
  };
  std::vector<Log> logs_;
};

}  // namespace gotraced::capture
