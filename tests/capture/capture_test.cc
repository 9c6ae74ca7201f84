// Capture integration test: attaches the capture layer (real BPF, real uprobes) to the
// workload in tests/capture/workload built with each Go toolchain on the machine, makes
// it run a burst of N goroutines, and checks that the records tell exactly what the
// program did: N creations, N exits with the same goroutine ids, one channel block and
// one unblock per worker, a Gosched each, a system call each, with plausible M/P context
// and stacks that name the program's functions; no record lost; the snapshot at attach
// and the target's exit are seen.
//
// Needs root (BPF, uprobes). Skips, saying why, when not root or a toolchain is missing.
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "daemon/capture/capture.h"
#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/runtime_layout.h"
#include "daemon/probes/probe_plan.h"
#include "tests/unit/common/go_toolchain.h"

extern char **environ;

namespace gotraced::capture {
namespace {

constexpr int kWorkers = 50;

struct Toolchain {
  std::string version;  // "go1.26"
};

void PrintTo(const Toolchain &t, std::ostream *os) { *os << t.version; }

std::vector<Toolchain> Toolchains() {
  return {{"go1.19"}, {"go1.21"}, {"go1.22"}, {"go1.23"}, {"go1.26"}, {"go1.27"}};
}

// Builds the workload with `tc` (cached by go's build cache); "" and *why on failure.
std::string BuildWorkload(const Toolchain &tc, std::string *why) {
  const std::string root = testutil::GoRoot(tc.version);  // found as go_for finds it
  const std::string go = root + "/bin/go";
  if (root.empty() || access(go.c_str(), X_OK) != 0) {
    *why = tc.version + " not installed (scripts/install-deps.sh)";
    return "";
  }
  std::string out = std::string(GOTRACED_BINARY_DIR) + "/capture-workloads/" + tc.version + "/workload";
  std::filesystem::create_directories(std::filesystem::path(out).parent_path());
  std::string cmd = "cd '" + std::string(GOTRACED_SOURCE_DIR) + "/tests/capture/workload' && GOTOOLCHAIN=local GOFLAGS= '" +
                    go + "' build -o '" + out + "' . 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    *why = "go build failed: " + cmd;
    return "";
  }
  return out;
}

// The workload process with pipes to its stdin/stdout.
struct Workload {
  pid_t pid = -1;
  int in = -1, out = -1;
  std::string buf;

  bool Start(const std::string &path) {
    int inp[2], outp[2];
    if (pipe2(inp, O_CLOEXEC) || pipe2(outp, O_CLOEXEC)) return false;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, inp[0], 0);
    posix_spawn_file_actions_adddup2(&fa, outp[1], 1);
    const char *argv[] = {path.c_str(), nullptr};
    int rc = posix_spawn(&pid, path.c_str(), &fa, nullptr, const_cast<char **>(argv), environ);
    posix_spawn_file_actions_destroy(&fa);
    close(inp[0]);
    close(outp[1]);
    in = inp[1];
    out = outp[0];
    return rc == 0;
  }
  // Reads until a line starting with `prefix` arrived (or the timeout); returns it.
  std::string WaitLine(const std::string &prefix, std::chrono::milliseconds timeout,
                       const std::function<void()> &while_waiting = {}) {
    auto end = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < end) {
      size_t nl;
      while ((nl = buf.find('\n')) != std::string::npos) {
        std::string line = buf.substr(0, nl);
        buf.erase(0, nl + 1);
        if (line.rfind(prefix, 0) == 0) return line;
      }
      pollfd p{out, POLLIN, 0};
      if (poll(&p, 1, 5) > 0) {
        char tmp[256];
        ssize_t n = read(out, tmp, sizeof tmp);
        if (n <= 0) return "";
        buf.append(tmp, size_t(n));
      }
      if (while_waiting) while_waiting();
    }
    return "";
  }
  void Send(const std::string &s) { (void)!write(in, s.data(), s.size()); }
  void CloseInput() {
    if (in >= 0) close(in);
    in = -1;
  }
  ~Workload() {
    CloseInput();
    if (out >= 0) close(out);
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
  }
};

// One decoded record, copied out of the ring.
struct Rec {
  std::vector<uint8_t> bytes;
  RecordView view() const { return RecordView(bytes.data(), bytes.size()); }
};

class CaptureTest : public ::testing::TestWithParam<Toolchain> {};

