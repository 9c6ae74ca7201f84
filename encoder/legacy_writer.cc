// LegacyTraceWriter: the v2 event vocabulary written as the pre-1.22 format. See
// legacy_writer.h for the shape of the translation; each event below names the runtime
// function (Go 1.21 runtime/trace.go, proc.go) that writes its legacy counterpart.
#include "encoder/legacy_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_map>
#include <vector>

#include "encoder/legacy_batches.h"
#include "encoder/legacy_event_table.h"
#include "encoder/legacy_tables.h"
#include "encoder/trace_header.h"

namespace gotraced::encoder {
namespace {

using legacy::Ev;
constexpr std::int64_t kNoP = legacy::kGlobalProc;

// The reader's view of a goroutine (order.go gStatus / parser.go postProcessTrace gdesc).
enum class GSt : std::uint8_t { kDead, kRunnable, kRunning, kWaiting };

struct GState {
  GSt st = GSt::kDead;
  std::int64_t p = kNoP;    // the P it runs on (kRunning)
  bool in_syscall = false;  // kRunning inside a syscall: GoSysCall written, P kept
  // The reader ended its syscall at another event of it, written while the writer had it
  // in one (its return among lost records: EndSyscallForReader); a loss of its P then
  // opens one again (ReopenSyscall).
  bool syscall_cut = false;
  bool sys_blocked = false;  // kWaiting because its syscall lost the P: leaves by GoSysExit
  bool forever = false;     // EvGoStop: dead to the reader (parser.go), gone for good
  bool known = false;       // mentioned by any event or status so far
  // order.go's sequence number of the goroutine: 1 after GoCreate, 2 after GoWaiting /
  // GoInSyscall, +1 at each GoStart / GoUnblock / GoSysExit. Only GoSysExit carries it:
  // its Local form takes the goroutine from the batch, not the argument (parser.go
  // parseEvents sets e.G from Args[0] for GoSysExit only), so it would name the wrong one.
  std::uint64_t seq = 0;
  std::uint64_t created_tick = 0;  // its GoCreate's ticks (0: in the prelude)
  // User region/log events (the kernel view's) that came while it was in a syscall,
  // written when it runs again (HoldInSyscall).
  struct Held {
    Ev e;
    std::vector<std::uint64_t> args;
    std::string data;
    std::size_t stack_arg;  // index of the stack id in args
    std::uint64_t gen;      // generation it came in (stack ids are per generation)
  };
  std::vector<Held> held;
};

struct PState {
  bool running = false;  // EvProcStart written, no EvProcStop since
  GId g = 0;             // the goroutine the reader sees running on it
  MId m = kNoThread;     // the thread that started it
  bool sweeping = false;  // EvGCSweepStart without its Done (parser.go: per P)
  bool known = false;     // mentioned by any event or status so far
  bool hoisted = false;   // running since the trace's start (in the first prelude)
  // The last event of its batch is the GoStartLocal of `start_g` (StartG), which a GC
  // worker's label turns into a GoStartLabel (GoLabel): where it begins, its ticks, and
  // the goroutine's sequence number before it. Any later event on the P closes it: the
  // batch then no longer ends at `start_end` bytes (a flush clears start_open).
  bool start_open = false;
  std::size_t start_end = 0;
  GId start_g = 0;
  legacy::Batches::Mark start_mark;
  std::uint64_t start_ticks = 0, start_seq = 0;
};

struct MState {
  std::int64_t p = kNoP;  // the P it holds (v2 semantics; a P in a syscall stays held)
  GId g = 0;              // its goroutine (v2: running or in a syscall on it)
};

// order.go's sequence number of a goroutine right after a prelude states it: GoCreate
// (1), then GoWaiting / GoInSyscall or GoStartLocal (2).
std::uint64_t PreludeSeq(GSt st) { return st == GSt::kRunnable ? 1 : 2; }

// One entity of a prelude: the state a trace starting here must establish first.
struct PreludeP {
  std::int64_t p;
  MId m;
};
struct PreludeG {
  GId g;
  GSt st;
  bool sys_blocked;
  std::int64_t p;  // kRunning: its P
};
struct Prelude {
  std::vector<PreludeP> procs;
  std::vector<PreludeG> goroutines;
  std::uint64_t gomaxprocs = 0;
  std::uint64_t gc_base = 0;
  bool gc_active = false, stw_active = false;
  std::vector<std::int64_t> sweeping;  // Ps
  std::vector<std::pair<GId, std::uint64_t>> seq_offsets;
};

}  // namespace

struct LegacyTraceWriter::Impl {
  Impl(Sink &s, const LegacyWriterOptions &o, LegacyRestartSink *r) : sink(s), opt(o), restart(r) {
    if (opt.tick_divisor == 0) opt.tick_divisor = 1;
  }

  Sink &sink;
  LegacyWriterOptions opt;
  LegacyRestartSink *restart;
  legacy::Tables tables;
  legacy::Batches batches;
  std::unordered_map<GId, GState> gs;
  std::unordered_map<std::int64_t, PState> ps;
  std::unordered_map<MId, MState> ms;
  std::uint64_t gen = 1;
  bool closed = false, header_written = false, any_event = false;
  std::uint64_t clock = 0;             // ticks of the last event written (strictly increasing)
  std::uint64_t gen_first_tick = 0;    // first tick of the current generation (0: none yet)
  std::uint64_t gc_count = 0;          // GCStart events written (order.go's GC sequence)
  bool gc_open = false, stw_open = false;
  std::uint64_t gomaxprocs = 0;
  Prelude first_prelude;   // generation 1: hoisted statuses
  Prelude next_prelude;    // the state at the current generation's start (restart sink)
  std::size_t next_prelude_strings = 0;  // bytes of all_strings() defined before it
  WriterStats stats;
  std::string last_error;

