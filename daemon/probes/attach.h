// Attaching a ProbePlan to one process: one uprobe per site, with the target pid so the
// breakpoint is written only into that process's copy of the text (libbpf
// bpf_program__attach_uprobe_opts -> perf_event_open(uprobe PMU, pid)), and the site's
// cookie (probe id | flags << 16) that the BPF program reads with
// bpf_get_attach_cookie.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "daemon/gobin/result.h"
#include "daemon/probes/privileges.h"
#include "daemon/probes/probe_plan.h"

struct bpf_link;
struct bpf_object;

namespace gotraced::probes {

class AttachedProbes {
 public:
  ~AttachedProbes();  // detaches everything
  AttachedProbes() = default;
  AttachedProbes(const AttachedProbes &) = delete;
  AttachedProbes &operator=(const AttachedProbes &) = delete;

  void DetachAll();
  // For a target that has exited: the kernel's release of each link waits for an RCU
  // grace period (~70 ms here, kernel/events/uprobes.c uprobe_unregister_sync), which
  // made every launch end that much after its program. A grandchild process (stdio
  // closed, so nobody who waits on our output waits on it) keeps a copy of every file
  // descriptor until this process has exited, or 2 s, and the last close, with the wait,
  // is then its own. The probes of a dead process trap no one in the meantime. Returns
  // false when no grandchild could be made (the caller's DetachAll then waits, as before).
  bool ReleaseInBackground();
  // Sites attached (a multi link counts its sites).
  size_t count() const { return sites_; }
  size_t links() const { return links_.size() + multi_fds_.size(); }
  // Per site id: attached or not (optional sites may fail).
  const std::vector<bool> &attached() const { return attached_; }

 private:
  friend gobin::Result<std::unique_ptr<AttachedProbes>> AttachPlan(const ProbePlan &, pid_t, const std::string &,
                                                                   bpf_object *, std::vector<std::string> *);
  std::vector<bpf_link *> links_;
  std::vector<int> multi_fds_;
  size_t sites_ = 0;  // uprobe multi links (uprobe_multi.h), one per program
  std::vector<bool> attached_;
};

// For a long-lived caller (serve), the release of an exited target's probes: on a thread
// of its own, detached, which waits for the kernel's grace periods (DetachAll) while the
// caller goes on. A thread is ~50 us to make where ReleaseInBackground's fork of serve was
// ~4% of an attach's CPU (docs/probe-plan.md §11); a short-lived gotraced keeps the fork,
// as the releases still under way when a process exits would delay its exit.
void ReleaseOnThread(std::unique_ptr<AttachedProbes> probes);

// `binary` is the path the kernel resolves to the inode to probe: /proc/PID/exe (the
// mapped file even if the path on disk was replaced). Each site is attached to the program
// of its class in `obj` (site_program.h), which must be loaded. A required site that fails fails the whole attach (with the
// reason: EPERM -> "not root" or "a security policy", ENOENT ...); optional ones add a warning.
gobin::Result<std::unique_ptr<AttachedProbes>> AttachPlan(const ProbePlan &plan, pid_t pid, const std::string &binary,
                                                          bpf_object *obj, std::vector<std::string> *warnings);

// "Operation not permitted (run as root or with CAP_BPF+CAP_PERFMON)" etc. The advice to
// run as root only when this process lacks the capabilities (privileges.h): with them,
// the refusal comes from a policy that running as root does not change.
std::string ExplainAttachErrno(int err);
std::string ExplainAttachErrno(int err, const BpfPrivileges &privileges);

}  // namespace gotraced::probes
