#include "daemon/capture/cpu_sampler.h"

#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "daemon/probes/privileges.h"

namespace gotraced::capture {

std::string ExplainPerfEventErrno(int err, bool perfmon_capable) {
  switch (err) {
    case EACCES:
    case EPERM:
      // perf_event_open -> perf_allow_cpu: perf_event_paranoid is not consulted for a
      // perfmon_capable() caller, so with CAP_PERFMON the refusal is the LSM hook's.
      if (perfmon_capable)
        return fmt::format("{} (although this process has CAP_PERFMON or CAP_SYS_ADMIN: a security policy "
                           "refuses perf events here, e.g. an LSM such as SELinux or AppArmor, or a container's "
                           "seccomp filter)",
                           std::strerror(err));
      return fmt::format("{} (system-wide perf events need root or CAP_PERFMON; also check "
                         "/proc/sys/kernel/perf_event_paranoid)",
                         std::strerror(err));
    case ENOENT:
    case EOPNOTSUPP:
      return fmt::format("{} (the kernel has no software CPU-clock event: CONFIG_PERF_EVENTS)", std::strerror(err));
    default:
      return std::strerror(err);
  }
}

namespace {

std::string Explain(int err) {
  const probes::BpfPrivileges p = probes::CurrentPrivileges();
  return ExplainPerfEventErrno(err, p.perfmon || p.sys_admin);
}

}  // namespace

gobin::Result<std::unique_ptr<CpuSampler>> CpuSampler::Attach(bpf_program *prog, std::uint32_t hz) {
  if (hz < kMinCpuHz || hz > kMaxCpuHz)
    return gobin::Error{fmt::format("cpu sampling rate {} Hz out of range [{}, {}]", hz, kMinCpuHz, kMaxCpuHz)};
  const int ncpu = libbpf_num_possible_cpus();
  if (ncpu <= 0) return gobin::Error{"cpu sampling: cannot count the CPUs"};
  std::unique_ptr<CpuSampler> s(new CpuSampler());
  perf_event_attr attr{};
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_SOFTWARE;
  attr.config = PERF_COUNT_SW_CPU_CLOCK;
  // A fixed period (the cpu-clock counts ns) rather than freq mode: exactly 1e9/hz ns of
  // CPU time between samples, no period re-estimation by the kernel.
  attr.sample_period = 1'000'000'000ull / hz;
  attr.freq = 0;
  attr.disabled = 0;
  int opened = 0;
  for (int cpu = 0; cpu < ncpu; ++cpu) {
    int fd = static_cast<int>(syscall(SYS_perf_event_open, &attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC));
    if (fd < 0) {
      if (errno == ENODEV) continue;  // a possible but offline CPU
      return gobin::Error{fmt::format("cpu sampling: perf_event_open(cpu-clock, cpu {}): {}", cpu, Explain(errno))};
    }
    bpf_link *l = bpf_program__attach_perf_event(prog, fd);
    if (!l) {
      const int err = errno;
      close(fd);
      errno = err;
      return gobin::Error{fmt::format("cpu sampling: attaching to the cpu-clock event of cpu {}: {}", cpu,
                                      Explain(errno))};
    }
    // The link owns the event fd from here on (libbpf closes it when the link is destroyed).
    s->links_.push_back(l);
    ++opened;
  }
  if (opened == 0) return gobin::Error{"cpu sampling: no online CPU accepted a cpu-clock event"};
  return s;
}

CpuSampler::~CpuSampler() {
  for (bpf_link *l : links_) bpf_link__destroy(l);
}

}  // namespace gotraced::capture
