#include "tests/unit/encoder/scenario/expected_summary.h"

#include <nlohmann/json.hpp>

namespace gotraced::encoder::scenario {

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

// The keys of tracecheck's summary (tests/tracecheck/internal/summary/summary.go), in its order.
std::string ExpectedSummary::ToJson() const {
  const nlohmann::ordered_json j = {
      {"version", version},
      {"events", events},
      {"kinds", kinds},
      {"transitions", {{"goroutine", go_transitions}, {"proc", proc_transitions}}},
      {"goroutines", goroutines.size()},
      {"procs", procs.size()},
      {"threads", threads.size()},
      {"creates", creates},
      {"syscalls", syscalls},
      {"block_reasons", block_reasons},
      {"stop_reasons", stop_reasons},
      {"stacks", stacks},
      {"distinct_stacks", distinct_stacks.size()},
      {"frames", frames},
      {"tasks", tasks},
      {"task_ends", task_ends},
      {"regions", regions},
      {"region_ends", region_ends},
      {"logs", logs},
      {"ranges", ranges},
      {"range_actives", range_actives},
      {"range_ends", range_ends},
      {"metrics", metrics},
      {"labels", labels},
      {"cpu_samples", cpu_samples},
      // tracecheck counts the samples whose goroutine is set (summary.go, EventStackSample).
      {"cpu_samples_with_goroutine", cpu_samples_with_goroutine},
      {"syncs", syncs},
      {"generations", generations},
      {"clock_snapshots", clock_snapshots},
      {"experimental", 0}};
  return j.dump(2) + "\n";
}

}  // namespace gotraced::encoder::scenario
