// The kernel features gotraced's BPF programs and attach paths use, probed on this
// machine, each with the first Linux version that has it and what to do when it is
// missing. `gotraced selftest` prints them; a refused load (load_error.h) names the
// missing ones, so an old kernel gets "the bpf_loop helper (Linux 5.17) is missing"
// rather than a verifier log.
//
// Versions are mainline releases (include/uapi/linux/bpf.h history; bcc's
// docs/kernel-versions.md lists the commits); distribution kernels may backport.
// Probes: libbpf_probe_bpf_map_type / libbpf_probe_bpf_helper (libbpf loads a tiny
// program or map and reads the verifier's "unknown func"), a tiny tp_btf load, files in
// sysfs. BPF probes need the privilege to load programs: without it their answer is
// "unknown", never "missing".
#pragma once

#include <string>
#include <vector>

namespace gotraced::capture {

struct KernelFeature {
  enum class State { kPresent, kMissing, kUnknown };
  std::string id;      // short key for --json: "btf", "ringbuf", "bpf_loop" ...
  std::string name;    // "BPF ring buffer map (BPF_MAP_TYPE_RINGBUF)"
  std::string since;   // first mainline Linux with it: "5.8"
  bool cpu_hz_only = false;  // needed only for `--cpu-hz` CPU samples
  State state = State::kUnknown;
  std::string detail;  // how it was probed, or why the probe could not answer
  std::string remedy;  // what the user can do when it is missing
};

// Probes every feature (~50 ms: each BPF probe is one small load, tp_btf's reads the
// kernel's BTF), or only those whose id is in `only`.
std::vector<KernelFeature> ProbeKernelFeatures(const std::vector<std::string> &only = {});

// "the bpf_loop helper (Linux 5.17+) is missing: <remedy>"
std::string DescribeMissing(const KernelFeature &f);

// DescribeMissing of each missing feature, recording's first.
std::vector<std::string> MissingFeatures(const std::vector<KernelFeature> &features);

// What level low's syscalls from sched_switch (bpf/gt_sys_switch.bpf.h) need beyond what
// every recording needs (tp_btf, task storage: without them nothing loads) and `features`
// says this kernel lacks: bpf_task_pt_regs ("bpf_task_pt_regs helper (...) (Linux 5.15+)
// is missing"), "" when it is there (or could not be probed: the load then says). The
// capture takes the syscall tracepoints instead, and says why.
std::string SysSwitchMissing(const std::vector<KernelFeature> &features);

// The same of this kernel, probed once per process (one helper probe, under a ms).
const std::string &SysSwitchMissingHere();

// The oldest kernel gotraced supports (docs/requirements.md): the features need
// 5.17, and 6.1 (Debian 12's) is the oldest the kernel matrix runs.
inline constexpr const char *kMinimumKernel = "6.1";

}  // namespace gotraced::capture
