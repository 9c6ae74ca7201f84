#include "daemon/probes/privileges.h"

#include <linux/bpf.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace gotraced::probes {

BpfPrivileges BpfPrivileges::FromMask(uint64_t cap_eff) {
  auto has = [cap_eff](int cap) { return ((cap_eff >> cap) & 1) != 0; };
  BpfPrivileges p;
  p.sys_admin = has(CAP_SYS_ADMIN);
  p.bpf = has(CAP_BPF);
  p.perfmon = has(CAP_PERFMON);
  p.sys_ptrace = has(CAP_SYS_PTRACE);
  return p;
}

BpfPrivileges CurrentPrivileges() {
  // The raw syscall: glibc has no wrapper and libcap is not worth a dependency for one
  // call. Version 3 takes two 32-bit words per set (capabilities 0-31, 32-63).
  __user_cap_header_struct hdr{};
  hdr.version = _LINUX_CAPABILITY_VERSION_3;
  hdr.pid = 0;
  __user_cap_data_struct data[2]{};
  if (syscall(SYS_capget, &hdr, data) != 0) return {};
  return BpfPrivileges::FromMask(uint64_t(data[0].effective) | uint64_t(data[1].effective) << 32);
}

namespace {

// "Seccomp: 2" in /proc/self/status: a filter is in force (proc(5)).
bool SeccompFiltered() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("Seccomp:", 0) == 0) return line.find('2') != std::string::npos;
  return false;
}

}  // namespace

std::string BpfRefusal(const BpfPrivileges &p) {
  bpf_attr attr{};
  attr.map_type = BPF_MAP_TYPE_ARRAY;
  attr.key_size = 4;
  attr.value_size = 4;
  attr.max_entries = 1;
  const int fd = static_cast<int>(syscall(SYS_bpf, BPF_MAP_CREATE, &attr, sizeof attr));
  if (fd >= 0) {
    close(fd);
    return {};
  }
  const int err = errno;
  if (err != EPERM && err != EACCES) return {};
  if (!p.can_load())
    return std::string("bpf() is not permitted (") + std::strerror(err) +
           "): this process lacks CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN); run as root or add them";
  if (!p.sys_admin && SeccompFiltered())
    return std::string("bpf() is refused (") + std::strerror(err) +
           ") by this process's seccomp filter although it holds CAP_BPF and CAP_PERFMON: the container "
           "runtimes' default profiles (podman, docker, containerd before 2.0) allow bpf() and perf_event_open() "
           "only to CAP_SYS_ADMIN, which this process lacks: add CAP_SYS_ADMIN (or run it privileged; "
           "docs/kubernetes.md)";
  return std::string("bpf() is refused (") + std::strerror(err) +
         ") although this process has the capabilities: a security policy (kernel lockdown, an LSM, a seccomp "
         "filter) forbids it here";
}

}  // namespace gotraced::probes
