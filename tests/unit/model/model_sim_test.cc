// Property test: a small scheduler simulator produces the records a capture of a real Go
// process would (same transitions as runtime/proc.go: execute, park, gosched, goexit,
// entersyscall/exitsyscall with sysmon retake and Go 1.26's self-steal, handoff,
// procresize), then the capture is made imperfect — timestamps jittered across threads,
// records lost, attach in the middle with a racy snapshot, generations cut at random —
// and whatever the model writes must be accepted by Go's parser.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <cstdlib>
#include <set>

#include "tests/unit/model/model_test_util.h"

namespace gotraced::model::testing {
namespace {

using encoder::GoStatus;
using encoder::ProcStatus;

class Sim {
 public:
  Sim(std::uint64_t seed, int nprocs, int nthreads) : rng_(seed) {
    for (int i = 0; i < nprocs; ++i) ps_.push_back({});
    for (int i = 0; i < nthreads; ++i) ms_[100 + i] = {};
    // The program starts: M100 holds P0 and runs g1.
    Emit(RProcStart(Tick(), 100, 0));
    Take(100, 0);
    Emit(RGoCreate(Tick(), 100, 0, kNoG, 1));
    gs_[1] = {GState::kRunnable, 0};
    runnable_.push_back(1);
    next_goid_ = 2;
    Start(100, 1);
  }

  void Run(int steps) {
    for (int i = 0; i < steps; ++i) Step();
  }
  std::vector<Record> TakeRecords() { return std::exchange(out_, {}); }
  std::uint64_t now() const { return clock_; }

  Snapshot MakeSnapshot() const {
    Snapshot s;
    s.ts = clock_;
    s.gomaxprocs = static_cast<std::int32_t>(ps_.size());
    for (std::size_t i = 0; i < ps_.size(); ++i) {
      const P &p = ps_[i];
      ProcStatus st = p.state == PState::kIdle ? ProcStatus::kIdle
                      : p.state == PState::kSyscall ? ProcStatus::kSyscall
                                                    : ProcStatus::kRunning;
      s.procs.push_back({static_cast<ProcId>(i), st, p.m});
    }
    for (auto &[id, g] : gs_) {
      GoStatus st = g.state == GState::kRunnable  ? GoStatus::kRunnable
                    : g.state == GState::kRunning ? GoStatus::kRunning
                    : g.state == GState::kSyscall ? GoStatus::kSyscall
                                                  : GoStatus::kWaiting;
      s.goroutines.push_back({id, st, g.m});
    }
    return s;
  }

 private:
  enum class GState { kRunnable, kRunning, kWaiting, kSyscall };
  enum class PState { kIdle, kRunning, kSyscall };
  struct G {
    GState state;
    ThreadId m;
  };
  struct P {
    PState state = PState::kIdle;
    ThreadId m = 0;
  };
  struct M {
    ProcId p = kNoP;
    Goid g = kNoG;
  };
  static constexpr ThreadId kSysmon = 99;

  std::uint64_t Tick() { return clock_ += 1 + rng_() % 500; }
  int R(int n) { return static_cast<int>(rng_() % static_cast<std::uint64_t>(n)); }
  void Emit(Record r) { out_.push_back(std::move(r)); }

  void Take(ThreadId m, ProcId p) {
    ps_[p] = {PState::kRunning, m};
    ms_[m].p = p;
  }
  void Start(ThreadId m, Goid g) {
    runnable_.erase(std::find(runnable_.begin(), runnable_.end(), g));
    Emit(RGoStart(Tick(), m, ms_[m].p, g));
    gs_[g] = {GState::kRunning, m};
    ms_[m].g = g;
  }
  ProcId IdleP() {
    std::vector<ProcId> idle;
    for (std::size_t i = 0; i < ps_.size(); ++i)
      if (ps_[i].state == PState::kIdle) idle.push_back(static_cast<ProcId>(i));
    return idle.empty() ? kNoP : idle[R(static_cast<int>(idle.size()))];
  }

