// Config: defaults, every section, and errors that name the line of the offending key.
#include <gtest/gtest.h>

#include "daemon/service/config.h"

namespace gotraced::service {
namespace {

std::string ErrorOf(const std::string &text) {
  std::string err;
  auto c = ParseConfig(text, "test.toml", &err);
  EXPECT_FALSE(c.has_value()) << "accepted:\n" << text;
  return err;
}

TEST(Config, MinimalUsesDefaults) {
  std::string err;
  auto c = ParseConfig("[[watch]]\nname = \"api\"\n", "test.toml", &err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->window_seconds, 10);
  EXPECT_EQ(c->window_bytes, std::size_t{16} << 20);
  EXPECT_EQ(c->memory_bytes, std::size_t{256} << 20);
  EXPECT_EQ(c->socket, "/run/gotraced/gotraced.sock");
  EXPECT_EQ(c->mode, 0666u);
  EXPECT_EQ(c->events, kEventDefault);  // everything but sweeps
  ASSERT_EQ(c->watch.size(), 1u);
  EXPECT_EQ(c->watch[0].name, std::vector<std::string>{"api"});
  EXPECT_EQ(c->watch[0].line, 1);
}

TEST(Config, EverySection) {
  const char *text = R"(
[flight]
window_seconds = 2.5
window_mb = 4
memory_mb = 64
keep_exited = 3
generation_ms = 250
events = ["sched", "gc"]
trace_version = "go1.23"
ring_mb = 2

[endpoint]
socket = "/tmp/x.sock"
owner = "0"
group = "root"
mode = "0660"
max_trace_seconds = 60

[discovery]
exec_watch = false
rescan_seconds = 5

[[watch]]
exe = ["/opt/*/bin/*", "/usr/local/bin/api"]
window_seconds = 30
window_mb = 8

[[watch]]
unit = "foo.service"
cgroup = "/system.slice"
events = ["user"]
)";
  std::string err;
  auto c = ParseConfig(text, "t.toml", &err);
  ASSERT_TRUE(c) << err;
  EXPECT_DOUBLE_EQ(c->window_seconds, 2.5);
  EXPECT_EQ(c->window_bytes, std::size_t{4} << 20);
  EXPECT_EQ(c->memory_bytes, std::size_t{64} << 20);
  EXPECT_EQ(c->keep_exited, 3u);
  EXPECT_EQ(c->generation_period.count(), 250);
  EXPECT_EQ(c->events, kEventSched | kEventGc);
  EXPECT_EQ(c->trace_version, session::TraceVersion::kGo123);
  EXPECT_EQ(c->ring_bytes, std::size_t{2} << 20);
  EXPECT_EQ(c->socket, "/tmp/x.sock");
  EXPECT_EQ(c->mode, 0660u);
  EXPECT_EQ(c->owner_uid, 0u);
  EXPECT_EQ(c->max_trace_seconds, 60);
  EXPECT_FALSE(c->exec_watch);
  EXPECT_EQ(c->rescan_seconds, 5);
  ASSERT_EQ(c->watch.size(), 2u);
  EXPECT_EQ(c->watch[0].exe.size(), 2u);
  EXPECT_EQ(c->WindowSeconds(c->watch[0]), 30);
  EXPECT_EQ(c->WindowBytes(c->watch[0]), std::size_t{8} << 20);
  // sched and syscall are always recorded (SessionEvents).
  // Level low (the default): syscall only when listed (SyscallsOptionalAtLow below).
  EXPECT_EQ(c->Events(c->watch[0]), kEventSched | kEventGc);
  EXPECT_EQ(c->Events(c->watch[1]), kEventSched | kEventUser);
  EXPECT_EQ(c->WindowSeconds(c->watch[1]), 2.5);
  EXPECT_EQ(c->watch[0].line, 23);
  EXPECT_EQ(c->watch[1].line, 28);
}

// Level low's ring is an eighth of ring_mb, never under 256 KiB; the other levels get
// ring_mb (issue 28: the rings were most of a watched process's memory).
TEST(Config, RingBytesByLevel) {
  Config c;
  c.ring_bytes = std::size_t{8} << 20;
  EXPECT_EQ(c.RingBytes(session::CaptureLevel::kLow), std::size_t{1} << 20);
  EXPECT_EQ(c.RingBytes(session::CaptureLevel::kSched), std::size_t{8} << 20);
  EXPECT_EQ(c.RingBytes(session::CaptureLevel::kFull), std::size_t{8} << 20);
  c.ring_bytes = std::size_t{1} << 20;
  EXPECT_EQ(c.RingBytes(session::CaptureLevel::kLow), std::size_t{256} << 10);
}

TEST(Config, OctalModeInteger) {
  std::string err;
  auto c = ParseConfig("[endpoint]\nmode = 0o640\n[[watch]]\nname = \"x\"\n", "t.toml", &err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->mode, 0640u);
}

TEST(Config, SyntaxErrorHasLine) {
  EXPECT_EQ(ErrorOf("[[watch]]\nname = \"x\"\n[flight\n").substr(0, 12), "test.toml:3:");
}

TEST(Config, WrongTypeHasLine) {
  std::string e = ErrorOf("[[watch]]\nname = \"x\"\n\n[flight]\nwindow_seconds = \"ten\"\n");
  EXPECT_NE(e.find("test.toml:5:"), std::string::npos) << e;
  EXPECT_NE(e.find("flight.window_seconds: expected a number, found string"), std::string::npos) << e;
}

TEST(Config, UnknownKeyHasLine) {
  std::string e = ErrorOf("[[watch]]\nname = \"x\"\nwindow_secs = 3\n");
  EXPECT_NE(e.find("test.toml:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key watch[0].window_secs"), std::string::npos) << e;
  e = ErrorOf("[[watch]]\nname = \"x\"\n[flihgt]\nwindow_seconds = 3\n");
  EXPECT_NE(e.find("test.toml:3:"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key flihgt"), std::string::npos) << e;
}

TEST(Config, BadValues) {
  struct Case {
    const char *text;
    const char *where;
    const char *what;
  } cases[] = {
      {"[flight]\nwindow_seconds = 0\n[[watch]]\nname=\"x\"\n", ":2:", "greater than 0"},
      {"[flight]\nwindow_seconds = -3\n[[watch]]\nname=\"x\"\n", ":2:", "greater than 0"},
      {"[flight]\nevents = [\"sched\", \"net\"]\n[[watch]]\nname=\"x\"\n", ":2:", "unknown event class \"net\""},
      {"[flight]\nevents = \"sched\"\n[[watch]]\nname=\"x\"\n", ":2:", "expected an array"},
      {"[flight]\ntrace_version = \"go1.99\"\n[[watch]]\nname=\"x\"\n", ":2:", "go1.99"},
      {"[flight]\nkeep_exited = 1.5\n[[watch]]\nname=\"x\"\n", ":2:", "expected an integer"},
      {"[flight]\ngeneration_ms = 1\n[[watch]]\nname=\"x\"\n", ":2:", "outside 10..600000"},
      {"[flight]\nwindow_mb = 100\nmemory_mb = 10\n[[watch]]\nname=\"x\"\n", ":1:", "larger than flight.memory_mb"},
      {"[endpoint]\nsocket = \"relative.sock\"\n[[watch]]\nname=\"x\"\n", ":2:", "absolute path"},
      {"[endpoint]\nmode = \"rw-rw-rw-\"\n[[watch]]\nname=\"x\"\n", ":2:", "octal"},
      {"[endpoint]\nmode = \"01777\"\n[[watch]]\nname=\"x\"\n", ":2:", "not a permission mode"},
      {"[endpoint]\nowner = \"no-such-user-gotraced\"\n[[watch]]\nname=\"x\"\n", ":2:", "no user"},
      {"[endpoint]\ngroup = \"no-such-group-gotraced\"\n[[watch]]\nname=\"x\"\n", ":2:", "no group"},
      {"[discovery]\nexec_watch = 1\n[[watch]]\nname=\"x\"\n", ":2:", "true or false"},
      {"[[watch]]\nwindow_seconds = 3\n", ":1:", "at least one of exe, name, cgroup, unit"},
      {"[[watch]]\nexe = []\n", ":2:", "empty list"},
      {"[[watch]]\nexe = [\"\"]\n", ":2:", "empty pattern"},
      {"[[watch]]\nexe = \"bin/x\"\n", ":2:", "not an absolute path"},
      {"[[watch]]\ncgroup = \"system.slice\"\n", ":2:", "must start with /"},
      {"[[watch]]\nname = 3\n", ":2:", "expected strings"},
      {"watch = \"x\"\n", ":1:", "array of tables"},
      {"[flight]\nwindow_seconds = 3\n", "", "no [[watch]] entry"},
      {"flight = 3\n[[watch]]\nname=\"x\"\n", ":1:", "expected a table"},
  };
  for (const Case &c : cases) {
    std::string e = ErrorOf(c.text);
    EXPECT_EQ(e.rfind("test.toml", 0), 0u) << e;
    EXPECT_NE(e.find(c.where), std::string::npos) << "want " << c.where << " in: " << e;
    EXPECT_NE(e.find(c.what), std::string::npos) << "want " << c.what << " in: " << e;
  }
}

TEST(Config, LoadMissingFileNamesIt) {
  std::string err;
  EXPECT_FALSE(LoadConfig("/nonexistent/gotraced.toml", &err));
  EXPECT_NE(err.find("/nonexistent/gotraced.toml"), std::string::npos);
}

TEST(Config, ShippedDefaultIsValid) {
  std::string err;
  auto c = LoadConfig(std::string(GOTRACED_SOURCE_DIR) + "/packaging/gotraced.toml", &err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->socket, "/run/gotraced/gotraced.sock");
}

TEST(Config, TraceVersionNamesAgreeWithSession) {
  for (const char *name : {"auto", "go1.22", "go1.23", "1.24", "go1.25", "26", "go1.27", "GO1.23", "go1.21", "x"}) {
    std::string err;
    auto c = ParseConfig(std::string("[flight]\ntrace_version = \"") + name + "\"\n[[watch]]\nname = \"x\"\n", "t", &err);
    auto want = session::ParseTraceVersion(name);
    EXPECT_EQ(c.has_value(), want.has_value()) << name << ": " << err;
    if (c && want) {
      EXPECT_EQ(c->trace_version, *want) << name;
    }
  }
}

TEST(Config, StateSampleSecondsInFlightAndPerWatch) {
  std::string err;
  auto c = ParseConfig("[flight]\nstate_sample_seconds = 2.5\n[[watch]]\nname = \"x\"\n[[watch]]\nname = \"y\"\n"
                       "state_sample_seconds = 0\n",
                       "t.toml", &err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->StateSample(c->watch[0]), std::chrono::milliseconds(2500));
  EXPECT_EQ(c->StateSample(c->watch[1]), std::chrono::milliseconds(0));  // off for y
  auto d = ParseConfig("[[watch]]\nname = \"x\"\n", "t.toml", &err);
  ASSERT_TRUE(d) << err;
  EXPECT_EQ(d->StateSample(d->watch[0]), session::kDefaultStateSample);
  EXPECT_FALSE(ParseConfig("[flight]\nstate_sample_seconds = -1\n[[watch]]\nname = \"x\"\n", "t.toml", &err));
  EXPECT_NE(err.find("state_sample_seconds"), std::string::npos) << err;
}

TEST(Config, EventsReachTheSession) {
  std::string err;
  auto c = ParseConfig("[flight]\nevents = [\"sched\", \"cpu\"]\ncpu_hz = 250\n[[watch]]\nname = \"x\"\n[[watch]]\n"
                       "name = \"y\"\nevents = [\"gc\", \"user\"]\n",
                       "t.toml", &err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->cpu_hz, 250u);
  auto a = SessionEvents(c->Events(c->watch[0]), c->cpu_hz);
  EXPECT_FALSE(a.gc);
  EXPECT_FALSE(a.user);
  EXPECT_EQ(a.cpu_hz, 250u);
  auto b = SessionEvents(c->Events(c->watch[1]), c->cpu_hz);
  EXPECT_TRUE(b.gc);
  EXPECT_TRUE(b.user);
  EXPECT_EQ(b.cpu_hz, 0u);
  auto all = SessionEvents(kEventAll, 100);
  EXPECT_TRUE(all.gc && all.user && all.sweeps);
  EXPECT_EQ(all.cpu_hz, 100u);
  auto dflt = SessionEvents(kEventDefault, 100);
  EXPECT_TRUE(dflt.gc && dflt.user);
  EXPECT_FALSE(dflt.sweeps);
  EXPECT_FALSE(SessionEvents(kEventSweep, 100).sweeps);  // sweeps need gc
  auto sw = ParseConfig("[flight]\nevents = [\"gc\", \"sweep\"]\n[[watch]]\nname = \"x\"\n", "t.toml", &err);
  ASSERT_TRUE(sw) << err;
  EXPECT_TRUE(SessionEvents(sw->events, 100).sweeps);
  auto bad = ParseConfig("[flight]\ncpu_hz = 0\n[[watch]]\nname = \"x\"\n", "t.toml", &err);
  EXPECT_FALSE(bad);
  EXPECT_NE(err.find("t.toml:2:"), std::string::npos) << err;
}

// Level low's syscalls: from sched_switch unless syscalls_by = "sample" or "tracepoint";
// anything else refused with the line.
TEST(Config, SyscallsBy) {
  std::string err;
  auto d = ParseConfig("[[watch]]\nname = \"x\"\n", "t.toml", &err);
  ASSERT_TRUE(d) << err;
  EXPECT_FALSE(d->syscalls_by_sample);
  EXPECT_TRUE(d->syscalls_by_switch);  // the default: sched_switch (docs/cost.md)
  auto s = ParseConfig("[flight]\nsyscalls_by = \"sample\"\n[[watch]]\nname = \"x\"\n", "t.toml", &err);
  ASSERT_TRUE(s) << err;
  EXPECT_TRUE(s->syscalls_by_sample);
  EXPECT_FALSE(s->syscalls_by_switch);
  auto w = ParseConfig("[flight]\nsyscalls_by = \"switch\"\n[[watch]]\nname = \"x\"\n", "t.toml", &err);
  ASSERT_TRUE(w) << err;
  EXPECT_TRUE(w->syscalls_by_switch);
  EXPECT_FALSE(w->syscalls_by_sample);
  auto t = ParseConfig("[flight]\nsyscalls_by = \"tracepoint\"\n[[watch]]\nname = \"x\"\n", "t.toml", &err);
  ASSERT_TRUE(t) << err;
  EXPECT_FALSE(t->syscalls_by_switch);
  EXPECT_FALSE(t->syscalls_by_sample);
  auto bad = ParseConfig("[flight]\nsyscalls_by = \"kprobe\"\n[[watch]]\nname = \"x\"\n", "t.toml", &err);
  EXPECT_FALSE(bad);
  EXPECT_NE(err.find("t.toml:2:"), std::string::npos) << err;
}

// Level low's syscall threshold: 1 ms unless set, 0 allowed (every syscall), negative or
// a string refused with the line.
TEST(Config, SyscallMin) {
  std::string err;
  auto d = ParseConfig("[[watch]]\nname = \"x\"\n", "t.toml", &err);
  ASSERT_TRUE(d) << err;
  EXPECT_EQ(d->syscall_min_ms, 1.0);
  auto z = ParseConfig("[flight]\nsyscall_min_ms = 0\n[[watch]]\nname = \"x\"\n", "t.toml", &err);
  ASSERT_TRUE(z) << err;
  EXPECT_EQ(z->syscall_min_ms, 0.0);
  auto f = ParseConfig("[flight]\nsyscall_min_ms = 0.25\n[[watch]]\nname = \"x\"\n", "t.toml", &err);
  ASSERT_TRUE(f) << err;
  EXPECT_EQ(f->syscall_min_ms, 0.25);
  for (const char *v : {"-1", "\"1ms\""}) {
    auto bad = ParseConfig(std::string("[flight]\nsyscall_min_ms = ") + v + "\n[[watch]]\nname = \"x\"\n", "t.toml", &err);
    EXPECT_FALSE(bad) << v;
    EXPECT_NE(err.find("t.toml:2:"), std::string::npos) << err;
    EXPECT_NE(err.find("syscall_min_ms"), std::string::npos) << err;
  }
}

// At level low `syscall` may be left out of events (no syscall tracepoint attached); the
// other levels record syscalls whatever the list says; a syscall trigger needs them.
TEST(Config, SyscallsOptionalAtLow) {
  std::string err;
  auto c = ParseConfig("[flight]\nevents = [\"gc\", \"cpu\"]\n[[watch]]\nname = \"x\"\n[[watch]]\nname = \"y\"\n"
                       "level = \"full\"\n",
                       "t.toml", &err);
  ASSERT_TRUE(c) << err;
  EXPECT_FALSE(c->Events(c->watch[0]) & kEventSyscall);
  EXPECT_FALSE(SessionEvents(c->Events(c->watch[0]), 100).syscalls);
  EXPECT_TRUE(c->Events(c->watch[1]) & kEventSyscall);
  EXPECT_TRUE(SessionEvents(c->Events(c->watch[1]), 100).syscalls);
  auto d = ParseConfig("[[watch]]\nname = \"x\"\n", "t.toml", &err);
  ASSERT_TRUE(d) << err;
  EXPECT_TRUE(SessionEvents(d->Events(d->watch[0]), 100).syscalls);  // the default set has them
  auto bad = ParseConfig("[flight]\nevents = [\"gc\"]\n[[watch]]\nname = \"x\"\n[watch.triggers]\nsyscall_ms = 5\n",
                         "t.toml", &err);
  EXPECT_FALSE(bad);
  EXPECT_NE(err.find("t.toml:3:"), std::string::npos) << err;
  EXPECT_NE(err.find("syscall_ms needs the syscalls"), std::string::npos) << err;
}

TEST(Config, EventSetName) {
  EXPECT_EQ(EventSetName(kEventAll), "all");
  EXPECT_EQ(EventSetName(kEventSched | kEventCpu), "sched,cpu");
  EXPECT_EQ(EventSetName(kEventDefault), "sched,syscall,gc,user,cpu");
  EXPECT_EQ(EventSetName(0), "none");
}

}  // namespace
}  // namespace gotraced::service
