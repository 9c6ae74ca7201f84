// Each gotraced subcommand lives in its own file and registers itself on the CLI11 app
// through one function here; main.cc only calls them. A command's callback stores the
// process exit code with SetExitCode().
#pragma once

#include <CLI/CLI.hpp>

namespace gotraced::cli {

void SetExitCode(int code);
int ExitCode();

void RegisterSelftest(CLI::App &app);
void RegisterServe(CLI::App &app);
void RegisterDump(CLI::App &app);
void RegisterPs(CLI::App &app);
void RegisterReport(CLI::App &app);  // report_command.cc
void RegisterTraces(CLI::App &app);  // traces_command.cc
// The default command (no subcommand): --pid / launch mode recording.
// Returns a function main() calls when no subcommand was given.
std::function<int()> RegisterRecord(CLI::App &app);

}  // namespace gotraced::cli
