#include "report/fail_on.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdint>

#include "report/report.h"

namespace gotraced::report {
namespace {

bool IsDuration(const std::string &m) {
  return m.ends_with("_p50") || m.ends_with("_p90") || m.ends_with("_p99") || m.ends_with("_max") ||
         m.ends_with("_total");
}

std::string Show(const std::string &m, double v) {
  return IsDuration(m) ? Dur(static_cast<std::uint64_t>(v)) : fmt::format("{}", v);
}

}  // namespace

std::string ParseThresholds(const std::string &spec, const std::map<std::string, double> &known,
                            std::vector<Threshold> *out) {
  std::size_t pos = 0;
  while (pos <= spec.size()) {
    const std::size_t comma = std::min(spec.find(',', pos), spec.size());
    std::string item = spec.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) continue;
    const std::size_t op = item.find_first_of("<>");
    if (op == std::string::npos || op == 0)
      return fmt::format("'{}': want METRIC>VALUE or METRIC<VALUE", item);
    Threshold t{item.substr(0, op), item[op], 0, item};
    if (!known.count(t.metric)) {
      std::string names;
      for (auto &[k, v] : known) names += (names.empty() ? "" : ", ") + k;
      return fmt::format("'{}': no figure named {} (known: {})", item, t.metric, names);
    }
    const std::string v = item.substr(op + 1);
    const auto r = std::from_chars(v.data(), v.data() + v.size(), t.value);
    if (r.ec != std::errc()) return fmt::format("'{}': {} is not a number", item, v);
    const std::string unit(r.ptr, v.data() + v.size());
    static const std::map<std::string, double> kUnits = {
        {"", 1}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    auto u = kUnits.find(unit);
    if (u == kUnits.end()) return fmt::format("'{}': unit {} (want ns, us, ms or s)", item, unit);
    if (!unit.empty() && !IsDuration(t.metric))
      return fmt::format("'{}': {} is a count, not a duration", item, t.metric);
    t.value *= u->second;
    out->push_back(std::move(t));
  }
  return {};
}

std::vector<std::string> Crossed(const std::vector<Threshold> &ts,
                                 const std::map<std::string, double> &metrics) {
  std::vector<std::string> out;
  for (const Threshold &t : ts) {
    auto it = metrics.find(t.metric);
    if (it == metrics.end()) continue;
    const bool crossed = t.op == '>' ? it->second > t.value : it->second < t.value;
    if (crossed) out.push_back(fmt::format("{} = {} ({})", t.metric, Show(t.metric, it->second), t.text));
  }
  return out;
}

std::map<std::string, double> Report::Metrics() const {
  auto d = [](std::uint64_t v) { return static_cast<double>(v); };
  std::map<std::string, double> m = {
      {"sched_latency_p50", d(sched.all.p50_ns)},
      {"sched_latency_p90", d(sched.all.p90_ns)},
      {"sched_latency_p99", d(sched.all.p99_ns)},
      {"sched_latency_max", d(sched.all.max_ns)},
      {"stw_max", d(stw.all.max_ns)},
      {"stw_total", d(stw.all.total_ns)},
      {"stw_count", d(stw.all.count)},
      {"gc_pause_max", d(stw.gc.max_ns)},
      {"gc_pause_total", d(stw.gc.total_ns)},
      {"gc_pause_count", d(stw.gc.count)},
      {"gc_cycles", d(stw.gc_cycles)},
      {"goroutine_growth", static_cast<double>(goroutines_section.growth)},
      {"goroutines_end", d(goroutines_section.at_end)},
      {"leak_suspects", 0},
      {"syscall_total", d(syscalls.all.total_ns)},
      {"syscall_max", d(syscalls.all.max_ns)},
      {"cpu_samples", d(cpu.samples)},
      {"kernel_total", 0},
  };
  double assist = 0, kernel_ns = 0, blocked = 0;
  for (const GroupDist &g : stw.mark_assist) assist += d(g.dist.total_ns);
  m["mark_assist_total"] = assist;
  for (const Blocking::Row &b : blocking.reasons) {
    std::string key = "block_" + b.reason + "_total";
    for (char &c : key)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
    m[key] = d(b.dist.total_ns);
    if (b.reason != "syscall") blocked += d(b.dist.total_ns);
  }
  for (const char *r :
       {"block_mutex_total", "block_RWMutex_total", "block_chan_receive_total", "block_chan_send_total",
        "block_select_total", "block_network_total", "block_sleep_total", "block_Cond_total"})
    m.try_emplace(r, 0);
  m["block_total"] = blocked;
  for (const KernelSide::Cause &c : kernel.totals)
    if (c.type.starts_with("kernel: ")) kernel_ns += d(c.total_ns);
  m["kernel_total"] = kernel_ns;
  double leaks = 0;
  for (const Goroutines::Suspect &s : goroutines_section.leak_suspects)
    if (s.blocked_ns * 2 >= duration_ns) leaks += d(s.same);
  m["leak_suspects"] = leaks;
  return m;
}

}  // namespace gotraced::report
