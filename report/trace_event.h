// What the report's readers (v2_reader.cc, legacy_reader.cc) hand the analyses: one
// event of either trace format, in time order, said in the terms of x/exp/trace's state
// transitions (internal/trace/event.go StateTransition) rather than of either wire
// format, so each analysis is written once for every Go version.
#pragma once

#include <cstdint>
#include <string_view>

namespace gotraced::report {

enum class Kind : std::uint8_t {
  kGoStatus,  // g exists at the start of a generation in `status` (v2 GoStatus; legacy GoWaiting/GoInSyscall)
  kGoCreate,  // g created runnable (creator: `from`); stack: its start function's frame
  kGoCreateBlocked,    // g created waiting (Go 1.23+ GoCreateBlocked)
  kGoStart,            // g runs on m
  kGoStop,             // g stops running but stays runnable (preempted, yield): str = reason
  kGoBlock,            // g blocks: str = reason ("chan receive", "sync", ...), stack = where
  kGoUnblock,          // g becomes runnable (by `from`)
  kGoEnd,              // g ended
  kSyscallBegin,       // g enters a syscall (stack = where)
  kSyscallEnd,         // g back from it, still with its P
  kSyscallEndBlocked,  // g back from it without a P: runnable until its next GoStart
  kSTWBegin,           // str = the kind ("GC mark termination", ...)
  kSTWEnd,
  kGCBegin,
  kGCEnd,
  kGCActive,         // a GC cycle in progress at the start of a generation
  kMarkAssistBegin,  // g assists the GC
  kMarkAssistEnd,
  kHeapAlloc,    // value = bytes
  kRegionBegin,  // user region of g: str = its type
  kRegionEnd,
  kLog,        // user log of g: str = category, str2 = message
  kCPUSample,  // g (0: none) was on CPU: stack
};

// A goroutine's state as x/exp/trace names it (internal/trace/value.go GoState).
enum class GState : std::uint8_t { kUndetermined, kNotExist, kRunnable, kRunning, kWaiting, kSyscall };

inline constexpr std::uint64_t kNone = ~std::uint64_t{0};

struct Event {
  Kind kind = Kind::kGoStart;
  std::uint64_t ns = 0;     // since the trace's first event
  std::uint64_t g = 0;      // the goroutine the event is about (0: none)
  std::uint64_t from = 0;   // the goroutine that caused it (create, unblock), 0 if none or unknown
  std::uint64_t m = kNone;  // the thread it happened on, kNone if unknown
  std::uint32_t stack = 0;  // StackTable id (0: none)
  GState status = GState::kUndetermined;  // kGoStatus
  std::uint64_t value = 0;                // kHeapAlloc
  std::string_view str, str2;             // valid during the call only
  // str's id in the StackTable's strings (StackTable::InternString; 0: ""), interned by
  // the reader once per string, so an analysis keys by it rather than hashing str.
  std::uint32_t str_id = 0;
};

// One analysis of the report: it sees every event in time order.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual void On(const Event &e) = 0;
};

}  // namespace gotraced::report
