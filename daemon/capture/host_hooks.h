// HostHooks: the daemon's one set of programs on the kernel-wide hooks (syscall, sched,
// task lifecycle tracepoints and the CPU-sample perf events; bpf/gt_host.bpf.c), shared by
// every recording of the process (proto/host_hooks.h says how the dispatch works and why).
//
// A recording (Capture) reserves a slot before its object is loaded (its .rodata names
// the slot and its dispatch maps are the dispatcher's: ShareMaps), then Joins its
// programs to the dispatch of its process: a hook no recording needs is attached nowhere,
// and the first recording that needs it attaches it. So a bystander's syscall pays one
// program and one hash lookup whether 1 or 100 processes are watched, and a standby (a
// recording loaded, not joined) or an escalation (a second recording of a process)
// attaches nothing more on those hooks.
//
//   auto hh = HostHooks::Get();                 // loads the dispatcher once per process
//   auto slot = (*hh)->Reserve();               // before gotrace__load
//   (*hh)->ShareMaps(skel->obj, *slot);
//   (*hh)->Join(*slot, pid, programs, &warnings);
//   (*hh)->Release(*slot);                      // leaves the dispatch, frees the slot
#pragma once

#include <sys/types.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "daemon/gobin/result.h"
#include "proto/host_hooks.h"

struct bpf_object;
struct bpf_program;

namespace gotraced::capture {

// A recording's programs on the hooks, by gt_host_hook (null: none on that hook).
struct HookPrograms {
  std::array<bpf_program *, GT_HOOKS> prog{};
  // Hooks whose attach failing fails the Join (the others are warnings).
  std::array<bool, GT_HOOKS> required{};
  std::uint32_t cpu_hz = 0;  // with prog[GT_HOOK_CPU]
};

struct HostHooksStats {
  std::size_t slots = 0;         // recordings loaded (reserved slots)
  std::size_t processes = 0;     // processes with a joined recording
  std::size_t hooks_attached = 0;
  std::uint32_t cpu_hz = 0;      // the shared CPU sampler's rate (0: not sampling)
};

class HostHooks {
 public:
  // The process's dispatcher, loaded on the first call; an error says why it cannot be
  // (the next call tries again).
  static gobin::Result<HostHooks *> Get();

  // A free slot (1 .. GT_HOST_SLOTS-1) for a recording about to be loaded.
  gobin::Result<std::uint32_t> Reserve();
  // Before the recording's object is loaded: its dispatch maps become the dispatcher's,
  // and its CPU samples' scratch the one every recording shares.
  std::string ShareMaps(bpf_object *obj);
  // `p`'s programs (loaded) join the dispatch of `tgid` on their hooks; a hook the slot
  // already joined is left as it is, so a recording may join in steps (the goroutine
  // syscalls after its uprobes). Attaches the hooks no one used yet. Returns "" or why a
  // required hook could not be attached. *cpu_own: the recording asked for CPU samples
  // at a rate other than the shared sampler's, and must sample with its own perf events.
  std::string Join(std::uint32_t slot, pid_t tgid, const HookPrograms &p, std::vector<std::string> *warnings,
                   bool *cpu_own = nullptr);
  // Leaves every hook (no program of the slot runs once this returns, but one already
  // running may finish); detaches the hooks no one uses any more.
  void Leave(std::uint32_t slot);
  // Leave, and the slot is free again.
  void Release(std::uint32_t slot);

  HostHooksStats stats() const;

  struct Impl;

 private:
  HostHooks() = default;
  Impl *impl_ = nullptr;
};

}  // namespace gotraced::capture
