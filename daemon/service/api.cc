// Endpoint resources. See api.h.
#include "daemon/service/api.h"

#include <malloc.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <ctime>
#include <thread>

#include <fmt/format.h>

#include "daemon/capture/capture.h"
#include "daemon/json/json_text.h"
#include "daemon/service/identity_output.h"
#include "daemon/service/processes_json.h"
#include "daemon/service/service.h"
#include "daemon/upload/upload_status.h"

namespace gotraced::service {

namespace {

using SteadyClock = std::chrono::steady_clock;
using Headers = std::vector<std::pair<std::string, std::string>>;

constexpr std::string_view kText = "text/plain; charset=utf-8";
constexpr std::string_view kTrace = "application/octet-stream";

bool Allowed(const Peer &peer, const ProcInfo &p) { return peer.uid == 0 || peer.uid == p.uid || peer.uid == p.euid; }

// The uploader's state; file and key names (which name other users' processes) for root only.
upload::UploadStats UploadFor(const Service &svc, const Peer &peer) {
  upload::UploadStats u = svc.UploadStats();
  if (peer.uid != 0) {
    u.recent_lost.clear();
    u.last_error_file.clear();
    u.last_key.clear();
  }
  return u;
}

void Error(ResponseWriter &w, int status, const std::string &msg) { w.Reply(status, kText, msg + "\n"); }

std::string Rfc3339(std::chrono::system_clock::time_point t) {
  if (t.time_since_epoch().count() == 0) return {};
  std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}


// pid=N: required, a positive pid.
bool PidParam(const http::Request &req, ResponseWriter &w, pid_t *pid) {
  auto v = req.Param("pid");
  if (!v) {
    Error(w, 400, "missing pid parameter (pid=N)");
    return false;
  }
  auto n = http::ParseInt(*v, 1, 0x3fffffff);  // PID_MAX_LIMIT is 2^22; be generous
  if (!n) {
    Error(w, 400, "pid must be a positive decimal number");
    return false;
  }
  *pid = static_cast<pid_t>(*n);
  return true;
}

// Rejects unknown parameters, so a typo ("second=5") is a 400 and not a silent default.
bool OnlyParams(const http::Request &req, ResponseWriter &w, std::initializer_list<std::string_view> known) {
  for (const auto &[k, v] : req.query) {
    bool ok = false;
    for (std::string_view n : known) ok |= (k == n);
    if (!ok) {
      Error(w, 400, fmt::format("unknown parameter \"{}\"", k.substr(0, 64)));
      return false;
    }
  }
  return true;
}

Headers TraceHeaders(pid_t pid, std::string_view kind) {
  return {{"Content-Disposition", fmt::format("attachment; filename=\"pid{}-{}.trace\"", pid, kind)},
          {"X-Content-Type-Options", "nosniff"}};
}

void Forbidden(Service &svc, ResponseWriter &w, const Peer &peer, pid_t pid) {
  (void)svc;
  (void)peer;
  Error(w, 403, fmt::format("forbidden: only root and the owner of pid {} may read its trace", pid));
}

// Streams header + chunks; Begin() only once there is something valid to send. The
// chunker adds a legacy format's restart prelude and rebases its generations when the
// stream starts after the first one (flight_recorder.h TraceChunker).
struct TraceStream {
  ResponseWriter &w;
  pid_t pid;
  std::string_view kind;
  bool begun = false;
  std::uint64_t last_gen = 0;
  TraceChunker chunker{};
  std::vector<std::uint8_t> buf{};

