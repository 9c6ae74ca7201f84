#include "daemon/probes/attach.h"

#include "daemon/probes/site_program.h"
#include "daemon/probes/uprobe_multi.h"

#include <bpf/libbpf.h>
#include <fmt/format.h>

#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <map>
#include <thread>
#include <cstring>
#include <memory>
#include <system_error>

namespace gotraced::probes {

AttachedProbes::~AttachedProbes() { DetachAll(); }

void AttachedProbes::DetachAll() {
  // Each multi link's release waits for an RCU-tasks-trace and an SRCU grace period
  // (kernel/events/uprobes.c uprobe_unregister_sync); closed from threads at once, the
  // links share those grace periods instead of waiting for one each in turn.
  std::vector<std::thread> closers;
  for (int fd : multi_fds_) closers.emplace_back([fd] { close(fd); });
  for (std::thread &t : closers) t.join();
  multi_fds_.clear();
  for (bpf_link *l : links_) bpf_link__destroy(l);
  links_.clear();
  sites_ = 0;
}

bool AttachedProbes::ReleaseInBackground() {
  if (multi_fds_.empty() && links_.empty()) return true;
  const int parent = static_cast<int>(syscall(SYS_pidfd_open, getpid(), 0));
  if (parent < 0) return false;
  const pid_t mid = fork();
  if (mid < 0) {
    close(parent);
    return false;
  }
  if (mid == 0) {
    // The intermediate child exits at once: the grandchild is init's to reap, never a
    // zombie of a long-lived caller (serve). Only async-signal-safe calls from here on.
    if (fork() == 0) {
      for (int fd = 0; fd < 3; ++fd) close(fd);
      pollfd p{parent, POLLIN, 0};
      poll(&p, 1, 2000);
      _exit(0);
    }
    _exit(0);
  }
  waitpid(mid, nullptr, 0);
  close(parent);
  return true;
}

void ReleaseOnThread(std::unique_ptr<AttachedProbes> probes) {
  if (!probes) return;
  try {
    std::thread([p = std::move(probes)]() mutable { p.reset(); }).detach();
  } catch (const std::system_error &) {
    // No thread: released here, waiting (as DetachAll would).
  }
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
  auto site_error = [&](const ProbeSite &s, int err) {
    return fmt::format("uprobe on {} ({} at {:#x}, file offset {:#x}) in pid {}: {}", s.function, s.insn, s.vaddr,
                       s.file_offset, pid, ExplainAttachErrno(err));
  };
  // Programs loaded for multi links (capture sets the attach type when the kernel has
  // them) get one link for all their sites; the others one perf-event uprobe per site.
  std::map<bpf_program *, std::vector<const ProbeSite *>> multi;
  for (const ProbeSite &s : plan.sites) {
    if (s.via_tracepoint) continue;  // the capture attaches the syscall tracepoints
    const char *prog_name = SiteProgram(s);
    bpf_program *prog = bpf_object__find_program_by_name(obj, prog_name);
    if (!prog || bpf_program__fd(prog) < 0)
      return gobin::Error{fmt::format("uprobe on {}: BPF program {} is not loaded (capture must load what the plan "
                                      "names: probes::PlanPrograms)",
                                      s.function, prog_name)};
    if (int(bpf_program__expected_attach_type(prog)) == kBpfTraceUprobeMulti) {
      multi[prog].push_back(&s);
      continue;
    }
    LIBBPF_OPTS(bpf_uprobe_opts, uo, .bpf_cookie = CookieFor(s));
    bpf_link *l = bpf_program__attach_uprobe_opts(prog, pid, binary.c_str(), s.file_offset, &uo);
    if (!l) {
      std::string msg = site_error(s, errno);
      if (s.required) return gobin::Error{msg};
      if (warnings) warnings->push_back(msg);
      continue;
    }
    out->links_.push_back(l);
    out->attached_[s.id] = true;
    out->sites_++;
  }
  for (const auto &[prog, sites] : multi) {
    std::vector<uint64_t> offsets, cookies;
    for (const ProbeSite *s : sites) {
      offsets.push_back(s->file_offset);
      cookies.push_back(CookieFor(*s));
    }
    int fd = AttachUprobeMulti(bpf_program__fd(prog), binary, offsets, cookies, pid);
    if (fd >= 0) {
      out->multi_fds_.push_back(fd);
      for (const ProbeSite *s : sites) out->attached_[s->id] = true;
      out->sites_ += sites.size();
      continue;
    }
    // One site refused: find it (and keep the others) with one link per site.
    for (const ProbeSite *s : sites) {
      int one = AttachUprobeMulti(bpf_program__fd(prog), binary, {s->file_offset}, {CookieFor(*s)}, pid);
      if (one < 0) {
        std::string msg = site_error(*s, -one);
        if (s->required) return gobin::Error{msg};
        if (warnings) warnings->push_back(msg);
        continue;
      }
      out->multi_fds_.push_back(one);
      out->attached_[s->id] = true;
      out->sites_++;
    }
  }
  return out;
}

}  // namespace gotraced::probes
