// Config parsing and validation (see config.h). toml++ gives every node its source
// position, so each error names the line of the offending key or value.
#include "daemon/service/config.h"

#include <grp.h>
#include <pwd.h>

#include <cctype>
#include <cerrno>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <toml++/toml.h>

#include <fmt/format.h>

#include "daemon/service/tcp_listen.h"
#include "daemon/upload/key_template.h"
#include "daemon/upload/s3_url.h"

namespace gotraced::service {

namespace {

struct EventName {
  std::string_view name;
  std::uint32_t bit;
};
constexpr EventName kEventNames[] = {
    {"sched", kEventSched}, {"syscall", kEventSyscall}, {"gc", kEventGc}, {"user", kEventUser}, {"cpu", kEventCpu},
    {"sweep", kEventSweep},
};

// A validation failure at a node; unwound to ParseConfig, which formats it.
struct ConfigError {
  toml::source_position pos;
  std::string reason;
};

[[noreturn]] void Fail(const toml::node &n, std::string reason) { throw ConfigError{n.source().begin, std::move(reason)}; }
[[noreturn]] void FailAt(toml::source_position pos, std::string reason) { throw ConfigError{pos, std::move(reason)}; }

std::string_view TypeName(const toml::node &n) {
  switch (n.type()) {
    case toml::node_type::table: return "table";
    case toml::node_type::array: return "array";
    case toml::node_type::string: return "string";
    case toml::node_type::integer: return "integer";
    case toml::node_type::floating_point: return "float";
    case toml::node_type::boolean: return "boolean";
    case toml::node_type::date: return "date";
    case toml::node_type::time: return "time";
    case toml::node_type::date_time: return "date-time";
    default: return "nothing";
  }
}

// Reads the keys of one table, refusing any key nobody asked for.
class Section {
 public:
  Section(const toml::table &t, std::string name) : t_(t), name_(std::move(name)) {}

  const toml::node *Get(std::string_view key) {
    seen_.emplace_back(key);
    return t_.get(key);
  }