  // ---- helpers ----------------------------------------------------------------------
  std::uint64_t Tick(std::uint64_t ts_ns) {
    std::uint64_t t = ts_ns / opt.tick_divisor;
    if (t <= clock) {
      if (t < clock) ++stats.clamped_timestamps;
      t = clock + 1;
    }
    clock = t;
    if (gen_first_tick == 0) gen_first_tick = t;
    return t;
  }
  MState &M(MId m) { return ms[m]; }
  std::int64_t BatchOf(MId m) {
    auto it = ms.find(m);
    return it == ms.end() ? kNoP : it->second.p;
  }
  void Put(std::int64_t p, std::uint64_t ticks, Ev e, std::initializer_list<std::uint64_t> args,
           std::string_view data = {}) {
    batches.Add(p, ticks, e, std::span<const std::uint64_t>(args.begin(), args.size()), data);
    ++stats.events;
    any_event = true;
  }
  // An event of thread m at ts: into the batch of m's P (the runtime's traceAcquireBuffer).
  void At(MId m, std::uint64_t ts, Ev e, std::initializer_list<std::uint64_t> args, std::string_view data = {}) {
    const std::int64_t p = BatchOf(m);
    EndSyscallForReader(p, e);
    Put(p, Tick(ts), e, args, data);
  }
  // Go's converter (tracev1.go, EvGoSysCall) ends the syscall of the goroutine on p at its
  // next event other than GoSysBlock. Such an event while the writer has it in a syscall
  // means the return was among lost records (the runtime writes none from a thread in a
  // syscall; the kernel view's are held: HoldInSyscall): the writer follows the reader.
  void EndSyscallForReader(std::int64_t p, Ev e) {
    if (e == Ev::kGoSysCall || p == kNoP) return;
    const GId g = GOnP(p);
    if (g == 0) return;
    GState &gst = gs[g];
    if (!gst.in_syscall) return;
    gst.in_syscall = false;
    gst.syscall_cut = true;
    ++stats.repairs;
  }
  // The goroutine on p loses its P in a syscall the reader ended (EndSyscallForReader):
  // it entered another since, among lost records. That syscall begins here (no stack).
  bool ReopenSyscall(std::int64_t p, std::uint64_t ticks, GId g) {
    GState &gst = gs[g];
    if (gst.in_syscall) return true;
    if (!gst.syscall_cut || gst.st != GSt::kRunning || gst.p != p) return false;
    Put(p, ticks, Ev::kGoSysCall, {0});
    gst.in_syscall = true;
    gst.syscall_cut = false;
    ++stats.repairs;
    return true;
  }
  // A goroutine in a syscall has no event of its own in the legacy format until the
  // syscall returns or loses the P: Go's converter (tracev1.go, EvGoSysCall) takes the
  // next event of the goroutine after GoSysCall to say whether the syscall blocked
  // (GoSysBlock) or was an instant, and any other event in between made a blocked one an
  // instant, after which its GoSysExit left a syscall the goroutine was not in
  // ("goroutine N leaves Syscall but was Running"); and without its P (GoSysBlock
  // written) an event on m's batch would be another goroutine's. Only the kernel view
  // writes such events (the goroutine runs no code meanwhile): they are held and written
  // when it runs again (FlushHeld), with that moment's time.
  bool HoldInSyscall(MId m, Ev e, std::initializer_list<std::uint64_t> args, std::size_t stack_arg,
                     std::string_view data = {}) {
    const GId g = M(m).g;
    if (g == 0) return false;
    GState &gst = gs[g];
    if (!gst.in_syscall && !gst.sys_blocked) return false;
    gst.held.push_back({e, std::vector<std::uint64_t>(args), std::string(data), stack_arg, gen});
    return true;
  }
  // Right after the event that lets the goroutine run on p again, one tick apart each.
  void FlushHeld(std::int64_t p, GState &gst) {
    for (GState::Held &h : gst.held) {
      if (h.gen != gen && h.stack_arg < h.args.size()) h.args[h.stack_arg] = 0;  // that table is gone
      batches.Add(p, Tick((clock + 1) * opt.tick_divisor), h.e, std::span<const std::uint64_t>(h.args), h.data);
      ++stats.events;
    }
    gst.held.clear();
  }
  EmitStatus Drop(EmitStatus s, std::string_view what, std::string detail) {
    ++stats.dropped;
    last_error = fmt::format("{} dropped ({}): {}", what, EmitStatusName(s), detail);
    return s;
  }
  EmitStatus Closed(std::string_view what) { return Drop(EmitStatus::kClosed, what, "writer closed"); }
  bool first_gen() const { return gen == 1; }
  // A string argument's text (block reasons and STW kinds are chosen by it) and id.
  std::string_view Text(const StringArg &a) const { return a.is_id() ? tables.Text(a.id().value) : a.text(); }
  std::uint64_t Str(const StringArg &a) { return a.is_id() ? a.id().value : tables.String(a.text()); }

  // The goroutine the reader sees on m's P ("ev.G" of an event there).
  GId GOnP(std::int64_t p) {
    auto it = ps.find(p);
    return it == ps.end() ? 0 : it->second.g;
  }

  // ---- transitions shared by several events -------------------------------------------
  // The syscall of m's goroutine loses its P (runtime/trace.go traceGoSysBlock, called by
  // entersyscallblock, handoffp from retake): GoSysBlock on that P, then its ProcStop.
  void SysBlock(std::int64_t p, std::uint64_t ticks, GId g) {
    GState &gst = gs[g];
    Put(p, ticks, Ev::kGoSysBlock, {});
    gst.st = GSt::kWaiting;
    gst.in_syscall = false;
    gst.syscall_cut = false;
    gst.sys_blocked = true;
    gst.p = kNoP;
    ps[p].g = 0;
  }
  void StopP(std::int64_t p, std::uint64_t ticks) {
    PState &pst = ps[p];
    Put(p, ticks, Ev::kProcStop, {});
    pst.running = false;
    pst.g = 0;
    pst.m = kNoThread;
  }
  // Makes p running under m (EvProcStart [thread], runtime/trace.go traceProcStart).
  void StartP(std::int64_t p, MId m, std::uint64_t ticks) {
    PState &pst = ps[p];
    Put(p, ticks, Ev::kProcStart, {m});
    pst.running = true;
    pst.g = 0;
    pst.m = m;
  }
  // g starts running on p (GoStartLocal: ordered by state, see legacy_writer.h).
  void StartG(std::int64_t p, std::uint64_t ticks, GId g) {
    GState &gst = gs[g];
    const legacy::Batches::Mark mark = batches.Tell(p);
    Put(p, ticks, Ev::kGoStartLocal, {g});
    PState &pst = ps[p];
    pst.start_open = true;
    pst.start_g = g;
    pst.start_mark = mark;
    pst.start_ticks = ticks;
    pst.start_seq = gst.seq;
    pst.start_end = batches.Tell(p).size;
    ++gst.seq;
    gst.st = GSt::kRunning;
    gst.p = p;
    gst.in_syscall = false;
    gst.syscall_cut = false;
    gst.sys_blocked = false;
    ps[p].g = g;
    if (!gst.held.empty()) {
      FlushHeld(p, gst);
      pst.start_open = false;  // the GoStartLocal is no longer its batch's last event
    }
  }
  // runtime/trace.go traceGoSysExit: EvGoSysExit [g, seq, real ts]; real ts 0 (the
  // event's own time is the exit's; order.go skips 0).
  void SysExit(std::int64_t p, std::uint64_t ticks, GId g) {
    GState &gst = gs[g];
    Put(p, ticks, Ev::kGoSysExit, {g, gst.seq, 0});
    ++gst.seq;
    gst.st = GSt::kRunnable;
    gst.sys_blocked = false;
  }
  // g leaves its P by a block/stop/end event already written.
  void OffP(GState &gst, GSt to) {
    if (gst.p != kNoP) {
      PState &pst = ps[gst.p];
      if (pst.g != 0) pst.g = 0;
    }
    gst.st = to;
    gst.p = kNoP;
    gst.in_syscall = false;
    gst.syscall_cut = false;
  }

