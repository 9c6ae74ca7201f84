#include "tests/unit/encoder/scenario/scenario.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

namespace gotraced::encoder::scenario {
namespace {

// Goroutine and proc states as the parser's API names them (GoState/ProcState.String()).
enum class GS { kRunnable, kRunning, kSyscall, kWaiting };
enum class PS { kIdle, kRunning, kSyscall };

const char *Name(GS s) {
  switch (s) {
    case GS::kRunnable: return "Runnable";
    case GS::kRunning: return "Running";
    case GS::kSyscall: return "Syscall";
    case GS::kWaiting: return "Waiting";
  }
  return "?";
}
GoStatus Wire(GS s) {
  switch (s) {
    case GS::kRunnable: return GoStatus::kRunnable;
    case GS::kRunning: return GoStatus::kRunning;
    case GS::kSyscall: return GoStatus::kSyscall;
    case GS::kWaiting: return GoStatus::kWaiting;
  }
  return GoStatus::kBad;
}
// A P in syscall is "Running" to the API (tracev2ProcStatus2ProcState).
const char *Name(PS s) { return s == PS::kIdle ? "Idle" : "Running"; }
ProcStatus Wire(PS s) {
  switch (s) {
    case PS::kIdle: return ProcStatus::kIdle;
    case PS::kRunning: return ProcStatus::kRunning;
    case PS::kSyscall: return ProcStatus::kSyscall;
  }
  return ProcStatus::kBad;
}

struct Gor {
  GId id = 0;
  GS st = GS::kRunnable;
  MId m = kNoThread;  // running / in syscall on
  Seq seq = 0;
  bool assist = false;  // inside GCMarkAssistBegin..End
  bool cgo = false;     // came from GoCreateSyscall
  bool parked = false;  // blocked forever (select{}); only the breakages touch it
  std::vector<std::pair<TaskId, std::string>> regions;
};
struct Proc {
  PId id = 0;
  PS st = PS::kIdle;
  MId m = kNoThread;
  Seq seq = 0;
  bool sweeping = false;
  bool is_new = false;  // appears for the first time in this (non-first) generation
};
struct Mach {
  MId id = 0;
  PId p = kNoProc;
  GId g = 0;
};

// Runtime strings (docs/go-trace-format.md §3.4; runtime/traceruntime.go).
const char *const kBlockReasons[] = {"chan receive", "chan send", "select", "sync", "sync.(*Cond).Wait", "sleep",
                                     "network", "system goroutine wait", "GC mark assist wait for work"};
const char *const kStopReasons[] = {"runtime.Gosched", "preempted"};
const char *const kSTWKinds[] = {"GC mark termination", "GC sweep termination", "read mem stats", "GOMAXPROCS"};
const char *const kLabels[] = {"GC (dedicated)", "GC (fractional)", "GC (idle)"};
const char *const kTaskNames[] = {"http.request", "db.query", "batch"};
const char *const kRegionNames[] = {"parse", "render", "io wait"};

constexpr int kFramePool = 64;
constexpr int kStackShapes = 40;

class Sim {
 public:
  Sim(const ScenarioConfig &cfg, EventWriter &w) : cfg_(cfg), w_(w), rng_(cfg.seed) {
    v23_ = cfg.version >= Version::kGo123;
    x_.version = fmt::format("go1.{}", static_cast<int>(cfg.version));
    for (int i = 0; i < kFramePool; ++i) {
      names_.push_back(fmt::format("{}.fn{}", i % 5 == 0 ? "runtime" : "main", i));
      files_.push_back(fmt::format("/src/app/file{}.go", i % 6));
    }
    for (int s = 0; s < kStackShapes; ++s) {
      std::vector<int> shape(1 + R(10));
      for (int &f : shape) f = static_cast<int>(R(kFramePool));
      std::string key;
      for (int f : shape) key += fmt::format("{} {}:{}\n", names_[f], files_[f], Line(f));
      shapes_.push_back(shape);
      shape_keys_.push_back(key);
    }
  }

