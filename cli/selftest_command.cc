// `gotraced selftest`: can this machine load and attach gotraced's BPF programs?
#include <spdlog/spdlog.h>

#include <cstdio>

#include "cli/commands.h"
#include "daemon/bpfcheck/bpf_selftest.h"

namespace gotraced::cli {

void RegisterSelftest(CLI::App &app) {
  auto *cmd = app.add_subcommand("selftest", "check that this machine can load and attach gotraced's BPF programs");
  cmd->callback([] {
    std::string err = gotraced::RunBpfSelfTest();
    if (!err.empty()) {
      spdlog::error("{}", err);
      SetExitCode(1);
      return;
    }
    std::printf("bpf selftest: ok (vmlinux BTF, clang-built BPF, skeleton load, tracepoint attach, ring buffer)\n");
    SetExitCode(0);
  });
}

}  // namespace gotraced::cli
