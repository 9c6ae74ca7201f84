// Legacy per-P batches. See legacy_batches.h.
#include "encoder/legacy_batches.h"

namespace gotraced::encoder::legacy {

void Batches::Add(std::int64_t p, std::uint64_t ticks, Ev type, std::span<const std::uint64_t> args,
                  std::string_view data) {
  Batch &b = batches_[p];
  if (b.buf.empty()) b.first_ticks = b.last_ticks = ticks;
  const std::uint64_t dt = ticks - b.last_ticks;
  b.last_ticks = ticks;
  ++events_;
  // runtime/trace.go traceEventLocked: the count of arguments after the timestamp in the
  // top two bits; 3 means "3 or more" and a byte length follows.
  const std::size_t n = args.size();
  const unsigned narg = n > 3 ? 3u : static_cast<unsigned>(n);
  b.buf.PutByte(static_cast<std::uint8_t>(static_cast<unsigned>(type) | narg << kArgCountShift));
  if (narg == 3) {
    std::size_t len = VarintLen(dt);
    for (std::uint64_t a : args) len += VarintLen(a);
    b.buf.PutVarint(len);
  }
  b.buf.PutVarint(dt);
  for (std::uint64_t a : args) b.buf.PutVarint(a);
  if (type == Ev::kUserLog) {
    // The value follows the length-covered part (runtime/trace.go traceUserLog).
    b.buf.PutVarint(data.size());
    b.buf.PutBytes(data);
  }
}

Batches::Mark Batches::Tell(std::int64_t p) {
  const Batch &b = batches_[p];
  return Mark{b.buf.size(), b.first_ticks, b.last_ticks, events_};
}

void Batches::Truncate(std::int64_t p, const Mark &m) {
  Batch &b = batches_[p];
  b.buf.Truncate(m.size);
  b.first_ticks = m.first_ticks;
  b.last_ticks = m.last_ticks;
  events_ = m.events;
}

void Batches::FlushTo(ByteBuffer &out) {
  for (auto &[p, b] : batches_) {
    if (b.buf.empty()) continue;
    out.PutByte(static_cast<std::uint8_t>(static_cast<unsigned>(Ev::kBatch) | 1u << kArgCountShift));
    // traceGlobProc (-1) as the runtime writes it: uint64(int32(-1)).
    out.PutVarint(static_cast<std::uint64_t>(p == kCpuSampleBatch ? kGlobalProc : p));
    out.PutVarint(b.first_ticks);
    out.PutBytes(b.buf.span());
    b.buf.Clear();
  }
}

bool Batches::empty() const {
  for (const auto &[p, b] : batches_)
    if (!b.buf.empty()) return false;
  return true;
}

std::size_t Batches::bytes() const {
  std::size_t n = 0;
  for (const auto &[p, b] : batches_) n += b.buf.size();
  return n;
}

}  // namespace gotraced::encoder::legacy
