// `gotraced report`'s analysis (trace_report.h).
#include "cli/trace_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <unordered_map>

#include "daemon/model/kernel_view.h"
#include "encoder/legacy_decoder.h"
#include "encoder/trace_decoder.h"
#include "encoder/trace_header.h"

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

// A syscall log's message, "read /x: 30.100 ms, 4096 bytes: on CPU 0.200 ms, off-CPU sleep
// 29.500 ms, run-queue wait 0.400 ms, then waiting for a P 1.000 ms" (model_kernel_syscall.cc
// KernelSyscallMessage): the region type it belongs to, the syscall's name, its byte
// count (", N bytes" after the duration, when the syscall moves bytes; ", error E" when it
// failed) and its parts in ns.
struct SyscallLog {
  std::string type, name;
  std::map<std::string, std::uint64_t> parts;
  bool has_bytes = false;
  std::uint64_t bytes = 0;
  std::uint64_t total_ns = 0;  // the syscall's own duration (the first figure)
};

bool ParseSyscallLog(std::string_view msg, SyscallLog *out) {
  const auto c1 = msg.find(": ");
  if (c1 == std::string_view::npos) return false;
  const std::string_view what = msg.substr(0, c1);
  out->type = std::string(model::kKernelRegionPrefix) + "syscall " + std::string(what);
  out->name = std::string(what.substr(0, what.find(' ')));
  const auto c2 = msg.find(": ", c1 + 2);
  if (c2 == std::string_view::npos) return false;
  const std::string_view head = msg.substr(c1 + 2, c2 - c1 - 2);  // "30.100 ms, 4096 bytes"
  try {
    out->total_ns = static_cast<std::uint64_t>(std::stod(std::string(head.substr(0, head.find(' ')))) * 1e6);
  } catch (...) {
  }
  if (const auto b = head.find(", "); b != std::string_view::npos && head.size() > b + 8 && head.ends_with(" bytes")) {
    try {
      out->bytes = std::stoull(std::string(head.substr(b + 2, head.size() - 6 - b - 2)));
      out->has_bytes = true;
    } catch (...) {
    }
  }
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
      out->parts[std::string(part.substr(0, sp))] +=
          static_cast<std::uint64_t>(std::stod(std::string(part.substr(sp + 1))) * 1e6);
    } catch (...) {
    }
  }
  return true;
}

