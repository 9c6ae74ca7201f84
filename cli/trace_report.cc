// `gotraced report`'s analysis (trace_report.h).
#include "cli/trace_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "daemon/model/kernel_view.h"
#include "encoder/trace_decoder.h"

namespace gotraced::cli {

using encoder::DecodedEvent;
using encoder::EventType;

namespace {

struct GInfo {
  std::string function;
  bool named_by_create = false;
  std::vector<std::pair<std::string, std::uint64_t>> open;  // region type, begin ns
  std::uint64_t syscall_begin = 0;                          // 0: not in a syscall
};

struct Acc {
  std::uint64_t total = 0, count = 0, max = 0;
  void Add(std::uint64_t d) {
    total += d;
    ++count;
    max = std::max(max, d);
  }
};

std::string JsonStr(std::string_view s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (static_cast<unsigned char>(c) < 0x20) o += fmt::format("\\u{:04x}", c);
    else o += c;
  }
  return o + "\"";
}

// A syscall log's message, "read /x: 30.100 ms: on CPU 0.200 ms, off-CPU sleep 29.500 ms,
// run-queue wait 0.400 ms, then waiting for a P 1.000 ms" (model_kernel_syscall.cc
// KernelSyscallMessage): the region type it belongs to and its parts in ns.
bool ParseSyscallLog(std::string_view msg, std::string *type, std::map<std::string, std::uint64_t> *parts) {
  const auto c1 = msg.find(": ");
  if (c1 == std::string_view::npos) return false;
  *type = std::string(model::kKernelRegionPrefix) + "syscall " + std::string(msg.substr(0, c1));
  const auto c2 = msg.find(": ", c1 + 2);
  if (c2 == std::string_view::npos) return false;
  std::string_view rest = msg.substr(c2 + 2);
  while (!rest.empty()) {
    const auto comma = rest.find(", ");
    std::string_view part = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 2);
    if (part.substr(0, 5) == "then ") part.remove_prefix(5);
    // "<what> <number> ms"
    if (part.size() < 4 || part.substr(part.size() - 3) != " ms") continue;
    part.remove_suffix(3);
    const auto sp = part.rfind(' ');
    if (sp == std::string_view::npos) continue;
    try {
      (*parts)[std::string(part.substr(0, sp))] +=
          static_cast<std::uint64_t>(std::stod(std::string(part.substr(sp + 1))) * 1e6);
    } catch (...) {
    }
  }
  return true;
}

std::string Dur(std::uint64_t ns) {
  if (ns >= 1'000'000'000) return fmt::format("{:.3f} s", ns / 1e9);
  if (ns >= 1'000'000) return fmt::format("{:.1f} ms", ns / 1e6);
  return fmt::format("{:.1f} us", ns / 1e3);
}

}  // namespace

