// gotraced: records a Go program's execution trace from outside the process.
// Each subcommand is in its own file (cli/*_command.cc) and registers itself here.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "build_info.h"
#include "cli/capture_dump.h"
#include "cli/commands.h"
#include "cli/inspect_command.h"

namespace {

void PrintVersion() {
  std::printf("gotraced %s (git %s, %s, %s, C++%ld)\n", GOTRACED_VERSION, GOTRACED_GIT_REV,
              GOTRACED_BUILD_TYPE, GOTRACED_CXX_COMPILER, __cplusplus / 100 % 100);
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"gotraced: Go execution traces from outside the process, with eBPF.\n\n"
               "  gotraced --pid N --out trace.out [--duration 10s]   attach to a running Go process\n"
               "  gotraced --out trace.out -- ./prog args             launch a program under tracing\n"
               "  go test -exec 'gotraced --out-dir traces --' ./...  trace every test binary\n"};
  app.set_version_flag("--version", [] {
    PrintVersion();
    return std::string();
  }, "print version and build information");
  app.require_subcommand(0, 1);

  gotraced::cli::RegisterSelftest(app);
  gotraced::cli::RegisterInspect(app);
  gotraced::cli::RegisterCaptureDump(app);
  gotraced::cli::RegisterServe(app);
  gotraced::cli::RegisterDump(app);
  gotraced::cli::RegisterPs(app);
  gotraced::cli::RegisterReport(app);
  gotraced::cli::RegisterTraces(app);
  auto record = gotraced::cli::RegisterRecord(app);

  CLI11_PARSE(app, argc, argv);

  if (app.get_subcommands().empty()) return record();
  return gotraced::cli::ExitCode();
}
