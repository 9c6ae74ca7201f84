// The report as text: findings first, then one section per area.
#include <fmt/format.h>

#include "report/report.h"

namespace gotraced::report {

std::string Dur(std::uint64_t ns) {
  if (ns >= 1'000'000'000) return fmt::format("{:.3f} s", ns / 1e9);
  if (ns >= 1'000'000) return fmt::format("{:.1f} ms", ns / 1e6);
  return fmt::format("{:.1f} us", ns / 1e3);
}

namespace {

std::string DistLine(const Dist &d) {
  return fmt::format("{:>7}  total {:>10}  p50 {:>9}  p99 {:>9}  max {:>9}", d.count, Dur(d.total_ns),
                     Dur(d.p50_ns), Dur(d.p99_ns), Dur(d.max_ns));
}

std::string Bytes(std::uint64_t b) {
  if (b >= (1ull << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(b) / (1ull << 20));
  if (b >= (1ull << 10)) return fmt::format("{:.1f} KiB", static_cast<double>(b) / (1ull << 10));
  return fmt::format("{} B", b);
}

template <typename V, typename F>
void Rows(std::string &o, const V &v, std::size_t top, F line) {
  for (std::size_t i = 0; i < v.size() && i < top; ++i) o += line(v[i]);
  if (v.size() > top) o += fmt::format("  ... {} more (--top, --json)\n", v.size() - top);
}

void Sched(std::string &o, const Report &r, std::size_t top) {
  o += fmt::format("\nscheduling latency (runnable -> running)\n  {:<44} {}\n", "all goroutines",
                   DistLine(r.sched.all));
  Rows(o, r.sched.groups, top,
       [](const GroupDist &g) { return fmt::format("  {:<44} {}\n", g.group, DistLine(g.dist)); });
  for (std::size_t i = 0; i < r.sched.worst.size() && i < top; ++i) {
    const Moment &m = r.sched.worst[i];
    o += fmt::format("  worst: {:>9} at {:.3f} s  {}{}\n", Dur(m.dur_ns), m.start_ns / 1e9, m.what,
                     m.kernel.empty() ? "" : "; " + m.kernel);
  }
}

void Stw(std::string &o, const Report &r, std::size_t top) {
  o += fmt::format("\nstop-the-world and GC: {} GC cycles (GC running {}, max {}), heap up to {}\n",
                   r.stw.gc_cycles, Dur(r.stw.gc_total_ns), Dur(r.stw.gc_max_ns), Bytes(r.stw.heap_max));
  o += fmt::format("  {:<44} {}\n  {:<44} {}\n", "all stops", DistLine(r.stw.all), "GC stops",
                   DistLine(r.stw.gc));
  Rows(o, r.stw.kinds, top,
       [](const StwGc::Kind &k) { return fmt::format("  {:<44} {}\n", k.kind, DistLine(k.dist)); });
  for (std::size_t i = 0; i < r.stw.longest.size() && i < top; ++i)
    o += fmt::format("  longest: {} at {:.3f} s\n", r.stw.longest[i].what, r.stw.longest[i].start_ns / 1e9);
  if (!r.stw.mark_assist.empty())
    o += fmt::format("  mark assist by group (running in the assist; from begin to end, with its parks and waits "
                     "for a P: {}):\n",
                     Dur(r.stw.mark_assist_range_ns));
  Rows(o, r.stw.mark_assist, top,
       [](const GroupDist &g) { return fmt::format("  {:<44} {}\n", g.group, DistLine(g.dist)); });
}

// A section's figures per goroutine group (its start function, or with --by-label the
// label's value the goroutine had when it blocked or entered the syscall).
void GroupRows(std::string &o, const std::vector<GroupDist> &v, std::size_t top, const std::string &by) {
  if (v.empty()) return;
  o += fmt::format("  by {}:\n", by);
  Rows(o, v, top, [](const GroupDist &g) { return fmt::format("  {:<44} {}\n", g.group, DistLine(g.dist)); });
}

void Block(std::string &o, const Report &r, std::size_t top) {
  o += "\nblocking (waiting -> runnable) by reason\n";
  Rows(o, r.blocking.reasons, top * 2,
       [](const Blocking::Row &b) { return fmt::format("  {:<44} {}\n", b.reason, DistLine(b.dist)); });
  o += "  by call site:\n";
  Rows(o, r.blocking.call_sites, top * 2, [](const Blocking::Row &b) {
    return fmt::format("  {:<14} {:<60} {}  worst g{} at {:.3f} s\n", b.reason, b.call_site, DistLine(b.dist),
                       b.worst_g, b.worst_start_ns / 1e9);
  });
  GroupRows(o, r.blocking.groups, top, r.grouped_by);
}

void Sys(std::string &o, const Report &r, std::size_t top) {
  o += fmt::format("\nsyscalls (Go's events)\n  {:<44} {}\n", "all", DistLine(r.syscalls.all));
  Rows(o, r.syscalls.by_call_site, top,
       [](const Syscalls::Row &s) { return fmt::format("  {:<44} {}\n", s.what, DistLine(s.dist)); });
  if (!r.syscalls.by_target.empty()) o += "  what they touched (kernel view: syscalls off CPU or >= 1 ms):\n";
  Rows(o, r.syscalls.by_target, top, [](const Syscalls::Row &s) {
    return fmt::format(
        "  {:<44} {:>7} calls  total {:>10}  max {:>9}{}\n", s.what, s.dist.count, Dur(s.dist.total_ns),
        Dur(s.dist.max_ns),
        s.calls_with_bytes ? fmt::format("  {} in {} calls", Bytes(s.bytes), s.calls_with_bytes) : "");
  });
  GroupRows(o, r.syscalls.groups, top, r.grouped_by);
}

void Gor(std::string &o, const Report &r, std::size_t top) {
  const Goroutines &g = r.goroutines_section;
  o += fmt::format(
      "\ngoroutines: {} at the start, {} at the end ({:+}; the runtime's own left out), {} created, {} "
      "ended\n",
      g.at_start, g.at_end, g.growth, g.created, g.ended);
  Rows(o, g.groups, top, [](const Goroutines::Group &x) {
    return fmt::format("  {:<44} {:+6}  ({} at the end)\n", x.group, x.growth, x.at_end);
  });
  if (!g.leak_suspects.empty()) o += "  longest blocked at the end (leak suspects):\n";
  Rows(o, g.leak_suspects, top, [](const Goroutines::Suspect &s) {
    return fmt::format("  {:>5} x {:<36} {:<14} blocked {:>9} (g{})\n        {}\n", s.same, s.group, s.reason,
                       Dur(s.blocked_ns), s.g, s.stack);
  });
}

void CpuS(std::string &o, const Report &r, std::size_t top) {
  if (r.cpu.samples == 0) {
    o += "\nCPU: no CPU samples in this trace\n";
    return;
  }
  o += fmt::format("\nCPU: {} samples\n", r.cpu.samples);
  auto row = [&](const Cpu::Row &c) {
    return fmt::format("  {:<60} {:>7}  {:5.1f}%\n", c.name, c.samples, 100.0 * c.samples / r.cpu.samples);
  };
  Rows(o, r.cpu.functions, top, row);
  o += "  by group:\n";
  Rows(o, r.cpu.groups, top, row);
}

void Kernel(std::string &o, const Report &r, std::size_t top) {
  if (r.kernel.regions == 0) {
    o += "\nthe kernel's side: no kernel view in this trace (runtime/trace, --no-kernel-view, or nothing "
         "happened)\n";
    return;
  }
  o += fmt::format("\nthe kernel's side: {} kernel regions\n", r.kernel.regions);
  Rows(o, r.kernel.totals, top * 2, [](const KernelSide::Cause &c) {
    return fmt::format("  {:<44} {:>10}  {:>7} intervals  max {}\n", c.type, Dur(c.total_ns), c.count,
                       Dur(c.max_ns));
  });
  for (std::size_t i = 0; i < r.kernel.groups.size() && i < top; ++i) {
    const KernelSide::Group &g = r.kernel.groups[i];
    o += fmt::format("  {} ({} goroutine{}): kernel {}\n", g.function, g.goroutines,
                     g.goroutines == 1 ? "" : "s", Dur(g.total_ns));
    Rows(o, g.causes, top, [&](const KernelSide::Cause &c) {
      std::string who;
      for (std::size_t k = 0; k < c.goroutines.size() && k < 3; ++k)
        who += fmt::format("{}g{} {}", k ? ", " : "", c.goroutines[k].g, Dur(c.goroutines[k].total_ns));
      return fmt::format("    {:<42} {:>10}  {:>7} intervals  max {:<9} ({})\n", c.type, Dur(c.total_ns),
                         c.count, Dur(c.max_ns), who);
    });
    if (!g.syscall_bytes.empty()) {
      std::string line;
      for (auto &[name, b] : g.syscall_bytes)
        line += fmt::format("{}{} {} in {} call{}", line.empty() ? "" : ", ", name, Bytes(b.first), b.second,
                            b.second == 1 ? "" : "s");
      o += fmt::format("    {:<42} {}\n", "bytes by syscall", line);
    }
  }
}

}  // namespace

std::string ReportText(const Report &r, const ReportOptions &opt) {
  std::string o = fmt::format("{} trace, {} long, {} events, {} goroutines\n", r.version, Dur(r.duration_ns),
                              r.events, r.goroutines);
  if (r.grouped_by != "start function") o += fmt::format("goroutines grouped by {}\n", r.grouped_by);
  o += r.findings.empty() ? "\nfindings: none above the thresholds (1 ms waits, 10 ms totals)\n"
                          : "\nfindings:\n";
  for (std::size_t i = 0; i < r.findings.size(); ++i)
    o += fmt::format("{:>3}. {}\n      open: {}\n", i + 1, r.findings[i].line, r.findings[i].open);
  Sched(o, r, opt.top);
  Stw(o, r, opt.top);
  Block(o, r, opt.top);
  Sys(o, r, opt.top);
  Gor(o, r, opt.top);
  CpuS(o, r, opt.top);
  Kernel(o, r, opt.top);
  return o;
}

}  // namespace gotraced::report
