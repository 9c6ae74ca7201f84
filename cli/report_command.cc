// `gotraced report FILE [--json] [--top N] [--fail-on SPEC]`: the diagnosis of a Go
// execution trace (report/report.h), findings first; with --fail-on, exits 3 naming each
// crossed threshold (report/fail_on.h), for CI.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/report_command.h"
#include "report/fail_on.h"
#include "report/report.h"

namespace gotraced::cli {

void AddReportCommand(CLI::App &cmd) {
  struct Opts {
    std::string file, fail_on, by_label;
    bool json = false;
    std::size_t top = 5;
  };
  auto o = std::make_shared<Opts>();
  CLI::App *sub = &cmd;
  sub->add_option("file", o->file, "the trace")->required();
  sub->add_flag("--json", o->json, "print JSON with every figure instead of text");
  sub->add_option("--top", o->top, "rows per table")->capture_default_str();
  sub->add_option("--by-label", o->by_label,
                  "group goroutines by the value of this pprof label (gotraced's \"gotraced: labels\" logs: the set "
                  "a goroutine started running with) instead of their start function");
  sub->add_option(
      "--fail-on", o->fail_on,
      "exit 3 if a figure crosses a threshold: 'sched_latency_p99>5ms,stw_max>10ms,goroutine_growth>1000' "
      "(names: the \"metrics\" of --json)");
  sub->callback([o] {
    std::ifstream in(o->file, std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "gotraced report: cannot open %s\n", o->file.c_str());
      SetExitCode(1);
      return;
    }
    report::ReportOptions opt{.top = o->top};
    if (!o->by_label.empty()) {
      opt.group_by = report::ReportOptions::GroupBy::kLabel;
      opt.label_key = o->by_label;
    }
    const report::Report r = report::BuildReport(in, opt);
    if (!r.error.empty()) {
      std::fprintf(stderr, "gotraced report: %s: %s%s\n", o->file.c_str(), r.error.c_str(),
                   r.events ? " (the report covers what was read before it)" : "");
      if (!r.events) {
        SetExitCode(1);
        return;
      }
    }
    std::vector<report::Threshold> thresholds;
    const auto metrics = r.Metrics();
    if (std::string err = report::ParseThresholds(o->fail_on, metrics, &thresholds); !err.empty()) {
      std::fprintf(stderr, "gotraced report: --fail-on %s\n", err.c_str());
      SetExitCode(2);
      return;
    }
    const std::string s = o->json ? report::ReportJson(r) : report::ReportText(r, opt);
    std::fwrite(s.data(), 1, s.size(), stdout);
    const auto crossed = report::Crossed(thresholds, metrics);
    for (const std::string &c : crossed)
      std::fprintf(stderr, "gotraced report: threshold crossed: %s\n", c.c_str());
    if (!crossed.empty())
      SetExitCode(3);
    else if (!r.error.empty())
      SetExitCode(1);
  });
}

void RegisterReport(CLI::App &app) { AddReportCommand(*app.add_subcommand("report", kReportDescription)); }

}  // namespace gotraced::cli
