// The report as JSON (nlohmann, written by daemon/json/json_text.h): every figure of every
// section, durations in ns.
#include "daemon/json/json_text.h"
#include "report/report.h"

namespace gotraced::report {
namespace {

using Json = json::Json;

Json D(const Dist &d) {
  return {{"count", d.count},   {"total_ns", d.total_ns}, {"p50_ns", d.p50_ns},
          {"p90_ns", d.p90_ns}, {"p99_ns", d.p99_ns},     {"max_ns", d.max_ns}};
}
Json M(const Moment &m) {
  Json j = {{"start_ns", m.start_ns}, {"dur_ns", m.dur_ns}, {"g", m.g}, {"what", m.what}};
  if (!m.kernel.empty()) j["kernel"] = m.kernel;
  return j;
}
Json Groups(const std::vector<GroupDist> &v) {
  Json a = Json::array();
  for (const GroupDist &g : v) a.push_back({{"group", g.group}, {"dist", D(g.dist)}});
  return a;
}
template <typename T, typename F>
Json Arr(const std::vector<T> &v, F f) {
  Json a = Json::array();
  for (const T &x : v) a.push_back(f(x));
  return a;
}

Json Cause(const KernelSide::Cause &c) {
  Json o = {{"type", c.type}, {"total_ns", c.total_ns}, {"count", c.count}, {"max_ns", c.max_ns}};
  if (!c.goroutines.empty())
    o["goroutines"] = Arr(c.goroutines, [](const KernelSide::Cause::PerG &g) {
      return Json{{"g", g.g}, {"total_ns", g.total_ns}, {"count", g.count}};
    });
  if (!c.breakdown.empty()) o["breakdown"] = c.breakdown;
  if (c.calls_with_bytes) o["bytes"] = c.bytes, o["calls_with_bytes"] = c.calls_with_bytes;
  return o;
}

Json Kernel(const KernelSide &k) {
  return {{"regions", k.regions},
          {"totals", Arr(k.totals, Cause)},
          {"groups", Arr(k.groups, [](const KernelSide::Group &g) {
             Json bytes = Json::object();
             for (auto &[n, b] : g.syscall_bytes) bytes[n] = {{"bytes", b.first}, {"calls", b.second}};
             return Json{{"function", g.function},
                         {"goroutines", g.goroutines},
                         {"kernel_ns", g.total_ns},
                         {"causes", Arr(g.causes, Cause)},
                         {"syscall_bytes", bytes}};
           })}};
}

Json BlockRow(const Blocking::Row &b) {
  Json j = {{"reason", b.reason}};
  if (!b.call_site.empty()) j["call_site"] = b.call_site;
  j["dist"] = D(b.dist);
  j["worst_g"] = b.worst_g;
  j["worst_start_ns"] = b.worst_start_ns;
  return j;
}

Json SysRow(const Syscalls::Row &s) {
  Json j = {{"what", s.what}, {"dist", D(s.dist)}};
  if (s.calls_with_bytes) j["bytes"] = s.bytes, j["calls_with_bytes"] = s.calls_with_bytes;
  return j;
}

}  // namespace

std::string ReportJson(const Report &r) {
  const Goroutines &g = r.goroutines_section;
  Json o = {
      {"version", r.version},
      {"grouped_by", r.grouped_by},
      {"duration_ns", r.duration_ns},
      {"events", r.events},
      {"goroutines", r.goroutines},
      {"findings",
       Arr(r.findings,
           [](const Finding &f) {
             return Json{{"area", f.area}, {"size_ns", f.size_ns}, {"line", f.line}, {"open", f.open}};
           })},
      {"metrics", r.Metrics()},
      {"sched_latency",
       {{"all", D(r.sched.all)}, {"groups", Groups(r.sched.groups)}, {"worst", Arr(r.sched.worst, M)}}},
      {"stw_gc",
       {{"all", D(r.stw.all)},
        {"gc", D(r.stw.gc)},
        {"kinds", Arr(r.stw.kinds,
                      [](const StwGc::Kind &k) {
                        return Json{{"kind", k.kind}, {"dist", D(k.dist)}};
                      })},
        {"longest", Arr(r.stw.longest, M)},
        {"gc_cycles", r.stw.gc_cycles},
        {"gc_total_ns", r.stw.gc_total_ns},
        {"gc_max_ns", r.stw.gc_max_ns},
        {"heap_max_bytes", r.stw.heap_max},
        {"mark_assist", Groups(r.stw.mark_assist)},
        {"mark_assist_range_ns", r.stw.mark_assist_range_ns}}},
      {"blocking",
       {{"reasons", Arr(r.blocking.reasons, BlockRow)},
        {"call_sites", Arr(r.blocking.call_sites, BlockRow)},
        {"groups", Groups(r.blocking.groups)}}},
      {"syscalls",
       {{"all", D(r.syscalls.all)},
        {"by_call_site", Arr(r.syscalls.by_call_site, SysRow)},
        {"by_target", Arr(r.syscalls.by_target, SysRow)},
        {"groups", Groups(r.syscalls.groups)}}},
      {"goroutine_growth",
       {{"at_start", g.at_start},
        {"at_end", g.at_end},
        {"growth", g.growth},
        {"created", g.created},
        {"ended", g.ended},
        {"groups", Arr(g.groups,
                       [](const Goroutines::Group &x) {
                         return Json{{"group", x.group}, {"growth", x.growth}, {"at_end", x.at_end}};
                       })},
        {"leak_suspects", Arr(g.leak_suspects,
                              [](const Goroutines::Suspect &s) {
                                return Json{{"g", s.g},
                                            {"group", s.group},
                                            {"reason", s.reason},
                                            {"blocked_ns", s.blocked_ns},
                                            {"blocked_since_ns", s.blocked_since_ns},
                                            {"same", s.same},
                                            {"stack", s.stack}};
                              })}}},
      {"cpu",
       {{"samples", r.cpu.samples},
        {"functions", Arr(r.cpu.functions,
                          [](const Cpu::Row &c) {
                            return Json{{"name", c.name}, {"samples", c.samples}};
                          })},
        {"groups", Arr(r.cpu.groups,
                       [](const Cpu::Row &c) {
                         return Json{{"name", c.name}, {"samples", c.samples}};
                       })}}},
      {"kernel", Kernel(r.kernel)},
  };
  if (!r.error.empty()) o["error"] = r.error;
  return json::Text(o) + "\n";
}

}  // namespace gotraced::report
