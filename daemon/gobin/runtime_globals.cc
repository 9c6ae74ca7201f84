#include "daemon/gobin/runtime_globals.h"

#include <capstone/capstone.h>
#include <elf.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/function_disasm.h"
#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/runtime_layout.h"

namespace gotraced::gobin {

const std::array<GlobalInfo, static_cast<size_t>(GlobalId::kCount)> &GlobalInfos() {
  static const std::array<GlobalInfo, static_cast<size_t>(GlobalId::kCount)> infos = {{
      {GlobalId::kAllgs, "runtime.allgs", {"runtime.allgs", nullptr},
       "the goroutine list at attach: existing goroutines appear only when they next run"},
      {GlobalId::kAllglen, "runtime.allglen", {"runtime.allglen", nullptr}, "a lock-free goroutine count at attach"},
      {GlobalId::kAllgptr, "runtime.allgptr", {"runtime.allgptr", nullptr}, "lock-free goroutine list reads"},
      {GlobalId::kAllp, "runtime.allp", {"runtime.allp", nullptr},
       "P states at attach: procs appear only when they next change state"},
      {GlobalId::kAllm, "runtime.allm", {"runtime.allm", nullptr},
       "M list at attach (thread ids, which G runs where)"},
      {GlobalId::kGomaxprocs, "runtime.gomaxprocs", {"runtime.gomaxprocs", nullptr},
       "GOMAXPROCS at attach (the trace's ProcsChange/Gomaxprocs value)"},
      {GlobalId::kNcpu, "runtime.ncpu", {"runtime.ncpu", "runtime.numCPUStartup"}, "the CPU count the runtime saw"},
      {GlobalId::kSched, "runtime.sched", {"runtime.sched", nullptr}, "global run queue and idle counts at attach"},
      {GlobalId::kBuildVersion, "runtime.buildVersion", {"runtime.buildVersion", nullptr},
       "nothing (the version also comes from .go.buildinfo)"},
      {GlobalId::kWaitReasonStrings, "runtime.waitReasonStrings", {"runtime.waitReasonStrings", nullptr},
       "nothing when a layout table exists for the version (strings come from it)"},
      {GlobalId::kTraceEnabled, "trace.enabled", {nullptr, nullptr},
       "detecting that the target runs its own runtime/trace at the same time"},
      {GlobalId::kGcController, "runtime.gcController", {"runtime.gcController", nullptr},
       "heap goal/live heap read from memory (HeapGoal/HeapAlloc come from probes only)"},
      {GlobalId::kWork, "runtime.work", {"runtime.work", nullptr}, "GC cycle state read from memory"},
      {GlobalId::kMemstats, "runtime.memstats", {"runtime.memstats", nullptr}, "memory statistics read from memory"},
      {GlobalId::kTrace, "runtime.trace", {"runtime.trace", nullptr}, "the in-process tracer's state struct"},
  }};
  return infos;
}

namespace {

// One RIP-relative memory operand of an instruction.
struct RipRef {
  uint64_t insn = 0;     // instruction address
  unsigned id = 0;       // X86_INS_*
  uint64_t target = 0;   // link-time vaddr referenced
  uint8_t size = 0;      // operand size in bytes
  bool is_dest = false;  // the memory operand is written (operand 0 of a 2-operand insn, or inc/dec)
  bool has_imm = false;
  int64_t imm = 0;
};

struct Decoded {
  std::vector<RipRef> refs;
  std::vector<std::pair<uint64_t, int64_t>> cmp_imms;  // CMP reg, imm (insn, imm)
};

std::optional<Decoded> Decode(const GoBinary &bin, std::string_view fn) {
  auto code = FunctionDisasm::Of(bin, fn, 1u << 20);
  if (!code) return std::nullopt;
  Decoded d;
  for (const DisasmInsn &in : code->insns()) {
    const cs_x86 &x = in.x86();
    if (in->id == X86_INS_CMP && x.op_count == 2 && x.operands[0].type == X86_OP_REG &&
        x.operands[1].type == X86_OP_IMM)
      d.cmp_imms.emplace_back(in->address, x.operands[1].imm);
    for (uint8_t k = 0; k < x.op_count; ++k) {
      const cs_x86_op &op = x.operands[k];
      if (op.type != X86_OP_MEM || op.mem.base != X86_REG_RIP || op.mem.index != X86_REG_INVALID) continue;
      RipRef r;
      r.insn = in->address;
      r.id = in->id;
      r.target = in->address + in->size + static_cast<uint64_t>(op.mem.disp);
      r.size = op.size;
      r.is_dest = (k == 0 && x.op_count == 2 && in->id != X86_INS_CMP && in->id != X86_INS_TEST) ||
                  (x.op_count == 1 && (in->id == X86_INS_INC || in->id == X86_INS_DEC));
      for (uint8_t j = 0; j < x.op_count; ++j)
        if (x.operands[j].type == X86_OP_IMM) r.has_imm = true, r.imm = x.operands[j].imm;
      d.refs.push_back(r);
    }
  }
  return d;
}

bool IsLoad64(const RipRef &r) { return r.id == X86_INS_MOV && !r.is_dest && r.size == 8; }

// The first X such that 8-byte loads of X and X+8 both occur (a slice's ptr and len).
uint64_t FirstSliceLoad(const Decoded &d) {
  for (const auto &a : d.refs) {
    if (!IsLoad64(a)) continue;
    for (const auto &b : d.refs)
      if (IsLoad64(b) && b.target == a.target + 8) return a.target;
  }
  return 0;
}

bool InWritableLoad(const ElfFile &elf, uint64_t vaddr) {
  for (const auto &s : elf.Segments())
    if (s.type == PT_LOAD && (s.flags & PF_W) && vaddr >= s.vaddr && vaddr < s.vaddr + s.memsz) return true;
  return false;
}

std::optional<std::string> ReadGoString(const ElfFile &elf, uint64_t hdr) {
  auto len = elf.ReadU64(hdr + 8);
  if (!len || *len == 0 || *len > 256) return std::nullopt;
  auto ptr = elf.ReadPointer(hdr);
  if (!ptr) return std::nullopt;
  auto b = elf.ReadVirtual(*ptr, *len);
  if (!b) return std::nullopt;
  return std::string(reinterpret_cast<const char *>(b->data()), b->size());
}

void Set(RuntimeGlobals &g, GlobalId id, uint64_t vaddr, std::string_view fn, uint64_t size = 0) {
  if (!vaddr || g[id].found()) return;
  g[id].vaddr = vaddr;
  g[id].size = size;
  g[id].found_by = fmt::format("code: {}", fn);
}

void FromCode(const GoBinary &bin, const RuntimeLayout *layout, RuntimeGlobals &g) {
  const ElfFile &elf = bin.elf();
  if (auto d = Decode(bin, "runtime.forEachG")) Set(g, GlobalId::kAllgs, FirstSliceLoad(*d), "runtime.forEachG", 24);
  if (auto d = Decode(bin, "runtime.forEachGRace")) {
    std::vector<uint64_t> loads;
    for (const auto &r : d->refs)
      if (IsLoad64(r)) loads.push_back(r.target);
    if (loads.size() >= 2 && loads[0] != loads[1]) {
      Set(g, GlobalId::kAllglen, loads[0], "runtime.forEachGRace", 8);
      Set(g, GlobalId::kAllgptr, loads[1], "runtime.forEachGRace", 8);
    }
  }
  if (auto d = Decode(bin, "runtime.preemptall")) Set(g, GlobalId::kAllp, FirstSliceLoad(*d), "runtime.preemptall", 24);
  if (auto d = Decode(bin, "runtime.mcommoninit")) {
    uint64_t found = 0;
    int candidates = 0;
    for (const auto &a : d->refs) {
      if (!IsLoad64(a)) continue;
      bool leaed = false;
      for (const auto &b : d->refs) leaed |= b.id == X86_INS_LEA && b.target == a.target;
      if (leaed && a.target != found) found = a.target, ++candidates;
    }
    if (candidates == 1) Set(g, GlobalId::kAllm, found, "runtime.mcommoninit", 8);
  }
  if (auto d = Decode(bin, "runtime.GOMAXPROCS")) {
    for (const auto &r : d->refs) {
      if (r.id == X86_INS_MOVSXD && r.size == 4) {
        Set(g, GlobalId::kGomaxprocs, r.target, "runtime.GOMAXPROCS", 4);
        break;
      }
    }
    if (layout && layout->sched.lock.present()) {
      for (const auto &r : d->refs) {
        if (r.id == X86_INS_LEA) {
          if (r.target >= static_cast<uint64_t>(layout->sched.lock.offset))
            Set(g, GlobalId::kSched, r.target - layout->sched.lock.offset, "runtime.GOMAXPROCS", layout->sched.size);
          break;
        }
      }
    }
  }
  if (auto d = Decode(bin, "runtime.osinit")) {
    for (const auto &r : d->refs) {
      if (r.id == X86_INS_MOV && r.is_dest && r.size == 4 && !r.has_imm) {
        Set(g, GlobalId::kNcpu, r.target, "runtime.osinit", 4);
        break;
      }
    }
  }
  if (auto d = Decode(bin, "runtime.waitReason.String")) {
    for (const auto &r : d->refs) {
      if (r.id == X86_INS_LEA && InWritableLoad(elf, r.target)) {
        uint64_t n = d->cmp_imms.empty() ? 0 : static_cast<uint64_t>(d->cmp_imms.front().second);
        Set(g, GlobalId::kWaitReasonStrings, r.target, "runtime.waitReason.String", n <= 4096 ? n * 16 : 0);
        break;
      }
    }
  }
  if (auto d = Decode(bin, "runtime.schedinit")) {
    const std::string &v = bin.build_info().go_version;
    for (const auto &r : d->refs) {
      if (v.empty() || r.size != 8) continue;
      auto s = ReadGoString(elf, r.target);
      if (s && s->rfind("go", 0) == 0 && (v.rfind(*s, 0) == 0 || s->rfind(v, 0) == 0)) {
        Set(g, GlobalId::kBuildVersion, r.target, "runtime.schedinit", 16);
        break;
      }
    }
  }
  if (auto d = Decode(bin, "runtime.acquirep")) {
    for (const auto &r : d->refs) {
      // 1.19-1.21 `if trace.enabled`, 1.23+ `traceEnabled()` = trace.enabled: CMPB $0, X;
      // 1.22 traceEnabled() = trace.gen.Load() != 0: MOVQ X, reg; TEST.
      if ((r.id == X86_INS_CMP && r.size == 1 && r.has_imm && r.imm == 0) || IsLoad64(r)) {
        Set(g, GlobalId::kTraceEnabled, r.target, "runtime.acquirep", r.size);
        break;
      }
    }
  }
}

// The global whose address is passed as the receiver of calls to `callees` (methods on
// a global struct: `gcController.trigger()` compiles to LEAQ X(SB), AX; CALL method):
// byte scan of Go text for `48 8d 05 disp32` (LEAQ disp(RIP), AX) immediately followed
// by `e8 rel32` to one of the callees; the most frequent X wins. Fast (no decoder), and
// the two-instruction pattern makes chance matches negligible.
uint64_t ReceiverGlobal(const GoBinary &bin, std::string_view callee_prefix, std::string_view callee_exact = "") {
  std::vector<std::pair<uint64_t, uint64_t>> callees;  // [entry, end) sorted
  for (const auto &f : bin.symbols().Functions())
    if ((!callee_prefix.empty() && f.name.starts_with(callee_prefix)) || (!callee_exact.empty() && f.name == callee_exact))
      callees.emplace_back(f.entry, f.end);
  if (callees.empty()) return 0;
  const uint64_t start = bin.pclntab().text_start(), end = bin.pclntab().text_end();
  if (end <= start || end - start > (1ull << 31)) return 0;
  auto text = bin.elf().ReadVirtual(start, end - start);
  if (!text) return 0;
  std::vector<std::pair<uint64_t, int>> votes;
  const uint8_t *t = text->data();
  for (size_t i = 7; i + 5 <= text->size(); ++i) {
    if (t[i] != 0xe8 || t[i - 7] != 0x48 || t[i - 6] != 0x8d || t[i - 5] != 0x05) continue;
    int32_t rel, disp;
    std::memcpy(&rel, t + i + 1, 4);
    std::memcpy(&disp, t + i - 4, 4);
    uint64_t target = start + i + 5 + static_cast<int64_t>(rel);
    bool hit = false;
    for (const auto &[e, x] : callees) hit |= target == e;
    if (!hit) continue;
    uint64_t x = start + i + static_cast<int64_t>(disp);  // RIP after the LEA = call address
    auto it = std::find_if(votes.begin(), votes.end(), [x](const auto &v) { return v.first == x; });
    if (it == votes.end()) votes.emplace_back(x, 1); else ++it->second;
  }
  if (votes.empty()) return 0;
  return std::max_element(votes.begin(), votes.end(), [](const auto &a, const auto &b) { return a.second < b.second; })
      ->first;
}

void FromReceivers(const GoBinary &bin, RuntimeGlobals &g) {
  // gcController.trigger()/enlistWorker()/heapGoal()... (mgcpacer.go).
  if (!g[GlobalId::kGcController].found())
    Set(g, GlobalId::kGcController, ReceiverGlobal(bin, "runtime.(*gcControllerState)."), "calls of (*gcControllerState) methods");
  // memstats.heapStats.acquire()/release(): heapStats is mstats' first field (mstats.go).
  if (!g[GlobalId::kMemstats].found())
    Set(g, GlobalId::kMemstats, ReceiverGlobal(bin, "", "runtime.(*consistentHeapStats).acquire"),
        "calls of (*consistentHeapStats).acquire");
  // (work: its lfstack methods are called on other lists as often as on work.full, so the
  // vote picks the wrong one on every version; no anchor yet.)
}

}  // namespace

std::vector<std::string> RuntimeGlobals::Missing() const {
  std::vector<std::string> out;
  for (const auto &info : GlobalInfos())
    if (!(*this)[info.id].found())
      out.push_back(fmt::format("not available in this binary: {} (loses: {})", info.name, info.loses));
  return out;
}

RuntimeGlobals FindRuntimeGlobals(const GoBinary &bin, const RuntimeLayout *layout, GlobalsSource source) {
  RuntimeGlobals g;
  if (source != GlobalsSource::kCodeOnly) {
    for (const auto &info : GlobalInfos()) {
      for (const char *sym : info.symbols) {
        if (!sym) break;
        if (const ElfSymbol *s = bin.elf().FindSymtabSymbol(sym)) {
          g[info.id] = GlobalAddr{s->value, s->size, "symtab"};
          break;
        }
      }
    }
  }
  if (source != GlobalsSource::kSymtabOnly) {
    FromCode(bin, layout, g);
    FromReceivers(bin, g);
  }
  return g;
}

std::string DescribeGlobals(const RuntimeGlobals &g) {
  std::string out = "runtime globals:\n";
  for (const auto &info : GlobalInfos()) {
    const GlobalAddr &a = g[info.id];
    if (a.found())
      out += fmt::format("  {:<26} 0x{:x}{} ({})\n", info.name, a.vaddr, a.size ? fmt::format(" [{} B]", a.size) : "",
                         a.found_by);
  }
  for (const auto &m : g.Missing()) out += "  " + m + "\n";
  return out;
}

}  // namespace gotraced::gobin
