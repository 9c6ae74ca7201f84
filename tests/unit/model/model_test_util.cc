#include "tests/unit/model/model_test_util.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace gotraced::model::testing {

const std::string &TableSymbolizer::Name(std::uint64_t pc, std::string_view prefix) {
  auto it = names_.find(pc);
  if (it != names_.end()) return it->second;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*s_%llx", static_cast<int>(prefix.size()), prefix.data(),
                static_cast<unsigned long long>(pc));
  return names_.emplace(pc, buf).first->second;
}

void TableSymbolizer::Expand(std::span<const std::uint64_t> pcs, std::vector<encoder::Frame> &out) {
  ++expand_calls;
  static const std::string kFile = "/src/app/main.go";
  for (std::uint64_t pc : pcs) {
    if (pc == kGoexitPc) {
      out.push_back({pc - 1, "runtime.goexit", "/usr/local/go/src/runtime/asm_amd64.s", 1700});
    } else if (pc == kMainPc) {
      out.push_back({pc - 1, "runtime.main", "/usr/local/go/src/runtime/proc.go", 283});
    } else if (pc >= kInlinedBase && pc < kInlinedBase + 0x1000) {
      // Inlined callee first (leaf first), then its physical function; distinct pcs.
      out.push_back({pc - 1, Name(pc, "main.inlined"), kFile, pc % 1000});
      out.push_back({pc + 0x100000, Name(pc + 0x100000, "main.outer"), kFile, pc % 1000 + 1});
    } else {
      out.push_back({pc - 1, Name(pc, "main.f"), kFile, pc % 1000});
    }
  }
}

void TableSymbolizer::StartFrame(std::uint64_t start_pc, std::vector<encoder::Frame> &out) {
  out.push_back({start_pc, Name(start_pc, "main.start"), "/src/app/main.go", start_pc % 1000});
}

namespace {
Record Base(std::uint64_t ts, ThreadId m, ProcId p, Goid g, RecordKind k) {
  Record r;
  r.ts = ts;
  r.m = m;
  r.p = p;
  r.g = g;
  r.kind = k;
  return r;
}
std::vector<std::uint64_t> StackFor(Goid g, std::uint64_t site) {
  return {0x600000 + site, 0x610000 + g % 7, kGoexitPc};
}
}  // namespace

Record RProcStart(std::uint64_t ts, ThreadId m, ProcId p) {
  Record r = Base(ts, m, kNoP, kNoG, RecordKind::kProcStart);
  r.target_p = p;
  return r;
}
Record RProcStop(std::uint64_t ts, ThreadId m, ProcId p) { return Base(ts, m, p, kNoG, RecordKind::kProcStop); }
Record RProcSteal(std::uint64_t ts, ThreadId m, ProcId p, ThreadId victim) {
  Record r = Base(ts, m, kNoP, kNoG, RecordKind::kProcSteal);
  r.target_p = p;
  r.victim_m = victim;
  return r;
}
Record RProcsChange(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::uint64_t procs) {
  Record r = Base(ts, m, p, g, RecordKind::kProcsChange);
  r.value = procs;
  r.stack = StackFor(g, 1);
  return r;
}
Record RGoCreate(std::uint64_t ts, ThreadId m, ProcId p, Goid g, Goid newg, bool blocked) {
  Record r = Base(ts, m, p, g, RecordKind::kGoCreate);
  r.target_g = newg;
  r.value = 0x700000 + newg % 5;
  r.flag = blocked;
  r.stack = StackFor(g, 2);
  return r;
}
Record RGoStart(std::uint64_t ts, ThreadId m, ProcId p, Goid g) {
  Record r = Base(ts, m, p, kNoG, RecordKind::kGoStart);
  r.target_g = g;
  return r;
}
Record RGoBlock(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::string_view reason) {
  Record r = Base(ts, m, p, g, RecordKind::kGoBlock);
  r.reason = reason;
  r.stack = StackFor(g, 3);
  r.stack_skip = 0;
  return r;
}
Record RGoStop(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::string_view reason) {
  Record r = Base(ts, m, p, g, RecordKind::kGoStop);
  r.reason = reason;
  r.stack = StackFor(g, 4);
  return r;
}
Record RGoEnd(std::uint64_t ts, ThreadId m, ProcId p, Goid g) { return Base(ts, m, p, g, RecordKind::kGoEnd); }
Record RGoUnblock(std::uint64_t ts, ThreadId m, ProcId p, Goid g, Goid target) {
  Record r = Base(ts, m, p, g, RecordKind::kGoUnblock);
  r.target_g = target;
  r.stack = StackFor(g, 5);
  return r;
}
Record RSyscall(std::uint64_t ts, ThreadId m, ProcId p, Goid g) {
  Record r = Base(ts, m, p, g, RecordKind::kGoSyscallBegin);
  r.stack = StackFor(g, 6);
  return r;
}
Record RSyscallEnd(std::uint64_t ts, ThreadId m, ProcId p, Goid g) {
  return Base(ts, m, p, g, RecordKind::kGoSyscallEnd);
}
Record RSyscallEndBlocked(std::uint64_t ts, ThreadId m, ProcId p, Goid g) {
  return Base(ts, m, p, g, RecordKind::kGoSyscallEndBlocked);
}
Record RGoSwitch(std::uint64_t ts, ThreadId m, ProcId p, Goid g, Goid next, bool destroy) {
  Record r = Base(ts, m, p, g, RecordKind::kGoSwitch);
  r.target_g = next;
  r.flag = destroy;
  return r;
}

