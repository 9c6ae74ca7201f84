// `gotraced selftest`: can this machine record? Kernel features, every BPF program
// loaded and verified on its own, an attach check (daemon/bpfcheck/bpf_selftest.h).
#include <spdlog/spdlog.h>

#include <cstdio>

#include "cli/commands.h"
#include "daemon/bpfcheck/bpf_selftest.h"

namespace gotraced::cli {

void RegisterSelftest(CLI::App &app) {
  auto *cmd = app.add_subcommand(
      "selftest",
      "check that this machine can record: the kernel features gotraced uses, every BPF program loaded and verified "
      "(processed instructions, stack depth, verification time per program), a tracepoint attach. Exit 0: ok; 1: this "
      "machine cannot record (privileges, kernel features, attach); 2: a program was refused (a gotraced bug)");
  auto binary = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("--binary", *binary,
                  "verify the programs with the probe plan of this Go binary, as a recording of it would load them "
                  "(default: a built-in target, the struct offsets of the newest Go version gotraced knows from its "
                  "runtime layout table, with every optional read and stack walk on)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", *json, "print the report as one JSON object");
  cmd->callback([binary, json] {
    SelftestOptions opts;
    opts.binary = *binary;
    SelftestReport r = RunSelftest(opts);
    const int code = r.ExitCode();
    std::fputs((*json ? FormatSelftestJson(r) : FormatSelftestText(r)).c_str(), stdout);
    std::fflush(stdout);
    SetExitCode(code);
  });
}

}  // namespace gotraced::cli