TraceReport BuildReport(std::span<const std::uint8_t> bytes) {
  TraceReport rep;
  encoder::DecodedTrace t = encoder::DecodeTrace(bytes);
  if (!t.ok()) {
    rep.error = t.error;
    return rep;
  }
  rep.version = fmt::format("go1.{}", static_cast<int>(t.version));
  std::unordered_map<std::uint64_t, GInfo> gs;
  std::unordered_map<std::uint64_t, std::uint64_t> cur;  // M -> goroutine it runs (0 none)
  std::map<std::pair<std::uint64_t, std::string>, Acc> per_g;  // (g, cause)
  std::map<std::pair<std::uint64_t, std::string>, std::map<std::string, std::uint64_t>> per_g_parts;
  std::uint64_t t_first = ~std::uint64_t{0}, t_last = 0;

  for (const encoder::DecodedGeneration &gen : t.generations) {
    // Ticks to ns: the generation's Frequency event (ticks per second).
    const double ns_per_tick = gen.frequency ? 1e9 / static_cast<double>(gen.frequency) : 1.0;
    auto ns = [&](std::uint64_t ticks) { return static_cast<std::uint64_t>(static_cast<double>(ticks) * ns_per_tick); };
    auto str = [&](std::uint64_t id) -> std::string {
      auto it = gen.strings.find(id);
      return it == gen.strings.end() ? std::string() : it->second;
    };
    // A stack's function at the outermost (start) or innermost frame.
    auto stack_func = [&](std::uint64_t id, bool outermost) -> std::string {
      auto it = gen.stacks.find(id);
      if (it == gen.stacks.end() || it->second.empty()) return {};
      return str(outermost ? it->second.back().func : it->second.front().func);
    };
    // The statuses describe the generation's start: which M runs which goroutine.
    for (const encoder::DecodedBatch &b : gen.batches)
      for (const DecodedEvent &e : b.events)
        if (e.type == EventType::kGoStatus || e.type == EventType::kGoStatusStack) {
          const auto st = static_cast<encoder::GoStatus>(e.arg(2));
          gs.try_emplace(e.arg(0));
          if (st == encoder::GoStatus::kRunning || st == encoder::GoStatus::kSyscall) cur[e.arg(1)] = e.arg(0);
        }
    // In time order across the Ms (each M's own events are in order already): a region
    // may end on another M than the one it began on (a syscall that lost its P ends it
    // where the goroutine runs again).
    std::vector<std::pair<const encoder::DecodedBatch *, const DecodedEvent *>> order;
    for (const encoder::DecodedBatch &b : gen.batches)
      if (b.kind == encoder::BatchKind::kEvents)
        for (const DecodedEvent &e : b.events) order.emplace_back(&b, &e);
    std::stable_sort(order.begin(), order.end(),
                     [](const auto &x, const auto &y) { return x.second->time < y.second->time; });
    for (const auto &[bp, ep] : order) {
      {
        const encoder::DecodedBatch &b = *bp;
        const DecodedEvent &e = *ep;
        const std::uint64_t now = ns(e.time);
        if (e.type != EventType::kNone) {
          t_first = std::min(t_first, now);
          t_last = std::max(t_last, now);
        }
        std::uint64_t &g = cur[b.m];
        // A goroutine first seen with a stack of its own: its outermost frame names it
        // (the start function, as for a created one), unless a GoCreate did.
        auto name_from_stack = [&](std::uint64_t stack) {
          if (g == 0 || stack == 0) return;
          GInfo &gi = gs[g];
          if (gi.function.empty()) gi.function = stack_func(stack, true);
        };
        switch (e.type) {
          case EventType::kGoCreate:
          case EventType::kGoCreateBlocked: {
            GInfo &gi = gs[e.arg(0)];
            gi.function = stack_func(e.arg(1), false);  // new_stack: the start PC's frame
            gi.named_by_create = true;
            break;
          }
          case EventType::kGoCreateSyscall: g = e.arg(0); gs.try_emplace(g); break;
          case EventType::kGoStart:
          case EventType::kGoSwitch:
          case EventType::kGoSwitchDestroy: g = e.arg(0); break;
          case EventType::kGoStop:
          case EventType::kGoBlock: name_from_stack(e.arg(1)); g = 0; break;
          case EventType::kGoDestroy:
          case EventType::kGoDestroySyscall: g = 0; break;
          case EventType::kGoSyscallBegin:
            name_from_stack(e.arg(1));
            if (g) gs[g].syscall_begin = now;
            break;
          case EventType::kGoSyscallEnd:
          case EventType::kGoSyscallEndBlocked:
            if (g) {
              GInfo &gi = gs[g];
              if (gi.syscall_begin && now >= gi.syscall_begin)
                per_g[{g, kGoSyscallCause}].Add(now - gi.syscall_begin);
              gi.syscall_begin = 0;
            }
            if (e.type == EventType::kGoSyscallEndBlocked) g = 0;
            break;
          case EventType::kUserRegionBegin: {
            if (g == 0) break;
            std::string type = str(e.arg(1));
            if (!model::IsKernelRegion(type)) break;
            ++rep.kernel_regions;
            gs[g].open.emplace_back(std::move(type), now);
            break;
          }
          case EventType::kUserRegionEnd: {
            if (g == 0) break;
            const std::string type = str(e.arg(1));
            if (!model::IsKernelRegion(type)) break;
            auto &open = gs[g].open;
            for (std::size_t k = open.size(); k > 0; --k) {
              if (open[k - 1].first != type) continue;
              if (now >= open[k - 1].second) per_g[{g, type}].Add(now - open[k - 1].second);
              open.erase(open.begin() + static_cast<std::ptrdiff_t>(k - 1));
              break;
            }
            break;
          }
          case EventType::kUserLog: {
            if (g == 0 || str(e.arg(1)) != model::kKernelSyscallLog) break;
            std::string type;
            std::map<std::string, std::uint64_t> parts;
            if (!ParseSyscallLog(str(e.arg(2)), &type, &parts)) break;
            auto &dst = per_g_parts[{g, type}];
            for (auto &[k, v] : parts) dst[k] += v;
            break;
          }
          default: break;
        }
      }
    }
  }
  if (t_last >= t_first && t_first != ~std::uint64_t{0}) rep.duration_ns = t_last - t_first;
  rep.goroutines = gs.size();

  // Per group and cause; and overall.
  std::map<std::string, ReportGroup> groups;
  std::map<std::string, std::map<std::string, ReportCause>> gcauses;
  std::map<std::string, ReportCause> totals;
  for (auto &[id, gi] : gs) {
    const std::string fn = gi.function.empty() ? "?" : gi.function;
    ++groups[fn].goroutines;
  }
  for (auto &[key, acc] : per_g) {
    const auto &[g, type] = key;
    const std::string fn = gs[g].function.empty() ? "?" : gs[g].function;
    ReportCause &c = gcauses[fn][type];
    c.type = type;
    c.total_ns += acc.total;
    c.count += acc.count;
    c.max_ns = std::max(c.max_ns, acc.max);
    c.goroutines.push_back({g, acc.total, acc.count});
    if (auto pp = per_g_parts.find(key); pp != per_g_parts.end())
      for (auto &[k, v] : pp->second) c.breakdown[k] += v;
    ReportCause &tc = totals[type];
    tc.type = type;
    tc.total_ns += acc.total;
    tc.count += acc.count;
    tc.max_ns = std::max(tc.max_ns, acc.max);
    if (auto pp = per_g_parts.find(key); pp != per_g_parts.end())
      for (auto &[k, v] : pp->second) tc.breakdown[k] += v;
    if (type != kGoSyscallCause) groups[fn].total_ns += acc.total;
  }
  auto bigger = [](const auto &a, const auto &b) { return a.total_ns > b.total_ns; };
  for (auto &[fn, grp] : groups) {
    grp.function = fn;
    for (auto &[type, c] : gcauses[fn]) {
      std::sort(c.goroutines.begin(), c.goroutines.end(), bigger);
      grp.causes.push_back(std::move(c));
    }
    std::sort(grp.causes.begin(), grp.causes.end(), bigger);
    if (!grp.causes.empty()) rep.groups.push_back(std::move(grp));
  }
  std::sort(rep.groups.begin(), rep.groups.end(), bigger);
  for (auto &[type, c] : totals) rep.totals.push_back(std::move(c));
  std::sort(rep.totals.begin(), rep.totals.end(), bigger);
  return rep;
}

