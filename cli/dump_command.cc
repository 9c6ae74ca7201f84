// `gotraced dump`: fetch a trace from the `gotraced serve` endpoint.
//   gotraced dump --pid N --out FILE               the flight-recorder window (GET /flight)
//   gotraced dump --pid N --seconds S --out FILE   the next S seconds (GET /trace)
//   ... --out s3://BUCKET/KEY                        written locally, uploaded, removed (s3_out.h)
//   gotraced dump --pid N [--seconds S] --upload   serve saves it to its spool and uploads it
//                                                  with its [upload] settings, as a trigger's files
// The file appears only when the whole trace arrived (written to FILE.partial, renamed).
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cli/commands.h"
#include "cli/s3_out.h"
#include "daemon/service/client.h"

#include <nlohmann/json.hpp>

namespace gotraced::cli {
namespace {

struct DumpOptions {
  int pid = 0;
  std::string seconds;
  std::string out;
  std::string socket;
  bool no_wait = false;
  bool upload = false;
  std::string store;  // --store CONFIG: serve's [upload] settings for --out s3://
};

std::string DefaultSocket() {
  const char *e = std::getenv("GOTRACED_SOCKET");
  return e && *e ? e : "/run/gotraced/gotraced.sock";
}

// --upload: serve keeps the trace (its spool) and queues it for its uploader; the reply
// names the file and the object key (api.cc HandleSaveForUpload).
int DumpToServeUpload(const DumpOptions &o) {
  std::string target = (o.seconds.empty() ? "/flight?pid=" : "/trace?pid=") + std::to_string(o.pid);
  if (!o.seconds.empty()) target += "&seconds=" + o.seconds;
  target += "&upload=1";
  // The reply comes once serve has recorded and saved it: give --seconds its time.
  const double secs = o.seconds.empty() ? 0 : std::strtod(o.seconds.c_str(), nullptr);
  const int timeout_ms = 60000 + static_cast<int>(std::clamp(secs, 0.0, 86400.0) * 1000);
  service::ClientResult r = service::UnixGet(o.socket, target, {}, timeout_ms);
  if (!r.ok) {
    spdlog::error("{}: {}", target, r.error);
    return 1;
  }
  while (!r.body.empty() && r.body.back() == '\n') r.body.pop_back();
  if (r.status != 200) {
    spdlog::error("{}: {} {}", target, r.status, r.body);
    return r.status == 403 ? 3 : r.status == 404 ? 4 : 1;
  }
  const nlohmann::json j = nlohmann::json::parse(r.body, nullptr, false);
  if (!j.is_object()) {
    spdlog::error("{}: unexpected reply: {}", target, r.body);
    return 1;
  }
  const std::string key = j.value("key", "");
  std::fprintf(stderr, "%s/%s: %llu bytes (%s of pid %d), %s\n", j.value("spool", "").c_str(),
               j.value("file", "").c_str(), static_cast<unsigned long long>(j.value("bytes", std::uint64_t{0})),
               o.seconds.empty() ? "flight-recorder window" : (o.seconds + " s trace").c_str(), o.pid,
               key.empty() ? "NOT queued for upload (see serve's log)"
                           : ("queued for upload to s3://" + j.value("bucket", "") + "/" + key).c_str());
  return key.empty() ? 1 : 0;
}

int Dump(const DumpOptions &o) {
  if (o.upload) return DumpToServeUpload(o);
  if (o.out.empty()) {
    spdlog::error("--out FILE or --upload is required");
    return 2;
  }
  std::string target;
  if (o.seconds.empty()) target = "/flight?pid=" + std::to_string(o.pid) + (o.no_wait ? "&wait=0" : "");
  else target = "/trace?pid=" + std::to_string(o.pid) + "&seconds=" + o.seconds;
  std::string s3_err;
  const std::optional<S3Out> s3 = ParseS3Out(o.out, o.store, &s3_err);  // s3_out.h: written here, then uploaded
  if (!s3_err.empty()) {
    spdlog::error("--out {}", s3_err);
    return 1;
  }
  const std::string out = s3 ? s3->local : o.out;
  const std::string partial = out == "-" ? "" : out + ".partial";
  std::FILE *f = out == "-" ? stdout : std::fopen(partial.c_str(), "wb");
  if (!f) {
    spdlog::error("cannot create {}: {}", partial, std::strerror(errno));
    return 1;
  }
  std::uint64_t bytes = 0;
  int write_errno = 0;  // why writing the output failed (disk full ...)
  service::ClientResult r = service::UnixGet(o.socket, target, [&](std::string_view b) {
    bytes += b.size();
    if (std::fwrite(b.data(), 1, b.size(), f) == b.size()) return true;
    write_errno = errno;
    return false;
  });
  bool write_ok = true;
  if (f != stdout) write_ok = std::fclose(f) == 0;
  else std::fflush(stdout);
  if (!write_ok && !write_errno) write_errno = errno;
  auto discard = [&] {
    if (!partial.empty()) std::remove(partial.c_str());
  };
  if (!r.ok) {
    discard();
    if (write_errno)
      spdlog::error("{}: writing {} failed: {}; nothing kept (the file appears only when the whole trace arrived)",
                    target, out, std::strerror(write_errno));
    else
      spdlog::error("{}: {}", target, r.error);
    return 1;
  }
  if (r.status != 200) {
    discard();
    while (!r.body.empty() && r.body.back() == '\n') r.body.pop_back();
    spdlog::error("{}: {} {}", target, r.status, r.body);
    return r.status == 403 ? 3 : r.status == 404 ? 4 : 1;
  }
  if (!write_ok || (!partial.empty() && std::rename(partial.c_str(), out.c_str()) != 0)) {
    discard();
    spdlog::error("writing {} failed: {}", out, std::strerror(write_errno ? write_errno : errno));
    return 1;
  }
  if (out != "-")
    std::fprintf(stderr, "%s: %llu bytes (%s of pid %d)\n", out.c_str(), static_cast<unsigned long long>(bytes),
                 o.seconds.empty() ? "flight-recorder window" : (o.seconds + " s trace").c_str(), o.pid);
  return s3 ? UploadAndRemove(*s3) : 0;
}

}  // namespace

void RegisterDump(CLI::App &app) {
  auto o = std::make_shared<DumpOptions>();
  o->socket = DefaultSocket();
  auto *cmd = app.add_subcommand("dump", "fetch a trace of a process from gotraced serve: its flight-recorder window, "
                                         "or the next --seconds");
  cmd->add_option("--pid,-p", o->pid, "the process")->required()->check(CLI::PositiveNumber);
  cmd->add_option("--seconds,-s", o->seconds, "record the next S seconds instead of dumping the recent window");
  auto *out = cmd->add_option("--out,-o", o->out, "output file (- for stdout), or s3://BUCKET/KEY (AWS_* environment, "
                                                  "or --store)");
  cmd->add_flag("--upload", o->upload,
                "serve saves the trace to its spool and uploads it with its [upload] settings (as a trigger's files)")
      ->excludes(out);
  cmd->add_option("--store", o->store,
                  "with --out s3://: the store's endpoint, region and credentials from this serve config file's "
                  "[upload] table instead of the AWS_* environment");
  cmd->add_option("--socket", o->socket, "endpoint socket (env GOTRACED_SOCKET)")->capture_default_str();
  cmd->add_flag("--no-wait", o->no_wait, "flight window: do not wait for the generation in progress to finish");
  cmd->callback([o] { SetExitCode(Dump(*o)); });
}

}  // namespace gotraced::cli
