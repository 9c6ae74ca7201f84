// A whole Service on synthetic recordings (the real model and encoder, no BPF capture):
// a matching process started later is attached (exec notification or rescan), its
// flight window dumps as a parseable trace, its exit keeps the window, a reload that
// no longer matches detaches, another uid gets 403, garbage gets 400.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "daemon/service/client.h"
#include "daemon/service/service.h"
#include "tests/unit/service/test_util.h"

extern char **environ;

namespace gotraced::service {
namespace {

struct Running {
  Service svc;
  std::atomic<bool> stop{false};
  std::thread loop;
  explicit Running(Config c) : svc(std::move(c)) {}
  bool Start() {
    std::string err;
    if (!svc.Start(&err)) {
      ADD_FAILURE() << err;
      return false;
    }
    loop = std::thread([this] {
      while (!stop) svc.Step();
    });
    return true;
  }
  ~Running() {
    stop = true;
    if (loop.joinable()) loop.join();
    svc.Stop();
  }
};

Config TestConfig(const testing::TempDir &dir, const std::string &exe_glob) {
  std::string text = "[flight]\nwindow_seconds = 1\nwindow_mb = 4\nmemory_mb = 64\ngeneration_ms = 100\n"
                     "[endpoint]\nsocket = \"" + dir.File("s.sock") + "\"\nmode = \"0666\"\n"
                     "[discovery]\nrescan_seconds = 0.5\n"
                     "[testing]\nsynthetic = true\n"
                     "[[watch]]\nexe = \"" + exe_glob + "\"\n";
  std::string err;
  auto c = ParseConfig(text, "test.toml", &err);
  EXPECT_TRUE(c) << err;
  return *c;
}

pid_t Spawn(const std::string &exe) {
  const char *argv[] = {exe.c_str(), "60", nullptr};
  pid_t pid = 0;
  EXPECT_EQ(posix_spawn(&pid, exe.c_str(), nullptr, nullptr, const_cast<char **>(argv), environ), 0);
  return pid;
}

template <typename F>
bool WaitFor(F &&cond, std::chrono::milliseconds max = std::chrono::seconds(10)) {
  const auto end = std::chrono::steady_clock::now() + max;
  while (std::chrono::steady_clock::now() < end) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return cond();
}

std::string State(Service &svc, pid_t pid) {
  auto t = svc.FindTarget(pid);
  return t ? std::string(TargetStateName(t->state.load())) : "none";
}

std::vector<std::uint8_t> Get(const std::string &sock, const std::string &target, int *status) {
  std::vector<std::uint8_t> body;
  ClientResult r = UnixGet(sock, target, [&](std::string_view b) {
    body.insert(body.end(), b.begin(), b.end());
    return true;
  });
  EXPECT_TRUE(r.ok) << r.error;
  *status = r.status;
  if (r.status != 200) body.assign(r.body.begin(), r.body.end());
  return body;
}

TEST(Service, AttachDumpExitReloadAccess) {
  testing::TempDir dir;
  chmod(dir.path().c_str(), 0755);  // the unprivileged client below must reach the socket
  // A uniquely named copy of sleep, so no other process on the machine matches.
  const std::string exe = dir.File("gotraced-test-sleeper");
  std::filesystem::copy_file("/bin/sleep", exe);
  std::filesystem::permissions(exe, std::filesystem::perms::owner_all | std::filesystem::perms::others_exec |
                                        std::filesystem::perms::group_exec | std::filesystem::perms::others_read);
  Config cfg = TestConfig(dir, dir.path() + "/gotraced-test-*");
  const std::string sock = cfg.socket;
  Running r(cfg);
  ASSERT_TRUE(r.Start());

  // Started after the service: attached by the exec notification (or the rescan).
  pid_t a = Spawn(exe);
  pid_t b = Spawn(exe);
  ASSERT_TRUE(WaitFor([&] { return State(r.svc, a) == "recording" && State(r.svc, b) == "recording"; }))
      << State(r.svc, a) << " " << State(r.svc, b);

  int status = 0;
  auto procs = Get(sock, "/processes", &status);
  EXPECT_EQ(status, 200);
  const auto listed = nlohmann::json::parse(std::string(procs.begin(), procs.end()));
  std::set<pid_t> recording;
  for (const auto &p : listed.at("processes"))
    if (p.at("state") == "recording") recording.insert(p.at("pid").get<pid_t>());
  EXPECT_EQ(recording, (std::set<pid_t>{a, b})) << listed;

  // Let the window fill past its limit, then dump it: a trace from generation k > 1.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  auto flight = Get(sock, "/flight?pid=" + std::to_string(a), &status);
  ASSERT_EQ(status, 200) << std::string(flight.begin(), flight.end());
  auto t = r.svc.FindTarget(a);
  EXPECT_GT(t->rec->Stats().first_gen, 1u);
  auto check = testing::RunTracecheck(flight, "service-flight");
  EXPECT_TRUE(check.ok()) << check.errors << "\n" << check.path;

  // /trace for 0.3 s: generations that finish from now on.
  auto trace = Get(sock, "/trace?pid=" + std::to_string(b) + "&seconds=0.3", &status);
  ASSERT_EQ(status, 200);
  check = testing::RunTracecheck(trace, "service-trace");
  EXPECT_TRUE(check.ok()) << check.errors << "\n" << check.path;

  // Bad requests.
  Get(sock, "/flight", &status);
  EXPECT_EQ(status, 400);
  Get(sock, "/flight?pid=abc", &status);
  EXPECT_EQ(status, 400);
  Get(sock, "/flight?pid=1&bogus=2", &status);
  EXPECT_EQ(status, 400);
  Get(sock, "/trace?pid=" + std::to_string(a) + "&seconds=100000", &status);
  EXPECT_EQ(status, 400);
  Get(sock, "/flight?pid=999999", &status);
  EXPECT_EQ(status, 404);
  Get(sock, "/nope", &status);
  EXPECT_EQ(status, 404);

  // Another uid: 403 for the process, and it sees none of them.
  if (geteuid() == 0) {
    pid_t child = fork();
    if (child == 0) {
      if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) _exit(10);
      ClientResult cr = UnixGet(sock, "/flight?pid=" + std::to_string(a));
      if (!cr.ok) _exit(11);
      if (cr.status != 403) _exit(12);
      ClientResult list = UnixGet(sock, "/processes");
      auto seen = nlohmann::json::parse(list.body, nullptr, /*allow_exceptions=*/false);
      if (!list.ok || list.status != 200 || !seen.is_object() || !seen["processes"].empty()) _exit(13);
      _exit(0);
    }
    int st = 0;
    waitpid(child, &st, 0);
    EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) << "child exit " << WEXITSTATUS(st);
    EXPECT_GE(r.svc.counters().access_denied, 1u);
  }