std::string Bytes(std::uint64_t b) {
  if (b >= (1ull << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(b) / (1ull << 30));
  if (b >= (1ull << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(b) / (1ull << 20));
  if (b >= (1ull << 10)) return fmt::format("{:.1f} KiB", static_cast<double>(b) / (1ull << 10));
  return fmt::format("{} B", b);
}

std::string Dur(std::uint64_t ns) {
  if (ns >= 1'000'000'000) return fmt::format("{:.3f} s", ns / 1e9);
  if (ns >= 1'000'000) return fmt::format("{:.1f} ms", ns / 1e6);
  return fmt::format("{:.1f} us", ns / 1e3);
}

// What the report sums, fed in time order by the reader of a trace's format (FeedV2,
// FeedLegacy): which goroutine did what, by goroutine id.
class Accumulator {
 public:
  void Seen(std::uint64_t now) {
    t_first_ = std::min(t_first_, now);
    t_last_ = std::max(t_last_, now);
  }
  void Known(std::uint64_t g) { gs_.try_emplace(g); }
  // A GoCreate's new stack names the goroutine (its start PC's frame).
  void Created(std::uint64_t g, std::string function) {
    GInfo &gi = gs_[g];
    gi.function = std::move(function);
    gi.named_by_create = true;
  }
  // A goroutine first seen with a stack of its own: its outermost frame names it, unless a
  // GoCreate did.
  void NameFromStack(std::uint64_t g, const std::string &outermost) {
    if (g == 0) return;
    GInfo &gi = gs_[g];
    if (gi.function.empty()) gi.function = outermost;
  }
  void SyscallBegin(std::uint64_t g, std::uint64_t now) {
    if (g) gs_[g].syscall_begin = now;
  }
  void SyscallEnd(std::uint64_t g, std::uint64_t now) {
    if (!g) return;
    GInfo &gi = gs_[g];
    if (gi.syscall_begin && now >= gi.syscall_begin) per_g_[{g, kGoSyscallCause}].Add(now - gi.syscall_begin);
    gi.syscall_begin = 0;
  }
  void RegionBegin(std::uint64_t g, std::string type, std::uint64_t now) {
    if (g == 0 || !model::IsKernelRegion(type)) return;
    ++kernel_regions_;
    gs_[g].open.emplace_back(std::move(type), now);
  }
  void RegionEnd(std::uint64_t g, const std::string &type, std::uint64_t now) {
    if (g == 0 || !model::IsKernelRegion(type)) return;
    auto &open = gs_[g].open;
    for (std::size_t k = open.size(); k > 0; --k) {
      if (open[k - 1].first != type) continue;
      if (now >= open[k - 1].second) per_g_[{g, type}].Add(now - open[k - 1].second);
      open.erase(open.begin() + static_cast<std::ptrdiff_t>(k - 1));
      last_end_[g] = {type, now};
      break;
    }
  }
  void Log(std::uint64_t g, std::string_view category, std::string_view message) {
    if (g == 0 || category != model::kKernelSyscallLog) return;
    SyscallLog l;
    if (!ParseSyscallLog(message, &l)) return;
    auto &dst = per_g_parts_[{g, l.type}];
    for (auto &[k, v] : l.parts) dst[k] += v;
    // A log with no region just before it (the model writes the region's end, then the
    // log): a legacy-format syscall that lost its P (model_kernel_syscall.cc), counted
    // from the log, to the goroutine's return to a P as a region would be.
    if (auto le = last_end_.find(g); le == last_end_.end() || le->second.first != l.type) {
      const auto wait = l.parts.find("waiting for a P");
      per_g_[{g, l.type}].Add(l.total_ns + (wait == l.parts.end() ? 0 : wait->second));
      ++kernel_regions_;
    }
    last_end_.erase(g);
    if (l.has_bytes) {
      SyscallBytes &b = per_g_bytes_[{g, l.type}];
      b.bytes += l.bytes;
      ++b.calls;
      syscall_of_[l.type] = l.name;
    }
  }
  TraceReport Finish(std::string version);

 private:
  std::unordered_map<std::uint64_t, GInfo> gs_;
  std::map<std::pair<std::uint64_t, std::string>, Acc> per_g_;  // (g, cause)
  std::map<std::pair<std::uint64_t, std::string>, std::map<std::string, std::uint64_t>> per_g_parts_;
  std::map<std::pair<std::uint64_t, std::string>, SyscallBytes> per_g_bytes_;  // (g, region type)
  std::map<std::string, std::string> syscall_of_;  // region type -> the syscall's name
  std::unordered_map<std::uint64_t, std::pair<std::string, std::uint64_t>> last_end_;  // g -> its last kernel region end
  std::uint64_t t_first_ = ~std::uint64_t{0}, t_last_ = 0;
  std::uint64_t kernel_regions_ = 0;
};

TraceReport Accumulator::Finish(std::string version) {
  TraceReport rep;
  rep.version = std::move(version);
  rep.kernel_regions = kernel_regions_;
  if (t_last_ >= t_first_ && t_first_ != ~std::uint64_t{0}) rep.duration_ns = t_last_ - t_first_;
  rep.goroutines = gs_.size();

  // Per group and cause; and overall.
  std::map<std::string, ReportGroup> groups;
  std::map<std::string, std::map<std::string, ReportCause>> gcauses;
  std::map<std::string, ReportCause> totals;
  for (auto &[id, gi] : gs_) {
    const std::string fn = gi.function.empty() ? "?" : gi.function;
    ++groups[fn].goroutines;
  }
  for (auto &[key, acc] : per_g_) {
    const auto &[g, type] = key;
    const std::string fn = gs_[g].function.empty() ? "?" : gs_[g].function;
    ReportCause &c = gcauses[fn][type];
    c.type = type;
    c.total_ns += acc.total;
    c.count += acc.count;
    c.max_ns = std::max(c.max_ns, acc.max);
    c.goroutines.push_back({g, acc.total, acc.count});
    if (auto pp = per_g_parts_.find(key); pp != per_g_parts_.end())
      for (auto &[k, v] : pp->second) c.breakdown[k] += v;
    if (auto pb = per_g_bytes_.find(key); pb != per_g_bytes_.end()) {
      c.bytes.Add(pb->second);
      groups[fn].syscall_bytes[syscall_of_[type]].Add(pb->second);
      totals[type].bytes.Add(pb->second);
    }
    ReportCause &tc = totals[type];
    tc.type = type;
    tc.total_ns += acc.total;
    tc.count += acc.count;
    tc.max_ns = std::max(tc.max_ns, acc.max);
    if (auto pp = per_g_parts_.find(key); pp != per_g_parts_.end())
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

// Go 1.22+ (v2): per M, the goroutine it runs follows the scheduling events of its batches.
void FeedV2(const encoder::DecodedTrace &t, Accumulator &acc) {
  std::unordered_map<std::uint64_t, std::uint64_t> cur;  // M -> goroutine it runs (0 none)
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
          acc.Known(e.arg(0));
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
      const DecodedEvent &e = *ep;
      const std::uint64_t now = ns(e.time);
      if (e.type != EventType::kNone) acc.Seen(now);
      std::uint64_t &g = cur[bp->m];
      switch (e.type) {
        case EventType::kGoCreate:
        case EventType::kGoCreateBlocked: acc.Created(e.arg(0), stack_func(e.arg(1), false)); break;
        case EventType::kGoCreateSyscall: g = e.arg(0); acc.Known(g); break;
        case EventType::kGoStart:
        case EventType::kGoSwitch:
        case EventType::kGoSwitchDestroy: g = e.arg(0); break;
        case EventType::kGoStop:
        case EventType::kGoBlock: acc.NameFromStack(g, stack_func(e.arg(1), true)); g = 0; break;
        case EventType::kGoDestroy:
        case EventType::kGoDestroySyscall: g = 0; break;
        case EventType::kGoSyscallBegin:
          acc.NameFromStack(g, stack_func(e.arg(1), true));
          acc.SyscallBegin(g, now);
          break;
        case EventType::kGoSyscallEnd:
        case EventType::kGoSyscallEndBlocked:
          acc.SyscallEnd(g, now);
          if (e.type == EventType::kGoSyscallEndBlocked) g = 0;
          break;
        case EventType::kUserRegionBegin: acc.RegionBegin(g, str(e.arg(1)), now); break;
        case EventType::kUserRegionEnd: acc.RegionEnd(g, str(e.arg(1)), now); break;
        case EventType::kUserLog: acc.Log(g, str(e.arg(1)), str(e.arg(2))); break;
        default: break;
      }
    }
  }
}

// Go 1.19 / 1.21 (the legacy format, encoder/legacy_decoder.h): events in per-P batches, the
// goroutine a P runs set by GoStart* and cleared by the events that take it off the P
// (internal/trace/parser.go's per-P state). gotraced's legacy writer stamps events
// strictly increasing across batches (legacy_writer.h), so time order is the file's
// order sorted by ticks. A syscall that kept its P writes only GoSysCall (Go <= 1.21's
// exitsyscall fast path traces nothing): "go: syscall" counts from GoSysCall to the
// GoSysExit's real time for the syscalls that blocked (GoSysBlock next on the P), 1 ns
// for the others, as Go 1.22+'s reader converts them (internal/trace/tracev1.go).
void FeedLegacy(const encoder::legacy::DecodedTrace &t, Accumulator &acc) {
  using encoder::legacy::Ev;
  const double ns_per_tick = t.frequency ? 1e9 / static_cast<double>(t.frequency) : 1.0;
  auto ns = [&](std::uint64_t ticks) { return static_cast<std::uint64_t>(static_cast<double>(ticks) * ns_per_tick); };
  auto str = [&](std::uint64_t id) -> std::string {
    auto it = t.strings.find(id);
    return it == t.strings.end() ? std::string() : it->second;
  };
  auto stack_func = [&](std::uint64_t id, bool outermost) -> std::string {
    auto it = t.stack_funcs.find(id);
    if (it == t.stack_funcs.end() || it->second.empty()) return {};
    return str(outermost ? it->second.back() : it->second.front());
  };
  std::vector<const encoder::legacy::DecodedEvent *> order;
  for (const auto &e : t.events)
    if (!e.cpu_batch) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](auto *x, auto *y) { return x->ticks < y->ticks; });
  std::unordered_map<std::int64_t, std::uint64_t> cur;  // P -> goroutine it runs (0 none)
  // P -> the goroutine whose GoSysCall is its last event there, and when: the next event
  // on that P says whether the syscall blocked (GoSysBlock) or was over (tracev1.go).
  std::unordered_map<std::int64_t, std::pair<std::uint64_t, std::uint64_t>> sys_pending;
  for (const auto *ep : order) {
    const auto &e = *ep;
    const std::uint64_t now = ns(e.ticks);
    acc.Seen(now);
    if (auto sp = sys_pending.find(e.p); sp != sys_pending.end()) {
      if (e.type != Ev::kGoSysBlock) acc.SyscallEnd(sp->second.first, sp->second.second + 1);
      sys_pending.erase(sp);
    }
    std::uint64_t &g = cur[e.p];
    auto arg = [&](std::size_t i) { return i < e.args.size() ? e.args[i] : 0; };
    switch (e.type) {
      case Ev::kGoCreate: acc.Created(arg(0), stack_func(arg(1), false)); break;
      case Ev::kGoWaiting:
      case Ev::kGoInSyscall: acc.Known(arg(0)); break;
      case Ev::kGoStart:
      case Ev::kGoStartLocal:
      case Ev::kGoStartLabel: g = arg(0); break;
      case Ev::kGoStop:
      case Ev::kGoSched:
      case Ev::kGoPreempt:
      case Ev::kGoSleep:
      case Ev::kGoBlock:
      case Ev::kGoBlockSend:
      case Ev::kGoBlockRecv:
      case Ev::kGoBlockSelect:
      case Ev::kGoBlockSync:
      case Ev::kGoBlockCond:
      case Ev::kGoBlockNet:
      case Ev::kGoBlockGC: acc.NameFromStack(g, stack_func(e.args.empty() ? 0 : e.args.back(), true)); g = 0; break;
      case Ev::kGoEnd: g = 0; break;
      case Ev::kGoSysCall:
        acc.NameFromStack(g, stack_func(arg(0), true));
        acc.SyscallBegin(g, now);
        if (g != 0) sys_pending[e.p] = {g, now};
        break;
      case Ev::kGoSysBlock: g = 0; break;
      case Ev::kGoSysExit:
      case Ev::kGoSysExitLocal: {
        // [g, seq, real ts] / [g, real ts]: the real time the syscall returned (0: the
        // event's own time).
        const std::uint64_t gx = arg(0);
        const std::uint64_t real = e.type == Ev::kGoSysExit ? arg(2) : arg(1);
        acc.SyscallEnd(gx, real ? ns(real) : now);
        break;
      }
      case Ev::kUserRegion:  // [task, mode, name string, stack]
        if (arg(1) == 0) acc.RegionBegin(g, str(arg(2)), now);
        else acc.RegionEnd(g, str(arg(2)), now);
        break;
      case Ev::kUserLog: acc.Log(g, str(arg(1)), e.data); break;  // [task, key string, stack] + value
      default: break;
    }
  }
}

}  // namespace

