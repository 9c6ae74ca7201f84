#include "daemon/bpfcheck/selftest_target.h"

#include <cstring>

#include <fmt/format.h>

#include "daemon/capture/capture.h"
#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/layout_tables.h"
#include "daemon/gobin/runtime_layout.h"
#include "daemon/probes/version_support.h"

namespace gotraced::bpfcheck {

gobin::Result<SelftestTarget> TargetFromBinary(const std::string &path) {
  // The recorder's own planning (capture.h PlanTarget: binary, runtime layout, plan).
  // A recording's defaults: the kernel view on (its Go <= 1.25 syscall programs live).
  probes::PlanOptions po;
  po.sched_switch = true;
  auto planned = capture::PlanTarget(0, path, po);
  if (!planned) return gobin::Error{planned.error()};
  SelftestTarget t;
  const std::string &v = planned->bin->build_info().go_version;
  t.description = fmt::format("{} ({})", path, v.empty() ? planned->plan.name : v);
  t.plan = std::move(planned->plan);
  return t;
}

gobin::Result<SelftestTarget> BuiltinTarget() {
  gobin::GoVersion v;
  v.major = 1;
  v.minor = probes::kNewestKnownMinor;
  auto layout = gobin::LayoutFromTable(v);
  if (!layout) return gobin::Error{fmt::format("no built-in runtime layout for go1.{}", v.minor)};
  SelftestTarget t;
  probes::ProbePlan &p = t.plan;
  p.name = fmt::format("go1.{}", v.minor);
  p.go_minor = v.minor;
  p.offsets = probes::OffsetsFrom(*layout);
  // What PlanFor derives from the version (probe_plan.cc PlanFor).
  p.stack_prefers_syscall = v.minor >= 23;
  // Every transition walks a stack and reads every optional group: the most code live.
  // (Indexed by run-time values, these do not change what the verifier checks.)
  for (auto &m : p.stack_for_old) m = 0xffff;
  std::memset(p.gstatus_groups, 0xff, sizeof(p.gstatus_groups));
  // A binary's thread-local g: -8(FS) in a Go ELF binary on amd64 (cmd/link: runtime.tlsg).
  p.tls_g_offset = -8;
  // runtime trace.enabled (a bool since 1.21) at a placeholder link-time address.
  p.user_tracing_flag_vaddr = 0x400000;
  p.user_tracing_flag_size = 1;
  // Goroutine syscalls from the tracepoints (probes/syscall_sites.h), with placeholder
  // ranges: otherwise the verifier sees those programs return at once.
  p.syscall_tp = true;
  // ... and the kernel view's own (bpf/gt_kernel_syscall.bpf.h), which a recording of Go
  // <= 1.25 loads instead: both live here, on the same ranges.
  p.kernel_syscalls = true;
  p.go_text = {0x401000, 0x800000};
  p.sys_skip = {0x410000, 0x410100};
  t.description = fmt::format("built-in: {} runtime layout table ({})", p.name, layout->go_version);
  return t;
}

}  // namespace gotraced::bpfcheck
