// Legacy format reader. See legacy_decoder.h.
#include "encoder/legacy_decoder.h"

#include <fmt/format.h>

#include <cstring>

#include "encoder/trace_header.h"
#include "encoder/varint.h"

namespace gotraced::encoder::legacy {
namespace {

struct Reader {
  std::span<const std::uint8_t> in;
  std::size_t off = 0;
  bool Var(std::uint64_t &v) {
    auto rest = in.subspan(off);
    auto before = rest.size();
    auto r = ReadVarint(rest);
    if (!r) return false;
    off += before - rest.size();
    v = *r;
    return true;
  }
};

}  // namespace

DecodedTrace DecodeLegacy(std::span<const std::uint8_t> bytes, bool header) {
  DecodedTrace t;
  Reader r{bytes};
  if (header) {
    if (bytes.size() < kHeaderLen) {
      t.error = "short header";
      return t;
    }
    bool found = false;
    for (Version v : kLegacyVersions) {
      auto h = MakeHeader(v);
      if (std::memcmp(h.data(), bytes.data(), kHeaderLen) == 0) {
        t.version = v;
        found = true;
      }
    }
    if (!found) {
      t.error = "not a go 1.19 / go 1.21 trace header";
      return t;
    }
    r.off = kHeaderLen;
  }
  std::int64_t p = kGlobalProc;
  bool cpu_batch = false, in_batch = false;
  std::uint64_t last = 0;
  auto fail = [&](std::size_t at, std::string what) {
    t.error = fmt::format("offset {}: {}", at, what);
    return t;
  };
  while (r.off < bytes.size()) {
    const std::size_t at = r.off;
    const std::uint8_t b = bytes[r.off++];
    const auto type = static_cast<Ev>(b & 0x3f);
    const unsigned narg = b >> kArgCountShift;
    const EventSpec &spec = SpecOf(type);
    if (!spec.exists) return fail(at, fmt::format("unknown event type {}", b & 0x3f));
    if (type == Ev::kString) {
      std::uint64_t id, len;
      if (!r.Var(id) || !r.Var(len) || len > bytes.size() - r.off) return fail(at, "truncated string");
      if (id == 0 || len == 0) return fail(at, "string with id 0 or length 0");
      if (t.strings.count(id)) return fail(at, fmt::format("duplicate string id {}", id));
      t.strings[id] = std::string(reinterpret_cast<const char *>(bytes.data() + r.off), len);
      r.off += len;
      t.table_bytes.insert(t.table_bytes.end(), bytes.begin() + at, bytes.begin() + r.off);
      continue;
    }
    std::vector<std::uint64_t> vals;
    if (narg < 3) {
      for (unsigned i = 0; i < narg + 1; ++i) {
        std::uint64_t v;
        if (!r.Var(v)) return fail(at, "truncated event");
        vals.push_back(v);
      }
    } else {
      std::uint64_t len;
      if (!r.Var(len) || len > bytes.size() - r.off) return fail(at, "truncated event length");
      const std::size_t end = r.off + len;
      while (r.off < end) {
        std::uint64_t v;
        if (!r.Var(v)) return fail(at, "truncated event");
        vals.push_back(v);
      }
      if (r.off != end) return fail(at, "event length mismatch");
    }
    switch (type) {
      case Ev::kBatch:
        if (vals.size() != 2) return fail(at, "batch arguments");
        p = vals[0] == ~std::uint64_t{0} ? kGlobalProc : static_cast<std::int64_t>(vals[0]);
        last = vals[1];
        in_batch = true;
        cpu_batch = false;
        continue;
      case Ev::kFrequency:
        if (vals.size() != 1) return fail(at, "frequency arguments");
        t.frequency = vals[0];
        ++t.frequency_events;
        continue;
      case Ev::kStack: {
        if (vals.size() < 2 || vals.size() != 2 + 4 * vals[1]) return fail(at, "stack arguments");
        if (t.stacks.count(vals[0])) return fail(at, fmt::format("duplicate stack id {}", vals[0]));
        t.stacks[vals[0]] = vals[1];
        auto &funcs = t.stack_funcs[vals[0]];
        for (std::uint64_t i = 0; i < vals[1]; ++i) funcs.push_back(vals[2 + 4 * i + 1]);  // {pc, func, file, line}
        t.table_bytes.insert(t.table_bytes.end(), bytes.begin() + at, bytes.begin() + r.off);
        continue;
      }
      default: break;
    }
    if (!spec.timed) return fail(at, fmt::format("{} is not supported here", spec.name));
    if (!in_batch) return fail(at, fmt::format("{} outside a batch", spec.name));
    const std::size_t want = 1 + spec.nargs + (spec.stack ? 1 : 0);
    if (vals.size() != want)
      return fail(at, fmt::format("{} has {} arguments, want {}", spec.name, vals.size(), want));
    DecodedEvent e;
    e.type = type;
    e.p = p;
    if (type == Ev::kCPUSample) cpu_batch = true;
    e.cpu_batch = cpu_batch;
    last += vals[0];
    e.ticks = last;
    e.args.assign(vals.begin() + 1, vals.end());
    if (type == Ev::kUserLog) {
      std::uint64_t len;
      if (!r.Var(len) || len > bytes.size() - r.off) return fail(at, "truncated log value");
      e.data.assign(reinterpret_cast<const char *>(bytes.data() + r.off), len);
      r.off += len;
    }
    t.events.push_back(std::move(e));
  }
  return t;
}

}  // namespace gotraced::encoder::legacy