  bool Send(const std::vector<std::uint8_t> &header, const GenerationChunk &c) {
    if (!begun) {
      if (header.empty()) return false;
      begun = true;
      if (!w.Begin(200, kTrace, TraceHeaders(pid, kind))) return false;
    }
    last_gen = c.gen;
    buf.clear();
    std::string err;
    if (!chunker.Next(header, c, buf, &err)) {
      spdlog::warn("endpoint: pid {}: generation {}: {}", pid, c.gen, err);
      return false;
    }
    return w.Chunk(buf);
  }
};

// upload=1 on /flight or /trace: "a dump asked to upload" (docs/upload.md). The trace is
// not streamed back: it is saved to the spool and queued for the uploader like a trigger's
// files; the reply names the file and its object key. A watched process only (its
// recording is where the window and the escalation come from).
std::optional<bool> UploadParam(const http::Request &req, ResponseWriter &w) {
  auto v = req.Param("upload");
  if (!v || *v == "0" || *v == "false") return false;
  if (*v == "1" || *v == "true") return true;
  Error(w, 400, "upload must be 0 or 1");
  return std::nullopt;
}

void HandleSaveForUpload(Service &svc, const Peer &peer, ResponseWriter &w, pid_t pid, double seconds) {
  const Config cfg = svc.config();
  if (!cfg.upload) return Error(w, 409, "this service has no [upload] table: nothing to upload to");
  std::shared_ptr<Target> t = svc.FindTarget(pid);
  if (!t || !t->live()) return Error(w, 404, fmt::format("pid {} is not traced by this service (see /processes)", pid));
  if (!Allowed(peer, t->info)) return Forbidden(svc, w, peer, pid);
  SavedDump saved;
  std::string err;
  if (!SaveDumpToSpool(svc, t, seconds, &saved, &err)) return Error(w, 500, fmt::format("pid {}: {}", pid, err));
  const json::Json j = {{"file", saved.file}, {"bytes", saved.bytes}, {"spool", cfg.spool_dir}, {"key", saved.key},
                        {"bucket", cfg.upload->bucket}};
  w.Reply(200, "application/json", json::Text(j) + "\n");
}

void HandleFlight(Service &svc, const http::Request &req, const Peer &peer, ResponseWriter &w) {
  pid_t pid;
  if (!OnlyParams(req, w, {"pid", "wait", "upload"}) || !PidParam(req, w, &pid)) return;
  const std::optional<bool> upload = UploadParam(req, w);
  if (!upload) return;
  if (*upload) return HandleSaveForUpload(svc, peer, w, pid, 0);
  bool wait = true;
  if (auto v = req.Param("wait")) {
    if (*v == "0" || *v == "false") wait = false;
    else if (*v == "1" || *v == "true") wait = true;
    else return Error(w, 400, "wait must be 0 or 1");
  }
  std::shared_ptr<Target> t = svc.FindTarget(pid);
  if (!t) return Error(w, 404, fmt::format("pid {} is not traced by this service (see /processes)", pid));
  if (!Allowed(peer, t->info)) return Forbidden(svc, w, peer, pid);

  auto sub = t->rec->Subscribe();
  FlightRecorder::Dump dump = t->rec->Snapshot();
  if (dump.generations.empty() && (dump.closed || !t->live()))
    return Error(w, 404, fmt::format("no trace data held for pid {} (state {})", pid, TargetStateName(t->state.load())));

  TraceStream out{w, pid, "flight"};
  for (const GenerationChunk &c : dump.generations)
    if (!out.Send(dump.header, c)) return;
  // Like FlightRecorder.WriteTo's forced advance: include what happened up to now, which
  // is in the generation in progress — have it ended now and wait for it.
  if ((wait || !out.begun) && !dump.closed && t->live()) {
    t->advance = true;
    t->wake.Wake();
    const auto deadline = SteadyClock::now() + 2 * t->generation_period + std::chrono::seconds(2);
    while (true) {
      bool gap = false;
      std::optional<GenerationChunk> c = sub->Next(deadline, [&] { return w.Cancelled(); }, &gap);
      if (!c) break;
      if (out.begun && c->gen <= out.last_gen) continue;  // already in the snapshot
      if (!out.Send(t->rec->Header(), *c)) return;
      break;
    }
  }
  if (!out.begun) {
    if (w.Cancelled()) return;
    return Error(w, 503, fmt::format("pid {}: no generation has finished yet; try again in a moment", pid));
  }
  w.End();
}

// Records `seconds` of a process that no [[watch]] rule selects, for this request only.
// With `escalate` (a watched target whose always-on recording is below level full): the
// same, at level full with the target's event classes, alongside the always-on recording,
// which goes on untouched — the escalation ends ("drops back") when this one stops. The
// response is a trace of its own, starting with the statuses of an attach.
void HandleAdhocTrace(Service &svc, const Peer &peer, ResponseWriter &w, pid_t pid, double seconds,
                      Target *escalate = nullptr) {
  std::optional<ProcInfo> info = ReadProcInfo(pid);
  if (!info) return Error(w, 404, fmt::format("no process {}", pid));
  if (!Allowed(peer, *info)) return Forbidden(svc, w, peer, pid);
  std::string why;
  switch (svc.BeginAdhoc(*info, &why)) {
    case AdhocAdmission::kAdmitted:
      break;
    case AdhocAdmission::kBusy:
      spdlog::warn("endpoint: ad-hoc trace of pid {} refused: {}", pid, why);
      return Error(w, 409, fmt::format("pid {}: {}", pid, why));
    case AdhocAdmission::kNoMemory:
      spdlog::warn("endpoint: ad-hoc trace of pid {} refused: {}", pid, why);
      w.Reply(503, kText, fmt::format("pid {} not traced: {}\n", pid, why), {{"Retry-After", "10"}});
      return;
  }
  struct EndAdhoc {
    Service &svc;
    pid_t pid;
    ~EndAdhoc() { svc.EndAdhoc(pid); }
  } end_adhoc{svc, pid};
  Config cfg = svc.config();
  const auto t0 = SteadyClock::now();
  // The always-on recording of this process has checked the binary's offsets already.
  const bool self_check = escalate == nullptr || escalate->state.load() != TargetState::kRecording;
  const RecordingOptions ro = FullRecordingOptions(cfg, pid, info->binary, escalate ? escalate->events : cfg.events,
                                                   info->start_time, self_check);
  // An escalation takes the recording its target's thread loaded ahead (standby.h) when
  // it was made for these very options.
  bool ahead = false;
  FullRecording full = TakeFullRecording(cfg, escalate, ro, &ahead);
  struct Escalating {
    Target *t;
    explicit Escalating(Target *x) : t(x) {
      if (t) t->escalating = true;
    }
    ~Escalating() {
      if (t) t->escalating = false;
    }
  } escalating{escalate};
  std::shared_ptr<FlightRecorder> rec = full.rec;
  auto sub = rec->Subscribe();
  std::unique_ptr<Recording> &recording = full.recording;
  std::string err;
  if (!recording->Start(&err)) return Error(w, 500, fmt::format("cannot trace pid {}: {}", pid, err));
  svc.AdhocStarted(pid);
  if (escalate) {
    // The switch: from the request to full detail recording (plan, BPF load, attach,
    // snapshot of the runtime as at an attach).
    const double ms = std::chrono::duration<double, std::milli>(SteadyClock::now() - t0).count();
    escalate->escalations++;
    escalate->last_escalation_ms = ms;
    svc.CountEscalation();
    const session::SessionStats st = recording->Stats();
    if (ahead)
      spdlog::info("endpoint: pid {} ({}) escalated from level {} to full for {} s (full detail after {:.0f} ms: "
                   "loaded ahead, attach {:.0f}, snapshot {:.0f}, self-check {:.0f})",
                   pid, info->exe, session::CaptureLevelName(escalate->level), seconds, ms, st.attach_ms,
                   st.snapshot_ms, st.self_check_ms);
    else
      spdlog::info("endpoint: pid {} ({}) escalated from level {} to full for {} s (full detail after {:.0f} ms: "
                   "plan {:.0f}, BPF load {:.0f}, attach {:.0f}, snapshot {:.0f}, self-check {:.0f})",
                   pid, info->exe, session::CaptureLevelName(escalate->level), seconds, ms, st.plan_ms, st.load_ms,
                   st.attach_ms, st.snapshot_ms, st.self_check_ms);
  } else {
    spdlog::info("endpoint: ad-hoc trace of pid {} ({}) for {} s", pid, info->exe, seconds);
  }
  std::atomic<bool> stop{false};
  const auto end = SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(seconds));
  std::thread runner([&] {
    while (!stop.load() && SteadyClock::now() < end && recording->Poll(std::chrono::milliseconds(100))) {
    }
    recording->Stop(nullptr);  // writes the last generation and closes the recorder
    // What the full-detail part holds, and whether the switch cost consistency: a switch
    // starts as an attach does, so its repairs and losses are the switch's (the level-switch
    // test, tests/serve/level-switch.sh, reads this line).
    const session::SessionStats fin = recording->Stats();
    spdlog::info("endpoint: {} of pid {} ended: {} events, {} generations, {} inconsistencies repaired, "
                 "{} records discarded, {} records lost",
                 escalate ? "escalation" : "ad-hoc trace", pid, fin.events, fin.generations, fin.inconsistencies,
                 fin.records_discarded, fin.records_lost);
  });
  TraceStream out{w, pid, "trace"};
  while (true) {
    std::optional<GenerationChunk> c = sub->Next(end + std::chrono::seconds(30), [&] { return w.Cancelled(); });
    if (!c) break;
    if (!out.Send(rec->Header(), *c)) break;
  }
  stop = true;
  runner.join();
  if (!out.begun) {
    if (!w.Cancelled()) Error(w, 500, fmt::format("pid {}: the recording produced no data", pid));
    return;
  }
  w.End();
}

void HandleTrace(Service &svc, const http::Request &req, const Peer &peer, ResponseWriter &w) {
  pid_t pid;
  if (!OnlyParams(req, w, {"pid", "seconds", "upload"}) || !PidParam(req, w, &pid)) return;
  const Config cfg = svc.config();
  double seconds = 1;  // net/http/pprof's default for /debug/pprof/trace
  if (auto v = req.Param("seconds")) {
    auto s = http::ParseSeconds(*v, cfg.max_trace_seconds);
    if (!s)
      return Error(w, 400, fmt::format("seconds must be a number greater than 0 and at most {}", cfg.max_trace_seconds));
    seconds = *s;
  }
  const std::optional<bool> upload = UploadParam(req, w);
  if (!upload) return;
  if (*upload) return HandleSaveForUpload(svc, peer, w, pid, seconds);
  std::shared_ptr<Target> t = svc.FindTarget(pid);
  if (!t || !t->live()) {
    if (t && !Allowed(peer, t->info)) return Forbidden(svc, w, peer, pid);
    return HandleAdhocTrace(svc, peer, w, pid, seconds);
  }
  if (!Allowed(peer, t->info)) return Forbidden(svc, w, peer, pid);
  if (t->level != session::CaptureLevel::kFull) return HandleAdhocTrace(svc, peer, w, pid, seconds, t.get());

  // Generations that finish from now on, up to the first one that ends after the
  // deadline (so the response covers at least the requested time).
  auto sub = t->rec->Subscribe();
  const auto end = SteadyClock::now() + std::chrono::duration_cast<SteadyClock::duration>(std::chrono::duration<double>(seconds));
  const auto hard = end + 2 * t->generation_period + std::chrono::seconds(5);
  TraceStream out{w, pid, "trace"};
  bool gap = false;
  while (true) {
    std::optional<GenerationChunk> c = sub->Next(hard, [&] { return w.Cancelled(); }, &gap);
    if (!c) break;
    if (!out.Send(t->rec->Header(), *c)) return;
    if (c->finished >= end) break;
  }
  if (gap) spdlog::warn("endpoint: /trace of pid {}: the client read too slowly; trace cut short", pid);
  if (!out.begun) {
    if (w.Cancelled()) return;
    return Error(w, t->live() ? 504 : 404, fmt::format("pid {}: no generation finished in time ({})", pid,
                                                        TargetStateName(t->state.load())));
  }
  w.End();
}

const char *kIndex =
    "gotraced serve: Go execution traces of the watched processes\n"
    "  GET /processes                 what is traced (JSON)\n"
    "  GET /flight?pid=N              the recent window of pid N as a trace file\n"
    "  GET /trace?pid=N&seconds=S     the next S seconds of pid N as a trace file\n"
    "  ... &upload=1                  /flight or /trace: saved to the spool and queued for upload ([upload])\n"
    "  GET /metrics                   Prometheus metrics\n"
    "e.g. curl --unix-socket /run/gotraced/gotraced.sock -o flight.trace 'http://gotraced/flight?pid=1234'\n";

}  // namespace