long CheckResult::Int(std::string_view key, std::string_view sub) const {
  std::string k = "\"" + std::string(key) + "\":";
  std::size_t pos = json.find(k);
  if (pos == std::string::npos) return -1;
  pos += k.size();
  while (pos < json.size() && json[pos] == ' ') ++pos;
  if (!sub.empty()) {
    if (pos >= json.size() || json[pos] != '{') return -1;
    std::size_t end = json.find('}', pos);
    std::string s = "\"" + std::string(sub) + "\":";
    std::size_t p2 = json.find(s, pos);
    if (p2 == std::string::npos || p2 > end) return 0;
    pos = p2 + s.size();
    while (pos < json.size() && json[pos] == ' ') ++pos;
  }
  return std::strtol(json.c_str() + pos, nullptr, 10);
}

std::string TracecheckPath() {
  namespace fs = std::filesystem;
  const char *b = std::getenv("GOTRACED_BUILD");
  fs::path build = b ? fs::path(b) : fs::path(GOTRACED_BINARY_DIR);
  fs::path tool = build / "tools" / "tracecheck";
  if (fs::exists(tool)) return tool.string();
  // Build it once; serialize concurrent test processes with a lock file.
  fs::create_directories(build / "tools");
  int fd = ::open((build / "tools" / ".build.lock").c_str(), O_CREAT | O_RDWR, 0644);
  if (fd >= 0) ::flock(fd, LOCK_EX);
  if (!fs::exists(tool)) {
    std::string cmd = "bash '" + std::string(GOTRACED_SOURCE_DIR) + "/scripts/build-tools.sh' '" + build.string() +
                      "' >&2";
    if (std::system(cmd.c_str()) != 0) std::cerr << "model tests: could not build tracecheck: " << cmd << "\n";
  }
  if (fd >= 0) ::close(fd);
  return fs::exists(tool) ? tool.string() : std::string();
}

CheckResult RunTracecheck(const std::vector<std::uint8_t> &bytes, const std::string &name) {
  namespace fs = std::filesystem;
  CheckResult res;
  fs::path dir = fs::temp_directory_path() / "gotraced-model-tests";
  fs::create_directories(dir);
  res.path = (dir / (name + ".trace")).string();
  {
    std::ofstream f(res.path, std::ios::binary);
    f.write(reinterpret_cast<const char *>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  }
  std::string tool = TracecheckPath();
  if (tool.empty()) {
    res.errors = "tracecheck not available";
    return res;
  }
  std::string err_path = res.path + ".err";
  std::string cmd = "'" + tool + "' '" + res.path + "' 2>'" + err_path + "'";
  FILE *p = ::popen(cmd.c_str(), "r");
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) res.json.append(buf, n);
  int st = ::pclose(p);
  res.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  std::ifstream ef(err_path);
  std::stringstream ss;
  ss << ef.rdbuf();
  res.errors = ss.str();
  return res;
}

static ModelOptions TestModelOptions() {
  ModelOptions o;
  if (std::getenv("GOTRACED_MODEL_DEBUG")) o.on_repair = [](const std::string &s) { std::cerr << "repair: " << s << "\n"; };
  return o;
}

Harness::Harness(encoder::Version v)
    : writer(sink, encoder::WriterOptions{.version = v, .tick_divisor = 1}), model(writer, &sym, TestModelOptions()) {}

void Harness::Push(Record r) {
  last_ts = std::max(last_ts, r.ts);
  model.Push(std::move(r));
}

void Harness::PushAll(std::vector<Record> rs) {
  for (auto &r : rs) Push(std::move(r));
}

CheckResult Harness::Finish(const std::string &name) {
  model.Finish(last_ts + 1);
  writer.Close();
  return RunTracecheck(sink.bytes(), name);
}

}  // namespace gotraced::model::testing
