#include "encoder/trace_decoder.h"

#include <fmt/format.h>

#include "encoder/section_buffer.h"
#include "encoder/stack_table.h"
#include "encoder/string_table.h"
#include "encoder/trace_header.h"
#include "encoder/varint.h"

namespace gotraced::encoder {
namespace {

class Decoder {
 public:
  Decoder(std::span<const std::uint8_t> in, DecodedTrace &out) : in_(in), out_(out) {}

  bool Run() {
    auto v = ParseHeader(in_);
    if (!v) return Fail("bad header: not a go1.22/23/25/26 trace");
    out_.version = *v;
    in_ = in_.subspan(kHeaderLen);
    bool open = false;  // a generation has batches and (v26) no marker yet
    while (!in_.empty()) {
      std::uint8_t b = in_[0];
      if (b == static_cast<std::uint8_t>(EventType::kEndOfGeneration) && out_.version >= Version::kGo126) {
        if (!open) return Fail("end-of-generation marker without a generation");
        in_ = in_.subspan(1);
        out_.generations.back().end_marker = true;
        open = false;
        continue;
      }
      if (b != static_cast<std::uint8_t>(EventType::kEventBatch))
        return Fail(fmt::format("expected batch, got byte {}", b));
      in_ = in_.subspan(1);
      DecodedBatch batch;
      std::uint64_t len;
      if (!Read(batch.gen) || !Read(batch.m) || !Read(batch.base_time) || !Read(len))
        return Fail("truncated batch header");
      if (batch.gen == 0) return Fail("generation number 0");
      if (len > kMaxBatchData) return Fail(fmt::format("batch length {} > {}", len, kMaxBatchData));
      if (len > in_.size()) return Fail("truncated batch data");
      batch.data_len = len;
      auto data = in_.first(len);
      in_ = in_.subspan(len);
      if (!open || out_.generations.back().gen != batch.gen) {
        if (open && out_.version >= Version::kGo126)
          return Fail(fmt::format("generation {} began before the 0x34 marker of {}", batch.gen,
                                  out_.generations.back().gen));
        if (!out_.generations.empty() && batch.gen != out_.generations.back().gen + 1)
          return Fail(fmt::format("generation {} follows {}", batch.gen, out_.generations.back().gen));
        out_.generations.emplace_back();
        out_.generations.back().gen = batch.gen;
        open = true;
      }
      if (!DecodeBatch(data, batch, out_.generations.back())) return false;
      out_.generations.back().batches.push_back(std::move(batch));
    }
    if (open && out_.version >= Version::kGo126) return Fail("last generation lacks the 0x34 marker");
    for (const auto &g : out_.generations) {
      if (g.frequency_events != 1) return Fail(fmt::format("generation {}: {} frequency events", g.gen, g.frequency_events));
      if (out_.version >= Version::kGo125 && g.clock_snapshots != 1)
        return Fail(fmt::format("generation {}: {} clock snapshots", g.gen, g.clock_snapshots));
      if (!CheckReferences(g)) return false;
    }
    return true;
  }

 private:
  bool Fail(std::string msg) {
    out_.error = std::move(msg);
    return false;
  }
  // Every string / stack id an event or frame names must be defined in its generation
  // (internal/trace/generation.go: "found invalid ... ID").
  bool CheckReferences(const DecodedGeneration &g) {
    auto str_ok = [&](std::uint64_t id) { return id == 0 || g.strings.count(id); };
    for (const auto &[id, frames] : g.stacks)
      for (const auto &f : frames)
        if (!str_ok(f.func) || !str_ok(f.file))
          return Fail(fmt::format("generation {}: stack {} names a missing string", g.gen, id));
    for (const auto &b : g.batches)
      for (const auto &e : b.events) {
        const EventSpec &s = SpecOf(e.type);
        for (int i = 0; i < e.nargs; ++i) {
          if (s.IsStringArg(i + 1) && !str_ok(e.args[i]))
            return Fail(fmt::format("generation {}: {} names missing string {}", g.gen, s.name, e.args[i]));
          if (s.IsStackArg(i + 1) && e.args[i] != 0 && !g.stacks.count(e.args[i]))
            return Fail(fmt::format("generation {}: {} names missing stack {}", g.gen, s.name, e.args[i]));
        }
      }
    for (const auto &e : g.cpu_samples)
      if (e.args[3] != 0 && !g.stacks.count(e.args[3]))
        return Fail(fmt::format("generation {}: CPU sample names missing stack {}", g.gen, e.args[3]));
    return true;
  }

  bool Read(std::uint64_t &v) { return ReadFrom(in_, v); }
  static bool ReadFrom(std::span<const std::uint8_t> &s, std::uint64_t &v) {
    auto r = ReadVarint(s);
    if (!r) return false;
    v = *r;
    return true;
  }

 public:
  bool DecodeBatch(std::span<const std::uint8_t> d, DecodedBatch &batch, DecodedGeneration &g) {
    if (d.empty()) return true;
    auto first = static_cast<EventType>(d[0]);
    switch (first) {
      case EventType::kStrings: batch.kind = BatchKind::kStrings; return Strings(d.subspan(1), g);
      case EventType::kStacks: batch.kind = BatchKind::kStacks; return Stacks(d.subspan(1), g);
      case EventType::kCPUSamples: batch.kind = BatchKind::kCPUSamples; return Samples(d.subspan(1), g);
      case EventType::kFrequency:
        if (out_.version < Version::kGo125) {
          batch.kind = BatchKind::kTiming;
          return Timing(d, batch, g);
        }
        break;
      case EventType::kSync:
        if (out_.version >= Version::kGo125) {
          batch.kind = BatchKind::kTiming;
          ++g.sync_events;
          return Timing(d.subspan(1), batch, g);
        }
        break;
      default: break;
    }
    batch.kind = BatchKind::kEvents;
    return keep_events_ ? Events(d, batch) : true;
  }