namespace {

// {"fired":{"stw":1},"rate_limited":0,"files":2,"errors":0,"recent":["..."],"last_error":""}
json::Json TriggersJson(const Target *t) {
  if (!t->triggers) return nullptr;
  const TriggerStats st = t->triggers->Stats();
  json::Json fired = json::Json::object();
  for (const auto &[k, n] : st.fired) fired[k] = n;
  return {{"fired", fired},       {"rate_limited", st.rate_limited}, {"files", st.files},
          {"errors", st.errors},  {"recent", st.recent},             {"last_error", st.last_error}};
}

json::Json ProcessJson(const Target &t) {
  const session::SessionStats s = t.Stats();
  const FlightStats f = t.rec->Stats();
  const FlightWindow win = t.rec->window();
  std::string error, attached, ended;
  int attempts;
  {
    std::lock_guard<std::mutex> lock(t.mu);
    error = t.error;
    attached = Rfc3339(t.attached_at);
    ended = Rfc3339(t.ended_at);
    attempts = t.attach_attempts;
  }
  return {{"pid", t.info.pid},
          {"exe", t.info.exe},
          {"name", t.info.comm},
          {"uid", t.info.uid},
          {"go_version", s.go_version},
          {"trace_format", s.trace_format},
          {"probe_plan", s.probe_plan},
          {"level", s.level},
          {"state", TargetStateName(t.state.load())},
          {"rule_line", t.rule_line},
          {"events", EventSetName(t.events)},
          {"window",
           {{"seconds", json::Rounded(f.seconds_held, 3)},
            {"bytes", f.bytes_held},
            {"generations", f.generations_held},
            {"first_generation", f.first_gen},
            {"last_generation", f.last_gen}}},
          {"window_limit", {{"seconds", win.seconds}, {"bytes", win.bytes}}},
          {"events_emitted", s.events},
          {"records", s.records},
          {"lost", s.records_lost},
          {"bytes_written", s.bytes_written},
          {"generations", s.generations},
          {"generations_evicted", f.generations_evicted},
          {"goroutines_live", s.goroutines_live},
          {"inconsistencies", s.inconsistencies},
          {"attach_attempts", attempts},
          {"attached_at", attached},
          {"ended_at", ended},
          {"error", error},
          {"escalations", t.escalations.load()},
          {"triggers", TriggersJson(&t)},
          {"identity", IdentityJson(t.info.identity)}};
}

}  // namespace