  // Entries of goroutines the reader has dead and that can never run again: those an
  // event about an unknown or ended goroutine made (gs[g] of a GoUnblock or GoStart that
  // was then dropped, gs[0] of an M without one). GoDestroy erases its own at once. What
  // stays: live goroutines, and those EvGoStop ended for the reader but not for the
  // runtime (`forever`: their later events are left out, so they must be recognised).
  void ForgetDead() {
    std::erase_if(gs, [](const auto &e) { return e.second.st == GSt::kDead && !e.second.forever && e.second.held.empty(); });
  }

  // ---- prelude ------------------------------------------------------------------------
  // The prelude as events, timestamps ending right before `end_tick`.
  void EncodePrelude(const Prelude &pre, std::uint64_t end_tick, legacy::Batches &out, std::uint64_t *count) {
    std::size_t n = pre.procs.size() + pre.goroutines.size() * 2 + 1;
    std::uint64_t t = end_tick > n + 1 ? end_tick - n - 1 : 1;
    auto put = [&](std::int64_t p, Ev e, std::initializer_list<std::uint64_t> args) {
      out.Add(p, t++, e, std::span<const std::uint64_t>(args.begin(), args.size()));
      if (count) ++*count;
    };
    // runtime/trace.go StartTrace: the goroutines first (GoCreate, then GoWaiting /
    // GoInSyscall), the tracer's own P and goroutine, then traceGomaxprocs, which ends
    // the trace's initial state for tracev1.go.
    for (const PreludeP &p : pre.procs) put(p.p, Ev::kProcStart, {p.m});
    for (const PreludeG &g : pre.goroutines) put(kNoP, Ev::kGoCreate, {g.g, 0, 0});
    for (const PreludeG &g : pre.goroutines) {
      if (g.st == GSt::kWaiting) put(kNoP, g.sys_blocked ? Ev::kGoInSyscall : Ev::kGoWaiting, {g.g});
      if (g.st == GSt::kRunning) put(g.p, Ev::kGoStartLocal, {g.g});
    }
    std::uint64_t procs = pre.gomaxprocs ? pre.gomaxprocs : std::max<std::uint64_t>(1, pre.procs.size());
    put(kNoP, Ev::kGomaxprocs, {procs, 0});
  }

  // The state now, as the prelude of a trace that would start here.
  Prelude SnapshotPrelude() const {
    Prelude pre;
    for (const auto &[p, pst] : ps)
      if (pst.running) pre.procs.push_back({p, pst.m});
    for (const auto &[g, gst] : gs) {
      if (gst.st == GSt::kDead || gst.forever) continue;
      pre.goroutines.push_back({g, gst.st, gst.sys_blocked, gst.p});
      const std::uint64_t ps = PreludeSeq(gst.st);
      if (gst.seq > ps) pre.seq_offsets.emplace_back(g, gst.seq - ps);
    }
    std::sort(pre.procs.begin(), pre.procs.end(), [](auto &a, auto &b) { return a.p < b.p; });
    std::sort(pre.goroutines.begin(), pre.goroutines.end(), [](auto &a, auto &b) { return a.g < b.g; });
    pre.gomaxprocs = gomaxprocs;
    pre.gc_base = gc_count;
    pre.gc_active = gc_open;
    pre.stw_active = stw_open;
    for (const auto &[p, pst] : ps)
      if (pst.sweeping) pre.sweeping.push_back(p);
    return pre;
  }

