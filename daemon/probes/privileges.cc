#include "daemon/probes/privileges.h"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

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

}  // namespace gotraced::probes
