// gotraced: records a Go program's execution trace from outside the process.
#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include <cstdio>

#include "build_info.h"
#include "daemon/bpfcheck/bpf_selftest.h"

namespace {

void PrintVersion() {
  std::printf("gotraced %s (git %s, %s, %s, C++%ld)\n", GOTRACED_VERSION, GOTRACED_GIT_REV,
              GOTRACED_BUILD_TYPE, GOTRACED_CXX_COMPILER, __cplusplus / 100 % 100);
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"gotraced: Go execution traces from outside the process, with eBPF"};
  app.set_version_flag("--version", [] {
    PrintVersion();
    return std::string();
  }, "print version and build information");

  auto *selftest = app.add_subcommand("selftest", "check that this machine can load and attach gotraced's BPF programs");

  CLI11_PARSE(app, argc, argv);

  if (selftest->parsed()) {
    std::string err = gotraced::RunBpfSelfTest();
    if (!err.empty()) {
      spdlog::error("{}", err);
      return 1;
    }
    std::printf("bpf selftest: ok (vmlinux BTF, clang-built BPF, skeleton load, tracepoint attach, ring buffer)\n");
    return 0;
  }
  std::printf("%s", app.help().c_str());
  return 0;
}
