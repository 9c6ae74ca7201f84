// `gotraced serve`: the always-on flight recorder (daemon/service/service.h), meant to
// run under systemd (packaging/gotraced.service, Type=notify).
//   gotraced serve [--config /etc/gotraced/gotraced.toml] [--check-config] [--log-level info]
// Signals: SIGHUP reloads the config (a bad one is refused, the old one stays in force),
// SIGTERM/SIGINT stop. sd_notify: READY=1 once the endpoint listens, RELOADING=1 /
// READY=1 around reloads, WATCHDOG=1 from the main loop, STATUS= with a one-line summary.
#include <signal.h>
#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <systemd/sd-daemon.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

#include "build_info.h"
#include "cli/commands.h"
#include "daemon/probes/privileges.h"
#include "daemon/service/config.h"
#include "daemon/service/service.h"

namespace gotraced::cli {
namespace {

constexpr const char *kDefaultConfig = "/etc/gotraced/gotraced.toml";

struct ServeOptions {
  std::string config = kDefaultConfig;
  bool check = false;
  std::string log_level = "info";
};

// "<3>" style prefix: journald reads a line's priority from it (sd-daemon.h SD_ERR ...),
// so `journalctl -p warning` works without timestamps duplicated in every line.
class SyslogPriorityFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg &msg, const std::tm &, spdlog::memory_buf_t &dest) override {
    int prio = 6;
    switch (msg.level) {
      case spdlog::level::trace:
      case spdlog::level::debug: prio = 7; break;
      case spdlog::level::info: prio = 6; break;
      case spdlog::level::warn: prio = 4; break;
      case spdlog::level::err: prio = 3; break;
      case spdlog::level::critical: prio = 2; break;
      default: break;
    }
    const char s[4] = {'<', static_cast<char>('0' + prio), '>', 0};
    dest.append(s, s + 3);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<SyslogPriorityFlag>(); }
};

// True when stderr is connected to the journal (systemd sets JOURNAL_STREAM=dev:inode of it).
bool StderrIsJournal() {
  const char *js = std::getenv("JOURNAL_STREAM");
  if (!js) return false;
  struct stat st {};
  if (fstat(STDERR_FILENO, &st) != 0) return false;
  unsigned long long dev = 0, ino = 0;
  if (std::sscanf(js, "%llu:%llu", &dev, &ino) != 2) return false;
  return dev == static_cast<unsigned long long>(st.st_dev) && ino == static_cast<unsigned long long>(st.st_ino);
}

void SetUpLogging(const std::string &level) {
  auto logger = std::make_shared<spdlog::logger>("gotraced", std::make_shared<spdlog::sinks::stderr_sink_mt>());
  auto formatter = std::make_unique<spdlog::pattern_formatter>();
  if (StderrIsJournal()) {
    formatter->add_flag<SyslogPriorityFlag>('*').set_pattern("%*%v");
  } else {
    formatter->set_pattern("%Y-%m-%d %H:%M:%S.%e %^%l%$ %v");
  }
  logger->set_formatter(std::move(formatter));
  logger->set_level(spdlog::level::from_str(level));
  logger->flush_on(spdlog::level::trace);  // a daemon's log must not sit in a buffer
  spdlog::set_default_logger(logger);
}

