// `gotraced report`'s options and callback, on whichever CLI11 app carries them: the
// `report` subcommand of gotraced (main.cc) or the whole of gotraced-report
// (report_main.cc), the lean entry point that loads only the report's libraries.
#pragma once

#include <CLI/CLI.hpp>

namespace gotraced::cli {

inline constexpr const char *kReportDescription =
    "diagnose a Go execution trace (gotraced's or runtime/trace's, go1.19+): ranked findings, then "
    "scheduling latency, STW/GC, blocking, syscalls, goroutines, CPU and the kernel's side "
    "(docs/report.md)";

// Adds FILE, --json, --top, --by-label, --fail-on and the callback that reports; the
// exit code goes to SetExitCode (commands.h).
void AddReportCommand(CLI::App &cmd);

}  // namespace gotraced::cli
