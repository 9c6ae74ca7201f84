// libFuzzer target: `gotraced report` on untrusted bytes (report/trace_reader.h: both
// trace formats' framing through encoder/, then every section). Must never crash, hang
// or read out of bounds, whatever the bytes; an error is a fine answer.
#include <cstddef>
#include <cstdint>
#include <span>

#include "report/report.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  const gotraced::report::Report r = gotraced::report::BuildReport(std::span<const std::uint8_t>(data, size));
  (void)gotraced::report::ReportText(r);
  (void)gotraced::report::ReportJson(r);
  return 0;
}
