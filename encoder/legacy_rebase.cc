// A legacy trace starting at a later generation. See legacy_rebase.h.
#include "encoder/legacy_rebase.h"

#include <algorithm>
#include <utility>

#include "encoder/byte_buffer.h"
#include "encoder/legacy_batches.h"
#include "encoder/legacy_decoder.h"

namespace gotraced::encoder {

StoredLegacyRestart StoredLegacyRestart::From(const LegacyRestart &r) {
  StoredLegacyRestart s;
  s.prelude.assign(r.prelude.begin(), r.prelude.end());
  s.gc_base = r.gc_base;
  s.gc_active = r.gc_active;
  s.stw_active = r.stw_active;
  s.sweeping = r.sweeping;
  for (const auto &[g, off] : r.seq_offsets) s.seq_offsets[g] = off;
  return s;
}

LegacyRebaser::LegacyRebaser(StoredLegacyRestart restart)
    : r_(std::move(restart)),
      gc_end_pending_(r_.gc_active),
      stw_end_pending_(r_.stw_active),
      sweep_end_pending_(r_.sweeping) {}

bool LegacyRebaser::Rewrite(std::span<const std::uint8_t> generation, std::vector<std::uint8_t> &out,
                            std::string *error) {
  legacy::DecodedTrace t = legacy::DecodeLegacy(generation, /*header=*/false);
  if (!t.ok()) {
    if (error) *error = "legacy rebase: " + t.error;
    return false;
  }
  using legacy::Ev;
  // What was in progress at the start ends without its beginning here: drop that end,
  // the first by time (the writer's timestamps are strictly increasing) unless a new
  // beginning comes first.
  std::vector<std::size_t> by_time(t.events.size());
  for (std::size_t i = 0; i < by_time.size(); ++i) by_time[i] = i;
  std::stable_sort(by_time.begin(), by_time.end(),
                   [&](std::size_t a, std::size_t b) { return t.events[a].ticks < t.events[b].ticks; });
  std::vector<bool> drop(t.events.size(), false);
  for (std::size_t i : by_time) {
    const legacy::DecodedEvent &e = t.events[i];
    switch (e.type) {
      case Ev::kGCStart: gc_end_pending_ = false; break;
      case Ev::kGCDone:
        if (gc_end_pending_) drop[i] = true;
        gc_end_pending_ = false;
        break;
      case Ev::kSTWStart: stw_end_pending_ = false; break;
      case Ev::kSTWDone:
        if (stw_end_pending_) drop[i] = true;
        stw_end_pending_ = false;
        break;
      case Ev::kGCSweepStart:
      case Ev::kGCSweepDone: {
        auto it = std::find(sweep_end_pending_.begin(), sweep_end_pending_.end(), e.p);
        if (it == sweep_end_pending_.end()) break;
        if (e.type == Ev::kGCSweepDone) drop[i] = true;
        sweep_end_pending_.erase(it);
        break;
      }
      default: break;
    }
  }
  legacy::Batches batches;
  for (std::size_t i = 0; i < t.events.size(); ++i) {
    if (drop[i]) continue;
    const legacy::DecodedEvent &e = t.events[i];
    std::vector<std::uint64_t> args = e.args;
    if (e.type == Ev::kGCStart && !args.empty()) args[0] -= std::min(args[0], r_.gc_base);
    if ((e.type == Ev::kGoSysExit || e.type == Ev::kGoStartLabel) && args.size() >= 2) {  // [g, seq, ...]
      if (auto it = r_.seq_offsets.find(args[0]); it != r_.seq_offsets.end()) args[1] -= std::min(args[1], it->second);
    }
    batches.Add(e.cpu_batch ? legacy::kCpuSampleBatch : e.p, e.ticks, e.type, args, e.data);
  }
  ByteBuffer b;
  batches.FlushTo(b);  // tables after a batch header (legacy_writer.cc EndGeneration)
  b.PutBytes(std::span<const std::uint8_t>(t.table_bytes));
  if (t.frequency) {
    b.PutByte(static_cast<std::uint8_t>(Ev::kFrequency));
    b.PutVarint(t.frequency);
  }
  out.insert(out.end(), b.data(), b.data() + b.size());
  return true;
}

std::vector<std::uint8_t> LegacyTraceFrom(std::span<const std::uint8_t> header, const StoredLegacyRestart &restart,
                                          std::span<const std::span<const std::uint8_t>> generations,
                                          std::string *error) {
  LegacyRebaser rb(restart);
  std::vector<std::uint8_t> out(header.begin(), header.end());
  out.insert(out.end(), restart.prelude.begin(), restart.prelude.end());
  for (auto g : generations)
    if (!rb.Rewrite(g, out, error)) return {};
  return out;
}

}  // namespace gotraced::encoder
