// /proc reading and rule matching. See discovery.h. Formats: proc(5) — /proc/PID/stat
// (field 3 state, field 22 starttime; comm in parentheses may contain spaces and ')'),
// /proc/PID/status (Uid: real effective saved fs), /proc/PID/cgroup (v2: "0::PATH").
#include "daemon/service/discovery.h"

#include "daemon/procmem/mono_clock.h"

#include <dirent.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace gotraced::service {

namespace {

std::string ReadFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string Basename(const std::string &path) {
  std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

bool Glob(const std::string &pattern, const std::string &text) {
  return fnmatch(pattern.c_str(), text.c_str(), 0) == 0;
}

// State and start time from /proc/PID/stat; false if unreadable.
bool ReadStat(pid_t pid, char *state, std::uint64_t *start) {
  std::string s = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  std::size_t rp = s.rfind(')');
  if (rp == std::string::npos || rp + 2 >= s.size()) return false;
  std::istringstream rest(s.substr(rp + 2));
  std::string field;
  // Field 3 is the state; starttime is field 22, i.e. the 20th after the state.
  if (!(rest >> field) || field.empty()) return false;
  *state = field[0];
  for (int i = 4; i <= 22; i++)
    if (!(rest >> field)) return false;
  *start = std::strtoull(field.c_str(), nullptr, 10);
  return true;
}

}  // namespace

std::uint64_t ProcessStartTime(pid_t pid) {
  char state = 0;
  std::uint64_t start = 0;
  if (!ReadStat(pid, &state, &start) || state == 'Z' || state == 'X') return 0;
  return start;
}

bool ProcessAlive(pid_t pid, std::uint64_t start_time) {
  std::uint64_t st = ProcessStartTime(pid);
  return st != 0 && st == start_time;
}

namespace {

// The reads ReadProcBasics and ReadProcInfo share: stat, the exe link, comm.
bool ReadBasicsInto(pid_t pid, ProcInfo &p) {
  p.pid = pid;
  p.read_ns = procmem::MonoNowNs();
  const std::string dir = "/proc/" + std::to_string(pid);
  char state = 0;
  if (!ReadStat(pid, &state, &p.start_time) || state == 'Z' || state == 'X') return false;
  char buf[4096];
  ssize_t n = readlink((dir + "/exe").c_str(), buf, sizeof buf - 1);
  if (n > 0) {
    p.exe.assign(buf, static_cast<std::size_t>(n));
    const std::string deleted = " (deleted)";
    if (p.exe.size() > deleted.size() && p.exe.compare(p.exe.size() - deleted.size(), deleted.size(), deleted) == 0)
      p.exe.resize(p.exe.size() - deleted.size());
  } else {
    p.kernel_thread = true;
  }
  p.comm = ReadFile(dir + "/comm");
  while (!p.comm.empty() && p.comm.back() == '\n') p.comm.pop_back();
  return true;
}

}  // namespace

std::optional<ProcInfo> ReadProcBasics(pid_t pid) {
  ProcInfo p;
  if (!ReadBasicsInto(pid, p)) return std::nullopt;
  return p;
}

std::optional<ProcInfo> ReadProcInfo(pid_t pid) {
  ProcInfo p;
  if (!ReadBasicsInto(pid, p)) return std::nullopt;
  const std::string dir = "/proc/" + std::to_string(pid);
  p.binary = p.exe;
  struct stat self_ns {}, its_ns {};
  if (!p.kernel_thread && (stat("/proc/self/ns/mnt", &self_ns) != 0 || stat((dir + "/ns/mnt").c_str(), &its_ns) != 0 ||
                           self_ns.st_ino != its_ns.st_ino || self_ns.st_dev != its_ns.st_dev))
    p.binary = dir + "/exe";
  std::istringstream status(ReadFile(dir + "/status"));
  std::string line;
  bool have_uid = false;
  while (std::getline(status, line)) {
    if (line.rfind("Uid:", 0) == 0) {
      std::istringstream u(line.substr(4));
      unsigned long r = 0, e = 0;
      if (u >> r >> e) {
        p.uid = static_cast<uid_t>(r);
        p.euid = static_cast<uid_t>(e);
        have_uid = true;
      }
      break;
    }
  }
  if (!have_uid) return std::nullopt;
  const std::string cgroup_text = ReadFile(dir + "/cgroup");
  std::istringstream cg(cgroup_text);
  while (std::getline(cg, line)) {
    if (line.rfind("0::", 0) == 0) {
      p.cgroup = line.substr(3);
      break;
    }
  }
  p.identity = container::IdentityFromProc(pid, cgroup_text, status.str(), p.exe, IdentitySourcesFromEnv());
  return p;
}

std::vector<pid_t> ListPids() {
  std::vector<pid_t> out;
  DIR *d = opendir("/proc");
  if (!d) return out;
  while (dirent *e = readdir(d)) {
    char *end = nullptr;
    long v = std::strtol(e->d_name, &end, 10);
    if (*end == '\0' && v > 0) out.push_back(static_cast<pid_t>(v));
  }
  closedir(d);
  return out;
}

container::IdentitySources IdentitySourcesFromEnv() {
  container::IdentitySources src;
  if (const char *e = std::getenv("GOTRACED_HOST_ROOT"); e && *e && std::string_view(e) != "/") src.root = e;
  return src;
}

bool MatchesContainer(const std::string &g, const container::Identity &id) {
  if (!id.in_container()) return false;
  // A container id is also given shortened (docker ps, crictl ps: 12 or 13 characters).
  if (g.size() >= 4 && id.container_id.rfind(g, 0) == 0) return true;
  return Glob(g, id.container_id) || (!id.container_name.empty() && Glob(g, id.container_name));
}

bool MatchesRule(const WatchRule &rule, const ProcInfo &p) {
  if (p.kernel_thread) return false;
  auto any = [](const std::vector<std::string> &pats, auto &&pred) {
    for (const std::string &pat : pats)
      if (pred(pat)) return true;
    return false;
  };
  if (!rule.exe.empty() && !any(rule.exe, [&](const std::string &g) { return Glob(g, p.exe); })) return false;
  if (!rule.name.empty() &&
      !any(rule.name, [&](const std::string &g) { return Glob(g, p.comm) || Glob(g, Basename(p.exe)); }))
    return false;
  if (!rule.cgroup.empty() && !any(rule.cgroup, [&](const std::string &g) {
        if (p.cgroup.empty()) return false;
        std::string prefix = g;
        while (prefix.size() > 1 && prefix.back() == '/') prefix.pop_back();
        // Equal, or a descendant of the given cgroup, or a glob over the whole path.
        if (p.cgroup == prefix || (p.cgroup.rfind(prefix + "/", 0) == 0) || (prefix == "/")) return true;
        return Glob(g, p.cgroup);
      }))
    return false;
  if (!rule.unit.empty() && !any(rule.unit, [&](const std::string &u) {
        // systemd places a unit's processes in a cgroup named after it:
        // /system.slice/foo.service, /user.slice/.../app-foo.scope, .../foo.service/sub.
        std::string_view path = p.cgroup;
        while (!path.empty()) {
          std::size_t slash = path.find('/');
          std::string comp(path.substr(0, slash));
          if (!comp.empty() && Glob(u, comp)) return true;
          if (slash == std::string_view::npos) break;
          path.remove_prefix(slash + 1);
        }
        return false;
      }))
    return false;
  const container::Identity &id = p.identity;
  auto glob_field = [&](const std::vector<std::string> &pats, const std::string &v, const std::string &alt = {}) {
    return pats.empty() || any(pats, [&](const std::string &g) {
             return (!v.empty() && Glob(g, v)) || (!alt.empty() && Glob(g, alt));
           });
  };
  if (!rule.container.empty() && !any(rule.container, [&](const std::string &g) { return MatchesContainer(g, id); }))
    return false;
  if (!glob_field(rule.pod, id.pod_name, id.pod_uid)) return false;
  if (!glob_field(rule.pod_namespace, id.pod_namespace)) return false;
  if (!glob_field(rule.container_name, id.container_name)) return false;
  return true;
}

bool RulesCouldMatch(const Config &cfg, const ProcInfo &p) {
  if (p.kernel_thread) return false;
  for (const WatchRule &rule : cfg.watch) {
    bool exe_ok = rule.exe.empty(), name_ok = rule.name.empty();
    for (const std::string &g : rule.exe) exe_ok = exe_ok || Glob(g, p.exe);
    for (const std::string &g : rule.name) name_ok = name_ok || Glob(g, p.comm) || Glob(g, Basename(p.exe));
    if (exe_ok && name_ok) return true;
  }
  return false;
}

int MatchRules(const Config &cfg, const ProcInfo &p) {
  for (std::size_t i = 0; i < cfg.watch.size(); i++)
    if (MatchesRule(cfg.watch[i], p)) return static_cast<int>(i);
  return -1;
}

}  // namespace gotraced::service
