#include "cli/report_gate.h"

#include <fmt/format.h>

#include <cstdio>
#include <fstream>

#include "report/fail_on.h"
#include "report/report.h"

namespace gotraced::cli {

std::string CheckReportGate(const std::string &spec) {
  std::vector<report::Threshold> t;
  return report::ParseThresholds(spec, report::Report{}.Metrics(), &t);
}

bool RunReportGate(const std::string &spec, const std::string &trace, const std::string &name) {
  std::ifstream in(trace, std::ios::binary);
  const report::Report r = report::BuildReport(in);
  const auto metrics = r.Metrics();
  std::vector<report::Threshold> t;
  report::ParseThresholds(spec, metrics, &t);
  const auto crossed = report::Crossed(t, metrics);
  std::string line = r.findings.empty() ? "no findings" : r.findings[0].line;
  if (r.findings.size() > 1) line += fmt::format(" (+{} more)", r.findings.size() - 1);
  std::fprintf(stderr, "gotraced report: %s: %s%s: %s\n", name.c_str(), crossed.empty() ? "ok" : "FAIL",
               r.error.empty() ? "" : (" (" + r.error + ")").c_str(), line.c_str());
  for (const std::string &c : crossed)
    std::fprintf(stderr, "gotraced report: %s: threshold crossed: %s\n", name.c_str(), c.c_str());
  if (!crossed.empty())
    std::fprintf(stderr, "gotraced report: %s: the whole report: gotraced report %s\n", name.c_str(),
                 trace.c_str());
  return !crossed.empty();
}

}  // namespace gotraced::cli
