#include "encoder/trace_dump.h"

#include <fmt/format.h>

#include "encoder/event_table.h"
#include "encoder/trace_decoder.h"

namespace gotraced::encoder {
namespace {

std::string Id(std::uint64_t v) { return v == kNoId ? std::string("none") : std::to_string(v); }

std::string FormatEvent(const DecodedEvent &e, const DecodedGeneration &g) {
  const EventSpec &s = SpecOf(e.type);
  std::string line = fmt::format("  t={} {}", e.time, s.name);
  for (int i = 0; i < e.nargs; ++i) {
    std::uint64_t v = e.args[i];
    int wire = i + 1;  // spec args[0] is dt (CPU samples: time)
    std::string_view name = s.args[wire];
    line += fmt::format(" {}={}", name, Id(v));
    if (s.IsStringArg(wire)) {
      auto it = g.strings.find(v);
      line += fmt::format("({:?})", it == g.strings.end() ? std::string(v ? "<missing>" : "") : it->second);
    }
  }
  return line;
}

const char *KindName(BatchKind k) {
  switch (k) {
    case BatchKind::kEvents: return "events";
    case BatchKind::kStrings: return "strings";
    case BatchKind::kStacks: return "stacks";
    case BatchKind::kCPUSamples: return "cpu samples";
    case BatchKind::kTiming: return "timing";
  }
  return "?";
}

}  // namespace

std::string DumpTrace(std::span<const std::uint8_t> bytes, DumpOptions opt) {
  DecodedTrace t = DecodeTrace(bytes);
  std::string out = fmt::format("header: go 1.{} trace\n", static_cast<int>(t.version));
  for (const auto &g : t.generations) {
    out += fmt::format("generation {}: {} batches, {} strings, {} stacks, {} cpu samples, freq {}", g.gen,
                       g.batches.size(), g.strings.size(), g.stacks.size(), g.cpu_samples.size(), g.frequency);
    if (g.clock_snapshots)
      out += fmt::format(", clock t={} mono={} wall={}.{:09}", g.clock_time, g.clock.mono_ns, g.clock.wall_sec,
                         g.clock.wall_nsec);
    out += "\n";
    for (const auto &b : g.batches) {
      out += fmt::format(" batch m={} base={} len={} ({}, {} events)\n", Id(b.m), b.base_time, b.data_len,
                         KindName(b.kind), b.events.size());
      if (opt.events)
        for (const auto &e : b.events) out += FormatEvent(e, g) + "\n";
    }
    if (opt.events)
      for (const auto &e : g.cpu_samples) out += FormatEvent(e, g) + "\n";
    if (opt.tables) {
      for (const auto &[id, s] : g.strings) out += fmt::format(" string {} = {:?}\n", id, s);
      for (const auto &[id, frames] : g.stacks) {
        out += fmt::format(" stack {}:\n", id);
        for (const auto &f : frames) {
          auto name = [&](std::uint64_t sid) {
            auto it = g.strings.find(sid);
            return it == g.strings.end() ? std::string("?") : it->second;
          };
          out += fmt::format("   {:#x} {} {}:{}\n", f.pc, name(f.func), name(f.file), f.line);
        }
      }
    }
    if (g.end_marker) out += " EndOfGeneration\n";
  }
  if (!t.ok()) out += "error: " + t.error + "\n";
  return out;
}

}  // namespace gotraced::encoder
