// Block reasons of Go <= 1.21, whose gopark stores a legacy trace event type rather
// than an index into runtime.traceBlockReasonStrings (which does not exist before 1.22).
#pragma once

#include <string>
#include <vector>

namespace gotraced::gobin {

struct GoVersion;

// For go1.19-go1.21: element i is the reason string Go's own parser gives a legacy
// block event of type i (m.waittraceev <= 1.20, m.waitTraceBlockReason in 1.21, both
// a traceEv* value: runtime/trace.go, go1.21 `traceBlockReason = traceEv...`), so a
// v2 trace we write for such a target reads like the target's own v1 trace after
// conversion (internal/trace/tracev1.go, go1.26: EvGoBlockSend -> "chan send" ...).
// Empty for other versions.
std::vector<std::string> LegacyBlockReasonStrings(const GoVersion &version);

}  // namespace gotraced::gobin
