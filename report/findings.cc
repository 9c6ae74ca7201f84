#include "report/findings.h"

#include <fmt/format.h>

#include "daemon/model/kernel_view.h"
#include "report/syscall_log.h"

namespace gotraced::report {

std::vector<Syscalls::Row> SyscallTargets(const KernelSide &k) {
  const std::string prefix = std::string(model::kKernelRegionPrefix) + "syscall ";
  std::vector<Syscalls::Row> v;
  for (const KernelSide::Cause &c : k.totals) {
    if (!c.type.starts_with(prefix)) continue;
    Syscalls::Row row;
    row.what = c.type.substr(prefix.size());
    row.dist.count = c.count;
    row.dist.total_ns = c.total_ns;
    row.dist.max_ns = c.max_ns;
    row.bytes = c.bytes;
    row.calls_with_bytes = c.calls_with_bytes;
    v.push_back(std::move(row));
  }
  return v;  // k.totals is biggest first
}

namespace {

std::string At(std::uint64_t ns) { return fmt::format("at {:.3f} s", static_cast<double>(ns) / 1e9); }

void SchedFindings(Report &r, const KernelSideSection &k, std::vector<Finding> &out) {
  // The three longest waits; and, of the others on the worst list, those the kernel
  // explains (threads throttled by their cgroup): a cause outside the program.
  std::size_t taken = 0;
  for (std::size_t i = 0; i < r.sched.worst.size(); ++i) {
    Moment &m = r.sched.worst[i];
    if (m.dur_ns < 1'000'000) break;  // under 1 ms is not a finding
    m.kernel = k.During(m.start_ns, m.start_ns + m.dur_ns);
    const bool throttled = m.kernel.find("throttled") != std::string::npos;
    if (i >= 3 && (!throttled || taken >= 5)) continue;
    ++taken;
    out.push_back({"sched", m.dur_ns,
                   fmt::format("scheduling latency {} {}: {}{}", Dur(m.dur_ns), At(m.start_ns), m.what,
                               m.kernel.empty() ? "" : "; " + m.kernel),
                   fmt::format("View trace by proc at {:.3f} s; Goroutines > g{}", m.start_ns / 1e9, m.g)});
  }
  if (!r.sched.groups.empty() && r.sched.groups[0].dist.p99_ns >= 1'000'000) {
    const GroupDist &g = r.sched.groups[0];
    out.push_back({"sched", g.dist.p99_ns,
                   fmt::format("scheduling latency p99 {} (p50 {}, {} waits) in {}", Dur(g.dist.p99_ns),
                               Dur(g.dist.p50_ns), g.dist.count, g.group),
                   "Scheduler latency profile"});
  }
}

void StwFindings(Report &r, const KernelSideSection &k, std::vector<Finding> &out) {
  const std::size_t n = std::min<std::size_t>(r.stw.longest.size(), 2);
  for (std::size_t i = 0; i < n; ++i) {
    Moment &m = r.stw.longest[i];
    if (m.dur_ns < 500'000) break;
    m.kernel = k.During(m.start_ns, m.start_ns + m.dur_ns);
    out.push_back({"stw", m.dur_ns,
                   fmt::format("{} {}{}", m.what, At(m.start_ns), m.kernel.empty() ? "" : "; " + m.kernel),
                   fmt::format("View trace at {:.3f} s (the STW band)", m.start_ns / 1e9)});
  }
  if (r.stw.gc.count > 0 && r.stw.gc.total_ns >= 1'000'000)
    out.push_back({"stw", r.stw.gc.total_ns,
                   fmt::format("GC pauses {} in {} stops-the-world, {} GC cycles, max {}",
                               Dur(r.stw.gc.total_ns), r.stw.gc.count, r.stw.gc_cycles, Dur(r.stw.gc.max_ns)),
                   "View trace (GC and STW bands); Minimum mutator utilization"});
  if (!r.stw.mark_assist.empty() && r.stw.mark_assist[0].dist.total_ns >= 1'000'000) {
    const GroupDist &g = r.stw.mark_assist[0];
    out.push_back(
        {"stw", g.dist.total_ns,
         fmt::format("GC mark assist {} in {} ({} assists)", Dur(g.dist.total_ns), g.group, g.dist.count),
         fmt::format("Goroutines > {} (GC assist column)", g.group)});
  }
}

// Contention (a lock, a full channel) is a finding by its total; an idle wait (select,
// receive, sleep, network: how a server waits for work) only when the kernel explains
// its worst one (the threads were throttled meanwhile: timers and wake-ups came late).
bool IsContention(const std::string &reason) {
  return reason == "mutex" || reason == "RWMutex" || reason == "Cond" || reason == "chan send" ||
         reason == "sync";
}

void BlockingFindings(const Report &r, const KernelSideSection &k, std::vector<Finding> &out) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < r.blocking.call_sites.size() && i < 20 && n < 3; ++i) {
    const Blocking::Row &b = r.blocking.call_sites[i];
    if (b.dist.total_ns < 1'000'000 || b.reason == "syscall") continue;  // the syscall findings say it
    const std::string kernel = k.During(b.worst_start_ns, b.worst_start_ns + b.dist.max_ns);
    const bool contention = IsContention(b.reason);
    if (!contention && kernel.find("throttled") == std::string::npos) continue;
    ++n;
    out.push_back({"blocking", contention ? b.dist.total_ns : b.dist.max_ns,
                   fmt::format("blocked on {} {} over {} waits at {} (max {}, g{} {}){}", b.reason,
                               Dur(b.dist.total_ns), b.dist.count, b.call_site, Dur(b.dist.max_ns), b.worst_g,
                               At(b.worst_start_ns), kernel.empty() ? "" : "; " + kernel),
                   b.reason == "network" ? "Network blocking profile" : "Synchronization blocking profile"});
  }
}

void SyscallFindings(const Report &r, std::vector<Finding> &out) {
  if (!r.syscalls.by_call_site.empty() && r.syscalls.by_call_site[0].dist.total_ns >= 10'000'000) {
    const Syscalls::Row &s = r.syscalls.by_call_site[0];
    out.push_back({"syscall", s.dist.total_ns,
                   fmt::format("syscalls {} over {} calls at {} (max {})", Dur(s.dist.total_ns), s.dist.count,
                               s.what, Dur(s.dist.max_ns)),
                   "Syscall profile"});
  }
  if (!r.syscalls.by_target.empty() && r.syscalls.by_target[0].dist.total_ns >= 1'000'000) {
    const Syscalls::Row &s = r.syscalls.by_target[0];
    out.push_back({"syscall", s.dist.total_ns,
                   fmt::format("kernel: syscall {} {} over {} slow calls (max {})", s.what,
                               Dur(s.dist.total_ns), s.dist.count, Dur(s.dist.max_ns)),
                   fmt::format("View trace: regions \"kernel: syscall {}\"", s.what)});
  }
}

void GoroutineFindings(const Report &r, std::vector<Finding> &out) {
  const Goroutines &g = r.goroutines_section;
  for (std::size_t i = 0; i < g.leak_suspects.size() && i < 2; ++i) {
    const Goroutines::Suspect &s = g.leak_suspects[i];
    if (s.same < 10 || s.blocked_ns * 2 < r.duration_ns) continue;  // many, blocked for most of the window
    out.push_back(
        {"goroutines", s.blocked_ns * s.same / 10,
         fmt::format("{} goroutines of {} blocked on {} for up to {} (g{}: {}); goroutines {:+} over the "
                     "window",
                     s.same, s.group, s.reason, Dur(s.blocked_ns), s.g, s.stack, g.growth),
         fmt::format("Goroutines > {}", s.group)});
  }
}

void CpuFindings(const Report &r, std::vector<Finding> &out) {
  if (r.cpu.samples < 20 || r.cpu.functions.empty()) return;
  const Cpu::Row &f = r.cpu.functions[0];
  if (f.samples * 5 < r.cpu.samples) return;  // under 20%
  // A sample stands for the profiler's period (runtime/pprof: 100 Hz, 10 ms).
  out.push_back(
      {"cpu", f.samples * 10'000'000,
       fmt::format("CPU: {} of {} samples ({:.0f}%) in {}", f.samples, r.cpu.samples,
                   100.0 * static_cast<double>(f.samples) / static_cast<double>(r.cpu.samples), f.name),
       "go tool trace -pprof=... or View trace (CPU samples)"});
}

void KernelFindings(const Report &r, std::vector<Finding> &out) {
  std::size_t n = 0;
  for (const KernelSide::Group &g : r.kernel.groups) {
    for (const KernelSide::Cause &c : g.causes) {
      if (n == 2 || c.total_ns < 10'000'000 || c.type == kGoSyscallCause ||
          c.type.starts_with("kernel: syscall"))
        continue;
      ++n;
      std::string who;
      for (std::size_t i = 0; i < c.goroutines.size() && i < 3; ++i)
        who += fmt::format("{}g{}", i ? ", " : "", c.goroutines[i].g);
      out.push_back({"kernel", c.total_ns,
                     fmt::format("{} {} over {} intervals in {} ({})", c.type, Dur(c.total_ns), c.count,
                                 g.function, who),
                     fmt::format("View trace: regions \"{}\"", c.type)});
    }
  }
}

}  // namespace

std::vector<Finding> RankFindings(Report &r, const KernelSideSection &kernel, const ReportOptions &opt) {
  std::vector<Finding> out;
  SchedFindings(r, kernel, out);
  StwFindings(r, kernel, out);
  BlockingFindings(r, kernel, out);
  SyscallFindings(r, out);
  GoroutineFindings(r, out);
  CpuFindings(r, out);
  KernelFindings(r, out);
  std::stable_sort(out.begin(), out.end(),
                   [](const Finding &a, const Finding &b) { return a.size_ns > b.size_ns; });
  if (out.size() > opt.top * 3) out.resize(opt.top * 3);
  return out;
}

}  // namespace gotraced::report