  ScenarioResult Run() {
    Setup();
    for (gen_ = 1; gen_ <= cfg_.generations; ++gen_) {
      StartGeneration();
      for (int i = 0; i < cfg_.steps_per_generation; ++i) Step();
      if (gen_ < cfg_.generations) {
        LeaveRangesOpen();
        w_.EndGeneration();
      }
    }
    w_.Close();
    x_.generations = cfg_.generations;
    x_.syncs = cfg_.generations + 1;  // one per generation plus the reader's final one
    x_.clock_snapshots = cfg_.version >= Version::kGo125 ? cfg_.generations : 0;
    x_.events += x_.syncs;
    x_.kinds["Sync"] += x_.syncs;

    ScenarioResult r;
    r.expected = x_;
    r.emitted = emitted_;
    std::int64_t total = 0;
    for (const auto &[k, v] : emitted_) total += v;
    r.description = fmt::format(
        "seed={} {}: {} Ms, {} Ps, {} goroutines ({} at start), {} generations x {} steps, {} wire events", cfg_.seed,
        x_.version, ms_.size(), ps_.size(), next_g_ - 1, initial_gs_, cfg_.generations, cfg_.steps_per_generation,
        total);
    for (const auto &spec : kEventSpecs)
      if (IsCallerTimedEvent(spec.type) && VersionHas(cfg_.version, spec.type) && !emitted_.count(std::string(spec.name)))
        r.missing_kinds += (r.missing_kinds.empty() ? "" : ",") + std::string(spec.name);
    if (!emitted_.count("CPUSample")) r.missing_kinds += ",CPUSample";
    return r;
  }

 private:
  struct StackPick {
    StackId id;
    int shape = -1;
  };

  std::uint64_t R(std::uint64_t n) { return n ? rng_() % n : 0; }
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
  std::uint64_t Now() {
    t_ += 64 * (1 + R(3));  // strictly later ticks (divisor 64)
    return t_;
  }
  static std::uint64_t Line(int f) { return 10 + 3 * static_cast<std::uint64_t>(f); }
  template <typename T>
  T &Pick(std::vector<T> &v) {
    return v[R(v.size())];
  }
  template <typename T, std::size_t N>
  const T &Pick(const T (&a)[N]) {
    return a[R(N)];
  }

  void Emitted(EmitStatus s, EventType t) {
    if (s != EmitStatus::kOk) throw std::runtime_error("scenario emitted a rejected event: " + w_.last_error());
    ++emitted_[std::string(SpecOf(t).name)];
  }
  void Thread(MId m) {
    if (m != kNoThread) x_.threads.insert(m);
  }

  StackPick Stk(double none = 0.2) {
    if (Chance(none)) return {};
    int s = static_cast<int>(R(kStackShapes));
    std::vector<Frame> frames;
    for (int f : shapes_[s])
      frames.push_back({0x401000 + 0x40 * static_cast<std::uint64_t>(f), names_[f], files_[f], Line(f)});
    return {w_.InternStack(frames), s};
  }
  void CountStack(const StackPick &s) {
    if (s.shape >= 0) x_.Stack(static_cast<int>(shapes_[s.shape].size()), shape_keys_[s.shape]);
  }

  Gor &G(GId id) { return gs_.at(id); }
  Proc &P(PId id) { return ps_.at(id); }
  Mach &Mof(MId id) {
    for (auto &m : ms_)
      if (m.id == id) return m;
    throw std::runtime_error("no such M");
  }

  GId NewG(GS st) {
    Gor g;
    g.id = next_g_++;
    g.st = st;
    gs_[g.id] = g;
    return g.id;
  }

  std::vector<GId> GsIn(GS st, bool include_parked = false) {
    std::vector<GId> out;
    for (auto &[id, g] : gs_)
      if (g.st == st && (include_parked || !g.parked)) out.push_back(id);
    return out;
  }
  std::vector<PId> PsIn(PS st) {
    std::vector<PId> out;
    for (auto &p : ps_)
      if (p.st == st) out.push_back(p.id);
    return out;
  }