  // Exit: detached, the last window stays and still parses.
  kill(a, SIGKILL);
  waitpid(a, nullptr, 0);
  ASSERT_TRUE(WaitFor([&] { return State(r.svc, a) == "exited"; })) << State(r.svc, a);
  auto last = Get(sock, "/flight?pid=" + std::to_string(a), &status);
  ASSERT_EQ(status, 200);
  check = testing::RunTracecheck(last, "service-exited");
  EXPECT_TRUE(check.ok()) << check.errors << "\n" << check.path;

  // Reload with a rule that matches nothing: b is detached, its window kept.
  Config other = TestConfig(dir, "/nonexistent/*");
  std::string err;
  ASSERT_TRUE(r.svc.ApplyConfig(other, &err)) << err;
  ASSERT_TRUE(WaitFor([&] { return State(r.svc, b) == "detached"; })) << State(r.svc, b);
  Get(sock, "/flight?pid=" + std::to_string(b), &status);
  EXPECT_EQ(status, 200);
  // And back: b matches again and is attached anew.
  ASSERT_TRUE(r.svc.ApplyConfig(cfg, &err)) << err;
  ASSERT_TRUE(WaitFor([&] { return State(r.svc, b) == "recording"; })) << State(r.svc, b);

  auto metrics = Get(sock, "/metrics", &status);
  std::string m(metrics.begin(), metrics.end());
  EXPECT_NE(m.find("gotraced_target_events_total{pid=\"" + std::to_string(b)), std::string::npos) << m;
  EXPECT_NE(m.find("gotraced_daemon_rss_bytes "), std::string::npos);
  EXPECT_NE(m.find("gotraced_http_responses_total{code=\"400\"}"), std::string::npos);
  kill(b, SIGKILL);
  waitpid(b, nullptr, 0);
}