TEST_P(CaptureTest, BurstOfGoroutines) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for BPF and uprobes";
  const Toolchain &tc = GetParam();
  std::string why;
  std::string exe = BuildWorkload(tc, &why);
  if (exe.empty()) GTEST_SKIP() << tc.version << ": " << why;

  Workload w;
  ASSERT_TRUE(w.Start(exe));
  std::string ready = w.WaitLine("ready", std::chrono::seconds(10));
  ASSERT_FALSE(ready.empty()) << "workload did not start";
  int gomaxprocs = std::atoi(ready.c_str() + 6);

  CaptureOptions o;
  o.pid = w.pid;
  o.ring_bytes = 16 << 20;
  auto cap = Capture::Start(o);
  ASSERT_TRUE(cap.ok()) << cap.error();
  Capture &c = **cap;
  for (const auto &wmsg : c.warnings()) std::fprintf(stderr, "capture warning: %s\n", wmsg.c_str());
  const int minor = c.plan().go_minor;
  const uint64_t bias = c.load_bias();

  // Snapshot at attach.
  const auto &snap = c.snapshot();
  EXPECT_EQ(snap.gomaxprocs, gomaxprocs);
  EXPECT_EQ(int(snap.procs.size()), gomaxprocs);
  bool has_main = false;
  for (const auto &g : snap.goroutines)
    if (g.goid == 1) has_main = true;
  EXPECT_TRUE(has_main) << "goroutine 1 not in the snapshot";
  EXPECT_FALSE(snap.ms.empty());

  std::vector<Rec> recs;
  auto keep = [&](const RecordView &r) { recs.push_back(Rec{std::vector<uint8_t>(r.data(), r.data() + r.size())}); };
  w.Send("burst " + std::to_string(kWorkers) + "\n");
  std::string done = w.WaitLine("done", std::chrono::seconds(20), [&] { c.Poll(keep, std::chrono::milliseconds(0)); });
  ASSERT_EQ(done, "done " + std::to_string(kWorkers));
  auto settle = std::chrono::steady_clock::now() + std::chrono::milliseconds(50);
  while (std::chrono::steady_clock::now() < settle) c.Poll(keep, std::chrono::milliseconds(5));

  // The target's exit.
  w.CloseInput();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!c.target_exited() && std::chrono::steady_clock::now() < deadline) c.Poll(keep, std::chrono::milliseconds(5));
  EXPECT_TRUE(c.target_exited());
  c.Stop();
  c.Flush(keep);

  // ---- What the records say.
  const gobin::GoBinary &bin = c.binary();
  auto fn = [&](uint64_t pc) -> std::string {
    const gobin::FunctionSym *f = pc > bias ? bin.FuncForPC(pc - bias) : nullptr;
    return f ? std::string(f->name) : std::string("?");
  };
  auto stack_has = [&](const RecordView &r, const std::string &name) {
    for (uint64_t pc : r.stack())
      if (fn(pc) == name) return true;
    return false;
  };
  auto is_worker_start = [&](uint64_t startpc) { return fn(startpc).rfind("main.burst.", 0) == 0; };
  const uint32_t chan_recv = uint32_t(c.layout().Constant("waitReasonChanReceive").value_or(-1));
  const probes::ProbePlan &plan = c.plan();

  std::set<uint64_t> created;          // goids of the workers
  std::map<uint64_t, uint64_t> gp_goid;  // g pointer -> goid (for ids resolved later)
  std::vector<uint64_t> unresolved_gps;
  int creates = 0, create_stacks_ok = 0;
  uint64_t prev_ts = 0;
  int out_of_order = 0;
  std::map<int64_t, uint32_t> m_tid;
  int m_tid_conflicts = 0;
  for (const Rec &rec : recs) {
    RecordView r = rec.view();
    ASSERT_TRUE(r.valid());
    if (r.ts() < prev_ts) out_of_order++;
    prev_ts = r.ts();
    if (const gt_go_ctx *ctx = r.go_ctx()) {
      EXPECT_EQ(int(r.header().tgid), w.pid);
      EXPECT_NE(ctx->m, 0u);
      EXPECT_GE(ctx->m_id, 0);
      auto [it, fresh] = m_tid.emplace(ctx->m_id, r.tid());
      if (!fresh && it->second != r.tid()) m_tid_conflicts++;
    }
    const gt_gstatus_record *g = r.gstatus();
    if (!g || g->oldval != gobin::kGdead || g->newval != gobin::kGrunnable || !is_worker_start(g->startpc)) continue;
    creates++;
    if (stack_has(r, "main.burst")) create_stacks_ok++;
    uint64_t goid = g->goid;
    if (minor <= 23) {
      goid = g->p_goidcache != g->p_goidcacheend ? g->p_goidcache : 0;  // docs/probe-plan.md §3.1
      if (!goid) unresolved_gps.push_back(g->gp);
    }
    if (goid) {
      created.insert(goid);
      gp_goid[g->gp] = goid;
    }
  }
  EXPECT_EQ(out_of_order, 0) << "records not delivered in timestamp order";
  EXPECT_EQ(m_tid_conflicts, 0) << "one M seen on two threads";
  EXPECT_EQ(creates, kWorkers);
  EXPECT_EQ(create_stacks_ok, kWorkers) << "GoCreate stacks should name main.burst";

  // Ids the create record could not give (goid cache refill on <= 1.23): the next
  // record of the same g (execute's Runnable -> Running) carries it.
  for (uint64_t gp : unresolved_gps) {
    bool seen_create = false;
    for (const Rec &rec : recs) {
      RecordView r = rec.view();
      const gt_gstatus_record *g = r.gstatus();
      if (!g || g->gp != gp) continue;
      if (g->oldval == gobin::kGdead && g->newval == gobin::kGrunnable && is_worker_start(g->startpc)) {
        seen_create = true;
        continue;
      }
      if (seen_create) {
        created.insert(g->goid);
        gp_goid[gp] = g->goid;
        break;
      }
    }
  }
  EXPECT_EQ(created.size(), size_t(kWorkers)) << "distinct goroutine ids of the workers";

  int exits = 0, starts = 0, blocks = 0, block_stacks_ok = 0, unblocks = 0, unblock_skip4 = 0, gosched = 0;
  int sys_enter = 0, sys_exit = 0, enter_stacks_ok = 0;
  std::set<uint64_t> exited;
  for (const Rec &rec : recs) {
    RecordView r = rec.view();
    if (const gt_gstatus_record *g = r.gstatus()) {
      uint32_t o = g->oldval & ~gobin::kGscan, n = g->newval;
      std::string caller = fn(g->ctx.caller_pc);
      bool mine = created.count(g->goid) > 0 && !(g->oldval == gobin::kGdead);
      if (o == gobin::kGrunning && n == gobin::kGdead && mine) {
        exits++;
        exited.insert(g->goid);
      }
      if (!mine) continue;
      if (o == gobin::kGrunnable && n == gobin::kGrunning && caller == "runtime.execute") {
        starts++;
        EXPECT_EQ(g->ctx.curg, g->gp) << "execute sets m.curg before casgstatus";
        EXPECT_GE(g->ctx.p_id, 0);
      }
      if (o == gobin::kGrunning && n == gobin::kGwaiting && caller == "runtime.park_m" && g->waitreason == chan_recv) {
        blocks++;
        if (stack_has(r, "main.worker")) block_stacks_ok++;
        EXPECT_EQ(r.stack_tail() ? r.stack_tail()->source : 0, GT_STACK_SCHED);
      }
      if (o == gobin::kGwaiting && n == gobin::kGrunnable && caller == "runtime.ready" && stack_has(r, "main.burst")) {
        unblocks++;
        if (g->caller_spill[0] == g->gp && g->caller_spill[1] == 4) unblock_skip4++;
      }
      if (o == gobin::kGrunning && n == gobin::kGrunnable &&
          (caller == "runtime.goschedImpl" || caller == "runtime.gosched_m") &&
          stack_has(r, "main.worker"))  // runtime.Gosched is inlined into worker
        gosched++;
      if (o == gobin::kGrunning && n == gobin::kGsyscall) {
        sys_enter++;
        if (stack_has(r, "main.worker")) enter_stacks_ok++;
      }
      if (o == gobin::kGsyscall && (n == gobin::kGrunning || n == gobin::kGrunnable)) sys_exit++;
    } else if (const gt_call_record *cl = r.call()) {
      const probes::ProbeSite *s = plan.site(cl->probe_id);
      ASSERT_NE(s, nullptr);
      if (!created.count(cl->ctx.curg_goid)) continue;
      if (s->role == probes::ProbeRole::kEnterSyscall) {
        sys_enter++;
        if (stack_has(r, "main.worker")) enter_stacks_ok++;
        // The sys_enter tracepoint walks from the g's syscallpc/syscallbp (probes/
        // syscall_sites.h); a uprobe at reentersyscall from its registers.
        EXPECT_EQ(r.stack_tail() ? r.stack_tail()->source : 0,
                  (cl->flags & GT_CALL_FROM_TRACEPOINT) ? GT_STACK_SYSCALL : GT_STACK_REGS);
      }
      if (s->role == probes::ProbeRole::kExitSyscall) sys_exit++;
    }
  }
  EXPECT_EQ(exits, kWorkers);
  EXPECT_EQ(exited, created) << "the goroutines that ended are the ones created";
  EXPECT_GE(starts, 2 * kWorkers) << "each worker starts, blocks, is started again";
  EXPECT_EQ(blocks, kWorkers) << "one channel-receive block per worker";
  EXPECT_EQ(block_stacks_ok, kWorkers);
  EXPECT_EQ(unblocks, kWorkers) << "one unblock per worker, by burst's channel send";
  if (plan.ready_traceskip_spilled) {
    EXPECT_EQ(unblock_skip4, kWorkers) << "GoUnblock traceskip of chansend is 4";
  }
  if (minor >= 22) {
    EXPECT_TRUE(plan.ready_traceskip_spilled);
  }
  EXPECT_GE(gosched, kWorkers);
  EXPECT_GE(sys_enter, kWorkers);
  EXPECT_EQ(enter_stacks_ok, sys_enter) << "syscall stacks should name main.worker";
  EXPECT_GE(sys_exit, kWorkers);

  CaptureStats st = c.stats();
  // The BPF side's counters read lazily (stats(false), session.cc: once a second, at a
  // sequence gap, at stop) are those of the last read, one value per possible CPU, and
  // sum as they did; the consumer's own counts are current either way.
  const CaptureStats lazy = c.stats(false);
  EXPECT_EQ(st.consumer.lost_per_cpu.size(), size_t(libbpf_num_possible_cpus()));
  EXPECT_EQ(lazy.consumer.lost_per_cpu, st.consumer.lost_per_cpu);
  EXPECT_EQ(lazy.consumer.lost(), st.consumer.lost());
  EXPECT_EQ(lazy.probe_hits, st.probe_hits);
  EXPECT_EQ(lazy.short_syscalls, st.short_syscalls);
  EXPECT_EQ(lazy.consumer.records, st.consumer.records);
  EXPECT_GT(st.probe_hits, 0u);
  EXPECT_GE(c.stats(true).probe_hits, st.probe_hits) << "a new read is a new read";
  EXPECT_EQ(st.consumer.lost(), 0u);
  EXPECT_EQ(st.consumer.seq_gaps, 0u);
  EXPECT_EQ(st.consumer.invalid, 0u);
  EXPECT_EQ(st.consumer.late, 0u);
  EXPECT_EQ(st.filtered, 0u);
  std::fprintf(stderr, "%s: %zu records, %llu probe hits, %llu morestack skips, %llu read faults\n", tc.version.c_str(),
               recs.size(), (unsigned long long)st.probe_hits, (unsigned long long)st.morestack_skips,
               (unsigned long long)st.read_faults);
}

