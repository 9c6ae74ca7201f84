// gotraced-report FILE [--json] [--top N] [--fail-on SPEC] [--by-label KEY]: `gotraced
// report` (report_command.cc) without the daemon. gotraced loads the daemon's 20 shared
// libraries (libbpf, libsystemd with libgcrypt, libdw, capstone, spdlog, toml++ ...),
// 2-3 ms of CPU before a small trace's report starts (docs/report.md "Speed and
// memory"); this binary links the report's (libstdc++, libfmt) alone. Same options,
// same output, same exit codes.
#include <CLI/CLI.hpp>

#include "cli/commands.h"
#include "cli/report_command.h"

int main(int argc, char **argv) {
  CLI::App app{gotraced::cli::kReportDescription, "gotraced-report"};
  gotraced::cli::AddReportCommand(app);
  CLI11_PARSE(app, argc, argv);
  return gotraced::cli::ExitCode();
}
