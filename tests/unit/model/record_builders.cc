#include "tests/unit/model/record_builders.h"

#include <utility>
#include <vector>

namespace gotraced::model::testing {

Record RAt(RecordKind k, std::uint64_t ts, ThreadId m, ProcId p, Goid g) {
  Record r;
  r.ts = ts;
  r.m = m;
  r.p = p;
  r.g = g;
  r.kind = k;
  return r;
}

namespace {
std::vector<std::uint64_t> StackFor(Goid g, std::uint64_t site) {
  return {0x600000 + site, 0x610000 + g % 7, kGoexitPc};
}
}  // namespace

Record RProcStart(std::uint64_t ts, ThreadId m, ProcId p) {
  Record r = RAt(RecordKind::kProcStart, ts, m, kNoP, kNoG);
  r.target_p = p;
  return r;
}
Record RProcStop(std::uint64_t ts, ThreadId m, ProcId p) {
  return RAt(RecordKind::kProcStop, ts, m, p, kNoG);
}
Record RProcSteal(std::uint64_t ts, ThreadId m, ProcId p, ThreadId victim) {
  Record r = RAt(RecordKind::kProcSteal, ts, m, kNoP, kNoG);
  r.target_p = p;
  r.victim_m = victim;
  return r;
}
Record RProcsChange(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::uint64_t procs) {
  Record r = RAt(RecordKind::kProcsChange, ts, m, p, g);
  r.value = procs;
  r.stack = StackFor(g, 1);
  return r;
}
Record RGoCreate(std::uint64_t ts, ThreadId m, ProcId p, Goid g, Goid newg, bool blocked) {
  Record r = RAt(RecordKind::kGoCreate, ts, m, p, g);
  r.target_g = newg;
  r.value = 0x700000 + newg % 5;
  r.flag = blocked;
  r.stack = StackFor(g, 2);
  return r;
}
Record RGoCreateWithoutId(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::uint64_t gp) {
  Record r = RGoCreate(ts, m, p, g, kNoG);
  r.value2 = gp;
  return r;
}
Record RGoidResolved(std::uint64_t ts, std::uint64_t gp, Goid goid) {
  Record r;
  r.ts = ts;
  r.kind = RecordKind::kGoidResolved;
  r.target_g = goid;
  r.value2 = gp;
  return r;
}
Record RGoStart(std::uint64_t ts, ThreadId m, ProcId p, Goid g) {
  Record r = RAt(RecordKind::kGoStart, ts, m, p, kNoG);
  r.target_g = g;
  return r;
}
Record RGoBlock(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::string_view reason) {
  Record r = RAt(RecordKind::kGoBlock, ts, m, p, g);
  r.reason = reason;
  r.stack = StackFor(g, 3);
  r.stack_skip = 0;
  return r;
}
Record RGoStop(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::string_view reason) {
  Record r = RAt(RecordKind::kGoStop, ts, m, p, g);
  r.reason = reason;
  r.stack = StackFor(g, 4);
  return r;
}
Record RGoEnd(std::uint64_t ts, ThreadId m, ProcId p, Goid g) { return RAt(RecordKind::kGoEnd, ts, m, p, g); }
Record RGoUnblock(std::uint64_t ts, ThreadId m, ProcId p, Goid g, Goid target) {
  Record r = RAt(RecordKind::kGoUnblock, ts, m, p, g);
  r.target_g = target;
  r.stack = StackFor(g, 5);
  return r;
}
Record RSyscall(std::uint64_t ts, ThreadId m, ProcId p, Goid g) {
  Record r = RAt(RecordKind::kGoSyscallBegin, ts, m, p, g);
  r.stack = StackFor(g, 6);
  return r;
}
Record RSyscallEnd(std::uint64_t ts, ThreadId m, ProcId p, Goid g) {
  return RAt(RecordKind::kGoSyscallEnd, ts, m, p, g);
}
Record RSyscallEndBlocked(std::uint64_t ts, ThreadId m, ProcId p, Goid g) {
  return RAt(RecordKind::kGoSyscallEndBlocked, ts, m, p, g);
}
Record RGoSwitch(std::uint64_t ts, ThreadId m, ProcId p, Goid g, Goid next, bool destroy) {
  Record r = RAt(RecordKind::kGoSwitch, ts, m, p, g);
  r.target_g = next;
  r.flag = destroy;
  return r;
}

Record RGc(RecordKind k, std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::uint64_t value,
           std::string_view reason) {
  Record r = RAt(k, ts, m, p, g);
  r.value = value;
  r.reason = reason;
  return r;
}

Record RUser(RecordKind k, std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::uint64_t task,
             std::string text, std::string text2) {
  Record r = RAt(k, ts, m, p, g);
  r.value = task;
  r.text = std::move(text);
  r.text2 = std::move(text2);
  r.stack = {0x7000 + ts, 0x7100};
  r.stack_skip = 1;
  return r;
}

std::vector<std::uint8_t> RawBytes(const void *body, std::size_t size,
                                   const std::vector<std::uint64_t> &stack, std::uint8_t source) {
  const auto *b = static_cast<const std::uint8_t *>(body);
  std::vector<std::uint8_t> out(b, b + size);
  if (stack.empty()) return out;
  gt_stack_tail t{};
  t.nframes = static_cast<std::uint16_t>(stack.size());
  t.source = source;
  const auto *tp = reinterpret_cast<const std::uint8_t *>(&t);
  out.insert(out.end(), tp, tp + sizeof t);
  const auto *sp = reinterpret_cast<const std::uint8_t *>(stack.data());
  out.insert(out.end(), sp, sp + stack.size() * sizeof stack[0]);
  return out;
}

}  // namespace gotraced::model::testing
