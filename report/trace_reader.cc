#include "report/trace_reader.h"

#include <algorithm>
#include <array>

#include "encoder/trace_header.h"

namespace gotraced::report {

ReadResult ReadTrace(std::istream &in, StackTable &stacks, EventSink &sink) {
  std::array<char, encoder::kHeaderLen> head{};
  in.read(head.data(), head.size());
  if (in.gcount() != static_cast<std::streamsize>(head.size()))
    return {.error = "shorter than a trace header"};
  in.seekg(0);
  for (encoder::Version v : encoder::kLegacyVersions) {
    const auto h = encoder::MakeHeader(v);
    if (std::equal(h.begin(), h.end(), reinterpret_cast<const std::uint8_t *>(head.data())))
      return ReadLegacyTrace(in, stacks, sink);
  }
  return ReadV2Trace(in, stacks, sink);
}

}  // namespace gotraced::report