std::string ProcessesJson(const Service &svc, const Peer &peer) {
  std::vector<json::Json> processes;
  for (const auto &t : svc.Targets())
    if (Allowed(peer, t->info)) processes.push_back(ProcessJson(*t));
  const StoreStats ss = svc.store().Stats();
  const json::Json daemon = {{"pid", getpid()},
                             {"rss_bytes", SelfRss()},
                             {"windows_bytes", ss.bytes},
                             {"windows_budget_bytes", ss.cap},
                             {"memory_cap_bytes", svc.config().memory_bytes}};
  return ProcessesDocument(processes, daemon, json::Json::parse(upload::UploadStatusJson(UploadFor(svc, peer))));
}

std::string ProcessesText(const Service &svc, const Peer &peer) {
  std::string o = fmt::format("{:>8} {:<10} {:<10} {:<5} {:>9} {:>9} {:>5} {:>12} {:>8} {:>4} {:>5}  {:<24} {:<16} {}\n",
                              "PID", "STATE", "GO", "LEVEL", "WINDOW_S", "WINDOW_MB", "GENS", "EVENTS", "LOST", "ESC",
                              "TRIG", "NAMESPACE/POD", "CONTAINER", "EXE");
  std::string saved;
  for (const auto &t : svc.Targets()) {
    if (!Allowed(peer, t->info)) continue;
    session::SessionStats s = t->Stats();
    FlightStats f = t->rec->Stats();
    std::string trig = "-";
    if (t->triggers) {
      const TriggerStats st = t->triggers->Stats();
      std::uint64_t n = 0;
      for (const auto &[k, v] : st.fired) n += v;
      trig = std::to_string(n);
      for (const std::string &r : st.recent) saved += fmt::format("  {}: {}\n", t->info.pid, r);
      if (st.rate_limited || st.errors)
        saved += fmt::format("  {}: {} triggers rate-limited, {} saves failed{}\n", t->info.pid, st.rate_limited,
                             st.errors, st.last_error.empty() ? "" : " (" + st.last_error + ")");
    }
    o += fmt::format("{:>8} {:<10} {:<10} {:<5} {:>9.1f} {:>9.2f} {:>5} {:>12} {:>8} {:>4} {:>5}  {:<24} {:<16} {}\n",
                     t->info.pid, TargetStateName(t->state.load()), s.go_version.empty() ? "-" : s.go_version,
                     session::CaptureLevelName(t->level), f.seconds_held, f.bytes_held / 1048576.0, f.generations_held,
                     s.events, s.records_lost, t->escalations.load(), trig, PodColumn(t->info.identity),
                     ContainerColumn(t->info.identity), t->info.exe);
  }
  if (!saved.empty()) o += "saved by triggers (spool " + svc.config().spool_dir + "):\n" + saved;
  o += upload::UploadStatusText(UploadFor(svc, peer));
  StoreStats ss = svc.store().Stats();
  o += fmt::format("windows: {:.2f} MiB held, budget {:.2f} MiB, cap {:.0f} MiB; daemon RSS {:.1f} MiB\n",
                   ss.bytes / 1048576.0, ss.cap / 1048576.0, svc.config().memory_bytes / 1048576.0, SelfRss() / 1048576.0);
  return o;
}

