// `--report-fail-on SPEC` on a recording (`go test -exec 'gotraced --out-dir D
// --report-fail-on ... --'`): once the trace is written, one line of findings for it and
// the thresholds it crosses (report/fail_on.h); the recording then fails unless the
// program's own failure already does.
#pragma once

#include <string>

namespace gotraced::cli {

// "" or what is wrong with the spec (checked before the program runs).
std::string CheckReportGate(const std::string &spec);
// Reports on `trace`, prints its line to stderr; true if a threshold was crossed.
bool RunReportGate(const std::string &spec, const std::string &trace, const std::string &name);

}  // namespace gotraced::cli
