// `gotraced ps`: what the running `gotraced serve` holds (GET /processes).
#include <spdlog/spdlog.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cli/commands.h"
#include "daemon/service/client.h"

namespace gotraced::cli {
namespace {

struct PsOptions {
  std::string socket;
  bool json = false;
};

int Ps(const PsOptions &o) {
  const std::string target = o.json ? "/processes" : "/processes?format=text";
  service::ClientResult r = service::UnixGet(o.socket, target);
  if (!r.ok) {
    spdlog::error("{}", r.error);
    return 1;
  }
  if (r.status != 200) {
    spdlog::error("{}: {} {}", target, r.status, r.body);
    return 1;
  }
  std::fwrite(r.body.data(), 1, r.body.size(), stdout);
  return 0;
}

}  // namespace

void RegisterPs(CLI::App &app) {
  auto o = std::make_shared<PsOptions>();
  const char *e = std::getenv("GOTRACED_SOCKET");
  o->socket = e && *e ? e : "/run/gotraced/gotraced.sock";
  auto *cmd = app.add_subcommand("ps", "list the processes gotraced serve traces and the windows it holds");
  cmd->add_option("--socket", o->socket, "endpoint socket (env GOTRACED_SOCKET)")->capture_default_str();
  cmd->add_flag("--json", o->json, "print the JSON of GET /processes");
  cmd->callback([o] { SetExitCode(Ps(*o)); });
}

}  // namespace gotraced::cli
