#include "daemon/procmem/snapshot.h"

#include <time.h>

#include <cstring>

#include <fmt/format.h>

#include "daemon/gobin/runtime_layout.h"
#include "daemon/procmem/process_memory.h"
#include "proto/records.h"
#include "daemon/procmem/mono_clock.h"

namespace gotraced::procmem {
namespace {

// Reads a field of a struct whose bytes were copied into `buf`; 0 when absent/outside.
uint64_t Field(const std::vector<uint8_t> &buf, const gobin::FieldLoc &f) {
  if (!f.present() || f.size <= 0 || f.size > 8 || size_t(f.offset) + size_t(f.size) > buf.size()) return 0;
  uint64_t v = 0;
  std::memcpy(&v, buf.data() + f.offset, size_t(f.size));
  return v;
}

int64_t SignedField(const std::vector<uint8_t> &buf, const gobin::FieldLoc &f) {
  uint64_t v = Field(buf, f);
  if (f.size == 4) return int32_t(uint32_t(v));
  return int64_t(v);
}

// runtime.fpTracebackPCs from the given fp, into out (after whatever is already there).
void WalkFrames(const ProcessMemory &mem, uint64_t fp, uint32_t max, std::vector<uint64_t> *out) {
  while (fp && out->size() < max) {
    uint64_t fr[2];
    if (!mem.Read(fp, fr, sizeof(fr))) return;
    out->push_back(fr[1]);
    if (fr[0] && fr[0] <= fp) return;
    fp = fr[0];
  }
}

struct Reader {
  const ProcessMemory &mem;
  const gobin::RuntimeLayout &l;

