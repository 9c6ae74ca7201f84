#include "tests/unit/encoder/scenario/expected_summary.h"

#include <fmt/format.h>

namespace gotraced::encoder::scenario {
namespace {

std::string Quote(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string Map(const std::map<std::string, std::int64_t> &m) {
  std::string out = "{";
  for (const auto &[k, v] : m) out += fmt::format("{}{}: {}", out.size() > 1 ? ", " : "", Quote(k), v);
  return out + "}";
}

}  // namespace

void ExpectedSummary::GoTransition(std::uint64_t g, const char *from, const char *to, const std::string &reason) {
  Event("StateTransition");
  goroutines.insert(g);
  std::string f = from, t = to;
  ++go_transitions[f + "->" + t];
  if (f == "NotExist" && t != "NotExist") ++creates;
  if (f == "Running" && t == "Waiting") ++block_reasons[reason];
  if (f == "Running" && t == "Runnable") ++stop_reasons[reason];
  if (f == "Running" && t == "Syscall") ++syscalls;
}

void ExpectedSummary::ProcTransition(std::uint64_t p, const char *from, const char *to) {
  Event("StateTransition");
  procs.insert(p);
  ++proc_transitions[std::string(from) + "->" + to];
}

std::string ExpectedSummary::ToJson() const {
  std::string j = "{\n";
  j += fmt::format("  \"version\": {},\n", Quote(version));
  j += fmt::format("  \"events\": {},\n", events);
  j += fmt::format("  \"kinds\": {},\n", Map(kinds));
  j += fmt::format("  \"transitions\": {{\"goroutine\": {}, \"proc\": {}}},\n", Map(go_transitions),
                   Map(proc_transitions));
  j += fmt::format("  \"goroutines\": {},\n  \"procs\": {},\n  \"threads\": {},\n", goroutines.size(), procs.size(),
                   threads.size());
  j += fmt::format("  \"creates\": {},\n  \"syscalls\": {},\n", creates, syscalls);
  j += fmt::format("  \"block_reasons\": {},\n  \"stop_reasons\": {},\n", Map(block_reasons), Map(stop_reasons));
  j += fmt::format("  \"stacks\": {},\n  \"distinct_stacks\": {},\n  \"frames\": {},\n", stacks,
                   distinct_stacks.size(), frames);
  j += fmt::format("  \"tasks\": {},\n  \"task_ends\": {},\n  \"regions\": {},\n  \"region_ends\": {},\n", tasks,
                   task_ends, regions, region_ends);
  j += fmt::format("  \"logs\": {},\n", logs);
  j += fmt::format("  \"ranges\": {},\n  \"range_actives\": {},\n  \"range_ends\": {},\n", Map(ranges),
                   Map(range_actives), Map(range_ends));
  j += fmt::format("  \"metrics\": {},\n  \"labels\": {},\n  \"cpu_samples\": {},\n", Map(metrics), labels,
                   cpu_samples);
  // tracecheck counts the samples whose goroutine is set (summary.go, EventStackSample).
  j += fmt::format("  \"cpu_samples_with_goroutine\": {},\n", cpu_samples_with_goroutine);
  j += fmt::format("  \"syncs\": {},\n  \"generations\": {},\n  \"clock_snapshots\": {},\n", syncs, generations,
                   clock_snapshots);
  j += "  \"experimental\": 0\n}\n";
  return j;
}

}  // namespace gotraced::encoder::scenario