  std::optional<std::string> String(std::string_view key) {
    const toml::node *n = Get(key);
    if (!n) return std::nullopt;
    if (!n->is_string()) Fail(*n, fmt::format("{}: expected a string, found {}", Key(key), TypeName(*n)));
    return n->value<std::string>();
  }
  std::optional<bool> Bool(std::string_view key) {
    const toml::node *n = Get(key);
    if (!n) return std::nullopt;
    if (!n->is_boolean()) Fail(*n, fmt::format("{}: expected true or false, found {}", Key(key), TypeName(*n)));
    return n->value<bool>();
  }
  // A number > 0 (integer or float), at most `max`.
  std::optional<double> Positive(std::string_view key, double max) {
    const toml::node *n = Get(key);
    if (!n) return std::nullopt;
    if (!n->is_number()) Fail(*n, fmt::format("{}: expected a number, found {}", Key(key), TypeName(*n)));
    double v = *n->value<double>();
    if (!(v > 0) || !std::isfinite(v)) Fail(*n, fmt::format("{}: must be greater than 0", Key(key)));
    if (v > max) Fail(*n, fmt::format("{}: {} is more than the maximum {}", Key(key), v, max));
    return v;
  }
  // A number >= 0 (0 usually meaning off), at most `max`.
  std::optional<double> NonNegative(std::string_view key, double max) {
    const toml::node *n = Get(key);
    if (!n) return std::nullopt;
    if (!n->is_number()) Fail(*n, fmt::format("{}: expected a number, found {}", Key(key), TypeName(*n)));
    double v = *n->value<double>();
    if (!(v >= 0) || !std::isfinite(v)) Fail(*n, fmt::format("{}: must be 0 (off) or more", Key(key)));
    if (v > max) Fail(*n, fmt::format("{}: {} is more than the maximum {}", Key(key), v, max));
    return v;
  }
  // A number of seconds, 0 allowed (off), as milliseconds (at least 1 when not 0).
  std::optional<std::chrono::milliseconds> Seconds0(std::string_view key, double max) {
    auto v = NonNegative(key, max);
    if (!v) return std::nullopt;
    return std::chrono::milliseconds(*v > 0 ? std::max<std::int64_t>(1, std::llround(*v * 1000)) : 0);
  }
  std::optional<std::int64_t> Integer(std::string_view key, std::int64_t min, std::int64_t max) {
    const toml::node *n = Get(key);
    if (!n) return std::nullopt;
    if (!n->is_integer()) Fail(*n, fmt::format("{}: expected an integer, found {}", Key(key), TypeName(*n)));
    std::int64_t v = *n->value<std::int64_t>();
    if (v < min || v > max) Fail(*n, fmt::format("{}: {} is outside {}..{}", Key(key), v, min, max));
    return v;
  }
  // A string or an array of non-empty strings.
  std::vector<std::string> Strings(std::string_view key) {
    std::vector<std::string> out;
    const toml::node *n = Get(key);
    if (!n) return out;
    auto one = [&](const toml::node &e) {
      if (!e.is_string()) Fail(e, fmt::format("{}: expected strings, found {}", Key(key), TypeName(e)));
      std::string s = *e.value<std::string>();
      if (s.empty()) Fail(e, fmt::format("{}: empty pattern", Key(key)));
      out.push_back(std::move(s));
    };
    if (const toml::array *a = n->as_array()) {
      if (a->empty()) Fail(*n, fmt::format("{}: empty list", Key(key)));
      for (const toml::node &e : *a) one(e);
    } else {
      one(*n);
    }
    return out;
  }
  std::optional<std::uint32_t> Events(std::string_view key) {
    const toml::node *n = Get(key);
    if (!n) return std::nullopt;
    const toml::array *a = n->as_array();
    if (!a) Fail(*n, fmt::format("{}: expected an array such as [\"sched\", \"syscall\"], found {}", Key(key), TypeName(*n)));
    std::uint32_t set = 0;
    for (const toml::node &e : *a) {
      std::optional<std::string> s = e.value<std::string>();
      if (!e.is_string() || !s) Fail(e, fmt::format("{}: expected event class names, found {}", Key(key), TypeName(e)));
      std::uint32_t bit = 0;
      for (const EventName &en : kEventNames)
        if (en.name == *s) bit = en.bit;
      if (*s == "all") bit = kEventAll;
      if (!bit) Fail(e, fmt::format("{}: unknown event class \"{}\" (known: sched, syscall, gc, user, cpu, sweep, all)", Key(key), *s));
      set |= bit;
    }
    if (!set) Fail(*n, fmt::format("{}: no event class given", Key(key)));
    return set;
  }

  // Every key of the table must have been asked for.
  void RejectUnknown() const {
    for (auto &&[k, v] : t_) {
      bool known = false;
      for (const std::string &s : seen_) known |= (s == k.str());
      if (!known) {
        toml::source_position pos = k.source().begin ? k.source().begin : v.source().begin;
        FailAt(pos, fmt::format("unknown key {}", Key(k.str())));
      }
    }
  }
  std::string Key(std::string_view key) const { return name_.empty() ? std::string(key) : name_ + "." + std::string(key); }

