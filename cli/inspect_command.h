// `gotraced inspect BINARY|--pid N [--json] [--addr2line PC...]`: what gobin knows about a
// Go binary — version, build settings and flags, build id, whether each runtime function,
// struct field and probe site the probe plan needs was found — and, with --addr2line,
// the inline-expanded frames for PCs (one "func file:line" per line, innermost first).
#pragma once

#include <CLI/CLI.hpp>

namespace gotraced::cli {

// Adds the subcommand; its callback runs the command (a failure is thrown as
// CLI::RuntimeError with the exit code, so main's CLI11_PARSE returns it).
void RegisterInspect(CLI::App &app);

}  // namespace gotraced::cli