std::string MetricsText(const Service &svc, const Peer &peer) {
  std::string o;
  auto family = [&](std::string_view name, std::string_view type, std::string_view help) {
    o += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  };
  std::vector<std::shared_ptr<Target>> targets;
  std::map<std::string, int> by_state;
  for (const auto &t : svc.Targets()) {
    by_state[std::string(TargetStateName(t->state.load()))]++;
    if (Allowed(peer, t->info)) targets.push_back(t);
  }
  family("gotraced_targets", "gauge", "Processes known to the service, by state.");
  for (std::string_view st : {"attaching", "recording", "exited", "detached", "failed"})
    o += fmt::format("gotraced_targets{{state=\"{}\"}} {}\n", st, by_state[std::string(st)]);

  struct PerTarget {
    std::string_view name, type, help;
    std::function<double(const session::SessionStats &, const FlightStats &)> value;
  };
  const PerTarget per[] = {
      {"gotraced_target_events_total", "counter", "Trace events written for the process.",
       [](auto &s, auto &) { return double(s.events); }},
      {"gotraced_target_records_total", "counter", "Records read from the BPF ring buffer for the process.",
       [](auto &s, auto &) { return double(s.records); }},
      {"gotraced_target_records_lost_total", "counter", "Records the kernel side could not submit (ring full).",
       [](auto &s, auto &) { return double(s.records_lost); }},
      {"gotraced_target_bytes_total", "counter", "Trace bytes produced for the process.",
       [](auto &s, auto &) { return double(s.bytes_written); }},
      {"gotraced_target_generations_total", "counter", "Trace generations finished for the process.",
       [](auto &, auto &f) { return double(f.generations_received); }},
      {"gotraced_target_inconsistencies_total", "counter", "Records that contradicted the model (repaired).",
       [](auto &s, auto &) { return double(s.inconsistencies); }},
      {"gotraced_target_window_bytes", "gauge", "Bytes of trace held in the process's flight window.",
       [](auto &, auto &f) { return double(f.bytes_held); }},
      {"gotraced_target_window_seconds", "gauge", "Seconds of history held in the process's flight window.",
       [](auto &, auto &f) { return f.seconds_held; }},
      {"gotraced_target_generations_evicted_total", "counter", "Generations dropped by the total memory cap.",
       [](auto &, auto &f) { return double(f.generations_evicted); }},
  };
  std::vector<std::pair<session::SessionStats, FlightStats>> values;
  for (const auto &t : targets) values.emplace_back(t->Stats(), t->rec->Stats());
  // Each process's series labels (identity_output.h): pod and container where they name it.
  std::vector<const ProcInfo *> infos;
  for (const auto &t : targets) infos.push_back(&t->info);
  const std::vector<std::string> labels = SeriesLabels(infos);
  // State and Go version as labels of an info series, so the counters keep one identity
  // through state changes.
  family("gotraced_target_info", "gauge",
         "One series per known process: its state, Go version, level, and where it runs (container id, node).");
  for (std::size_t i = 0; i < targets.size(); i++) {
    const container::Identity &id = targets[i]->info.identity;
    const bool named = labels[i].find("pid=") == std::string::npos;  // else pid and exe are among the labels
    o += fmt::format("gotraced_target_info{{{}{},state=\"{}\",go_version=\"{}\",level=\"{}\",container_id=\"{}\","
                     "runtime=\"{}\",node=\"{}\"}} 1\n",
                     labels[i], named ? fmt::format(",exe=\"{}\"", LabelValue(targets[i]->info.exe)) : std::string(),
                     TargetStateName(targets[i]->state.load()), LabelValue(values[i].first.go_version),
                     session::CaptureLevelName(targets[i]->level), LabelValue(id.container_id), LabelValue(id.runtime),
                     LabelValue(id.node));
  }
  family("gotraced_target_escalations_total", "counter",
         "Escalations of the process to level full (dump --seconds, /trace?seconds=).");
  for (std::size_t i = 0; i < targets.size(); i++)
    o += fmt::format("gotraced_target_escalations_total{{{}}} {}\n", labels[i], targets[i]->escalations.load());
  family("gotraced_target_triggers_total", "counter",
         "Triggers that saved a window to the spool, by kind (stw, syscall, cpu_throttle, sched_latency).");
  for (std::size_t i = 0; i < targets.size(); i++)
    if (targets[i]->triggers)
      for (const auto &[k, n] : targets[i]->triggers->Stats().fired)
        o += fmt::format("gotraced_target_triggers_total{{{},kind=\"{}\"}} {}\n", labels[i], k, n);
  family("gotraced_target_triggers_rate_limited_total", "counter",
         "Trigger crossings not saved: a save was running or began less than min_interval_seconds ago.");
  for (std::size_t i = 0; i < targets.size(); i++)
    if (targets[i]->triggers)
      o += fmt::format("gotraced_target_triggers_rate_limited_total{{{}}} {}\n", labels[i], targets[i]->triggers->Stats().rate_limited);
  family("gotraced_target_spool_files_total", "counter", "Files the process's triggers wrote to the spool.");
  for (std::size_t i = 0; i < targets.size(); i++)
    if (targets[i]->triggers)
      o += fmt::format("gotraced_target_spool_files_total{{{}}} {}\n", labels[i], targets[i]->triggers->Stats().files);
  family("gotraced_target_spool_errors_total", "counter",
         "Trigger files not saved (spool unwritable or full, full-detail recording refused).");
  for (std::size_t i = 0; i < targets.size(); i++)
    if (targets[i]->triggers)
      o += fmt::format("gotraced_target_spool_errors_total{{{}}} {}\n", labels[i], targets[i]->triggers->Stats().errors);
  // Seconds, the base unit (Prometheus naming conventions); was _ms.
  family("gotraced_target_escalation_start_seconds", "gauge",
         "The last escalation's switch: request to full-detail recording (plan, BPF load, attach, snapshot).");
  for (std::size_t i = 0; i < targets.size(); i++)
    o += fmt::format("gotraced_target_escalation_start_seconds{{{}}} {}\n", labels[i],
                     targets[i]->last_escalation_ms.load() / 1000.0);
  for (const PerTarget &m : per) {
    family(m.name, m.type, m.help);
    for (std::size_t i = 0; i < targets.size(); i++)
      o += fmt::format("{}{{{}}} {}\n", m.name, labels[i], m.value(values[i].first, values[i].second));
  }

  ServiceCounters c = svc.counters();
  StoreStats ss = svc.store().Stats();
  auto scalar = [&](std::string_view name, std::string_view type, std::string_view help, double v) {
    family(name, type, help);
    o += fmt::format("{} {}\n", name, v);
  };
  scalar("gotraced_attach_errors_total", "counter", "Processes that matched a rule but could not be traced.",
         double(c.attach_errors));
  scalar("gotraced_attached_total", "counter", "Processes attached.", double(c.attached));
  const capture::ObjectReuseStats reuse = capture::GetObjectReuseStats();
  scalar("gotraced_attach_reused_total", "counter",
         "Attaches that loaded nothing: they took the loaded object of an exited process of the same executable.",
         double(reuse.reused));
  scalar("gotraced_reusable_objects", "gauge", "Loaded objects kept for the next process of their executable.",
         double(reuse.pooled));
  scalar("gotraced_reusable_objects_ring_bytes", "gauge", "Kernel memory of the kept objects' ring buffers.",
         double(reuse.pooled_bytes));
  scalar("gotraced_attach_refused_memory_total", "counter",
         "Matching processes not attached because their cost would not fit under memory_mb.",
         double(c.attach_refused_memory));
  scalar("gotraced_adhoc_traces_total", "counter", "Ad-hoc /trace recordings of processes no rule traces.",
         double(c.adhoc_traces));
  scalar("gotraced_adhoc_refused_total", "counter",
         "Ad-hoc /trace requests refused: one already running for the pid, or memory_mb reached.",
         double(c.adhoc_refused));
  scalar("gotraced_escalations_total", "counter",
         "Ad-hoc full-level recordings of watched processes whose level is below full.", double(c.escalations));
  scalar("gotraced_exec_events_total", "counter", "Exec/exit notifications received.", double(c.exec_events));
  scalar("gotraced_exec_events_lost_total", "counter", "Exec/exit notifications lost (ring full).",
         double(svc.exec_events_lost()));
  scalar("gotraced_exec_events_filtered_total", "counter",
         "Execs the kernel did not send: their executable is known never traceable (not a Go program).",
         double(svc.exec_events_filtered()));
  scalar("gotraced_exec_skip_executables_total", "counter",
         "Executables named to the kernel as never traceable (first look at a program that is not Go).",
         double(c.exec_skips));
  scalar("gotraced_proc_reads_total", "counter",
         "Processes whose /proc was read in full (a rule could select them by exe and name).", double(c.proc_reads));
  scalar("gotraced_rescans_total", "counter", "/proc scans (rescan_seconds).", double(c.rescans));
  scalar("gotraced_reloads_total", "counter", "Configurations applied by SIGHUP.", double(c.reloads));
  scalar("gotraced_reload_errors_total", "counter", "Configurations refused on SIGHUP (the old one stayed).",
         double(c.reload_errors));
  scalar("gotraced_access_denied_total", "counter", "Requests refused with 403.", double(c.access_denied));
  scalar("gotraced_flight_bytes", "gauge", "Bytes held by all flight windows.", double(ss.bytes));
  scalar("gotraced_flight_budget_bytes", "gauge", "What the windows may hold now (memory cap minus the rest of the daemon).",
         double(ss.cap));
  scalar("gotraced_memory_cap_bytes", "gauge", "The configured memory cap (memory_mb).", double(svc.config().memory_bytes));
  scalar("gotraced_flight_evicted_generations_total", "counter", "Generations evicted by the memory cap.",
         double(ss.evicted_generations));
  scalar("gotraced_flight_evicted_bytes_total", "counter", "Bytes evicted by the memory cap.", double(ss.evicted_bytes));
  scalar("gotraced_daemon_rss_bytes", "gauge", "Resident set size of the daemon.", double(SelfRss()));
  // The allocator's view (glibc mallinfo2), to tell what the daemon holds from what freed
  // memory the allocator keeps (fragmentation) when the RSS approaches the cap.
  const struct mallinfo2 mi = mallinfo2();
  family("gotraced_daemon_heap_bytes", "gauge", "Allocator memory: in use, free but kept, and in mmapped blocks.");
  o += fmt::format("gotraced_daemon_heap_bytes{{kind=\"in_use\"}} {}\n", double(mi.uordblks));
  o += fmt::format("gotraced_daemon_heap_bytes{{kind=\"free\"}} {}\n", double(mi.fordblks));
  o += fmt::format("gotraced_daemon_heap_bytes{{kind=\"mmapped\"}} {}\n", double(mi.hblkhd));
  family("gotraced_http_responses_total", "counter", "Endpoint responses by status code.");
  if (const Endpoint *ep = svc.endpoint())
    for (const auto &[code, n] : ep->responses()) o += fmt::format("gotraced_http_responses_total{{code=\"{}\"}} {}\n", code, n);
  o += upload::UploadMetrics(svc.UploadStats());
  return o;
}