// The consumer's wait ends when its interrupt eventfd is written (serve's detaches and
// dumps: service/wake_event.h), and the eventfd is read back to zero, so the next wait
// is the drain interval's again.
TEST(RingConsumerWait, InterruptFdEndsTheWaitOnce) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for a BPF ring buffer map";
  const int ring = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "gt_test_ring", 0, 0, 1 << 16, nullptr);
  ASSERT_GE(ring, 0) << std::strerror(errno);
  const int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  ASSERT_GE(efd, 0);
  ConsumerOptions o;
  o.drain_interval = std::chrono::milliseconds(400);
  o.max_drain_interval = std::chrono::milliseconds(400);
  o.interrupt_fd = efd;
  {
    RingConsumer rc(ring, o);
    ASSERT_TRUE(rc.ok());
    auto none = [](const RecordView &) {};
    rc.WaitAndDrain(none, std::chrono::seconds(5));  // the first drain is due at once
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    std::thread waker([efd] {
      std::this_thread::sleep_for(std::chrono::milliseconds(30));
      const std::uint64_t one = 1;
      ASSERT_EQ(write(efd, &one, sizeof(one)), ssize_t(sizeof(one)));
    });
    rc.WaitAndDrain(none, std::chrono::seconds(5));
    const auto woken_after = Clock::now() - t0;
    waker.join();
    EXPECT_GE(woken_after, std::chrono::milliseconds(25));
    EXPECT_LT(woken_after, std::chrono::milliseconds(300)) << "the interrupt did not end the 400 ms wait";
    std::uint64_t left = 0;
    EXPECT_LT(read(efd, &left, sizeof(left)), 0) << "the eventfd was not read back to zero";
    EXPECT_EQ(errno, EAGAIN);
    const auto t1 = Clock::now();
    rc.WaitAndDrain(none, std::chrono::seconds(5));
    EXPECT_GE(Clock::now() - t1, std::chrono::milliseconds(300)) << "no interrupt: the drain interval's wait";
    EXPECT_FALSE(rc.woken());
  }
  close(efd);
  close(ring);
}

INSTANTIATE_TEST_SUITE_P(AllGo, CaptureTest, ::testing::ValuesIn(Toolchains()),
                         [](const ::testing::TestParamInfo<Toolchain> &i) {
                           std::string n = i.param.version;
                           for (char &ch : n)
                             if (ch == '.') ch = '_';
                           return n;
                         });

}  // namespace
}  // namespace gotraced::capture