  // ---- Initial state (described by statuses in generation 1) ---------------------
  void Setup() {
    t_ = 1'000'000'000;
    int np = 2 + static_cast<int>(R(4));
    int nm = np + 1 + static_cast<int>(R(3));
    for (int i = 0; i < np; ++i) ps_.push_back(Proc{static_cast<PId>(i)});
    for (int i = 0; i < nm; ++i) ms_.push_back(Mach{static_cast<MId>(1000 + 7 * i)});
    // Ms 0..np-2 hold Ps (one P stays idle); each runs a G, idles, or sits in a syscall.
    for (int i = 0; i + 1 < np; ++i) {
      Mach &m = ms_[i];
      Proc &p = ps_[i];
      m.p = p.id;
      p.m = m.id;
      std::uint64_t r = R(10);
      if (r < 6) {
        p.st = PS::kRunning;
        m.g = NewG(GS::kRunning);
        G(m.g).m = m.id;
      } else if (r < 8) {
        p.st = PS::kSyscall;
        m.g = NewG(GS::kSyscall);
        G(m.g).m = m.id;
      } else {
        p.st = PS::kRunning;
      }
      p.sweeping = Chance(0.2);
    }
    // The last M is blocked in a syscall without a P.
    Mach &blocked = ms_.back();
    blocked.g = NewG(GS::kSyscall);
    G(blocked.g).m = blocked.id;
    for (int i = 0, n = 3 + static_cast<int>(R(6)); i < n; ++i) NewG(GS::kRunnable);
    for (int i = 0, n = 2 + static_cast<int>(R(5)); i < n; ++i) NewG(GS::kWaiting);
    parked_ = NewG(GS::kWaiting);
    G(parked_).parked = true;
    gc_running_ = Chance(0.5);
    for (auto &[id, g] : gs_)
      if (gc_running_ && g.st != GS::kSyscall && Chance(0.15)) g.assist = true;
    initial_gs_ = gs_.size();
  }