// An executable whose name is not UTF-8 (any bytes but '/' and NUL on Linux): GET
// /processes stays one valid JSON document, its exe and name with U+FFFD for the bad bytes.
TEST(Service, ProcessesJsonOfAnExecutableNamedInBytesThatAreNotUtf8) {
  testing::TempDir dir;
  const std::string exe = dir.File("gotraced-test-\xff\xfe");
  std::filesystem::copy_file("/bin/sleep", exe);
  std::filesystem::permissions(exe, std::filesystem::perms::owner_all);
  Config cfg = TestConfig(dir, dir.path() + "/gotraced-test-*");
  Running r(cfg);
  ASSERT_TRUE(r.Start());
  pid_t p = Spawn(exe);
  ASSERT_TRUE(WaitFor([&] { return State(r.svc, p) == "recording"; })) << State(r.svc, p);
  int status = 0;
  auto body = Get(cfg.socket, "/processes", &status);
  EXPECT_EQ(status, 200);
  const std::string text(body.begin(), body.end());
  nlohmann::json j;
  ASSERT_NO_THROW(j = nlohmann::json::parse(text)) << text;  // strict: no invalid UTF-8
  ASSERT_EQ(j["processes"].size(), 1u) << text;
  EXPECT_EQ(j["processes"][0]["pid"], p);
  EXPECT_EQ(j["processes"][0]["exe"], dir.File("gotraced-test-\xEF\xBF\xBD\xEF\xBF\xBD"));
  EXPECT_EQ(j["processes"][0]["name"], "gotraced-test-\xEF\xBF\xBD");  // comm: 15 bytes
  kill(p, SIGKILL);
  waitpid(p, nullptr, 0);
}

// A matching process whose cost would not fit under memory_mb is not attached (counted),
// and is attached at a later rescan once the cap allows it.
TEST(Service, MemoryCapRefusesAttachUntilItFits) {
  testing::TempDir dir;
  const std::string exe = dir.File("gotraced-test-capped");
  std::filesystem::copy_file("/bin/sleep", exe);
  std::filesystem::permissions(exe, std::filesystem::perms::owner_all);
  Config cfg = TestConfig(dir, dir.path() + "/gotraced-test-*");
  // Smaller than this test process's own RSS: nothing fits.
  cfg.memory_bytes = std::size_t{2} << 20;
  cfg.window_bytes = std::size_t{1} << 20;
  Running r(cfg);
  ASSERT_TRUE(r.Start());
  pid_t p = Spawn(exe);
  ASSERT_TRUE(WaitFor([&] { return r.svc.counters().attach_refused_memory >= 1; }));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(State(r.svc, p), "none");
  int status = 0;
  auto metrics = Get(cfg.socket, "/metrics", &status);
  std::string m(metrics.begin(), metrics.end());
  EXPECT_EQ(m.find("gotraced_attach_refused_memory_total 0\n"), std::string::npos) << m;

  Config roomy = cfg;
  roomy.memory_bytes = std::size_t{1} << 30;
  std::string err;
  ASSERT_TRUE(r.svc.ApplyConfig(roomy, &err)) << err;
  ASSERT_TRUE(WaitFor([&] { return State(r.svc, p) == "recording"; })) << State(r.svc, p);
  kill(p, SIGKILL);
  waitpid(p, nullptr, 0);
}

// /flight ends the generation in progress (RequestAdvance) instead of waiting for its
// period: with 5 s generations, the first dump comes back well before the first one
// would have ended on its own, and parses.
TEST(Service, FlightAdvancesTheGenerationInProgress) {
  testing::TempDir dir;
  const std::string exe = dir.File("gotraced-test-advance");
  std::filesystem::copy_file("/bin/sleep", exe);
  std::filesystem::permissions(exe, std::filesystem::perms::owner_all);
  Config cfg = TestConfig(dir, dir.path() + "/gotraced-test-*");
  cfg.generation_period = std::chrono::milliseconds(5000);
  Running r(cfg);
  ASSERT_TRUE(r.Start());
  pid_t p = Spawn(exe);
  ASSERT_TRUE(WaitFor([&] { return State(r.svc, p) == "recording"; })) << State(r.svc, p);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  auto flight = Get(cfg.socket, "/flight?pid=" + std::to_string(p), &status);
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_EQ(status, 200) << std::string(flight.begin(), flight.end());
  EXPECT_LT(took, std::chrono::milliseconds(2500));
  auto check = testing::RunTracecheck(flight, "service-advance");
  EXPECT_TRUE(check.ok()) << check.errors << "\n" << check.path;
  kill(p, SIGKILL);
  waitpid(p, nullptr, 0);
}

