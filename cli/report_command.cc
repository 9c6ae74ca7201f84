// `gotraced report FILE [--json]`: where the goroutines of a trace lost time to the
// kernel (trace_report.h), biggest first, per goroutine group.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/trace_report.h"

namespace gotraced::cli {

void RegisterReport(CLI::App &app) {
  struct Opts {
    std::string file;
    bool json = false;
    std::size_t top = 3;
  };
  auto o = std::make_shared<Opts>();
  CLI::App *sub = app.add_subcommand(
      "report", "summarize a trace's kernel view: the biggest off-CPU, throttling and syscall-wait causes per "
                "goroutine group (start function), from its \"kernel: ...\" regions (docs/kernel-view.md)");
  sub->add_option("file", o->file, "a trace written by gotraced (Go 1.22+ format)")->required();
  sub->add_flag("--json", o->json, "print JSON instead of text");
  sub->add_option("--top", o->top, "goroutines named per cause")->capture_default_str();
  sub->callback([o] {
    std::ifstream in(o->file, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "gotraced report: cannot open %s\n", o->file.c_str());
      SetExitCode(1);
      return;
    }
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const TraceReport r = BuildReport(bytes);
    if (!r.error.empty()) {
      std::fprintf(stderr, "gotraced report: %s: %s (the report reads the Go 1.22+ trace format)\n", o->file.c_str(),
                   r.error.c_str());
      SetExitCode(1);
      return;
    }
    const std::string s = o->json ? ReportJson(r) : ReportText(r, o->top);
    std::fwrite(s.data(), 1, s.size(), stdout);
  });
}

}  // namespace gotraced::cli