int Serve(const ServeOptions &o) {
  SetUpLogging(o.log_level);
  std::string err;
  std::optional<service::Config> cfg = service::LoadConfig(o.config, &err);
  if (!cfg) {
    spdlog::error("configuration refused: {}", err);
    return 1;
  }
  if (o.check) {
    std::printf("%s: ok (%zu watch rules; window %.0f s / %zu MiB per process; memory cap %zu MiB; endpoint %s)\n",
                o.config.c_str(), cfg->watch.size(), cfg->window_seconds, cfg->window_bytes >> 20,
                cfg->memory_bytes >> 20, cfg->socket.c_str());
    return 0;
  }
  // The capabilities in effect, not the uid (as record does): the unit runs as root with
  // a bounding set, a container's root may have none, a non-root daemon may be given them.
  const probes::BpfPrivileges priv = probes::CurrentPrivileges();
  if (!priv.can_attach())
    spdlog::warn("without root's capabilities: attaching BPF and reading target memory need CAP_BPF, CAP_PERFMON, "
                 "CAP_SYS_PTRACE (and CAP_SYS_RESOURCE, CAP_DAC_READ_SEARCH)");
  // Nothing could be recorded: say so once, naming what to add, instead of one refusal per
  // process found (a container started without CAP_SYS_ADMIN under a default seccomp profile).
  if (std::string why = cfg->synthetic ? std::string() : probes::BpfRefusal(priv); !why.empty()) {
    spdlog::error("cannot record here: {}", why);
    return 1;
  }

  // Signals are taken synchronously by the main loop (sigtimedwait), never delivered to
  // the recording or endpoint threads, which therefore see no EINTR.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGHUP);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  signal(SIGPIPE, SIG_IGN);

  spdlog::info("gotraced {} serve: config {}", GOTRACED_VERSION, o.config);
  service::Service svc(*cfg);
  if (!svc.Start(&err)) {
    spdlog::error("cannot start: {}", err);
    return 1;
  }
  sd_notifyf(0, "READY=1\nSTATUS=%s\nMAINPID=%lu", svc.StatusLine().c_str(), static_cast<unsigned long>(getpid()));
  spdlog::info("ready: {}", svc.StatusLine());

  std::uint64_t watchdog_usec = 0;
  const bool watchdog = sd_watchdog_enabled(0, &watchdog_usec) > 0;
  auto next_ping = std::chrono::steady_clock::now();
  auto next_status = std::chrono::steady_clock::now();
  while (true) {
    svc.Step();
    const auto now = std::chrono::steady_clock::now();
    if (watchdog && now >= next_ping) {
      sd_notify(0, "WATCHDOG=1");
      next_ping = now + std::chrono::microseconds(watchdog_usec / 3);
    }
    if (now >= next_status) {
      sd_notifyf(0, "STATUS=%s", svc.StatusLine().c_str());
      next_status = now + std::chrono::seconds(5);
    }
    timespec zero{0, 0};
    siginfo_t info{};
    int sig = sigtimedwait(&set, &info, &zero);
    if (sig == SIGTERM || sig == SIGINT) {
      spdlog::info("{}: stopping", sig == SIGTERM ? "SIGTERM" : "SIGINT");
      break;
    }
    if (sig == SIGHUP) {
      timespec mono{};
      clock_gettime(CLOCK_MONOTONIC, &mono);
      sd_notifyf(0, "RELOADING=1\nMONOTONIC_USEC=%llu",
                 static_cast<unsigned long long>(mono.tv_sec) * 1000000ull + static_cast<unsigned long long>(mono.tv_nsec / 1000));
      std::optional<service::Config> next = service::LoadConfig(o.config, &err);
      if (!next) {
        svc.CountReloadError();
        spdlog::error("SIGHUP: configuration refused, the previous one stays in force: {}", err);
      } else if (!svc.ApplyConfig(*next, &err)) {
        svc.CountReloadError();
        spdlog::error("SIGHUP: cannot apply the configuration, the previous one stays in force: {}", err);
      }
      sd_notifyf(0, "READY=1\nSTATUS=%s", svc.StatusLine().c_str());
    }
  }
  sd_notify(0, "STOPPING=1");
  svc.Stop();
  spdlog::info("stopped");
  return 0;
}

}  // namespace

void RegisterServe(CLI::App &app) {
  auto o = std::make_shared<ServeOptions>();
  auto *cmd = app.add_subcommand("serve", "always-on flight recorder for the configured processes, with an HTTP endpoint "
                                          "on a Unix socket (run by systemd: gotraced.service)");
  cmd->add_option("--config,-c", o->config, "configuration file (TOML)")->capture_default_str();
  cmd->add_flag("--check-config", o->check, "check the configuration file and exit (0 = valid)");
  cmd->add_option("--log-level", o->log_level, "trace, debug, info, warn, error")->capture_default_str();
  cmd->callback([o] { SetExitCode(Serve(*o)); });
}

}  // namespace gotraced::cli
