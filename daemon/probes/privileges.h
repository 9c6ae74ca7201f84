// Which of the capabilities gotraced's BPF and perf calls need are in effect for this
// process. Being root is not the question: a root process in a container may lack them,
// and a non-root daemon may be given them (systemd AmbientCapabilities=). The answer
// decides what a refusal means: without them, "run as root"; with them, EPERM/EACCES
// came from something else (the verifier, a security policy) and that advice would be
// wrong.
#pragma once

#include <cstdint>
#include <string>

namespace gotraced::probes {

struct BpfPrivileges {
  bool sys_admin = false;
  bool bpf = false;
  bool perfmon = false;
  bool sys_ptrace = false;

  // bpf(BPF_PROG_LOAD) of tracing programs (kernel/bpf/syscall.c bpf_prog_load:
  // bpf_capable() and, for tracing types, perfmon_capable(); CAP_SYS_ADMIN implies both).
  bool can_load() const { return sys_admin || (bpf && perfmon); }
  // Uprobes in another user's process: perf_event_open(pid) also asks
  // ptrace_may_access(), which a different uid passes only with CAP_SYS_PTRACE.
  bool can_attach() const { return can_load() && sys_ptrace; }

  // `cap_eff` is the effective set as a bit mask (bit N = capability N, the CapEff line
  // of /proc/PID/status).
  static BpfPrivileges FromMask(uint64_t cap_eff);
};

// This thread's effective capabilities (capget). All false if capget fails.
BpfPrivileges CurrentPrivileges();

// Whether bpf() works here at all, tried with the smallest call (a one-entry array map):
// "" when it does (or fails for a reason other than permission), else why not, naming the
// capability to add. In a container, a seccomp filter may refuse bpf() and
// perf_event_open() to a process holding CAP_BPF and CAP_PERFMON: the default profiles of
// podman/containers-common and docker (and containerd before 2.0) allow both only to
// CAP_SYS_ADMIN (containers-common seccomp.json: "bpf", "perf_event_open" under
// "includes": {"caps": ["CAP_SYS_ADMIN"]}).
std::string BpfRefusal(const BpfPrivileges &privileges);

}  // namespace gotraced::probes
