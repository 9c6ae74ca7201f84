// Record builders for the model's tests: a small DSL so a test reads like the situation
// it checks. One builder per record kind the scheduler tests use, and one per family
// whose records differ only in kind (RGc, RUser); and the raw capture records the
// decoder reads (RawRecord). Every model::Record builder takes
// m = thread id, p = P the M holds (kNoP none), g = current goroutine (kNoG none).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/model/record.h"
#include "proto/records.h"

namespace gotraced::model::testing {

// Special pcs, named by TableSymbolizer (model_test_util.h): the builders' stacks end in
// runtime.goexit; kMainPc is runtime.main; pcs in [kInlinedBase, +0x1000) expand to an
// inlined call and its physical function.
inline constexpr std::uint64_t kGoexitPc = 0x401000;
inline constexpr std::uint64_t kMainPc = 0x402000;
inline constexpr std::uint64_t kInlinedBase = 0x500000;

// The fields every record has; the builders below fill in the rest.
Record RAt(RecordKind k, std::uint64_t ts, ThreadId m, ProcId p, Goid g);

Record RProcStart(std::uint64_t ts, ThreadId m, ProcId p);
Record RProcStop(std::uint64_t ts, ThreadId m, ProcId p);
Record RProcSteal(std::uint64_t ts, ThreadId m, ProcId p, ThreadId victim);
Record RProcsChange(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::uint64_t procs);
Record RGoCreate(std::uint64_t ts, ThreadId m, ProcId p, Goid g, Goid newg, bool blocked = false);
// Go <= 1.23: a create whose goroutine had no id yet (keyed by its g's address `gp`), and
// the decoder's later record naming the id (record.h kGoidResolved).
Record RGoCreateWithoutId(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::uint64_t gp);
Record RGoidResolved(std::uint64_t ts, std::uint64_t gp, Goid goid);
Record RGoStart(std::uint64_t ts, ThreadId m, ProcId p, Goid g);
Record RGoBlock(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::string_view reason = "chan receive");
Record RGoStop(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::string_view reason = "runtime.Gosched");
Record RGoEnd(std::uint64_t ts, ThreadId m, ProcId p, Goid g);
Record RGoUnblock(std::uint64_t ts, ThreadId m, ProcId p, Goid g, Goid target);
Record RSyscall(std::uint64_t ts, ThreadId m, ProcId p, Goid g);
Record RSyscallEnd(std::uint64_t ts, ThreadId m, ProcId p, Goid g);
Record RSyscallEndBlocked(std::uint64_t ts, ThreadId m, ProcId p, Goid g);
Record RGoSwitch(std::uint64_t ts, ThreadId m, ProcId p, Goid g, Goid next, bool destroy = false);

// GC (model_gc.cc): value = bytes (kHeapAlloc, kHeapGoal), reason = the STW reason
// (kSTWBegin) or the worker label (kGoLabel). No stack.
Record RGc(RecordKind k, std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::uint64_t value = 0,
           std::string_view reason = {});
// User annotations (model_user.cc): value = task id, text / text2 as record.h says per
// kind; a two-frame stack unique to ts, with the one runtime/trace frame to skip.
Record RUser(RecordKind k, std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::uint64_t task,
             std::string text = {}, std::string text2 = {});

// The decoder's input: the bytes of a raw capture record as the ring buffer holds it
// (proto/records.h): the fixed-size body, then, when `stack` is not empty, a
// gt_stack_tail naming `source` and the PCs. The body's has_stack is the caller's.
std::vector<std::uint8_t> RawBytes(const void *body, std::size_t size,
                                   const std::vector<std::uint64_t> &stack = {},
                                   std::uint8_t source = GT_STACK_REGS);
template <typename Body>
std::vector<std::uint8_t> RawRecord(const Body &body, const std::vector<std::uint64_t> &stack = {},
                                    std::uint8_t source = GT_STACK_REGS) {
  return RawBytes(&body, sizeof body, stack, source);
}

}  // namespace gotraced::model::testing