  void EndGeneration() {
    if (closed) return;
    if (!header_written) {
      auto h = MakeHeader(opt.version);
      sink.WriteHeader(h);
      header_written = true;
    }
    if (gen_first_tick == 0) gen_first_tick = clock + 1;
    ByteBuffer out;
    if (first_gen()) {
      // The prelude's batches come first, so every P's stream starts with its state.
      legacy::Batches pre;
      if (first_prelude.gomaxprocs == 0) first_prelude.gomaxprocs = opt.gomaxprocs ? opt.gomaxprocs : gomaxprocs;
      EncodePrelude(first_prelude, gen_first_tick, pre, &stats.events);
      pre.FlushTo(out);
    } else if (restart) {
      legacy::Batches pre;
      EncodePrelude(next_prelude, gen_first_tick, pre, nullptr);
      ByteBuffer pb;
      pre.FlushTo(pb);
      pb.PutBytes(tables.all_strings().span().first(next_prelude_strings));
      LegacyRestart r;
      r.prelude = pb.span();
      r.gc_base = next_prelude.gc_base;
      r.gc_active = next_prelude.gc_active;
      r.stw_active = next_prelude.stw_active;
      r.sweeping = next_prelude.sweeping;
      r.seq_offsets = next_prelude.seq_offsets;
      restart->WriteLegacyPrelude(gen, r);
    }
    // Tables after the batches: Go 1.22+'s reader reads strings and stacks only within a
    // batch's bytes (internal/trace/internal/tracev1 loadBatch reads from an EvBatch to
    // the next), as the runtime writes them (traceString into a P's buffer; the stack
    // table dumped into buffers of its own).
    batches.FlushTo(out);
    for (auto &[id, pst] : ps) pst.start_open = false;  // flushed: no mark can take it back
    out.PutBytes(tables.bytes().span());
    // EvFrequency [ticks per second]; the parser keeps the last one (parser.go).
    out.PutByte(static_cast<std::uint8_t>(Ev::kFrequency));
    out.PutVarint(std::max<std::uint64_t>(1, 1'000'000'000ull / opt.tick_divisor));
    sink.WriteGeneration(gen, out.span());
    stats.generations++;
    stats.bytes += out.size();
    stats.strings = tables.strings_defined();
    stats.strings_over_bound = tables.strings_over_bound();
    stats.stacks = tables.stacks_defined();
    tables.NewGeneration();
    ForgetDead();
    ++gen;
    gen_first_tick = 0;
    any_event = false;
    if (restart) {
      next_prelude = SnapshotPrelude();
      next_prelude_strings = tables.all_strings().size();
    }
  }
};


// ---- LegacyTraceWriter ----------------------------------------------------------------

LegacyTraceWriter::LegacyTraceWriter(Sink &sink, LegacyWriterOptions options, LegacyRestartSink *restart)
    : impl_(std::make_unique<Impl>(sink, options, restart)) {}
LegacyTraceWriter::~LegacyTraceWriter() = default;

void LegacyTraceWriter::EndGeneration() { impl_->EndGeneration(); }
void LegacyTraceWriter::Close() {
  Impl &I = *impl_;
  if (I.closed) return;
  if (I.any_event || I.stats.generations == 0) I.EndGeneration();
  I.closed = true;
  I.sink.Close();
}
std::uint64_t LegacyTraceWriter::generation() const { return impl_->gen; }
Version LegacyTraceWriter::version() const { return impl_->opt.version; }

StringId LegacyTraceWriter::InternString(std::string_view s) { return StringId{impl_->tables.String(s)}; }
StackId LegacyTraceWriter::InternStack(std::span<const Frame> frames) { return StackId{impl_->tables.Stack(frames)}; }
StackId LegacyTraceWriter::InternStackPcs(std::span<const std::uint64_t> pcs, PcResolver resolve) {
  return StackId{impl_->tables.StackPcs(
      pcs, [&](std::span<const std::uint64_t> k, std::vector<Frame> &out) { resolve(k, out); })};
}
StackId LegacyTraceWriter::InternStackPcs(std::uint64_t head, std::span<const std::uint64_t> pcs,
                                          PcResolver resolve) {
  std::vector<std::uint64_t> joined;
  joined.reserve(pcs.size() + 1);
  joined.push_back(head);
  joined.insert(joined.end(), pcs.begin(), pcs.end());
  return InternStackPcs(std::span<const std::uint64_t>(joined), resolve);
}

#define LEGACY_OPEN(name) \
  Impl &I = *impl_;       \
  if (I.closed) return I.Closed(name)

namespace {
std::uint64_t Sid(StackId s) { return s.value; }
}  // namespace

// ---- Procs ------------------------------------------------------------------------------

// procresize -> traceGomaxprocs: EvGomaxprocs [procs, stack].
EmitStatus LegacyTraceWriter::ProcsChange(MId m, std::uint64_t ts, std::uint64_t procs, StackId stack) {
  LEGACY_OPEN("ProcsChange");
  if (I.first_gen() && I.first_prelude.gomaxprocs == 0 && I.opt.gomaxprocs == 0) I.first_prelude.gomaxprocs = procs;
  I.gomaxprocs = procs;
  I.At(m, ts, Ev::kGomaxprocs, {procs, Sid(stack)});
  return EmitStatus::kOk;
}

// acquirep -> traceProcStart: EvProcStart [thread] on the P.
EmitStatus LegacyTraceWriter::ProcStart(MId m, std::uint64_t ts, PId p, Seq) {
  LEGACY_OPEN("ProcStart");
  const auto pid = static_cast<std::int64_t>(p);
  PState &pst = I.ps[pid];
  if (pst.running) {
    // The reader still sees it running: only a syscall that kept it can explain that.
    if (pst.g != 0 && I.ReopenSyscall(pid, I.Tick(ts), pst.g)) I.SysBlock(pid, I.Tick(ts), pst.g);
    if (pst.g != 0) return I.Drop(EmitStatus::kBadState, "ProcStart", fmt::format("P {} runs G {}", p, pst.g));
    I.StopP(pid, I.Tick(ts));
  }
  pst.known = true;
  I.M(m).p = pid;
  I.StartP(pid, m, I.Tick(ts));
  return EmitStatus::kOk;
}

// releasep -> traceProcStop; in a syscall (entersyscallblock, handoffp) the goroutine's
// GoSysBlock comes first (runtime/trace.go traceGoSysBlock).
EmitStatus LegacyTraceWriter::ProcStop(MId m, std::uint64_t ts) {
  LEGACY_OPEN("ProcStop");
  MState &mm = I.M(m);
  const std::int64_t p = mm.p;
  mm.p = kNoP;
  if (p == kNoP) return I.Drop(EmitStatus::kBadState, "ProcStop", fmt::format("M {} holds no P", m));
  PState &pst = I.ps[p];
  if (!pst.running) return EmitStatus::kOk;
  if (pst.g != 0) {
    if (!I.ReopenSyscall(p, I.Tick(ts), pst.g))
      return I.Drop(EmitStatus::kBadState, "ProcStop", fmt::format("P {} runs G {}", p, pst.g));
    I.SysBlock(p, I.Tick(ts), pst.g);
  }
  I.StopP(p, I.Tick(ts));
  return EmitStatus::kOk;
}

// retake -> traceGoSysBlock(pp); traceProcStop(pp): written into the stolen P's batch.
EmitStatus LegacyTraceWriter::ProcSteal(MId, std::uint64_t ts, PId p, Seq, MId victim) {
  LEGACY_OPEN("ProcSteal");
  const auto pid = static_cast<std::int64_t>(p);
  PState &pst = I.ps[pid];
  pst.known = true;
  if (auto it = I.ms.find(victim); it != I.ms.end() && it->second.p == pid) it->second.p = kNoP;
  if (!pst.running) return EmitStatus::kOk;
  if (pst.g != 0) {
    if (!I.ReopenSyscall(pid, I.Tick(ts), pst.g))
      return I.Drop(EmitStatus::kBadState, "ProcSteal", fmt::format("P {} runs G {}", p, pst.g));
    I.SysBlock(pid, I.Tick(ts), pst.g);
  }
  I.StopP(pid, I.Tick(ts));
  return EmitStatus::kOk;
}

// Statuses: the first one of a P introduces it (in the first generation, into the
// prelude: see legacy_writer.h); later ones restate what the writer already mirrors.
EmitStatus LegacyTraceWriter::ProcStatusEvent(MId m, std::uint64_t ts, PId p, ProcStatus status) {
  LEGACY_OPEN("ProcStatus");
  if (status == ProcStatus::kBad || static_cast<int>(status) > 4)
    return I.Drop(EmitStatus::kBadStatus, "ProcStatus", "bad status");
  const auto pid = static_cast<std::int64_t>(p);
  PState &pst = I.ps[pid];
  const bool held = status == ProcStatus::kRunning || status == ProcStatus::kSyscall;
  if (held) I.M(m).p = pid;
  if (!pst.known) {
    pst.known = true;
    if (!held) return EmitStatus::kOk;
    if (I.first_gen()) {
      pst.running = true;
      pst.hoisted = true;
      pst.m = m;
      I.first_prelude.procs.push_back({pid, m});
    } else {
      I.StartP(pid, m, I.Tick(ts));
    }
    return EmitStatus::kOk;
  }
  if (held && !pst.running) I.StartP(pid, m, I.Tick(ts));
  return EmitStatus::kOk;
}

// ---- Goroutines ---------------------------------------------------------------------------

// newproc1 -> traceGoCreate: EvGoCreate [new g, new stack, stack] on the creator's P.
EmitStatus LegacyTraceWriter::GoCreate(MId m, std::uint64_t ts, GId new_g, StackId new_stack, StackId stack) {
  LEGACY_OPEN("GoCreate");
  GState &g = I.gs[new_g];
  if (g.known && g.st != GSt::kDead)
    return I.Drop(EmitStatus::kBadState, "GoCreate", fmt::format("G {} exists", new_g));
  g = GState{};
  g.known = true;
  g.st = GSt::kRunnable;
  g.seq = 1;
  I.At(m, ts, Ev::kGoCreate, {new_g, Sid(new_stack), Sid(stack)});
  g.created_tick = I.clock;
  return EmitStatus::kOk;
}

// needm's goroutine: runtime/proc.go oneNewExtraM writes GoCreate + GoInSyscall for it,
// since its next event is the GoSysExit of exitsyscall. dropm writes nothing, so the
// reader keeps it in its syscall and the next needm finds it there.
EmitStatus LegacyTraceWriter::GoCreateSyscall(MId m, std::uint64_t ts, GId new_g) {
  LEGACY_OPEN("GoCreateSyscall");
  GState &g = I.gs[new_g];
  I.M(m).g = new_g;
  if (g.known && g.st == GSt::kWaiting && g.sys_blocked) return EmitStatus::kOk;
  if (g.known && g.st != GSt::kDead)
    return I.Drop(EmitStatus::kBadState, "GoCreateSyscall", fmt::format("G {} exists", new_g));
  g = GState{};
  g.known = true;
  const std::int64_t b = I.BatchOf(m);
  I.Put(b, g.created_tick = I.Tick(ts), Ev::kGoCreate, {new_g, 0, 0});
  I.Put(b, I.Tick(ts), Ev::kGoInSyscall, {new_g});
  g.seq = 2;
  g.st = GSt::kWaiting;
  g.sys_blocked = true;
  return EmitStatus::kOk;
}

EmitStatus LegacyTraceWriter::GoCreateBlocked(MId, std::uint64_t, GId, StackId, StackId) {
  return impl_->Drop(EmitStatus::kUnsupportedEvent, "GoCreateBlocked", "not in the legacy format");
}

// execute -> traceGoStart.
EmitStatus LegacyTraceWriter::GoStart(MId m, std::uint64_t ts, GId g, Seq) {
  LEGACY_OPEN("GoStart");
  GState &gst = I.gs[g];
  MState &mm = I.M(m);
  if (gst.forever) return EmitStatus::kOk;
  if (gst.st != GSt::kRunnable)
    return I.Drop(EmitStatus::kBadState, "GoStart", fmt::format("G {} is not runnable", g));
  if (mm.p == kNoP) return I.Drop(EmitStatus::kBadState, "GoStart", fmt::format("M {} holds no P", m));
  PState &pst = I.ps[mm.p];
  if (!pst.running) I.StartP(mm.p, m, I.Tick(ts));
  if (pst.g != 0) return I.Drop(EmitStatus::kBadState, "GoStart", fmt::format("P {} runs G {}", mm.p, pst.g));
  I.StartG(mm.p, I.Tick(ts), g);
  mm.g = g;
  return EmitStatus::kOk;
}

// goexit1 -> traceGoEnd.
EmitStatus LegacyTraceWriter::GoDestroy(MId m, std::uint64_t ts) {
  LEGACY_OPEN("GoDestroy");
  MState &mm = I.M(m);
  GState &gst = I.gs[mm.g];
  if (mm.g == 0 || gst.st != GSt::kRunning)
    return I.Drop(EmitStatus::kBadState, "GoDestroy", fmt::format("M {} runs no goroutine", m));
  I.At(m, ts, Ev::kGoEnd, {});
  I.OffP(gst, GSt::kDead);
  I.gs.erase(mm.g);  // ids are never reused (proc.go newproc1): nothing names it again
  mm.g = 0;
  return EmitStatus::kOk;
}

EmitStatus LegacyTraceWriter::GoDestroySyscall(MId m, std::uint64_t ts) {
  LEGACY_OPEN("GoDestroySyscall");
  MState &mm = I.M(m);
  GState &gst = I.gs[mm.g];
  if (mm.g != 0 && gst.st == GSt::kRunning && I.ReopenSyscall(gst.p, I.Tick(ts), mm.g))
    I.SysBlock(gst.p, I.Tick(ts), mm.g);
  mm.g = 0;
  return EmitStatus::kOk;
}

// gosched_m / gopreempt_m -> traceGoSched / traceGoPreempt.
EmitStatus LegacyTraceWriter::GoStop(MId m, std::uint64_t ts, StringArg reason, StackId stack) {
  LEGACY_OPEN("GoStop");
  MState &mm = I.M(m);
  GState &gst = I.gs[mm.g];
  if (mm.g == 0 || gst.st != GSt::kRunning)
    return I.Drop(EmitStatus::kBadState, "GoStop", fmt::format("M {} runs no goroutine", m));
  const Ev e = I.Text(reason) == "preempted" ? Ev::kGoPreempt : Ev::kGoSched;
  I.At(m, ts, e, {Sid(stack)});
  I.OffP(gst, GSt::kRunnable);
  mm.g = 0;
  return EmitStatus::kOk;
}

// park_m -> traceGoPark(reason): the reason is the event type (1.21 traceBlockReason).
EmitStatus LegacyTraceWriter::GoBlock(MId m, std::uint64_t ts, StringArg reason, StackId stack) {
  LEGACY_OPEN("GoBlock");
  MState &mm = I.M(m);
  GState &gst = I.gs[mm.g];
  if (mm.g == 0 || gst.st != GSt::kRunning)
    return I.Drop(EmitStatus::kBadState, "GoBlock", fmt::format("M {} runs no goroutine", m));
  const Ev e = legacy::BlockEventFor(I.Text(reason));
  I.At(m, ts, e, {Sid(stack)});
  // EvGoStop ends the goroutine for the reader (parser.go postProcessTrace: gDead).
  I.OffP(gst, e == Ev::kGoStop ? GSt::kDead : GSt::kWaiting);
  if (e == Ev::kGoStop) gst.forever = true;
  mm.g = 0;
  return EmitStatus::kOk;
}

// ready -> traceGoUnpark.
EmitStatus LegacyTraceWriter::GoUnblock(MId m, std::uint64_t ts, GId g, Seq, StackId stack) {
  LEGACY_OPEN("GoUnblock");
  GState &gst = I.gs[g];
  if (gst.forever) return EmitStatus::kOk;
  if (gst.st != GSt::kWaiting || gst.sys_blocked)
    return I.Drop(EmitStatus::kBadState, "GoUnblock", fmt::format("G {} is not waiting", g));
  I.At(m, ts, Ev::kGoUnblockLocal, {g, Sid(stack)});
  ++gst.seq;
  gst.st = GSt::kRunnable;
  return EmitStatus::kOk;
}

EmitStatus LegacyTraceWriter::GoSwitch(MId, std::uint64_t, GId, Seq) {
  return impl_->Drop(EmitStatus::kUnsupportedEvent, "GoSwitch", "not in the legacy format");
}
EmitStatus LegacyTraceWriter::GoSwitchDestroy(MId, std::uint64_t, GId, Seq) {
  return impl_->Drop(EmitStatus::kUnsupportedEvent, "GoSwitchDestroy", "not in the legacy format");
}

// entersyscall -> traceGoSysCall: an instant; the goroutine keeps running on its P for
// the reader until the P is lost (GoSysBlock) or it returns.
EmitStatus LegacyTraceWriter::GoSyscallBegin(MId m, std::uint64_t ts, Seq, StackId stack) {
  LEGACY_OPEN("GoSyscallBegin");
  MState &mm = I.M(m);
  GState &gst = I.gs[mm.g];
  if (mm.g == 0 || gst.st != GSt::kRunning)
    return I.Drop(EmitStatus::kBadState, "GoSyscallBegin", fmt::format("M {} runs no goroutine", m));
  I.At(m, ts, Ev::kGoSysCall, {Sid(stack)});
  gst.in_syscall = true;
  gst.syscall_cut = false;
  return EmitStatus::kOk;
}

// exitsyscall's fast path with its own P: nothing is written (proc.go exitsyscall writes
// traceGoStart only when the P changed). A goroutine the reader has in a blocked syscall
// (it was in one when the trace began) leaves it by GoSysExit and starts again.
EmitStatus LegacyTraceWriter::GoSyscallEnd(MId m, std::uint64_t ts) {
  LEGACY_OPEN("GoSyscallEnd");
  MState &mm = I.M(m);
  GState &gst = I.gs[mm.g];
  if (mm.g == 0) return I.Drop(EmitStatus::kBadState, "GoSyscallEnd", fmt::format("M {} runs no goroutine", m));
  if (gst.st == GSt::kRunning) {
    gst.in_syscall = false;
    gst.syscall_cut = false;
    if (!gst.held.empty()) {
      I.Tick(ts);  // the return's time, for what follows
      I.FlushHeld(gst.p, gst);
    }
    return EmitStatus::kOk;
  }
  if (gst.st != GSt::kWaiting || !gst.sys_blocked || mm.p == kNoP)
    return I.Drop(EmitStatus::kBadState, "GoSyscallEnd", fmt::format("G {} is not in a syscall", mm.g));
  PState &pst = I.ps[mm.p];
  if (!pst.running) I.StartP(mm.p, m, I.Tick(ts));
  if (pst.g != 0) return I.Drop(EmitStatus::kBadState, "GoSyscallEnd", fmt::format("P {} runs G {}", mm.p, pst.g));
  I.SysExit(mm.p, I.Tick(ts), mm.g);
  I.StartG(mm.p, I.Tick(ts), mm.g);
  return EmitStatus::kOk;
}

// exitsyscall without its P -> traceGoSysExit (written by the runtime at the next
// execute; here at once: the goroutine is runnable from now). The real-timestamp
// argument is 0: the event's own time is the exit's (order.go skips 0).
EmitStatus LegacyTraceWriter::GoSyscallEndBlocked(MId m, std::uint64_t ts) {
  LEGACY_OPEN("GoSyscallEndBlocked");
  MState &mm = I.M(m);
  const GId g = mm.g;
  GState &gst = I.gs[g];
  if (g == 0) return I.Drop(EmitStatus::kBadState, "GoSyscallEndBlocked", fmt::format("M {} runs no goroutine", m));
  if (gst.st == GSt::kRunning && I.ReopenSyscall(gst.p, I.Tick(ts), g)) I.SysBlock(gst.p, I.Tick(ts), g);
  if (gst.st != GSt::kWaiting || !gst.sys_blocked)
    return I.Drop(EmitStatus::kBadState, "GoSyscallEndBlocked", fmt::format("G {} is not in a syscall", g));
  I.SysExit(I.BatchOf(m), I.Tick(ts), g);
  mm.g = 0;
  return EmitStatus::kOk;
}

EmitStatus LegacyTraceWriter::GoStatusEvent(MId m, std::uint64_t ts, GId g, MId g_m, GoStatus status) {
  LEGACY_OPEN("GoStatus");
  if (status == GoStatus::kBad || static_cast<int>(status) > 4)
    return I.Drop(EmitStatus::kBadStatus, "GoStatus", "bad status");
  (void)m;
  GState &gst = I.gs[g];
  const bool on_m = status == GoStatus::kRunning || status == GoStatus::kSyscall;
  if (on_m && g_m != kNoThread) I.M(g_m).g = g;
  if (gst.known) {
    // A restatement (every generation after a loss cut). Running where the reader has it
    // in a syscall: the return was among lost records. The reader ends that syscall at
    // the goroutine's next event anyway (tracev1.go: GoSysCall then anything but
    // GoSysBlock is an instant); a GoSysBlock written later for it, when its P goes,
    // would leave a syscall the reader has ended ("leaves Syscall but was Running").
    if (status == GoStatus::kRunning && gst.st == GSt::kRunning && gst.in_syscall) {
      gst.in_syscall = false;
      ++I.stats.repairs;
    }
    return EmitStatus::kOk;
  }
  gst.known = true;
  if (!I.first_gen()) {
    // An unknown goroutine after the first generation (the model creates those, it does
    // not state them): the reader learns of it by a creation now.
    I.Put(kNoP, gst.created_tick = I.Tick(ts), Ev::kGoCreate, {g, 0, 0});
    gst.st = GSt::kRunnable;
    gst.seq = 1;
    if (status == GoStatus::kWaiting || status == GoStatus::kSyscall) {
      I.Put(kNoP, I.Tick(ts), status == GoStatus::kSyscall ? Ev::kGoInSyscall : Ev::kGoWaiting, {g});
      gst.st = GSt::kWaiting;
      gst.seq = 2;
      gst.sys_blocked = status == GoStatus::kSyscall;
    } else if (status == GoStatus::kRunning) {
      const std::int64_t p = I.BatchOf(g_m);
      if (p != kNoP && I.ps[p].running && I.ps[p].g == 0) I.StartG(p, I.Tick(ts), g);
    }
    return EmitStatus::kOk;
  }
  // First generation: hoisted into the prelude (the state since the trace's start).
  PreludeG pg{g, GSt::kRunnable, false, kNoP};
  switch (status) {
    case GoStatus::kRunnable: break;
    case GoStatus::kWaiting: pg.st = GSt::kWaiting; break;
    case GoStatus::kSyscall:
      pg.st = GSt::kWaiting;
      pg.sys_blocked = true;
      break;
    case GoStatus::kRunning: {
      const std::int64_t p = g_m == kNoThread ? kNoP : I.BatchOf(g_m);
      PState *pst = p == kNoP ? nullptr : &I.ps[p];
      if (pst && pst->running && pst->hoisted && pst->g == 0) {
        pg.st = GSt::kRunning;
        pg.p = p;
        pst->g = g;
      } else if (pst && pst->running && pst->g == 0) {
        // Its P began in this trace: the goroutine started on it since.
        I.first_prelude.goroutines.push_back(pg);
        gst.st = GSt::kRunnable;
        gst.seq = 1;
        I.StartG(p, I.Tick(ts), g);
        return EmitStatus::kOk;
      }
      break;
    }
    default: break;
  }
  gst.st = pg.st;
  gst.sys_blocked = pg.sys_blocked;
  gst.p = pg.p;
  gst.seq = PreludeSeq(pg.st);
  I.first_prelude.goroutines.push_back(pg);
  return EmitStatus::kOk;
}

EmitStatus LegacyTraceWriter::GoStatusStack(MId, std::uint64_t, GId, MId, GoStatus, StackId) {
  return impl_->Drop(EmitStatus::kUnsupportedEvent, "GoStatusStack", "not in the legacy format");
}

// ---- STW, GC ------------------------------------------------------------------------------

// stopTheWorld / gcStart -> traceSTWStart(reason) (1.21), traceGCSTWStart(kind) (1.19).
// Both ends go to the batch without a P: the runtime writes them from one goroutine on one
// P, but the model may see the end on another thread, and Go 1.22+'s reader scopes the
// range by the goroutine of the batch (x/exp/trace: "range ... ends while not open"); in
// the P-less batch that is none for both. Go 1.19 / 1.21 keep no goroutine for STW events
// anyway (parser.go sets e.G = 0).
EmitStatus LegacyTraceWriter::STWBegin(MId, std::uint64_t ts, StringArg kind, StackId) {
  LEGACY_OPEN("STWBegin");
  const int k = legacy::StwKindFor(I.opt.version, I.Text(kind));
  if (k < 0) return EmitStatus::kOk;  // go1.19 has no name for it: not written, nor its end
  if (I.stw_open) {
    // The runtime never nests them: the open one's end was among lost records (a loss
    // cuts a v2 generation, which restates; this format cannot). Ended here.
    I.Put(kNoP, I.Tick(ts), Ev::kSTWDone, {});
    ++I.stats.repairs;
  }
  I.Put(kNoP, I.Tick(ts), Ev::kSTWStart, {static_cast<std::uint64_t>(k)});
  I.stw_open = true;
  return EmitStatus::kOk;
}
EmitStatus LegacyTraceWriter::STWEnd(MId, std::uint64_t ts) {
  LEGACY_OPEN("STWEnd");
  if (!I.stw_open) return EmitStatus::kOk;
  I.Put(kNoP, I.Tick(ts), Ev::kSTWDone, {});
  I.stw_open = false;
  return EmitStatus::kOk;
}
EmitStatus LegacyTraceWriter::GCActive(MId, std::uint64_t, Seq) { return EmitStatus::kOk; }
// gcStart -> traceGCStart: EvGCStart [seq, stack], seq counting the trace's GCs from 0.
EmitStatus LegacyTraceWriter::GCBegin(MId m, std::uint64_t ts, Seq, StackId stack) {
  LEGACY_OPEN("GCBegin");
  if (I.gc_open) return I.Drop(EmitStatus::kBadState, "GCBegin", "a GC is in progress");
  I.At(m, ts, Ev::kGCStart, {I.gc_count++, Sid(stack)});
  I.gc_open = true;
  return EmitStatus::kOk;
}
EmitStatus LegacyTraceWriter::GCEnd(MId m, std::uint64_t ts, Seq) {
  LEGACY_OPEN("GCEnd");
  if (!I.gc_open) return EmitStatus::kOk;  // began before the trace
  I.At(m, ts, Ev::kGCDone, {});
  I.gc_open = false;
  return EmitStatus::kOk;
}
EmitStatus LegacyTraceWriter::GCSweepActive(MId, std::uint64_t, PId) { return EmitStatus::kOk; }
// traceGCSweepStart / traceGCSweepDone: per P (parser.go: "previous sweeping is not ended").
EmitStatus LegacyTraceWriter::GCSweepBegin(MId m, std::uint64_t ts, StackId stack) {
  LEGACY_OPEN("GCSweepBegin");
  PState &pst = I.ps[I.BatchOf(m)];
  if (pst.sweeping) return I.Drop(EmitStatus::kBadState, "GCSweepBegin", "a sweep is in progress on the P");
  I.At(m, ts, Ev::kGCSweepStart, {Sid(stack)});
  pst.sweeping = true;
  return EmitStatus::kOk;
}
EmitStatus LegacyTraceWriter::GCSweepEnd(MId m, std::uint64_t ts, std::uint64_t swept, std::uint64_t reclaimed) {
  LEGACY_OPEN("GCSweepEnd");
  PState &pst = I.ps[I.BatchOf(m)];
  if (!pst.sweeping) return EmitStatus::kOk;  // began before the trace
  I.At(m, ts, Ev::kGCSweepDone, {swept, reclaimed});
  pst.sweeping = false;
  return EmitStatus::kOk;
}
EmitStatus LegacyTraceWriter::GCMarkAssistActive(MId, std::uint64_t, GId) { return EmitStatus::kOk; }
EmitStatus LegacyTraceWriter::GCMarkAssistBegin(MId m, std::uint64_t ts, StackId stack) {
  LEGACY_OPEN("GCMarkAssistBegin");
  I.At(m, ts, Ev::kGCMarkAssistStart, {Sid(stack)});
  return EmitStatus::kOk;
}
EmitStatus LegacyTraceWriter::GCMarkAssistEnd(MId m, std::uint64_t ts) {
  LEGACY_OPEN("GCMarkAssistEnd");
  I.At(m, ts, Ev::kGCMarkAssistDone, {});
  return EmitStatus::kOk;
}
EmitStatus LegacyTraceWriter::HeapAlloc(MId m, std::uint64_t ts, std::uint64_t bytes) {
  LEGACY_OPEN("HeapAlloc");
  I.At(m, ts, Ev::kHeapAlloc, {bytes});
  return EmitStatus::kOk;
}
EmitStatus LegacyTraceWriter::HeapGoal(MId m, std::uint64_t ts, std::uint64_t bytes) {
  LEGACY_OPEN("HeapGoal");
  I.At(m, ts, Ev::kHeapGoal, {bytes});
  return EmitStatus::kOk;
}

// ---- Annotations ------------------------------------------------------------------------

// GC mark workers: runtime/trace.go traceGoStart writes EvGoStartLabel [g, seq, label]
// instead of the GoStart when pp.gcMarkWorkerMode is set; the model's GoLabel follows the
// worker's GoStart (model_gc.cc), so the GoStartLocal just written on the worker's P is
// taken back and written again as that event, at its own ticks. The seq form: order.go
// stateTransition gives GoStartLabel no Local variant. A label that comes after other
// events of the P is left out, as before.
EmitStatus LegacyTraceWriter::GoLabel(MId m, std::uint64_t, StringArg label) {
  LEGACY_OPEN("GoLabel");
  const std::int64_t p = I.BatchOf(m);
  auto it = I.ps.find(p);
  if (p == kNoP || it == I.ps.end()) return EmitStatus::kOk;
  PState &pst = it->second;
  if (!pst.start_open || I.batches.Tell(p).size != pst.start_end || pst.start_g != I.M(m).g || pst.g != pst.start_g)
    return EmitStatus::kOk;
  const PState saved = pst;
  I.batches.Truncate(p, saved.start_mark);
  --I.stats.events;
  I.Put(p, saved.start_ticks, Ev::kGoStartLabel, {saved.start_g, saved.start_seq, I.Str(label)});
  return EmitStatus::kOk;
}
EmitStatus LegacyTraceWriter::UserTaskBegin(MId m, std::uint64_t ts, TaskId task, TaskId parent, StringArg name,
                                            StackId stack) {
  LEGACY_OPEN("UserTaskBegin");
  I.At(m, ts, Ev::kUserTaskCreate, {task, parent, I.Str(name), Sid(stack)});
  return EmitStatus::kOk;
}
EmitStatus LegacyTraceWriter::UserTaskEnd(MId m, std::uint64_t ts, TaskId task, StackId stack) {
  LEGACY_OPEN("UserTaskEnd");
  I.At(m, ts, Ev::kUserTaskEnd, {task, Sid(stack)});
  return EmitStatus::kOk;
}
EmitStatus LegacyTraceWriter::UserRegionBegin(MId m, std::uint64_t ts, TaskId task, StringArg name, StackId stack) {
  LEGACY_OPEN("UserRegionBegin");
  if (I.HoldInSyscall(m, Ev::kUserRegion, {task, 0, I.Str(name), Sid(stack)}, 3)) return EmitStatus::kOk;
  I.At(m, ts, Ev::kUserRegion, {task, 0, I.Str(name), Sid(stack)});
  return EmitStatus::kOk;
}
EmitStatus LegacyTraceWriter::UserRegionEnd(MId m, std::uint64_t ts, TaskId task, StringArg name, StackId stack) {
  LEGACY_OPEN("UserRegionEnd");
  if (I.HoldInSyscall(m, Ev::kUserRegion, {task, 1, I.Str(name), Sid(stack)}, 3)) return EmitStatus::kOk;
  I.At(m, ts, Ev::kUserRegion, {task, 1, I.Str(name), Sid(stack)});
  return EmitStatus::kOk;
}
EmitStatus LegacyTraceWriter::UserLog(MId m, std::uint64_t ts, TaskId task, StringArg key, StringArg value,
                                      StackId stack) {
  LEGACY_OPEN("UserLog");
  const std::string v(I.Text(value));
  if (I.HoldInSyscall(m, Ev::kUserLog, {task, I.Str(key), Sid(stack)}, 2, v)) return EmitStatus::kOk;
  I.At(m, ts, Ev::kUserLog, {task, I.Str(key), Sid(stack)}, v);
  return EmitStatus::kOk;
}

// traceReadCPU: EvCPUSample [real ts, P or -1, g, stack], in a batch of its own.
EmitStatus LegacyTraceWriter::CPUSample(std::uint64_t ts, MId, PId p, GId g, StackId stack) {
  LEGACY_OPEN("CPUSample");
  const std::uint64_t pp = p == kNoProc ? ~std::uint64_t{0} : p;
  const std::uint64_t tick = ts / I.opt.tick_divisor;
  // The parser files a sample under its goroutine (parser.go: e.G = Args[2]), and a
  // goroutine it has seen that way cannot be created afterwards ("g already exists"): a
  // sample from before the goroutine's GoCreate, or of one the trace has not created,
  // is written without it.
  auto it = I.gs.find(g);
  if (g != 0 && (it == I.gs.end() || !it->second.known || tick <= it->second.created_tick)) g = 0;
  const std::uint64_t args[] = {tick, pp, g, Sid(stack)};
  I.batches.Add(legacy::kCpuSampleBatch, I.clock, Ev::kCPUSample, args);
  ++I.stats.events;
  ++I.stats.cpu_samples;
  I.any_event = true;
  return EmitStatus::kOk;
}

std::size_t LegacyTraceWriter::goroutines_tracked() const { return impl_->gs.size(); }

// Only a goroutine off every M: one running (or in a syscall, with held events) still
// has a place in the reader's view of its P and M.
void LegacyTraceWriter::ForgetGoroutine(GId g) {
  auto it = impl_->gs.find(g);
  if (it == impl_->gs.end()) return;
  const GState &gst = it->second;
  if ((gst.st == GSt::kWaiting || gst.st == GSt::kRunnable) && !gst.in_syscall && gst.held.empty())
    impl_->gs.erase(it);
}

std::size_t LegacyTraceWriter::buffered_bytes() const {
  return impl_->batches.bytes() + impl_->tables.bytes().size();
}
const WriterStats &LegacyTraceWriter::stats() const { return impl_->stats; }
const std::string &LegacyTraceWriter::last_error() const { return impl_->last_error; }

}  // namespace gotraced::encoder