// The endpoint serves the legacy formats too (issue 17): with trace_version go1.21 and a
// window trimmed past its first generation, /flight streams the restart prelude and the
// rebased generations (flight_recorder.h TraceChunker), /trace the generations that
// finish from now on, also from a generation after the first; both parse.
TEST(Service, EndpointServesTheLegacyFormat) {
  testing::TempDir dir;
  const std::string exe = dir.File("gotraced-test-legacy");
  std::filesystem::copy_file("/bin/sleep", exe);
  std::filesystem::permissions(exe, std::filesystem::perms::owner_all);
  Config cfg = TestConfig(dir, dir.path() + "/gotraced-test-*");
  cfg.trace_version = session::TraceVersion::kGo121;
  cfg.window_seconds = 0.3;
  Running r(cfg);
  ASSERT_TRUE(r.Start());
  pid_t p = Spawn(exe);
  ASSERT_TRUE(WaitFor([&] { return State(r.svc, p) == "recording"; })) << State(r.svc, p);
  ASSERT_TRUE(WaitFor([&] {
    auto t = r.svc.FindTarget(p);
    return t && t->rec->Stats().first_gen > 2;
  })) << "the window was not trimmed: the dump would prove nothing about a later start";
  for (const std::string what : {"/flight?pid=", "/trace?seconds=0.3&pid="}) {
    int status = 0;
    auto body = Get(cfg.socket, what + std::to_string(p), &status);
    ASSERT_EQ(status, 200) << what << std::string(body.begin(), body.end());
    ASSERT_GE(body.size(), 16u);
    EXPECT_EQ(std::string(reinterpret_cast<const char *>(body.data()), 13), "go 1.21 trace") << what;
    auto check = testing::RunTracecheck(body, "service-legacy");
    EXPECT_TRUE(check.ok()) << what << ": " << check.errors << "\n" << check.path;
  }
  kill(p, SIGKILL);
  waitpid(p, nullptr, 0);
}

// An ad-hoc /trace (a pid no rule selects) is admitted as a watched target would be: a
// second one for the same pid while the first records gets 409, and one whose cost would
// not fit under memory_mb gets 503; the refusals are counted in /metrics.
TEST(Service, AdhocTraceIsAdmittedLikeATarget) {
  testing::TempDir dir;
  const std::string exe = dir.File("gotraced-test-adhoc");
  std::filesystem::copy_file("/bin/sleep", exe);
  std::filesystem::permissions(exe, std::filesystem::perms::owner_all);
  Config cfg = TestConfig(dir, "/nonexistent/*");
  cfg.memory_bytes = std::size_t{1} << 30;
  Running r(cfg);
  ASSERT_TRUE(r.Start());
  pid_t p = Spawn(exe);
  const std::string target = "/trace?pid=" + std::to_string(p) + "&seconds=1";

  int first_status = 0;
  std::vector<std::uint8_t> first;
  std::thread first_req([&] { first = Get(cfg.socket, target, &first_status); });
  ASSERT_TRUE(WaitFor([&] { return r.svc.counters().adhoc_traces >= 1; }));
  int status = 0;
  auto busy = Get(cfg.socket, target, &status);
  EXPECT_EQ(status, 409) << std::string(busy.begin(), busy.end());
  first_req.join();
  ASSERT_EQ(first_status, 200) << std::string(first.begin(), first.end());
  auto check = testing::RunTracecheck(first, "service-adhoc");
  EXPECT_TRUE(check.ok()) << check.errors << "\n" << check.path;

  Config tight = cfg;
  tight.memory_bytes = std::size_t{2} << 20;  // smaller than this test process's own RSS
  tight.window_bytes = std::size_t{1} << 20;
  std::string err;
  ASSERT_TRUE(r.svc.ApplyConfig(tight, &err)) << err;
  auto full = Get(cfg.socket, target, &status);
  EXPECT_EQ(status, 503) << std::string(full.begin(), full.end());
  EXPECT_NE(std::string(full.begin(), full.end()).find("memory_mb"), std::string::npos);
  EXPECT_EQ(r.svc.counters().adhoc_traces, 1u);
  EXPECT_EQ(r.svc.counters().adhoc_refused, 2u);
  auto metrics = Get(cfg.socket, "/metrics", &status);
  std::string m(metrics.begin(), metrics.end());
  EXPECT_NE(m.find("gotraced_adhoc_refused_total 2\n"), std::string::npos) << m;
  kill(p, SIGKILL);
  waitpid(p, nullptr, 0);
}

TEST(Service, RefusesToStartOnABusySocket) {
  testing::TempDir dir;
  Config cfg = TestConfig(dir, "/nonexistent/*");
  Running first(cfg);
  ASSERT_TRUE(first.Start());
  Service second(cfg);
  std::string err;
  EXPECT_FALSE(second.Start(&err));
  EXPECT_NE(err.find("already running"), std::string::npos) << err;
}

}  // namespace
}  // namespace gotraced::service