  bool ReadStruct(uint64_t addr, int32_t size, std::vector<uint8_t> *buf) const {
    buf->assign(size_t(size > 0 ? size : 0), 0);
    return size > 0 && mem.Read(addr, buf->data(), buf->size());
  }
};

// gcController's heap-goal inputs, from one copy of the struct (the fields change
// together only under the heap lock or with the world stopped, which a read from outside
// cannot take: a commit between two separate reads would mix two states).
void ReadPacer(const Reader &rd, uint64_t addr, RuntimeSnapshot *s) {
  const gobin::GcControllerLayout &l = rd.l.gc_controller;
  const gobin::FieldLoc *fields[] = {&l.gc_percent,  &l.memory_limit, &l.heap_marked, &l.gc_percent_heap_goal,
                                     &l.sweep_dist_min_trigger, &l.triggered, &l.heap_free,
                                     &l.total_alloc, &l.total_free, &l.mapped_ready};
  for (const gobin::FieldLoc *f : fields)
    if (!f->present() || f->offset + f->size > l.size || (f->size != 4 && f->size != 8)) return;
  std::vector<uint8_t> buf;
  if (!rd.ReadStruct(addr, l.size, &buf)) {
    s->warnings.push_back("gcController (heap goal): " + rd.mem.last_error());
    return;
  }
  auto u = [&](const gobin::FieldLoc &f) {
    uint64_t v = 0;
    std::memcpy(&v, buf.data() + f.offset, size_t(f.size));
    return v;
  };
  model::GcPacerState &p = s->pacer;
  p.gc_percent = static_cast<int32_t>(static_cast<uint32_t>(u(l.gc_percent)));
  p.memory_limit = static_cast<int64_t>(u(l.memory_limit));
  p.heap_marked = u(l.heap_marked);
  p.gc_percent_heap_goal = u(l.gc_percent_heap_goal);
  p.sweep_dist_min_trigger = u(l.sweep_dist_min_trigger);
  p.triggered = u(l.triggered);
  p.heap_free = u(l.heap_free);
  p.total_alloc = u(l.total_alloc);
  p.total_free = u(l.total_free);
  p.mapped_ready = u(l.mapped_ready);
  s->pacer_known = true;
}

}  // namespace

gobin::Result<RuntimeSnapshot> TakeSnapshot(const ProcessMemory &mem, const gobin::RuntimeLayout &l,
                                            const RuntimeGlobalAddrs &a, const SnapshotOptions &opts) {
  RuntimeSnapshot s;
  Reader rd{mem, l};
  s.begin_ts_ns = MonoNowNs();
  if (!a.allgs || !a.allglen || !a.allp || !a.allm)
    return gobin::Error{"runtime globals unknown (allgs/allglen/allp/allm): cannot snapshot the runtime"};

  int32_t gomaxprocs = 0;
  if (a.gomaxprocs && mem.ReadValue(a.gomaxprocs, &gomaxprocs)) s.gomaxprocs = gomaxprocs;
  if (a.sched && l.sched.goidgen.present()) {
    uint64_t v = 0;
    if (mem.ReadUint(a.sched + l.sched.goidgen.offset, l.sched.goidgen.size, &v)) s.goidgen = v;
  }
  if (a.gc_controller && l.gc_controller.heap_live.present()) {
    const gobin::FieldLoc &f = l.gc_controller.heap_live;
    s.heap_live_ts_ns = MonoNowNs();
    s.heap_live_known = mem.ReadUint(a.gc_controller + f.offset, f.size, &s.heap_live);
    if (!s.heap_live_known) s.warnings.push_back("gcController.heapLive: " + mem.last_error());
  }
  if (a.gc_controller) ReadPacer(rd, a.gc_controller, &s);

  // Ms first: the goroutine and P entries name their M by pointer; the model resolves.
  uint64_t mp = 0;
  if (!mem.ReadValue(a.allm, &mp)) return gobin::Error{"reading runtime.allm: " + mem.last_error()};
  std::vector<uint8_t> buf;
  for (int guard = 0; mp && guard < 100000; guard++) {
    MState m;
    m.m = mp;
    m.read_ts_ns = MonoNowNs();
    if (!rd.ReadStruct(mp, l.m.size, &buf)) {
      s.warnings.push_back(fmt::format("m at {:#x}: {}", mp, mem.last_error()));
      break;
    }
    m.id = SignedField(buf, l.m.id);
    m.procid = Field(buf, l.m.procid);
    m.curg = Field(buf, l.m.curg);
    m.p = Field(buf, l.m.p);
    m.oldp = Field(buf, l.m.oldp);
    m.lockedg = Field(buf, l.m.lockedg);
    if (m.curg && l.g.goid.present()) mem.ReadUint(m.curg + l.g.goid.offset, l.g.goid.size, &m.curg_goid);
    if (m.p && l.p.id.present()) {
      uint64_t id = 0;
      if (mem.ReadUint(m.p + l.p.id.offset, l.p.id.size, &id)) m.p_id = int32_t(uint32_t(id));
    }
    uint64_t next = Field(buf, l.m.alllink);
    s.ms.push_back(m);
    mp = next;
  }
  auto m_of = [&](uint64_t m) -> const MState * {
    for (const auto &x : s.ms)
      if (x.m == m) return &x;
    return nullptr;
  };

  // Ps: allp is a []*p.
  uint64_t allp_hdr[3] = {};
  if (!mem.Read(a.allp, allp_hdr, sizeof(allp_hdr))) return gobin::Error{"reading runtime.allp: " + mem.last_error()};
  uint64_t np = allp_hdr[1];
  if (np > 1 << 16) return gobin::Error{fmt::format("runtime.allp has implausible length {}", np)};
  std::vector<uint64_t> pptrs(np);
  if (np && !mem.Read(allp_hdr[0], pptrs.data(), np * 8)) return gobin::Error{"reading allp[]: " + mem.last_error()};
  for (uint64_t pp : pptrs) {
    ProcState p;
    p.p = pp;
    p.read_ts_ns = MonoNowNs();
    if (!pp || !rd.ReadStruct(pp, l.p.size, &buf)) {
      s.warnings.push_back(fmt::format("p at {:#x}: {}", pp, mem.last_error()));
      s.procs.push_back(p);
      continue;
    }
    p.id = int32_t(SignedField(buf, l.p.id));
    p.status = uint32_t(Field(buf, l.p.status));
    p.m = Field(buf, l.p.m);
    p.syscalltick = uint32_t(Field(buf, l.p.syscalltick));
    if (const MState *m = m_of(p.m)) {
      p.m_id = m->id;
      p.m_procid = m->procid;
    }
    s.procs.push_back(p);
  }

  // Goroutines: allglen is stored after the append in allgadd, so allgs[0:allglen] is
  // initialized (runtime/proc.go allgadd, "atomicstorep(unsafe.Pointer(&allgs)...").
  uint64_t allglen = 0, allgs_ptr = 0;
  if (!mem.ReadValue(a.allglen, &allglen)) return gobin::Error{"reading runtime.allglen: " + mem.last_error()};
  if (!mem.ReadValue(a.allgs, &allgs_ptr)) return gobin::Error{"reading runtime.allgs: " + mem.last_error()};
  if (allglen > opts.max_goroutines) return gobin::Error{fmt::format("runtime.allglen is implausible: {}", allglen)};
  std::vector<uint64_t> gptrs(allglen);
  if (allglen && !mem.Read(allgs_ptr, gptrs.data(), allglen * 8))
    return gobin::Error{"reading allgs[]: " + mem.last_error()};
  s.goroutines.reserve(allglen);
  for (uint64_t gp : gptrs) {
    GoroutineState g;
    g.g = gp;
    g.read_ts_ns = MonoNowNs();
    if (!gp || !rd.ReadStruct(gp, l.g.size, &buf)) {
      s.warnings.push_back(fmt::format("g at {:#x}: {}", gp, mem.last_error()));
      continue;
    }
    g.goid = Field(buf, l.g.goid);
    g.status = uint32_t(Field(buf, l.g.atomicstatus));
    g.waitreason = uint8_t(Field(buf, l.g.waitreason));
    g.m = Field(buf, l.g.m);
    g.sched_pc = Field(buf, l.g.sched_pc);
    g.sched_sp = Field(buf, l.g.sched_sp);
    g.sched_bp = Field(buf, l.g.sched_bp);
    g.syscallsp = Field(buf, l.g.syscallsp);
    g.syscallpc = Field(buf, l.g.syscallpc);
    g.syscallbp = Field(buf, l.g.syscallbp);
    g.startpc = Field(buf, l.g.startpc);
    g.gopc = Field(buf, l.g.gopc);
    g.parent_goid = Field(buf, l.g.parent_goid);
    g.lockedm = Field(buf, l.g.lockedm);
    if (const MState *m = m_of(g.m)) {
      g.m_id = m->id;
      g.m_procid = m->procid;
    }
    uint32_t st = g.status & ~gobin::kGscan;
    if (opts.stacks && st != gobin::kGrunning && st != gobin::kGdead && st != gobin::kGidle) {
      // Same choice as runtime.traceStack for a goroutine we are not running on.
      if (g.syscallsp && g.syscallbp) {
        g.stack_source = GT_STACK_SYSCALL;
        g.stack.push_back(g.syscallpc);
        WalkFrames(mem, g.syscallbp, opts.max_frames, &g.stack);
      } else if (g.sched_pc) {
        g.stack_source = GT_STACK_SCHED;
        g.stack.push_back(g.sched_pc);
        WalkFrames(mem, g.sched_bp, opts.max_frames, &g.stack);
      }
    }
    s.goroutines.push_back(std::move(g));
  }
  s.end_ts_ns = MonoNowNs();
  return s;
}

std::string DescribeSnapshot(const RuntimeSnapshot &s) {
  std::string out =
      fmt::format("snapshot: gomaxprocs={} goidgen={} heapLive={} goroutines={} procs={} ms={} ({:.3f} ms)\n",
                  s.gomaxprocs, s.goidgen, s.heap_live_known ? std::to_string(s.heap_live) : "?",
                  s.goroutines.size(), s.procs.size(), s.ms.size(), double(s.end_ts_ns - s.begin_ts_ns) / 1e6);
  for (const auto &m : s.ms)
    out += fmt::format("  M{} m={:#x} tid={} curg={:#x} (goid {}) p={}\n", m.id, m.m, m.procid, m.curg, m.curg_goid,
                       m.p_id);
  for (const auto &p : s.procs)
    out += fmt::format("  P{} status={} m={} tid={}\n", p.id, p.status, p.m_id, p.m_procid);
  for (const auto &g : s.goroutines) {
    if ((g.status & ~gobin::kGscan) == gobin::kGdead) continue;
    out += fmt::format("  G{} status={:#x} waitreason={} m={} frames={} startpc={:#x}\n", g.goid, g.status,
                       g.waitreason, g.m_id, g.stack.size(), g.startpc);
  }
  for (const auto &w : s.warnings) out += "  warning: " + w + "\n";
  return out;
}

}  // namespace gotraced::procmem