  // ---- Generation start: a status for every live P and G ------------------------
  void StartGeneration() {
    bool first = gen_ == 1;
    for (auto &p : ps_) p.seq = 0;
    for (auto &[id, g] : gs_) g.seq = 0;
    if (!first && Chance(0.5)) {  // a P that did not exist before (GOMAXPROCS grew)
      Proc p{static_cast<PId>(ps_.size())};
      p.is_new = true;
      ps_.push_back(p);
    }
    for (auto &p : ps_) {
      const char *from = first ? "Undetermined" : p.is_new ? "NotExist" : Name(p.st);
      // Running/syscall statuses bind the P: they go in the owning M's batch.
      MId m = p.st == PS::kIdle ? kNoThread : p.m;
      Thread(m);
      Emitted(w_.ProcStatusEvent(m, Now(), p.id, Wire(p.st)), EventType::kProcStatus);
      x_.ProcTransition(p.id, from, Name(p.st));
      p.is_new = false;
      if (p.sweeping) {
        Emitted(w_.GCSweepActive(m, Now(), p.id), EventType::kGCSweepActive);
        x_.Event("RangeActive");
        ++x_.range_actives["GC incremental sweep"];
      }
    }
    if (!first && cfg_.breakage == Breakage::kNewGoroutineStatus && gen_ == 2) {
      Emitted(w_.GoStatusEvent(kNoThread, Now(), 999'999, kNoThread, GoStatus::kWaiting), EventType::kGoStatus);
    }
    for (auto &[id, g] : gs_) {
      if (!first && g.parked && cfg_.breakage == Breakage::kMissingStatus && gen_ == 2) continue;
      const char *from = first ? "Undetermined" : Name(g.st);
      bool bound = g.st == GS::kRunning || g.st == GS::kSyscall;
      MId batch = bound ? g.m : kNoThread;
      MId arg = bound ? g.m : kNoThread;
      Thread(batch);
      if (!bound && v23_ && Chance(0.4)) {
        // Go 1.23+: status with the goroutine's stack (runtime/tracestatus.go, GoStatusStack).
        StackPick s = Stk(0);
        Emitted(w_.GoStatusStack(batch, Now(), id, arg, Wire(g.st), s.id), EventType::kGoStatusStack);
        CountStack(s);
      } else {
        Emitted(w_.GoStatusEvent(batch, Now(), id, arg, Wire(g.st)), EventType::kGoStatus);
      }
      x_.GoTransition(id, from, Name(g.st));
      if (g.assist) {
        Emitted(w_.GCMarkAssistActive(batch, Now(), id), EventType::kGCMarkAssistActive);
        x_.Event("RangeActive");
        ++x_.range_actives["GC mark assist"];
      }
    }
    if (gc_running_) {
      // First generation: GCActive must be the first GC event and needs no context.
      // Later: it needs an M with a P and a running G (order.go advanceGCActive).
      MId m = kNoThread;
      for (auto &mm : ms_)
        if (mm.p != kNoProc && mm.g && G(mm.g).st == GS::kRunning) m = mm.id;
      if (first || m != kNoThread) {
        MId em = first ? kNoThread : m;
        Thread(em);
        Emitted(w_.GCActive(em, Now(), first ? gc_seq_ = 1 : ++gc_seq_), EventType::kGCActive);
        x_.Event("RangeActive");
        ++x_.range_actives["GC concurrent mark phase"];
      }
    }
    if (!first && gen_ == 2 && (cfg_.breakage == Breakage::kMissingStatus || cfg_.breakage == Breakage::kWrongSeq)) {
      Gor &g = G(parked_);
      Seq seq = cfg_.breakage == Breakage::kWrongSeq ? g.seq + 2 : g.seq + 1;
      Emitted(w_.GoUnblock(kNoThread, Now(), parked_, seq, kNoStack), EventType::kGoUnblock);
      g.seq = seq;
      g.st = GS::kRunnable;
      g.parked = false;
    }
  }

  // Before a generation ends, open a GC cycle and a sweep if none is running, so the
  // next generation has to describe them with GCActive / GCSweepActive (the runtime does
  // the same in traceAdvance for work in progress).
  void LeaveRangesOpen() {
    bool any_running = false;
    for (auto &m : ms_) any_running |= m.p != kNoProc && m.g && G(m.g).st == GS::kRunning;
    for (auto &m : ms_) {
      if (any_running || m.p == kNoProc || m.g || GsIn(GS::kRunnable).empty()) continue;
      Start(m);
      any_running = true;
    }
    for (auto &m : ms_) {
      bool running = m.p != kNoProc && m.g && G(m.g).st == GS::kRunning;
      if (!gc_running_ && running) GCBegin(m);
      if (m.p != kNoProc && !P(m.p).sweeping && P(m.p).st == PS::kRunning) SweepBegin(m);
    }
  }

  // ---- One scheduler action on a random M -----------------------------------------
  void Step() {
    Mach &m = Pick(ms_);
    std::vector<std::pair<double, std::function<void()>>> acts;
    auto add = [&](double w, std::function<void()> f) { acts.emplace_back(w, std::move(f)); };
    bool hasP = m.p != kNoProc;
    Gor *g = m.g ? &G(m.g) : nullptr;
    auto runnable = GsIn(GS::kRunnable);
    auto waiting = GsIn(GS::kWaiting);
    auto idle = PsIn(PS::kIdle);
    auto insys = PsIn(PS::kSyscall);
    int live = static_cast<int>(gs_.size());

    if (hasP && g && g->st == GS::kRunning) {
      Proc &p = P(m.p);
      add(3, [&] { GoStop(m); });
      add(4, [&] { GoBlock(m); });
      if (!g->assist && live > 6) add(live > 40 ? 3 : 1, [&] { GoDestroy(m); });
      if (!p.sweeping) add(3, [&] { SyscallBegin(m); });
      if (live < 80) add(3, [&] { Create(m, false); });
      if (live < 80 && v23_) add(1, [&] { Create(m, true); });
      if (!waiting.empty() && v23_) add(1, [&] { Switch(m, false); });
      if (!waiting.empty() && v23_ && !g->assist && live > 6) add(1.5, [&] { Switch(m, true); });
      if (!waiting.empty()) add(3, [&] { Unblock(m.id); });
      add(0.5, [&] { STW(m); });
      if (!gc_running_) add(0.5, [&] { GCBegin(m); });
      if (gc_running_) add(0.5, [&] { GCEnd(m); });
      if (gc_running_ && !g->assist) add(1, [&] { AssistBegin(m); });
      if (g->assist) add(1, [&] { AssistEnd(m); });
      add(2, [&] { Heap(m, true); });
      add(0.5, [&] { Heap(m, false); });
      add(0.5, [&] { Label(m); });
      add(1, [&] { TaskBegin(m); });
      if (!tasks_.empty()) add(0.7, [&] { TaskEnd(m); });
      add(1, [&] { RegionBegin(m); });
      if (!g->regions.empty()) add(1, [&] { RegionEnd(m); });
      add(1, [&] { Log(m); });
      add(0.2, [&] { ProcsChange(m); });
      if (!p.sweeping) add(0.5, [&] { SweepBegin(m); });
      if (p.sweeping) add(0.5, [&] { SweepEnd(m); });
      if (!insys.empty()) add(0.5, [&] { Steal(m); });
      add(1, [&] { Sample(m); });
    } else if (hasP && !g) {
      Proc &p = P(m.p);
      if (!runnable.empty()) add(5, [&] { Start(m); });
      if (!p.sweeping) add(2, [&] { ProcStop(m); });
      if (live < 80) add(1, [&] { Create(m, false); });
      add(1, [&] { Heap(m, true); });
      if (!p.sweeping) add(0.5, [&] { SweepBegin(m); });
      if (p.sweeping) add(0.5, [&] { SweepEnd(m); });
      if (!waiting.empty()) add(1, [&] { Unblock(m.id); });
      if (!insys.empty()) add(0.5, [&] { Steal(m); });
      add(0.3, [&] { Sample(m); });
    } else if (hasP && g && g->st == GS::kSyscall && P(m.p).st == PS::kSyscall) {
      add(3, [&] { SyscallEnd(m); });
      add(1, [&] { ProcStop(m); });  // entersyscallblock hands the P off
    } else if (hasP && g && g->st == GS::kSyscall) {
      // Re-acquired a P while the G was still in its syscall: the slow exit.
      add(1, [&] { SyscallEndBlocked(m); });
    } else if (!hasP && g) {  // G in a syscall, P lost
      add(3, [&] { SyscallEndBlocked(m); });
      if (!idle.empty()) add(2, [&] { ProcStart(m); });
      if (g->cgo) add(1, [&] { DestroySyscall(m); });
      add(0.3, [&] { Sample(m); });
    } else {  // no P, no G
      if (!idle.empty()) add(3, [&] { ProcStart(m); });
      if (live < 80) add(0.3, [&] { CreateSyscall(m); });
      if (!insys.empty()) add(1, [&] { Steal(m); });
      if (!waiting.empty()) add(0.5, [&] { Unblock(m.id); });
    }
    if (acts.empty()) return;
    double total = 0;
    for (auto &a : acts) total += a.first;
    double r = std::uniform_real_distribution<double>(0, total)(rng_);
    for (auto &a : acts) {
      if ((r -= a.first) <= 0) {
        a.second();
        return;
      }
    }
    acts.back().second();
  }

  // ---- Actions, each mirrors one case of order.go --------------------------------
  void Start(Mach &m) {
    auto rs = GsIn(GS::kRunnable);
    Gor &g = G(Pick(rs));
    g.seq++;
    Thread(m.id);
    Emitted(w_.GoStart(m.id, Now(), g.id, g.seq), EventType::kGoStart);
    x_.GoTransition(g.id, "Runnable", "Running");
    g.st = GS::kRunning;
    g.m = m.id;
    m.g = g.id;
  }
  void GoStop(Mach &m) {
    Gor &g = G(m.g);
    std::string reason = Pick(kStopReasons);
    StackPick s = Stk();
    Thread(m.id);
    Emitted(w_.GoStop(m.id, Now(), reason, s.id), EventType::kGoStop);
    x_.GoTransition(g.id, "Running", "Runnable", reason);
    CountStack(s);
    g.st = GS::kRunnable;
    g.m = kNoThread;
    m.g = 0;
  }
  void GoBlock(Mach &m) {
    Gor &g = G(m.g);
    std::string reason = Pick(kBlockReasons);
    StackPick s = Stk();
    Thread(m.id);
    Emitted(w_.GoBlock(m.id, Now(), reason, s.id), EventType::kGoBlock);
    x_.GoTransition(g.id, "Running", "Waiting", reason);
    CountStack(s);
    g.st = GS::kWaiting;
    g.m = kNoThread;
    m.g = 0;
  }
  void GoDestroy(Mach &m) {
    Thread(m.id);
    Emitted(w_.GoDestroy(m.id, Now()), EventType::kGoDestroy);
    x_.GoTransition(m.g, "Running", "NotExist");
    gs_.erase(m.g);
    m.g = 0;
  }
  void Unblock(MId mid) {
    auto ws = GsIn(GS::kWaiting);
    Gor &g = G(Pick(ws));
    g.seq++;
    StackPick s = Stk();
    Thread(mid);
    Emitted(w_.GoUnblock(mid, Now(), g.id, g.seq, s.id), EventType::kGoUnblock);
    x_.GoTransition(g.id, "Waiting", "Runnable");
    CountStack(s);
    g.st = GS::kRunnable;
  }
  void Create(Mach &m, bool blocked) {
    StackPick ns = Stk(0.1), s = Stk();
    GId id = NewG(blocked ? GS::kWaiting : GS::kRunnable);
    Thread(m.id);
    if (blocked) {
      Emitted(w_.GoCreateBlocked(m.id, Now(), id, ns.id, s.id), EventType::kGoCreateBlocked);
    } else {
      Emitted(w_.GoCreate(m.id, Now(), id, ns.id, s.id), EventType::kGoCreate);
    }
    x_.GoTransition(id, "NotExist", blocked ? "Waiting" : "Runnable");
    CountStack(s);
  }
  void CreateSyscall(Mach &m) {
    GId id = NewG(GS::kSyscall);
    G(id).m = m.id;
    G(id).cgo = true;
    Thread(m.id);
    Emitted(w_.GoCreateSyscall(m.id, Now(), id), EventType::kGoCreateSyscall);
    x_.GoTransition(id, "NotExist", "Syscall");
    m.g = id;
  }
  void DestroySyscall(Mach &m) {
    Thread(m.id);
    Emitted(w_.GoDestroySyscall(m.id, Now()), EventType::kGoDestroySyscall);
    x_.GoTransition(m.g, "Syscall", "NotExist");
    gs_.erase(m.g);
    m.g = 0;
  }
  // GoSwitch: the parser reports GoUnblock(next), GoBlock(cur, reason "") or
  // GoDestroy(cur), then GoStart(next) (order.go advanceGoSwitch).
  void Switch(Mach &m, bool destroy) {
    auto ws = GsIn(GS::kWaiting);
    Gor &next = G(Pick(ws));
    next.seq++;
    Thread(m.id);
    if (destroy) {
      Emitted(w_.GoSwitchDestroy(m.id, Now(), next.id, next.seq), EventType::kGoSwitchDestroy);
    } else {
      Emitted(w_.GoSwitch(m.id, Now(), next.id, next.seq), EventType::kGoSwitch);
    }
    x_.GoTransition(next.id, "Waiting", "Runnable");
    Gor &cur = G(m.g);
    if (destroy) {
      x_.GoTransition(cur.id, "Running", "NotExist");
      gs_.erase(cur.id);
    } else {
      x_.GoTransition(cur.id, "Running", "Waiting", "");
      cur.st = GS::kWaiting;
      cur.m = kNoThread;
    }
    x_.GoTransition(next.id, "Runnable", "Running");
    next.st = GS::kRunning;
    next.m = m.id;
    m.g = next.id;
  }
  void SyscallBegin(Mach &m) {
    Proc &p = P(m.p);
    p.seq++;
    StackPick s = Stk();
    Thread(m.id);
    Emitted(w_.GoSyscallBegin(m.id, Now(), p.seq, s.id), EventType::kGoSyscallBegin);
    x_.GoTransition(m.g, "Running", "Syscall");
    CountStack(s);
    G(m.g).st = GS::kSyscall;
    p.st = PS::kSyscall;
  }
  void SyscallEnd(Mach &m) {
    Thread(m.id);
    Emitted(w_.GoSyscallEnd(m.id, Now()), EventType::kGoSyscallEnd);
    x_.GoTransition(m.g, "Syscall", "Running");
    G(m.g).st = GS::kRunning;
    P(m.p).st = PS::kRunning;
  }
  void SyscallEndBlocked(Mach &m) {
    Thread(m.id);
    Emitted(w_.GoSyscallEndBlocked(m.id, Now()), EventType::kGoSyscallEndBlocked);
    x_.GoTransition(m.g, "Syscall", "Runnable");
    Gor &g = G(m.g);
    g.st = GS::kRunnable;
    g.m = kNoThread;
    g.cgo = false;
    m.g = 0;
  }
  void ProcStart(Mach &m) {
    auto idle = PsIn(PS::kIdle);
    Proc &p = P(Pick(idle));
    p.seq++;
    Thread(m.id);
    Emitted(w_.ProcStart(m.id, Now(), p.id, p.seq), EventType::kProcStart);
    x_.ProcTransition(p.id, "Idle", "Running");
    p.st = PS::kRunning;
    p.m = m.id;
    m.p = p.id;
  }
  void ProcStop(Mach &m) {
    Proc &p = P(m.p);
    Thread(m.id);
    Emitted(w_.ProcStop(m.id, Now()), EventType::kProcStop);
    x_.ProcTransition(p.id, "Running", "Idle");
    p.st = PS::kIdle;
    p.m = kNoThread;
    m.p = kNoProc;
  }
  void Steal(Mach &thief) {
    std::vector<PId> victims;
    for (auto &p : ps_)
      if (p.st == PS::kSyscall && p.m != thief.id) victims.push_back(p.id);
    if (victims.empty()) return;
    Proc &p = P(Pick(victims));
    Mach &victim = Mof(p.m);
    p.seq++;
    Thread(thief.id);
    Emitted(w_.ProcSteal(thief.id, Now(), p.id, p.seq, victim.id), EventType::kProcSteal);
    x_.ProcTransition(p.id, "Running", "Idle");
    p.st = PS::kIdle;
    p.m = kNoThread;
    victim.p = kNoProc;
  }
  void STW(Mach &m) {
    std::string kind = Pick(kSTWKinds);
    StackPick s = Stk();
    Thread(m.id);
    Emitted(w_.STWBegin(m.id, Now(), kind, s.id), EventType::kSTWBegin);
    x_.Event("RangeBegin");
    ++x_.ranges["stop-the-world (" + kind + ")"];
    CountStack(s);
    if (Chance(0.5)) Heap(m, true);
    Emitted(w_.STWEnd(m.id, Now()), EventType::kSTWEnd);
    x_.Event("RangeEnd");
    ++x_.range_ends["stop-the-world (" + kind + ")"];
  }
  void GCBegin(Mach &m) {
    StackPick s = Stk();
    Thread(m.id);
    Emitted(w_.GCBegin(m.id, Now(), ++gc_seq_, s.id), EventType::kGCBegin);
    x_.Event("RangeBegin");
    ++x_.ranges["GC concurrent mark phase"];
    CountStack(s);
    gc_running_ = true;
  }
  void GCEnd(Mach &m) {
    Thread(m.id);
    Emitted(w_.GCEnd(m.id, Now(), ++gc_seq_), EventType::kGCEnd);
    x_.Event("RangeEnd");
    ++x_.range_ends["GC concurrent mark phase"];
    gc_running_ = false;
  }
  void AssistBegin(Mach &m) {
    StackPick s = Stk();
    Thread(m.id);
    Emitted(w_.GCMarkAssistBegin(m.id, Now(), s.id), EventType::kGCMarkAssistBegin);
    x_.Event("RangeBegin");
    ++x_.ranges["GC mark assist"];
    CountStack(s);
    G(m.g).assist = true;
  }
  void AssistEnd(Mach &m) {
    Thread(m.id);
    Emitted(w_.GCMarkAssistEnd(m.id, Now()), EventType::kGCMarkAssistEnd);
    x_.Event("RangeEnd");
    ++x_.range_ends["GC mark assist"];
    G(m.g).assist = false;
  }
  void SweepBegin(Mach &m) {
    StackPick s = Stk();
    Thread(m.id);
    Emitted(w_.GCSweepBegin(m.id, Now(), s.id), EventType::kGCSweepBegin);
    x_.Event("RangeBegin");
    ++x_.ranges["GC incremental sweep"];
    CountStack(s);
    P(m.p).sweeping = true;
  }
  void SweepEnd(Mach &m) {
    Thread(m.id);
    Emitted(w_.GCSweepEnd(m.id, Now(), R(1 << 20), R(1 << 16)), EventType::kGCSweepEnd);
    x_.Event("RangeEnd");
    ++x_.range_ends["GC incremental sweep"];
    P(m.p).sweeping = false;
  }
  void Heap(Mach &m, bool alloc) {
    Thread(m.id);
    if (alloc) {
      Emitted(w_.HeapAlloc(m.id, Now(), 1'000'000 + R(1 << 24)), EventType::kHeapAlloc);
      ++x_.metrics["/memory/classes/heap/objects:bytes"];
    } else {
      Emitted(w_.HeapGoal(m.id, Now(), 4 << 20), EventType::kHeapGoal);
      ++x_.metrics["/gc/heap/goal:bytes"];
    }
    x_.Event("Metric");
  }
  void ProcsChange(Mach &m) {
    StackPick s = Stk();
    Thread(m.id);
    Emitted(w_.ProcsChange(m.id, Now(), ps_.size(), s.id), EventType::kProcsChange);
    x_.Event("Metric");
    ++x_.metrics["/sched/gomaxprocs:threads"];
    CountStack(s);
  }
  void Label(Mach &m) {
    Thread(m.id);
    Emitted(w_.GoLabel(m.id, Now(), Pick(kLabels)), EventType::kGoLabel);
    x_.Event("Label");
    ++x_.labels;
  }
  void TaskBegin(Mach &m) {
    TaskId id = next_task_++;
    // Parent 0 is "no parent" (order.go advanceUserTaskBegin); else an open task.
    TaskId parent = !tasks_.empty() && Chance(0.5) ? Pick(tasks_) : 0;
    StackPick s = Stk();
    Thread(m.id);
    Emitted(w_.UserTaskBegin(m.id, Now(), id, parent, Pick(kTaskNames), s.id), EventType::kUserTaskBegin);
    x_.Event("TaskBegin");
    ++x_.tasks;
    CountStack(s);
    tasks_.push_back(id);
  }
  void TaskEnd(Mach &m) {
    std::size_t i = R(tasks_.size());
    TaskId id = tasks_[i];
    tasks_.erase(tasks_.begin() + static_cast<std::ptrdiff_t>(i));
    StackPick s = Stk();
    Thread(m.id);
    Emitted(w_.UserTaskEnd(m.id, Now(), id, s.id), EventType::kUserTaskEnd);
    x_.Event("TaskEnd");
    ++x_.task_ends;
    CountStack(s);
  }
  void RegionBegin(Mach &m) {
    TaskId task = !tasks_.empty() && Chance(0.6) ? Pick(tasks_) : 0;
    std::string name = Pick(kRegionNames);
    StackPick s = Stk();
    Thread(m.id);
    Emitted(w_.UserRegionBegin(m.id, Now(), task, name, s.id), EventType::kUserRegionBegin);
    x_.Event("RegionBegin");
    ++x_.regions;
    CountStack(s);
    G(m.g).regions.emplace_back(task, name);
  }
  void RegionEnd(Mach &m) {
    auto [task, name] = G(m.g).regions.back();  // innermost (order.go gState.endRegion)
    G(m.g).regions.pop_back();
    StackPick s = Stk();
    Thread(m.id);
    Emitted(w_.UserRegionEnd(m.id, Now(), task, name, s.id), EventType::kUserRegionEnd);
    x_.Event("RegionEnd");
    ++x_.region_ends;
    CountStack(s);
  }
  void Log(Mach &m) {
    TaskId task = !tasks_.empty() && Chance(0.6) ? Pick(tasks_) : 0;
    StackPick s = Stk();
    Thread(m.id);
    Emitted(w_.UserLog(m.id, Now(), task, "key", fmt::format("value {}", R(100)), s.id), EventType::kUserLog);
    x_.Event("Log");
    ++x_.logs;
    CountStack(s);
  }
  void Sample(Mach &m) {
    StackPick s = Stk(0);
    Emitted(w_.CPUSample(Now(), m.id, m.p, m.g, s.id), EventType::kCPUSample);
    x_.Event("StackSample");
    ++x_.cpu_samples;
    if (m.g) ++x_.cpu_samples_with_goroutine;
    CountStack(s);
    Thread(m.id);
    if (m.p != kNoProc) x_.procs.insert(m.p);
    if (m.g) x_.goroutines.insert(m.g);
  }

  ScenarioConfig cfg_;
  EventWriter &w_;
  std::mt19937_64 rng_;
  bool v23_ = false;
  ExpectedSummary x_;
  std::map<std::string, std::int64_t> emitted_;

  std::vector<std::string> names_, files_;
  std::vector<std::vector<int>> shapes_;
  std::vector<std::string> shape_keys_;

  std::uint64_t t_ = 0;
  int gen_ = 0;
  std::map<GId, Gor> gs_;
  std::vector<Proc> ps_;
  std::vector<Mach> ms_;
  GId next_g_ = 1;
  GId parked_ = 0;
  std::size_t initial_gs_ = 0;
  bool gc_running_ = false;
  Seq gc_seq_ = 0;
  std::vector<TaskId> tasks_;
  TaskId next_task_ = 1;
};

}  // namespace

ScenarioResult RunScenario(const ScenarioConfig &cfg, EventWriter &writer) { return Sim(cfg, writer).Run(); }

}  // namespace gotraced::encoder::scenario
