// Human-readable listing of a trace: one line per batch and per event, argument names
// and string/stack references taken from kEventSpecs. For debugging encoder output.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace gotraced::encoder {

struct DumpOptions {
  bool tables = true;  // list string and stack tables
  bool events = true;  // list events (false: batch headers only)
};

// Returns the listing; a decode error is reported on the last line ("error: ...").
std::string DumpTrace(std::span<const std::uint8_t> bytes, DumpOptions options = {});

}  // namespace gotraced::encoder
