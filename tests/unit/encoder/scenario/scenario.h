// A randomized but consistent Go scheduler run, written through TraceWriter: several
// threads (M), processors (P) and many goroutines (G) across several generations, with
// every timed event kind the version has, statuses for every live G and P at the start
// of each generation, and sequence numbers exactly as internal/trace/order.go checks
// them. Events are emitted in one global time order (each strictly later than the one
// before), so every M's batch is causally correct by itself.
//
// While emitting, it counts what Go's parser will report (ExpectedSummary), so a test
// can compare tracecheck's JSON with it key by key.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "encoder/event_writer.h"
#include "encoder/trace_writer.h"
#include "tests/unit/encoder/scenario/expected_summary.h"

namespace gotraced::encoder::scenario {

// Deliberate mistakes for negative tests: the parser must reject the result.
enum class Breakage {
  kNone,
  kMissingStatus,     // gen 2: a waiting G gets no GoStatus, then is unblocked
  kWrongSeq,          // gen 2: GoUnblock with g_seq 2 right after the G's status
  kNewGoroutineStatus,  // gen 2: GoStatus introduces an unknown goroutine
  kMissingEndOfGeneration,  // v26: the final 0x34 marker is cut off (done by the caller)
};

struct ScenarioConfig {
  std::uint64_t seed = 1;
  Version version = Version::kGo126;
  int generations = 3;
  int steps_per_generation = 1500;  // scheduler actions per generation
  Breakage breakage = Breakage::kNone;
};

struct ScenarioResult {
  ExpectedSummary expected;
  std::map<std::string, std::int64_t> emitted;  // wire events written, by tracev2 name
  std::string description;                      // one line: Ms, Ps, Gs, generations, events
  std::string missing_kinds;                    // timed event kinds of the version never emitted
};

// Runs the scenario into `writer` (which must be fresh and use cfg.version) and closes it.
ScenarioResult RunScenario(const ScenarioConfig &cfg, EventWriter &writer);

}  // namespace gotraced::encoder::scenario