void HandleNetworkRequest(Service &svc, const http::Request &req, ResponseWriter &w) {
  if (!OnlyParams(req, w, {})) return;
  if (req.path == "/metrics") {
    Peer node;  // as root: the whole node's series
    node.uid = 0;
    return (void)w.Reply(200, "text/plain; version=0.0.4; charset=utf-8", MetricsText(svc, node));
  }
  if (req.path == "/ready") return (void)w.Reply(200, kText, "ready\n");
  Error(w, 404, "only /metrics and /ready are served here; traces are on the Unix socket");
}

void HandleRequest(Service &svc, const http::Request &req, const Peer &peer, ResponseWriter &w) {
  if (req.path == "/flight") return HandleFlight(svc, req, peer, w);
  if (req.path == "/trace") return HandleTrace(svc, req, peer, w);
  if (req.path == "/processes") {
    if (!OnlyParams(req, w, {"format"})) return;
    auto format = req.Param("format").value_or("json");
    if (format == "json") return (void)w.Reply(200, "application/json", ProcessesJson(svc, peer));
    if (format == "text") return (void)w.Reply(200, kText, ProcessesText(svc, peer));
    return Error(w, 400, "format must be json or text");
  }
  if (req.path == "/metrics") {
    if (!OnlyParams(req, w, {})) return;
    return (void)w.Reply(200, "text/plain; version=0.0.4; charset=utf-8", MetricsText(svc, peer));
  }
  if (req.path == "/") return (void)w.Reply(200, kText, kIndex);
  Error(w, 404, "no such resource; see GET /");
}

}  // namespace gotraced::service
