// Attaching many uprobe sites of one program with one BPF link (BPF_TRACE_UPROBE_MULTI,
// Linux 6.6), by raw bpf(2): Debian 12's libbpf 1.1 predates its API. Why bother: every
// perf-event uprobe costs ~100 ms to detach on these kernels (perf_uprobe_destroy runs
// tracepoint_synchronize_unregister under event_mutex, once per probe), so 26 sites held a
// 1 ms program's recording open for 2.9 s; a multi link unregisters its sites together.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace gotraced::probes {

// The attach type's value in the kernel's UAPI (enum bpf_attach_type, 6.6).
inline constexpr int kBpfTraceUprobeMulti = 48;

// Whether this kernel has uprobe multi links (probed once, as libbpf 1.3+ probes it: a
// link on "/" fails with EBADF only where the attach type exists). A program attached
// this way must be loaded with expected_attach_type kBpfTraceUprobeMulti.
bool KernelHasUprobeMulti();

// One link for `offsets` (file offsets in `path`) with per-site `cookies`, only in
// process `pid`. Returns the link fd, or -errno.
int AttachUprobeMulti(int prog_fd, const std::string &path, const std::vector<uint64_t> &offsets,
                      const std::vector<uint64_t> &cookies, pid_t pid);

}  // namespace gotraced::probes
