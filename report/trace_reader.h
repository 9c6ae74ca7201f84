// Reads a Go execution trace of any version gotraced or runtime/trace writes and hands
// its events, in time order and in the format-neutral terms of trace_event.h, to a sink.
// The go1.22+ format is streamed a generation at a time (v2_reader.cc): memory holds one
// generation's bytes and tables, whatever the file's size. The pre-1.22 format has no
// generations and its parser sorts the whole file (internal/trace/parser.go of Go 1.21):
// legacy_reader.cc reads it whole.
// The framing is encoder/'s (trace_decoder.h, legacy_decoder.h): nothing here restates
// the wire format; these files only say what each event means for a goroutine.
#pragma once

#include <cstdint>
#include <istream>
#include <string>

#include "report/stack_table.h"
#include "report/trace_event.h"

namespace gotraced::report {

struct ReadResult {
  std::string version;            // "go1.26", "go1.21" ...
  std::uint64_t events = 0;       // handed to the sink
  std::uint64_t generations = 0;  // go1.22+ only
  std::uint64_t duration_ns = 0;  // first to last event
  std::uint64_t cpu_samples = 0;
  std::uint64_t max_generation_bytes = 0;  // the most held at once (go1.22+)
  std::string error;                       // "" when the whole file was read
};

ReadResult ReadTrace(std::istream &in, StackTable &stacks, EventSink &sink);

// The two formats' readers (ReadTrace picks one from the header).
ReadResult ReadV2Trace(std::istream &in, StackTable &stacks, EventSink &sink);
ReadResult ReadLegacyTrace(std::istream &in, StackTable &stacks, EventSink &sink);

}  // namespace gotraced::report
