// The findings that open the report: from every section, the moments and places worth a
// look, one line each with their size, when, which goroutine(s) and what to open in
// `go tool trace`, ranked by the time they cost; the kernel's side joined to each window.
#pragma once

#include <vector>

#include "report/report.h"
#include "report/section.h"

namespace gotraced::report {

// The kernel view's syscall regions as the syscall section's "what they touched" rows.
std::vector<Syscalls::Row> SyscallTargets(const KernelSide &k);

std::vector<Finding> RankFindings(Report &r, const KernelSideSection &kernel, const ReportOptions &opt);

}  // namespace gotraced::report