 private:
  bool Timing(std::span<const std::uint8_t> d, DecodedBatch &batch, DecodedGeneration &g) {
    while (!d.empty()) {
      auto t = static_cast<EventType>(d[0]);
      d = d.subspan(1);
      if (t == EventType::kFrequency) {
        if (!ReadFrom(d, g.frequency)) return Fail("truncated Frequency");
        ++g.frequency_events;
      } else if (t == EventType::kClockSnapshot && out_.version >= Version::kGo125) {
        std::uint64_t dt;
        if (!ReadFrom(d, dt) || !ReadFrom(d, g.clock.mono_ns) || !ReadFrom(d, g.clock.wall_sec) ||
            !ReadFrom(d, g.clock.wall_nsec))
          return Fail("truncated ClockSnapshot");
        g.clock_time = batch.base_time + dt;
        ++g.clock_snapshots;
      } else {
        return Fail(fmt::format("event {} in timing batch", static_cast<int>(t)));
      }
    }
    return true;
  }

  bool Strings(std::span<const std::uint8_t> d, DecodedGeneration &g) {
    while (!d.empty()) {
      if (d[0] != static_cast<std::uint8_t>(EventType::kString)) return Fail("non-String in string batch");
      d = d.subspan(1);
      std::uint64_t id, len;
      if (!ReadFrom(d, id) || !ReadFrom(d, len) || len > d.size()) return Fail("truncated String");
      if (len > kMaxStringLen) return Fail(fmt::format("string {} has {} bytes", id, len));
      if (id == 0 || !g.strings.emplace(id, std::string(reinterpret_cast<const char *>(d.data()), len)).second)
        return Fail(fmt::format("bad or duplicate string id {}", id));
      d = d.subspan(len);
    }
    return true;
  }

  bool Stacks(std::span<const std::uint8_t> d, DecodedGeneration &g) {
    while (!d.empty()) {
      if (d[0] != static_cast<std::uint8_t>(EventType::kStack)) return Fail("non-Stack in stack batch");
      d = d.subspan(1);
      std::uint64_t id, n;
      if (!ReadFrom(d, id) || !ReadFrom(d, n)) return Fail("truncated Stack");
      if (n > kMaxFramesPerStack) return Fail(fmt::format("stack {} has {} frames", id, n));
      std::vector<DecodedFrame> frames(n);
      for (auto &f : frames)
        if (!ReadFrom(d, f.pc) || !ReadFrom(d, f.func) || !ReadFrom(d, f.file) || !ReadFrom(d, f.line))
          return Fail("truncated frame");
      if (id == 0 || !g.stacks.emplace(id, std::move(frames)).second)
        return Fail(fmt::format("bad or duplicate stack id {}", id));
    }
    return true;
  }

  bool Samples(std::span<const std::uint8_t> d, DecodedGeneration &g) {
    while (!d.empty()) {
      if (d[0] != static_cast<std::uint8_t>(EventType::kCPUSample)) return Fail("non-CPUSample in sample batch");
      d = d.subspan(1);
      DecodedEvent e;
      e.type = EventType::kCPUSample;
      e.nargs = 4;
      if (!ReadFrom(d, e.time)) return Fail("truncated CPUSample");
      for (int i = 0; i < 4; ++i)
        if (!ReadFrom(d, e.args[i])) return Fail("truncated CPUSample");
      g.cpu_samples.push_back(e);
    }
    return true;
  }

  bool Events(std::span<const std::uint8_t> d, DecodedBatch &batch) {
    std::uint64_t t = batch.base_time;
    while (!d.empty()) {
      DecodedEvent e;
      if (std::string err = DecodeNextEvent(out_.version, d, t, e); !err.empty()) return Fail(std::move(err));
      batch.events.push_back(e);
    }
    return true;
  }

 public:
  bool keep_events_ = true;

 private:
  std::span<const std::uint8_t> in_;
  DecodedTrace &out_;
};

}  // namespace

std::string DecodeNextEvent(Version v, std::span<const std::uint8_t> &d, std::uint64_t &t, DecodedEvent &e) {
  auto type = static_cast<EventType>(d[0]);
  d = d.subspan(1);
  if (static_cast<int>(type) >= kNumEventTypes || !IsCallerTimedEvent(type) || !VersionHas(v, type))
    return fmt::format("event type {} not valid in an event batch of go1.{}", static_cast<int>(type),
                       static_cast<int>(v));
  const EventSpec &s = SpecOf(type);
  e.type = type;
  auto dt = ReadVarint(d);
  if (!dt) return fmt::format("truncated {}", s.name);
  t += *dt;
  e.time = t;
  e.nargs = static_cast<std::uint8_t>(s.nargs - 1);
  for (int i = 0; i < e.nargs; ++i) {
    auto a = ReadVarint(d);
    if (!a) return fmt::format("truncated {}", s.name);
    e.args[i] = *a;
  }
  return {};
}

std::string DecodeBatchData(Version v, std::span<const std::uint8_t> data, DecodedBatch &batch, DecodedGeneration &g,
                            bool keep_events) {
  DecodedTrace t;
  t.version = v;
  Decoder d({}, t);
  d.keep_events_ = keep_events;
  d.DecodeBatch(data, batch, g);
  return t.error;
}

DecodedTrace DecodeTrace(std::span<const std::uint8_t> bytes) {
  DecodedTrace t;
  Decoder(bytes, t).Run();
  return t;
}

}  // namespace gotraced::encoder
