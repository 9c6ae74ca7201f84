// `gotraced dump`: fetch a trace from the `gotraced serve` endpoint.
//   gotraced dump --pid N --out FILE               the flight-recorder window (GET /flight)
//   gotraced dump --pid N --seconds S --out FILE   the next S seconds (GET /trace)
//   ... --out s3://BUCKET/KEY                        written locally, uploaded, removed (s3_out.h)
// The file appears only when the whole trace arrived (written to FILE.partial, renamed).
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "cli/commands.h"
#include "cli/s3_out.h"
#include "daemon/service/client.h"

namespace gotraced::cli {
namespace {

struct DumpOptions {
  int pid = 0;
  std::string seconds;
  std::string out;
  std::string socket;
  bool no_wait = false;
};

std::string DefaultSocket() {
  const char *e = std::getenv("GOTRACED_SOCKET");
  return e && *e ? e : "/run/gotraced/gotraced.sock";
}

int Dump(const DumpOptions &o) {
  std::string target;
  if (o.seconds.empty()) target = "/flight?pid=" + std::to_string(o.pid) + (o.no_wait ? "&wait=0" : "");
  else target = "/trace?pid=" + std::to_string(o.pid) + "&seconds=" + o.seconds;
  std::string s3_err;
  const std::optional<S3Out> s3 = ParseS3Out(o.out, &s3_err);  // s3_out.h: written here, then uploaded
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
  cmd->add_option("--out,-o", o->out, "output file (- for stdout), or s3://BUCKET/KEY (AWS_* environment)")->required();
  cmd->add_option("--socket", o->socket, "endpoint socket (env GOTRACED_SOCKET)")->capture_default_str();
  cmd->add_flag("--no-wait", o->no_wait, "flight window: do not wait for the generation in progress to finish");
  cmd->callback([o] { SetExitCode(Dump(*o)); });
}

}  // namespace gotraced::cli