TraceReport BuildReport(std::span<const std::uint8_t> bytes) {
  Accumulator acc;
  if (bytes.size() >= encoder::kHeaderLen) {
    for (encoder::Version v : encoder::kLegacyVersions) {
      const auto h = encoder::MakeHeader(v);
      if (!std::equal(h.begin(), h.end(), bytes.begin())) continue;
      encoder::legacy::DecodedTrace t = encoder::legacy::DecodeLegacy(bytes);
      if (!t.ok()) {
        TraceReport rep;
        rep.error = t.error;
        return rep;
      }
      FeedLegacy(t, acc);
      return acc.Finish(v == encoder::Version::kGo119 ? "go1.19" : "go1.21");
    }
  }
  encoder::DecodedTrace t = encoder::DecodeTrace(bytes);
  if (!t.ok()) {
    TraceReport rep;
    rep.error = t.error;
    return rep;
  }
  FeedV2(t, acc);
  return acc.Finish(fmt::format("go1.{}", static_cast<int>(t.version)));
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
        if (c.bytes.calls) line += fmt::format("; {} in {} call{}", Bytes(c.bytes.bytes), c.bytes.calls, c.bytes.calls == 1 ? "" : "s");
        o += fmt::format("      {}\n", line);
      }
    }
    if (!g.syscall_bytes.empty()) {
      std::string line;
      for (auto &[name, b] : g.syscall_bytes)
        line += fmt::format("{}{} {} in {} call{}", line.empty() ? "" : ", ", name, Bytes(b.bytes), b.calls,
                            b.calls == 1 ? "" : "s");
      o += fmt::format("  {:<34} {}\n", "bytes by syscall", line);
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
    if (c.bytes.calls) o += fmt::format(", \"bytes\": {}, \"calls_with_bytes\": {}", c.bytes.bytes, c.bytes.calls);
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
    o += "], \"syscall_bytes\": {";
    bool first = true;
    for (auto &[name, b] : g.syscall_bytes) {
      o += fmt::format("{}{}: {{\"bytes\": {}, \"calls\": {}}}", first ? "" : ", ", JsonStr(name), b.bytes, b.calls);
      first = false;
    }
    o += "}}";
  }
  return o + "]}\n";
}

}  // namespace gotraced::cli