 private:
  const toml::table &t_;
  std::string name_;
  std::vector<std::string> seen_;
};

const toml::table *SubTable(Section &top, std::string_view key) {
  const toml::node *n = top.Get(key);
  if (!n) return nullptr;
  if (!n->is_table()) Fail(*n, fmt::format("{}: expected a table [{}], found {}", key, key, TypeName(*n)));
  return n->as_table();
}

// The names session::ParseTraceVersion accepts, kept here so the config parser links
// (and fuzzes) without the capture pipeline; the unit tests check both agree.
std::optional<session::TraceVersion> TraceVersionFromText(std::string t) {
  for (char &c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (t == "auto" || t.empty()) return session::TraceVersion::kAuto;
  if (t.rfind("go", 0) == 0) t = t.substr(2);
  if (t.rfind("1.", 0) == 0) t = t.substr(2);
  if (t == "19" || t == "20") return session::TraceVersion::kGo119;
  if (t == "21") return session::TraceVersion::kGo121;
  if (t == "22") return session::TraceVersion::kGo122;
  if (t == "23" || t == "24") return session::TraceVersion::kGo123;
  if (t == "25") return session::TraceVersion::kGo125;
  if (t == "26" || t == "27") return session::TraceVersion::kGo126;
  return std::nullopt;
}

std::optional<session::CaptureLevel> LevelOf(Section &s, const toml::table &t, std::string_view key) {
  const toml::node *n = t.get(key);
  if (!n) return std::nullopt;
  auto text = s.String(key);
  auto v = session::ParseCaptureLevel(*text);
  if (!v) Fail(*n, fmt::format("{}: \"{}\" is not one of full, sched, low", s.Key(key), *text));
  return v;
}

constexpr double kMaxWindowSeconds = 24 * 3600;
constexpr double kMaxMegabytes = 1024 * 1024;  // 1 TiB: catches unit slips, nothing more

std::size_t Megabytes(double mb) { return static_cast<std::size_t>(std::llround(mb * 1024 * 1024)); }

void ParseFlight(const toml::table &t, Config &c) {
  Section s(t, "flight");
  if (auto v = s.Positive("window_seconds", kMaxWindowSeconds)) c.window_seconds = *v;
  if (auto v = s.Positive("window_mb", kMaxMegabytes)) c.window_bytes = Megabytes(*v);
  if (auto v = s.Positive("memory_mb", kMaxMegabytes)) c.memory_bytes = Megabytes(*v);
  if (auto v = s.Integer("keep_exited", 0, 100000)) c.keep_exited = static_cast<std::size_t>(*v);
  if (auto v = s.Integer("generation_ms", 10, 600000)) c.generation_period = std::chrono::milliseconds(*v);
  if (auto v = s.Events("events")) c.events = *v;
  if (auto v = LevelOf(s, t, "level")) c.level = *v;
  if (auto v = s.Integer("cpu_hz", 1, 1000)) c.cpu_hz = static_cast<std::uint32_t>(*v);
  if (auto v = s.Seconds0("state_sample_seconds", kMaxWindowSeconds)) c.state_sample = *v;
  if (auto v = s.NonNegative("syscall_min_ms", 3600e3)) c.syscall_min_ms = *v;
  if (const toml::node *n = t.get("syscalls_by")) {
    auto text = s.String("syscalls_by");
    if (text && (*text == "sample" || *text == "switch" || *text == "tracepoint")) {
      c.syscalls_by_sample = *text == "sample";
      c.syscalls_by_switch = *text == "switch";
    } else {
      Fail(*n, fmt::format("flight.syscalls_by: \"{}\" is not one of switch, sample, tracepoint", text ? *text : ""));
    }
  }
  if (const toml::node *n = t.get("trace_version")) {
    auto text = s.String("trace_version");
    auto v = TraceVersionFromText(*text);
    if (!v) Fail(*n, fmt::format("flight.trace_version: \"{}\" is not one of auto, go1.19, go1.21, go1.22, go1.23, go1.25, go1.26", *text));
    c.trace_version = *v;
  }
  if (auto v = s.Positive("ring_mb", 4096)) c.ring_bytes = Megabytes(*v);
  s.RejectUnknown();
  if (c.window_bytes > c.memory_bytes)
    FailAt(t.source().begin, fmt::format("flight.window_mb ({} MiB) is larger than flight.memory_mb ({} MiB)",
                                         c.window_bytes >> 20, c.memory_bytes >> 20));
}

// "0660", "660", 0o660 (TOML octal integer) or 432 (decimal).
mode_t ParseMode(const toml::node &n) {
  std::int64_t m = -1;
  if (n.is_integer()) {
    m = *n.value<std::int64_t>();
  } else if (n.is_string()) {
    std::string s = *n.value<std::string>();
    char *end = nullptr;
    errno = 0;
    long v = std::strtol(s.c_str(), &end, 8);
    if (s.empty() || errno || *end != '\0') Fail(n, fmt::format("endpoint.mode: \"{}\" is not an octal mode such as \"0660\"", s));
    m = v;
  } else {
    Fail(n, fmt::format("endpoint.mode: expected an octal string such as \"0660\", found {}", TypeName(n)));
  }
  if (m < 0 || m > 0777) Fail(n, fmt::format("endpoint.mode: {:o} is not a permission mode (0..0777)", m));
  return static_cast<mode_t>(m);
}

void ParseEndpoint(const toml::table &t, Config &c) {
  Section s(t, "endpoint");
  if (auto v = s.String("socket")) {
    if (v->empty() || (*v)[0] != '/') Fail(*t.get("socket"), "endpoint.socket: must be an absolute path");
    // sockaddr_un.sun_path is 108 bytes including the terminating NUL.
    if (v->size() > 107) Fail(*t.get("socket"), fmt::format("endpoint.socket: path longer than 107 bytes ({})", v->size()));
    c.socket = *v;
  }
  if (auto v = s.String("owner")) {
    c.owner = *v;
    if (c.owner.empty()) Fail(*t.get("owner"), "endpoint.owner: empty user name");
  }
  if (auto v = s.String("group")) {
    c.group = *v;
    if (c.group.empty()) Fail(*t.get("group"), "endpoint.group: empty group name");
  }
  if (const toml::node *n = s.Get("mode")) c.mode = ParseMode(*n);
  if (auto v = s.Integer("max_trace_seconds", 1, 24 * 3600)) c.max_trace_seconds = static_cast<int>(*v);
  if (auto v = s.String("metrics_address")) {
    std::string host;
    int port = 0;
    if (!v->empty() && !SplitHostPort(*v, &host, &port))
      Fail(*t.get("metrics_address"), fmt::format("endpoint.metrics_address: \"{}\" is not HOST:PORT (e.g. \"0.0.0.0:9464\")", *v));
    c.metrics_address = *v;
  }
  s.RejectUnknown();
}

void ParseSpool(const toml::table &t, Config &c) {
  Section s(t, "spool");
  if (auto v = s.String("dir")) {
    if (v->empty() || (*v)[0] != '/') Fail(*t.get("dir"), "spool.dir: must be an absolute path");
    c.spool_dir = *v;
  }
  if (auto v = s.Integer("max_files", 1, 100000)) c.spool_max_files = static_cast<std::size_t>(*v);
  if (auto v = s.Positive("max_mb", kMaxMegabytes)) c.spool_max_bytes = Megabytes(*v);
  s.RejectUnknown();
}

void ParseDiscovery(const toml::table &t, Config &c) {
  Section s(t, "discovery");
  if (auto v = s.Bool("exec_watch")) c.exec_watch = *v;
  if (auto v = s.Positive("rescan_seconds", 24 * 3600)) c.rescan_seconds = *v;
  s.RejectUnknown();
}

WatchRule ParseWatch(const toml::table &t, std::size_t index) {
  Section s(t, fmt::format("watch[{}]", index));
  WatchRule r;
  r.line = static_cast<int>(t.source().begin.line);
  r.exe = s.Strings("exe");
  r.name = s.Strings("name");
  r.cgroup = s.Strings("cgroup");
  r.unit = s.Strings("unit");
  r.container = s.Strings("container");
  r.pod = s.Strings("pod");
  r.pod_namespace = s.Strings("namespace");
  r.container_name = s.Strings("container_name");
  if (auto v = s.Positive("window_seconds", kMaxWindowSeconds)) r.window_seconds = *v;
  if (auto v = s.Positive("window_mb", kMaxMegabytes)) r.window_bytes = Megabytes(*v);
  r.events = s.Events("events");
  r.level = LevelOf(s, t, "level");
  r.state_sample = s.Seconds0("state_sample_seconds", kMaxWindowSeconds);
  if (const toml::table *tt = SubTable(s, "triggers")) {
    Section ts(*tt, fmt::format("watch[{}].triggers", index));
    TriggerConfig &tc = r.triggers;
    if (auto v = ts.Positive("stw_ms", 3600e3)) tc.stw_ms = *v;
    if (auto v = ts.Positive("syscall_ms", 3600e3)) tc.syscall_ms = *v;
    if (auto v = ts.Positive("cpu_throttle_ms", 3600e3)) tc.cpu_throttle_ms = *v;
    if (auto v = ts.Positive("sched_latency_ms", 3600e3)) tc.sched_latency_ms = *v;
    if (auto v = ts.Positive("after_seconds", 600)) tc.after_seconds = *v;
    if (auto v = ts.Positive("min_interval_seconds", 24 * 3600)) tc.min_interval_seconds = *v;
    ts.RejectUnknown();
    if (!tc.any())
      FailAt(tt->source().begin, fmt::format("watch[{}].triggers: no threshold given (stw_ms, syscall_ms, "
                                             "cpu_throttle_ms, sched_latency_ms)", index));
  }
  s.RejectUnknown();
  if (r.exe.empty() && r.name.empty() && r.cgroup.empty() && r.unit.empty() && r.container.empty() && r.pod.empty() &&
      r.pod_namespace.empty() && r.container_name.empty())
    FailAt(t.source().begin,
           "[[watch]] needs at least one of exe, name, cgroup, unit, container, pod, namespace, container_name");
  for (const std::string &e : r.exe)
    if (e[0] != '/' && e[0] != '*')
      FailAt(t.get("exe")->source().begin, fmt::format("watch.exe: \"{}\" is not an absolute path or glob", e));
  for (const std::string &cg : r.cgroup)
    if (cg[0] != '/' && cg[0] != '*')
      FailAt(t.get("cgroup")->source().begin, fmt::format("watch.cgroup: \"{}\" must start with / (a cgroup v2 path)", cg));
  return r;
}

// [upload] (daemon/upload/upload_config.h). The URL, bucket and template are checked
// here, with their line; credentials and the store itself at start-up and reload.
upload::UploadConfig ParseUpload(const toml::table &t) {
  Section s(t, "upload");
  upload::UploadConfig u;
  u.line = static_cast<int>(t.source().begin.line);
  std::string why;
  if (auto v = s.String("endpoint")) {
    if (!upload::ParseEndpoint(*v, &why)) Fail(*t.get("endpoint"), "upload." + why);
    u.endpoint = *v;
  }
  auto bucket = s.String("bucket");
  if (!bucket) FailAt(t.source().begin, "[upload] needs a bucket");
  if (auto p = upload::BucketNameProblem(*bucket)) Fail(*t.get("bucket"), "upload." + *p);
  u.bucket = *bucket;
  if (auto v = s.String("prefix")) u.prefix = *v;
  if (auto v = s.String("region")) u.region = *v;
  if (u.region.empty()) Fail(*t.get("region"), "upload.region: empty");
  if (auto v = s.Bool("path_style")) u.path_style = *v;
  if (auto v = s.String("access_key_file")) u.access_key_file = *v;
  if (auto v = s.String("secret_key_file")) u.secret_key_file = *v;
  if (auto v = s.String("session_token_file")) u.session_token_file = *v;
  if (u.access_key_file.empty() != u.secret_key_file.empty())
    FailAt(t.source().begin, "upload: give both access_key_file and secret_key_file, or neither (then AWS_ACCESS_KEY_ID "
                             "and AWS_SECRET_ACCESS_KEY)");
  if (auto v = s.String("ca_file")) u.ca_file = *v;
  if (auto v = s.Bool("tls_verify")) u.tls_verify = *v;
  if (auto v = s.String("node")) u.node = *v;
  if (auto v = s.String("key_template")) {
    if (auto p = upload::KeyTemplateProblem(*v)) Fail(*t.get("key_template"), "upload.key_template: " + *p);
    u.key_template = *v;
  }
  if (auto v = s.Positive("part_mb", 5 * 1024)) {
    if (*v < 5) Fail(*t.get("part_mb"), "upload.part_mb: S3 parts are at least 5 MiB");
    u.part_bytes = Megabytes(*v);
  }
  if (auto v = s.Positive("retry_initial_seconds", 3600)) u.retry_initial_seconds = *v;
  if (auto v = s.Positive("retry_max_seconds", 24 * 3600)) u.retry_max_seconds = *v;
  if (u.retry_max_seconds < u.retry_initial_seconds)
    FailAt(t.source().begin, "upload.retry_max_seconds is smaller than retry_initial_seconds");
  if (auto v = s.NonNegative("max_mb_per_second", 100000)) u.max_bytes_per_second = Megabytes(*v);
  s.RejectUnknown();
  return u;
}

void ResolveOwner(const toml::table &root, Config &c) {
  auto where = [&](std::string_view key) {
    const toml::node *ep = root.get("endpoint");
    const toml::node *n = ep && ep->is_table() ? ep->as_table()->get(key) : nullptr;
    return n ? n->source().begin : root.source().begin;
  };
  char *end = nullptr;
  long uid = std::strtol(c.owner.c_str(), &end, 10);
  if (*end == '\0' && uid >= 0) {
    c.owner_uid = static_cast<uid_t>(uid);
  } else if (const passwd *pw = getpwnam(c.owner.c_str())) {
    c.owner_uid = pw->pw_uid;
  } else {
    FailAt(where("owner"), fmt::format("endpoint.owner: no user \"{}\" on this system", c.owner));
  }
  long gid = std::strtol(c.group.c_str(), &end, 10);
  if (*end == '\0' && gid >= 0) {
    c.group_gid = static_cast<gid_t>(gid);
  } else if (const group *gr = getgrnam(c.group.c_str())) {
    c.group_gid = gr->gr_gid;
  } else {
    FailAt(where("group"), fmt::format("endpoint.group: no group \"{}\" on this system", c.group));
  }
}

}  // namespace

std::string EventSetName(std::uint32_t events) {
  if ((events & kEventAll) == kEventAll) return "all";
  std::string out;
  for (const EventName &en : kEventNames) {
    if (!(events & en.bit)) continue;
    if (!out.empty()) out += ",";
    out += en.name;
  }
  return out.empty() ? "none" : out;
}

session::SessionOptions::EventSet SessionEvents(std::uint32_t events, std::uint32_t cpu_hz) {
  session::SessionOptions::EventSet set;
  set.gc = (events & kEventGc) != 0;
  set.sweeps = set.gc && (events & kEventSweep) != 0;  // sweep probes are GC probes
  set.user = (events & kEventUser) != 0;
  set.cpu_hz = (events & kEventCpu) != 0 ? cpu_hz : 0;
  set.syscalls = (events & kEventSyscall) != 0;
  return set;
}

std::optional<Config> ParseConfig(std::string_view text, const std::string &path, std::string *error) {
  const std::string file = path.empty() ? "<config>" : path;
  auto format = [&](toml::source_position pos, std::string_view reason) {
    if (error) {
      if (pos.line) *error = fmt::format("{}:{}:{}: {}", file, pos.line, pos.column, reason);
      else *error = fmt::format("{}: {}", file, reason);
    }
  };
  Config c;
  c.path = path;
  try {
    toml::table root = toml::parse(text, file);
    Section top(root, "");
    if (const toml::table *t = SubTable(top, "flight")) ParseFlight(*t, c);
    if (const toml::table *t = SubTable(top, "endpoint")) ParseEndpoint(*t, c);
    if (const toml::table *t = SubTable(top, "discovery")) ParseDiscovery(*t, c);
    if (const toml::table *t = SubTable(top, "spool")) ParseSpool(*t, c);
    if (const toml::table *t = SubTable(top, "upload")) c.upload = ParseUpload(*t);
    if (const toml::table *t = SubTable(top, "testing")) {
      Section s(*t, "testing");
      if (auto v = s.Bool("synthetic")) c.synthetic = *v;
      s.RejectUnknown();
    }
    if (const toml::node *w = top.Get("watch")) {
      const toml::array *a = w->as_array();
      if (!a || !a->is_array_of_tables())
        Fail(*w, "watch: expected [[watch]] tables (an array of tables)");
      for (std::size_t i = 0; i < a->size(); i++) c.watch.push_back(ParseWatch(*a->get(i)->as_table(), i));
      // A syscall trigger needs the syscalls its level records: at low, `syscall` in events.
      for (std::size_t i = 0; i < c.watch.size(); i++)
        if (c.watch[i].triggers.syscall_ms > 0 && !(c.Events(c.watch[i]) & kEventSyscall))
          FailAt(a->get(i)->as_table()->source().begin,
                 fmt::format("watch[{}].triggers.syscall_ms needs the syscalls recorded: add \"syscall\" to events "
                             "(at level low they are optional)", i));
    }
    top.RejectUnknown();
    if (c.watch.empty()) FailAt(root.source().begin, "no [[watch]] entry: nothing to trace");
    ResolveOwner(root, c);
  } catch (const toml::parse_error &e) {
    format(e.source().begin, e.description());
    return std::nullopt;
  } catch (const ConfigError &e) {
    format(e.pos, e.reason);
    return std::nullopt;
  }
  return c;
}

std::optional<Config> LoadConfig(const std::string &path, std::string *error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = fmt::format("{}: cannot read: {}", path, std::strerror(errno));
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    if (error) *error = fmt::format("{}: read error", path);
    return std::nullopt;
  }
  return ParseConfig(ss.str(), path, error);
}

}  // namespace gotraced::service