  void Step() {
    auto it = ms_.begin();
    std::advance(it, R(static_cast<int>(ms_.size())));
    const ThreadId m = it->first;
    M &mm = it->second;
    if (mm.g != kNoG && gs_[mm.g].state == GState::kSyscall) {
      const Goid g = mm.g;
      if (mm.p != kNoP) {
        const ProcId p = mm.p;
        switch (R(4)) {
          case 0:  // sysmon retakes the P
            Emit(RProcSteal(Tick(), kSysmon, p, m));
            ps_[p] = {};
            mm.p = kNoP;
            return;
          case 1:  // Go 1.26: exitsyscall re-takes its own P (syscalltick moved)
            Emit(RProcSteal(Tick(), m, p, m));
            Emit(RProcStart(Tick(), m, p));
            Emit(RSyscallEndBlocked(Tick(), m, p, g));
            gs_[g] = {GState::kRunnable, 0};
            runnable_.push_back(g);
            mm.g = kNoG;
            ps_[p] = {PState::kRunning, m};
            Start(m, g);
            return;
          default:  // fast exit
            Emit(RSyscallEnd(Tick(), m, p, g));
            gs_[g].state = GState::kRunning;
            ps_[p].state = PState::kRunning;
            return;
        }
      }
      // Lost the P: try another, else queue the goroutine and idle.
      ProcId p = IdleP();
      if (p != kNoP) {
        Emit(RProcStart(Tick(), m, p));
        Take(m, p);
        Emit(RSyscallEndBlocked(Tick(), m, p, g));
        gs_[g] = {GState::kRunnable, 0};
        runnable_.push_back(g);
        mm.g = kNoG;
        Start(m, g);
      } else {
        Emit(RSyscallEndBlocked(Tick(), m, kNoP, g));
        gs_[g] = {GState::kRunnable, 0};
        runnable_.push_back(g);
        mm.g = kNoG;
      }
      return;
    }
    if (mm.g != kNoG) {  // running user code
      const Goid g = mm.g;
      const ProcId p = mm.p;
      switch (R(10)) {
        case 0:
        case 1: {
          Goid n = next_goid_++;
          Emit(RGoCreate(Tick(), m, p, g, n));
          gs_[n] = {GState::kRunnable, 0};
          runnable_.push_back(n);
          return;
        }
        case 2:
          Emit(RGoBlock(Tick(), m, p, g, R(2) ? "chan receive" : "sync"));
          gs_[g] = {GState::kWaiting, 0};
          waiting_.insert(g);
          mm.g = kNoG;
          return;
        case 3:
          Emit(RGoStop(Tick(), m, p, g, R(2) ? "preempted" : "runtime.Gosched"));
          gs_[g] = {GState::kRunnable, 0};
          runnable_.push_back(g);
          mm.g = kNoG;
          return;
        case 4:
          if (g == 1) return;
          Emit(RGoEnd(Tick(), m, p, g));
          gs_.erase(g);
          mm.g = kNoG;
          return;
        case 5:
        case 6: {
          if (waiting_.empty()) return;
          auto w = waiting_.begin();
          std::advance(w, R(static_cast<int>(waiting_.size())));
          Goid t = *w;
          waiting_.erase(w);
          Emit(RGoUnblock(Tick(), m, p, g, t));
          gs_[t] = {GState::kRunnable, 0};
          runnable_.push_back(t);
          return;
        }
        case 7:
          Emit(RSyscall(Tick(), m, p, g));
          gs_[g] = {GState::kSyscall, m};
          ps_[p].state = PState::kSyscall;
          return;
        case 8:  // entersyscallblock: hand the P off
          Emit(RSyscall(Tick(), m, p, g));
          Emit(RProcStop(Tick(), m, p));
          gs_[g] = {GState::kSyscall, m};
          ps_[p] = {};
          mm.p = kNoP;
          return;
        default:
          if (R(20) == 0) Emit(RProcsChange(Tick(), m, p, g, ps_.size()));
          return;
      }
    }
    if (mm.p != kNoP) {  // scheduler with a P
      if (runnable_.empty() && !waiting_.empty() && R(2) == 0) {
        // findRunnable: netpoll / timers make a waiting goroutine runnable (injectglist).
        auto w = waiting_.begin();
        std::advance(w, R(static_cast<int>(waiting_.size())));
        Goid t = *w;
        waiting_.erase(w);
        Emit(RGoUnblock(Tick(), m, mm.p, kNoG, t));
        gs_[t] = {GState::kRunnable, 0};
        runnable_.push_back(t);
        return;
      }
      if (!runnable_.empty()) {
        Start(m, runnable_[R(static_cast<int>(runnable_.size()))]);
      } else {
        Emit(RProcStop(Tick(), m, mm.p));
        ps_[mm.p] = {};
        mm.p = kNoP;
      }
      return;
    }
    ProcId p = IdleP();
    if (p != kNoP && (!runnable_.empty() || !waiting_.empty())) {
      Emit(RProcStart(Tick(), m, p));
      Take(m, p);
    }
  }

