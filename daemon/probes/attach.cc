#include "daemon/probes/attach.h"

#include "daemon/probes/site_program.h"

#include <bpf/libbpf.h>
#include <fmt/format.h>

#include <cerrno>
#include <cstring>

namespace gotraced::probes {

AttachedProbes::~AttachedProbes() { DetachAll(); }

void AttachedProbes::DetachAll() {
  for (bpf_link *l : links_) bpf_link__destroy(l);
  links_.clear();
}

std::string ExplainAttachErrno(int err) { return ExplainAttachErrno(err, CurrentPrivileges()); }

std::string ExplainAttachErrno(int err, const BpfPrivileges &privileges) {
  switch (err) {
    case EPERM:
    case EACCES:
      if (privileges.can_attach())
        return fmt::format("{} (although this process has CAP_SYS_ADMIN or CAP_BPF + CAP_PERFMON, and "
                           "CAP_SYS_PTRACE: a security policy refuses it here, e.g. kernel lockdown, an LSM such as "
                           "SELinux or AppArmor, or a container's seccomp filter)",
                           std::strerror(err));
      return fmt::format("{} (run as root, or with CAP_BPF + CAP_PERFMON + CAP_SYS_PTRACE)", std::strerror(err));
    case ENOENT:
      return fmt::format("{} (the process or its executable is gone, or the kernel has no uprobe support: "
                         "CONFIG_UPROBE_EVENTS)",
                         std::strerror(err));
    case ESRCH:
      return fmt::format("{} (the process exited)", std::strerror(err));
    case EINVAL:
      return fmt::format("{} (the kernel refused the probe address: not an instruction boundary?)",
                         std::strerror(err));
    case ENOTSUP:
      return fmt::format("{} (the kernel cannot probe this instruction)", std::strerror(err));
    default:
      return std::strerror(err);
  }
}

gobin::Result<std::unique_ptr<AttachedProbes>> AttachPlan(const ProbePlan &plan, pid_t pid, const std::string &binary,
                                                          bpf_object *obj, std::vector<std::string> *warnings) {
  auto out = std::make_unique<AttachedProbes>();
  out->attached_.assign(plan.sites.size(), false);
  for (const ProbeSite &s : plan.sites) {
    LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = CookieFor(s));
    const char *prog_name = SiteProgram(s);
    bpf_program *prog = bpf_object__find_program_by_name(obj, prog_name);
    if (!prog || bpf_program__fd(prog) < 0)
      return gobin::Error{fmt::format("uprobe on {}: BPF program {} is not loaded (capture must load what the plan "
                                      "names: probes::PlanPrograms)",
                                      s.function, prog_name)};
    bpf_link *l = bpf_program__attach_uprobe_opts(prog, pid, binary.c_str(), s.file_offset, &uo);
    if (!l) {
      int err = errno;
      std::string msg = fmt::format("uprobe on {} ({} at {:#x}, file offset {:#x}) in pid {}: {}", s.function, s.insn,
                                    s.vaddr, s.file_offset, pid, ExplainAttachErrno(err));
      if (s.required) return gobin::Error{msg};
      if (warnings) warnings->push_back(msg);
      continue;
    }
    out->links_.push_back(l);
    out->attached_[s.id] = true;
  }
  return out;
}

}  // namespace gotraced::probes