std::string ReportText(const TraceReport &r, std::size_t top) {
  std::string o = fmt::format("{} trace, {} long, {} goroutines, {} kernel regions\n", r.version, Dur(r.duration_ns),
                              r.goroutines, r.kernel_regions);
  if (r.kernel_regions == 0)
    o += "no kernel view in this trace (recorded with --no-kernel-view, by an older gotraced, or nothing happened)\n";
  if (!r.totals.empty()) {
    o += "\nall goroutines:\n";
    for (const ReportCause &c : r.totals)
      o += fmt::format("  {:<34} {:>10}  {:>7} intervals  max {}\n", c.type, Dur(c.total_ns), c.count, Dur(c.max_ns));
  }
  for (const ReportGroup &g : r.groups) {
    o += fmt::format("\n{} ({} goroutine{}): kernel {}\n", g.function, g.goroutines, g.goroutines == 1 ? "" : "s",
                     Dur(g.total_ns));
    for (const ReportCause &c : g.causes) {
      std::string who;
      for (std::size_t i = 0; i < c.goroutines.size() && i < top; ++i)
        who += fmt::format("{}g{} {}", i ? ", " : "", c.goroutines[i].g, Dur(c.goroutines[i].total_ns));
      if (c.goroutines.size() > top) who += ", ...";
      o += fmt::format("  {:<34} {:>10}  {:>7} intervals  max {:<9}  ({})\n", c.type, Dur(c.total_ns), c.count,
                       Dur(c.max_ns), who);
      if (!c.breakdown.empty()) {
        std::vector<std::pair<std::uint64_t, std::string>> parts;
        for (auto &[k, v] : c.breakdown) parts.emplace_back(v, k);
        std::sort(parts.rbegin(), parts.rend());
        std::string line;
        for (auto &[v, k] : parts) line += fmt::format("{}{} {}", line.empty() ? "" : ", ", k, Dur(v));
        o += fmt::format("      {}\n", line);
      }
    }
  }
  return o;
}

std::string ReportJson(const TraceReport &r) {
  auto cause = [](const ReportCause &c) {
    std::string o = fmt::format("{{\"type\": {}, \"total_ns\": {}, \"count\": {}, \"max_ns\": {}", JsonStr(c.type),
                                c.total_ns, c.count, c.max_ns);
    if (!c.goroutines.empty()) {
      o += ", \"goroutines\": [";
      for (std::size_t i = 0; i < c.goroutines.size(); ++i)
        o += fmt::format("{}{{\"g\": {}, \"total_ns\": {}, \"count\": {}}}", i ? ", " : "", c.goroutines[i].g,
                         c.goroutines[i].total_ns, c.goroutines[i].count);
      o += "]";
    }
    if (!c.breakdown.empty()) {
      o += ", \"breakdown\": {";
      bool first = true;
      for (auto &[k, v] : c.breakdown) {
        o += fmt::format("{}{}: {}", first ? "" : ", ", JsonStr(k), v);
        first = false;
      }
      o += "}";
    }
    return o + "}";
  };
  std::string o = fmt::format("{{\"version\": {}, \"duration_ns\": {}, \"goroutines\": {}, \"kernel_regions\": {}, ",
                              JsonStr(r.version), r.duration_ns, r.goroutines, r.kernel_regions);
  o += "\"totals\": [";
  for (std::size_t i = 0; i < r.totals.size(); ++i) o += (i ? ", " : "") + cause(r.totals[i]);
  o += "], \"groups\": [";
  for (std::size_t i = 0; i < r.groups.size(); ++i) {
    const ReportGroup &g = r.groups[i];
    o += fmt::format("{}{{\"function\": {}, \"goroutines\": {}, \"kernel_ns\": {}, \"causes\": [", i ? ", " : "",
                     JsonStr(g.function), g.goroutines, g.total_ns);
    for (std::size_t k = 0; k < g.causes.size(); ++k) o += (k ? ", " : "") + cause(g.causes[k]);
    o += "]}";
  }
  return o + "]}\n";
}

}  // namespace gotraced::cli