  std::mt19937_64 rng_;
  std::uint64_t clock_ = 1000;
  std::vector<P> ps_;
  std::map<ThreadId, M> ms_;
  std::map<Goid, G> gs_;
  std::vector<Goid> runnable_;
  std::set<Goid> waiting_;
  Goid next_goid_ = 1;
  std::vector<Record> out_;
};

struct Imperfections {
  double drop = 0;            // fraction of records lost
  std::uint64_t jitter = 0;   // max ns added to a record's timestamp (per-M order kept)
  int cut_every = 0;          // records between generation cuts (0 = none)
  bool attach_mid_run = false;
  encoder::Version version = encoder::Version::kGo126;
};

CheckResult RunSim(std::uint64_t seed, const Imperfections &imp, ModelStats *stats_out) {
  Sim sim(seed, 4, 6);
  Harness h(imp.version);
  std::mt19937_64 rng(seed * 7919 + 1);
  if (imp.attach_mid_run) {
    sim.Run(300);
    sim.TakeRecords();  // before attach: not captured
  }
  sim.Run(60);
  std::vector<Record> recs = sim.TakeRecords();
  if (imp.attach_mid_run) {
    // Snapshot read after attach, racing with the first records.
    sim.Run(40);
    h.model.SetSnapshot(sim.MakeSnapshot());
    for (Record &r : sim.TakeRecords()) recs.push_back(std::move(r));
  }
  sim.Run(1500);
  for (Record &r : sim.TakeRecords()) recs.push_back(std::move(r));

  // Jitter, keeping each M's order.
  std::map<ThreadId, std::uint64_t> last;
  for (Record &r : recs) {
    std::uint64_t t = r.ts + (imp.jitter ? rng() % imp.jitter : 0);
    std::uint64_t &l = last[r.m];
    r.ts = std::max(t, l + 1);
    l = r.ts;
  }
  // Arrival order: by timestamp (the ring buffer is roughly time ordered).
  std::stable_sort(recs.begin(), recs.end(), [](const Record &a, const Record &b) { return a.ts < b.ts; });

  std::uint64_t lost = 0;
  int n = 0;
  for (Record &r : recs) {
    if (imp.drop > 0 && std::uniform_real_distribution<>(0, 1)(rng) < imp.drop) {
      ++lost;
      continue;
    }
    if (lost) {
      h.model.NoteLoss(lost);
      lost = 0;
    }
    const std::uint64_t ts = r.ts;
    h.Push(std::move(r));
    ++n;
    if (n % 50 == 0) h.model.Advance(ts > 5000 ? ts - 5000 : 0);
    if (imp.cut_every && n % imp.cut_every == 0) h.model.CutGeneration(ts > 5000 ? ts - 5000 : 0);
  }
  CheckResult res = h.Finish("sim-" + std::to_string(seed));
  *stats_out = h.model.stats();
  return res;
}

void Expect(const CheckResult &res, const ModelStats &s, bool perfect) {
  EXPECT_TRUE(res.ok()) << "tracecheck exit " << res.exit_code << "\n" << res.errors << "\ntrace: " << res.path;
  EXPECT_EQ(s.writer_dropped, 0u);
  if (perfect) {
    EXPECT_EQ(s.inconsistencies, 0u);
  }
}

// GOTRACED_MODEL_SIM_SEEDS=N runs N seeds per test instead of the few the suite runs.
std::uint64_t Seeds(std::uint64_t dflt) {
  const char *e = std::getenv("GOTRACED_MODEL_SIM_SEEDS");
  return e ? std::strtoull(e, nullptr, 10) : dflt;
}

TEST(ModelSim, PerfectCapture) {
  for (std::uint64_t seed = 1000; seed < 1000 + Seeds(4); ++seed) {
    ModelStats s;
    CheckResult res = RunSim(seed, {}, &s);
    Expect(res, s, true);
    EXPECT_GT(res.Int("creates"), 10);
  }
}

TEST(ModelSim, JitteredTimestamps) {
  for (std::uint64_t seed = 10000; seed < 10000 + Seeds(4); ++seed) {
    ModelStats s;
    CheckResult res = RunSim(seed, {.jitter = 300}, &s);
    Expect(res, s, false);
  }
}

TEST(ModelSim, GenerationsEvery200Records) {
  for (std::uint64_t seed = 20000; seed < 20000 + Seeds(4); ++seed) {
    ModelStats s;
    CheckResult res = RunSim(seed, {.cut_every = 200}, &s);
    Expect(res, s, true);
    EXPECT_GE(res.Int("generations"), 5);
  }
}

TEST(ModelSim, AttachMidRun) {
  for (std::uint64_t seed = 30000; seed < 30000 + Seeds(4); ++seed) {
    ModelStats s;
    CheckResult res = RunSim(seed, {.cut_every = 300, .attach_mid_run = true}, &s);
    Expect(res, s, false);
  }
}

TEST(ModelSim, LostRecordsEverywhere) {
  for (std::uint64_t seed = 40000; seed < 40000 + Seeds(8); ++seed) {
    ModelStats s;
    CheckResult res = RunSim(seed, {.drop = 0.03, .jitter = 200, .cut_every = 250, .attach_mid_run = seed % 2 == 0}, &s);
    Expect(res, s, false);
    EXPECT_GT(s.records_lost, 0u);
  }
}

TEST(ModelSim, HeavyLossAndJitter) {
  for (std::uint64_t seed = 60000; seed < 60000 + Seeds(6); ++seed) {
    ModelStats s;
    CheckResult res = RunSim(seed, {.drop = 0.2, .jitter = 3000, .cut_every = 150, .attach_mid_run = seed % 2 == 1}, &s);
    Expect(res, s, false);
  }
}

// Jitter smaller than the gap between dependent records never needs a repair: the
// ordering (readiness + lookahead) undoes it.
TEST(ModelSim, SmallJitterNeedsNoRepair) {
  for (std::uint64_t seed = 70000; seed < 70000 + Seeds(4); ++seed) {
    ModelStats s;
    CheckResult res = RunSim(seed, {.jitter = 50}, &s);
    Expect(res, s, false);
    EXPECT_EQ(s.inconsistencies, 0u) << "seed " << seed;
  }
}

TEST(ModelSim, EveryVersion) {
  for (encoder::Version v : encoder::kAllVersions) {
    ModelStats s;
    CheckResult res = RunSim(50 + static_cast<int>(v), {.drop = 0.01, .cut_every = 400, .version = v}, &s);
    Expect(res, s, false);
  }
}

}  // namespace
}  // namespace gotraced::model::testing
