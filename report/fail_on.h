// `--fail-on 'sched_latency_p99>5ms,stw_max>10ms,goroutine_growth>1000'`: thresholds on
// the report's figures (Report::Metrics: durations in ns, counts as they are), parsed
// once; each crossed one is named.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace gotraced::report {

struct Threshold {
  std::string metric;
  char op = '>';     // '>' or '<'
  double value = 0;  // ns for durations ("5ms", "2s", "300us", "100ns"), else as written
  std::string text;  // as the user wrote it
};

// "" or what is wrong (an unknown metric is an error: a typo must not pass CI).
std::string ParseThresholds(const std::string &spec, const std::map<std::string, double> &known,
                            std::vector<Threshold> *out);
// One line per crossed threshold: "sched_latency_p99 = 12.3 ms > 5ms".
std::vector<std::string> Crossed(const std::vector<Threshold> &t,
                                 const std::map<std::string, double> &metrics);

}  // namespace gotraced::report
