#include "daemon/gobin/runtime_layout.h"

#include <algorithm>

#include <fmt/format.h>

namespace gotraced::gobin {

std::string_view LayoutSourceName(LayoutSource s) {
  switch (s) {
    case LayoutSource::kNone: return "none";
    case LayoutSource::kDwarf: return "DWARF";
    case LayoutSource::kTable: return "table";
  }
  return "?";
}

const char *RuntimeStructDwarfName(RuntimeStruct s) {
  switch (s) {
    case RuntimeStruct::kG: return "runtime.g";
    case RuntimeStruct::kM: return "runtime.m";
    case RuntimeStruct::kP: return "runtime.p";
    case RuntimeStruct::kGobuf: return "runtime.gobuf";
    case RuntimeStruct::kSchedt: return "runtime.schedt";
    case RuntimeStruct::kGcController: return "runtime.gcControllerState";
    case RuntimeStruct::kMspan: return "runtime.mspan";
  }
  return "";
}

int32_t &RuntimeStructSize(RuntimeLayout &l, RuntimeStruct s) {
  switch (s) {
    case RuntimeStruct::kG: return l.g.size;
    case RuntimeStruct::kM: return l.m.size;
    case RuntimeStruct::kP: return l.p.size;
    case RuntimeStruct::kGobuf: return l.gobuf.size;
    case RuntimeStruct::kSchedt: return l.sched.size;
    case RuntimeStruct::kGcController: return l.gc_controller.size;
    case RuntimeStruct::kMspan: return l.mspan.size;
  }
  return l.g.size;
}

int32_t RuntimeStructSize(const RuntimeLayout &l, RuntimeStruct s) {
  return RuntimeStructSize(const_cast<RuntimeLayout &>(l), s);
}

namespace {

using S = RuntimeStruct;
#define GT_FIELD(grp, fld) [](RuntimeLayout &l) -> FieldLoc & { return l.grp.fld; }

std::vector<FieldSpec> MakeSpecs() {
  // Member names per runtime2.go of Go 1.19 .. 1.27. `required`: what the probe plan and
  // the attach snapshot cannot do without on every supported version.
  return {
      {S::kG, "g.stack.lo", {"stack.lo"}, GT_FIELD(g, stack_lo), true},
      {S::kG, "g.stack.hi", {"stack.hi"}, GT_FIELD(g, stack_hi), true},
      {S::kG, "g.stackguard0", {"stackguard0"}, GT_FIELD(g, stackguard0), true},
      {S::kG, "g.m", {"m"}, GT_FIELD(g, m), true},
      {S::kG, "g.sched", {"sched"}, GT_FIELD(g, sched), true},
      {S::kG, "g.sched.sp", {"sched.sp"}, GT_FIELD(g, sched_sp), true},
      {S::kG, "g.sched.pc", {"sched.pc"}, GT_FIELD(g, sched_pc), true},
      {S::kG, "g.sched.g", {"sched.g"}, GT_FIELD(g, sched_g), false},
      {S::kG, "g.sched.bp", {"sched.bp"}, GT_FIELD(g, sched_bp), true},
      {S::kG, "g.syscallsp", {"syscallsp"}, GT_FIELD(g, syscallsp), true},
      {S::kG, "g.syscallpc", {"syscallpc"}, GT_FIELD(g, syscallpc), true},
      {S::kG, "g.syscallbp", {"syscallbp"}, GT_FIELD(g, syscallbp), false},
      {S::kG, "g.atomicstatus", {"atomicstatus"}, GT_FIELD(g, atomicstatus), true},
      {S::kG, "g.goid", {"goid"}, GT_FIELD(g, goid), true},
      {S::kG, "g.schedlink", {"schedlink"}, GT_FIELD(g, schedlink), false},
      {S::kG, "g.waitsince", {"waitsince"}, GT_FIELD(g, waitsince), false},
      {S::kG, "g.waitreason", {"waitreason"}, GT_FIELD(g, waitreason), true},
      {S::kG, "g.preempt", {"preempt"}, GT_FIELD(g, preempt), false},
      {S::kG, "g.lockedm", {"lockedm"}, GT_FIELD(g, lockedm), false},
      {S::kG, "g.parentGoid", {"parentGoid"}, GT_FIELD(g, parent_goid), false},
      {S::kG, "g.gopc", {"gopc"}, GT_FIELD(g, gopc), true},
      {S::kG, "g.startpc", {"startpc"}, GT_FIELD(g, startpc), true},
      {S::kG, "g.labels", {"labels"}, GT_FIELD(g, labels), false},
      {S::kG, "g.trace", {"trace"}, GT_FIELD(g, trace), false},
      {S::kG, "g.syncSafePoint", {"syncSafePoint"}, GT_FIELD(g, sync_safe_point), false},

      {S::kM, "m.g0", {"g0"}, GT_FIELD(m, g0), true},
      {S::kM, "m.procid", {"procid"}, GT_FIELD(m, procid), true},
      {S::kM, "m.gsignal", {"gsignal"}, GT_FIELD(m, gsignal), false},
      {S::kM, "m.curg", {"curg"}, GT_FIELD(m, curg), true},
      {S::kM, "m.p", {"p"}, GT_FIELD(m, p), true},
      {S::kM, "m.nextp", {"nextp"}, GT_FIELD(m, nextp), false},
      {S::kM, "m.oldp", {"oldp"}, GT_FIELD(m, oldp), false},
      {S::kM, "m.id", {"id"}, GT_FIELD(m, id), true},
      {S::kM, "m.spinning", {"spinning"}, GT_FIELD(m, spinning), false},
      {S::kM, "m.blocked", {"blocked"}, GT_FIELD(m, blocked), false},
      {S::kM, "m.mstartfn", {"mstartfn"}, GT_FIELD(m, mstartfn), false},
      {S::kM, "m.alllink", {"alllink"}, GT_FIELD(m, alllink), true},
      {S::kM, "m.lockedg", {"lockedg"}, GT_FIELD(m, lockedg), false},
      {S::kM, "m.waitTraceBlockReason", {"waitTraceBlockReason", "waittraceev"},
       GT_FIELD(m, wait_trace_block_reason), false},
      {S::kM, "m.waitTraceSkip", {"waitTraceSkip", "waittraceskip"}, GT_FIELD(m, wait_trace_skip), false},
      {S::kM, "m.syscalltick", {"syscalltick"}, GT_FIELD(m, syscalltick), false},
      {S::kM, "m.vdsoSP", {"vdsoSP"}, GT_FIELD(m, vdso_sp), false},
      {S::kM, "m.vdsoPC", {"vdsoPC"}, GT_FIELD(m, vdso_pc), false},
      {S::kM, "m.ncgo", {"ncgo"}, GT_FIELD(m, ncgo), false},

      {S::kP, "p.id", {"id"}, GT_FIELD(p, id), true},
      {S::kP, "p.status", {"status"}, GT_FIELD(p, status), true},
      {S::kP, "p.link", {"link"}, GT_FIELD(p, link), false},
      {S::kP, "p.schedtick", {"schedtick"}, GT_FIELD(p, schedtick), false},
      {S::kP, "p.syscalltick", {"syscalltick"}, GT_FIELD(p, syscalltick), false},
      {S::kP, "p.m", {"m"}, GT_FIELD(p, m), true},
      {S::kP, "p.runqhead", {"runqhead"}, GT_FIELD(p, runqhead), false},
      {S::kP, "p.runqtail", {"runqtail"}, GT_FIELD(p, runqtail), false},
      {S::kP, "p.runq", {"runq"}, GT_FIELD(p, runq), false},
      {S::kP, "p.runnext", {"runnext"}, GT_FIELD(p, runnext), false},
      {S::kP, "p.goidcache", {"goidcache"}, GT_FIELD(p, goidcache), false},
      {S::kP, "p.goidcacheend", {"goidcacheend"}, GT_FIELD(p, goidcacheend), false},

      {S::kGobuf, "gobuf.sp", {"sp"}, GT_FIELD(gobuf, sp), true},
      {S::kGobuf, "gobuf.pc", {"pc"}, GT_FIELD(gobuf, pc), true},
      {S::kGobuf, "gobuf.g", {"g"}, GT_FIELD(gobuf, g), false},
      {S::kGobuf, "gobuf.ctxt", {"ctxt"}, GT_FIELD(gobuf, ctxt), false},
      {S::kGobuf, "gobuf.ret", {"ret"}, GT_FIELD(gobuf, ret), false},
      {S::kGobuf, "gobuf.lr", {"lr"}, GT_FIELD(gobuf, lr), false},
      {S::kGobuf, "gobuf.bp", {"bp"}, GT_FIELD(gobuf, bp), true},

      {S::kSchedt, "sched.goidgen", {"goidgen"}, GT_FIELD(sched, goidgen), false},
      {S::kSchedt, "sched.lastpoll", {"lastpoll"}, GT_FIELD(sched, lastpoll), false},
      {S::kSchedt, "sched.lock", {"lock"}, GT_FIELD(sched, lock), false},
      {S::kSchedt, "sched.midle", {"midle"}, GT_FIELD(sched, midle), false},
      {S::kSchedt, "sched.nmidle", {"nmidle"}, GT_FIELD(sched, nmidle), false},
      {S::kSchedt, "sched.nmspinning", {"nmspinning"}, GT_FIELD(sched, nmspinning), false},
      {S::kSchedt, "sched.npidle", {"npidle"}, GT_FIELD(sched, npidle), false},
      {S::kSchedt, "sched.gcwaiting", {"gcwaiting"}, GT_FIELD(sched, gcwaiting), false},
      {S::kSchedt, "sched.stopwait", {"stopwait"}, GT_FIELD(sched, stopwait), false},

      // mgcpacer.go type gcControllerState: heapLive (1.19 .. 1.27).
      {S::kGcController, "gcController.heapLive", {"heapLive"}, GT_FIELD(gc_controller, heap_live), false},
      // heapGoal's inputs (mgcpacer.go heapGoalInternal, memoryLimitHeapGoal; 1.19 .. 1.27).
      {S::kGcController, "gcController.gcPercent", {"gcPercent"}, GT_FIELD(gc_controller, gc_percent), false},
      {S::kGcController, "gcController.memoryLimit", {"memoryLimit"}, GT_FIELD(gc_controller, memory_limit), false},
      {S::kGcController, "gcController.heapMarked", {"heapMarked"}, GT_FIELD(gc_controller, heap_marked), false},
      {S::kGcController, "gcController.gcPercentHeapGoal", {"gcPercentHeapGoal"},
       GT_FIELD(gc_controller, gc_percent_heap_goal), false},
      {S::kGcController, "gcController.sweepDistMinTrigger", {"sweepDistMinTrigger"},
       GT_FIELD(gc_controller, sweep_dist_min_trigger), false},
      {S::kGcController, "gcController.triggered", {"triggered"}, GT_FIELD(gc_controller, triggered), false},
      {S::kGcController, "gcController.heapFree", {"heapFree"}, GT_FIELD(gc_controller, heap_free), false},
      {S::kGcController, "gcController.totalAlloc", {"totalAlloc"}, GT_FIELD(gc_controller, total_alloc), false},
      {S::kGcController, "gcController.totalFree", {"totalFree"}, GT_FIELD(gc_controller, total_free), false},
      {S::kGcController, "gcController.mappedReady", {"mappedReady"}, GT_FIELD(gc_controller, mapped_ready), false},
      // Sweeps (mgcsweep.go sweepLocked.sweep: GCSweepSpan(s.npages * pageSize); reclaimed
      // = (allocCount - marked objects) * elemsize).
      {S::kMspan, "mspan.npages", {"npages"}, GT_FIELD(mspan, npages), false},
      {S::kMspan, "mspan.nelems", {"nelems"}, GT_FIELD(mspan, nelems), false},
      {S::kMspan, "mspan.allocCount", {"allocCount"}, GT_FIELD(mspan, allocCount), false},
      {S::kMspan, "mspan.elemsize", {"elemsize"}, GT_FIELD(mspan, elemsize), false},
      {S::kMspan, "mspan.gcmarkBits", {"gcmarkBits"}, GT_FIELD(mspan, gcmarkBits), false},
  };
}
#undef GT_FIELD

std::string FmtField(const FieldLoc &f) {
  if (!f.present()) return "absent";
  return fmt::format("{} (+0x{:x}, {} B)", f.offset, f.offset, f.size);
}

}  // namespace

const std::vector<FieldSpec> &RuntimeFieldSpecs() {
  static const std::vector<FieldSpec> specs = MakeSpecs();
  return specs;
}

const std::vector<std::string_view> &RuntimeConstantPrefixes() {
  // _G*/_P*: statuses; waitReason*: the enum indexing waitReasonStrings; traceBlock*
  // (1.21+; on 1.21 their values are legacy event types), traceGoStop* (1.22+) and
  // traceEvGo* (the legacy tracer's event types, <= 1.21) for block/stop reasons; stw*:
  // stwReason (1.21+), indexing stwReasonStrings.
  static const std::vector<std::string_view> p = {"_G", "_P", "waitReason", "traceBlock",
                                                  "traceGoStop", "traceEvGo", "stw"};
  return p;
}

std::optional<int64_t> RuntimeLayout::Constant(std::string_view name) const {
  auto it = std::lower_bound(constants.begin(), constants.end(), name,
                             [](const auto &kv, std::string_view n) { return kv.first < n; });
  if (it == constants.end() || it->first != name) return std::nullopt;
  return it->second;
}

std::string_view RuntimeLayout::WaitReasonString(uint32_t w) const {
  if (w >= wait_reason_strings.size()) return "";
  return wait_reason_strings[w];
}

bool RuntimeLayout::Complete(std::string *missing) const {
  bool ok = true;
  for (const auto &f : RuntimeFieldSpecs()) {
    if (!f.required || FieldOf(*this, f).present()) continue;
    ok = false;
    if (missing) *missing += (missing->empty() ? "" : ", ") + std::string(f.name);
  }
  return ok;
}

std::string DescribeLayout(const RuntimeLayout &l) {
  std::string out = fmt::format("runtime layout: from {}{}\n", LayoutSourceName(l.source),
                                l.go_version.empty() ? "" : " (" + l.go_version + ")");
  out += fmt::format("  sizes: g {} B, m {} B, p {} B, gobuf {} B, schedt {} B\n", l.g.size, l.m.size,
                     l.p.size, l.gobuf.size, l.sched.size);
  for (const auto &f : RuntimeFieldSpecs()) {
    out += fmt::format("  {:<24} {}\n", f.name, FmtField(FieldOf(l, f)));
  }
  std::string missing;
  if (!l.Complete(&missing)) out += "  MISSING required fields: " + missing + "\n";
  out += fmt::format("  constants: {}; waitReasonStrings: {}; traceBlockReasonStrings: {}\n",
                     l.constants.size(), l.wait_reason_strings.size(), l.trace_block_reason_strings.size());
  return out;
}

std::vector<std::string> DiffLayouts(const RuntimeLayout &a, const RuntimeLayout &b) {
  std::vector<std::string> d;
  for (auto s : kRuntimeStructs) {
    if (RuntimeStructSize(a, s) != RuntimeStructSize(b, s))
      d.push_back(fmt::format("sizeof({}): {} != {}", RuntimeStructDwarfName(s), RuntimeStructSize(a, s),
                              RuntimeStructSize(b, s)));
  }
  for (const auto &f : RuntimeFieldSpecs()) {
    const FieldLoc &x = FieldOf(a, f), &y = FieldOf(b, f);
    if (!(x == y)) d.push_back(fmt::format("{}: {} != {}", f.name, FmtField(x), FmtField(y)));
  }
  // Constants: report each name whose value differs or that only one side has.
  size_t i = 0, j = 0;
  while (i < a.constants.size() || j < b.constants.size()) {
    if (j == b.constants.size() || (i < a.constants.size() && a.constants[i].first < b.constants[j].first)) {
      d.push_back(fmt::format("constant {}: {} != absent", a.constants[i].first, a.constants[i].second));
      ++i;
    } else if (i == a.constants.size() || b.constants[j].first < a.constants[i].first) {
      d.push_back(fmt::format("constant {}: absent != {}", b.constants[j].first, b.constants[j].second));
      ++j;
    } else {
      if (a.constants[i].second != b.constants[j].second)
        d.push_back(fmt::format("constant {}: {} != {}", a.constants[i].first, a.constants[i].second,
                                b.constants[j].second));
      ++i, ++j;
    }
  }
  auto cmp_strings = [&d](const char *what, const std::vector<std::string> &x, const std::vector<std::string> &y) {
    if (x == y) return;
    if (x.size() != y.size()) {
      d.push_back(fmt::format("{}: {} entries != {}", what, x.size(), y.size()));
      return;
    }
    for (size_t k = 0; k < x.size(); ++k)
      if (x[k] != y[k]) d.push_back(fmt::format("{}[{}]: \"{}\" != \"{}\"", what, k, x[k], y[k]));
  };
  cmp_strings("waitReasonStrings", a.wait_reason_strings, b.wait_reason_strings);
  cmp_strings("traceBlockReasonStrings", a.trace_block_reason_strings, b.trace_block_reason_strings);
  cmp_strings("traceGoStopReasonStrings", a.trace_go_stop_reason_strings, b.trace_go_stop_reason_strings);
  cmp_strings("stwReasonStrings", a.stw_reason_strings, b.stw_reason_strings);
  return d;
}

}  // namespace gotraced::gobin
