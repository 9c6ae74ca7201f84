// The event table of the pre-1.22 ("v1") trace format, as data, beside the v2 one
// (event_table.h). Mirrors EventDescriptions of internal/trace/parser.go in Go 1.19 and
// 1.21 (the same table but for the names of 9/10 and the meaning of the STW kind), and
// the traceEv* constants of runtime/trace.go. The legacy writer (legacy_writer.cc) and
// the tests read this table; nothing else restates the format.
//
// Wire form of an event (runtime/trace.go traceEventLocked, parser.go readTrace):
//   one byte  type | n << 6, where n = min(3, number of arguments after the timestamp,
//             the stack id counting as one);
//   n < 3:    [delta ticks] [args...]          (n+1 varints)
//   n == 3:   [length] [delta ticks] [args...] (length: bytes after the length varint)
//   UserLog:  the above, then [len][bytes] of the value, outside the length.
// The delta is from the previous event of the same batch (the batch header's ticks
// for the first). EvString and EvStack have no timestamp (see their entries).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "encoder/trace_types.h"

namespace gotraced::encoder::legacy {

// traceEv* of runtime/trace.go (1.19 and 1.21 number them the same).
enum class Ev : std::uint8_t {
  kNone = 0,
  kBatch = 1,          // [pid, ticks]
  kFrequency = 2,      // [ticks per second]
  kStack = 3,          // [id, nframes, {pc, func string, file string, line} x nframes]
  kGomaxprocs = 4,     // [ts, procs, stack]
  kProcStart = 5,      // [ts, thread id]
  kProcStop = 6,       // [ts]
  kGCStart = 7,        // [ts, seq, stack]
  kGCDone = 8,         // [ts]
  kSTWStart = 9,       // [ts, kind]   1.19: GCSTWStart, kind 0 mark / 1 sweep termination
  kSTWDone = 10,       // [ts]         1.21: kind indexes stwReasonStringsGo121
  kGCSweepStart = 11,  // [ts, stack]
  kGCSweepDone = 12,   // [ts, swept, reclaimed]
  kGoCreate = 13,      // [ts, new g, new stack, stack]
  kGoStart = 14,       // [ts, g, seq]
  kGoEnd = 15,         // [ts]
  kGoStop = 16,        // [ts, stack]   blocked forever (select{}, gopark forever)
  kGoSched = 17,       // [ts, stack]
  kGoPreempt = 18,     // [ts, stack]
  kGoSleep = 19,       // [ts, stack]
  kGoBlock = 20,       // [ts, stack]
  kGoUnblock = 21,     // [ts, g, seq, stack]
  kGoBlockSend = 22,
  kGoBlockRecv = 23,
  kGoBlockSelect = 24,
  kGoBlockSync = 25,
  kGoBlockCond = 26,
  kGoBlockNet = 27,
  kGoSysCall = 28,     // [ts, stack]
  kGoSysExit = 29,     // [ts, g, seq, real ts]
  kGoSysBlock = 30,    // [ts]
  kGoWaiting = 31,     // [ts, g]  blocked when the trace starts
  kGoInSyscall = 32,   // [ts, g]  in a syscall when the trace starts
  kHeapAlloc = 33,     // [ts, bytes]
  kHeapGoal = 34,      // [ts, bytes]
  kTimerGoroutine = 35,  // [g] (unused since 1.14)
  kFutileWakeup = 36,  // [ts]
  kString = 37,        // [id, len, bytes]
  kGoStartLocal = 38,  // [ts, g]
  kGoUnblockLocal = 39,  // [ts, g, stack]
  kGoSysExitLocal = 40,  // [ts, g, real ts]
  kGoStartLabel = 41,  // [ts, g, seq, label string]
  kGoBlockGC = 42,     // [ts, stack]
  kGCMarkAssistStart = 43,  // [ts, stack]
  kGCMarkAssistDone = 44,   // [ts]
  kUserTaskCreate = 45,     // [ts, task, parent task, name string, stack]
  kUserTaskEnd = 46,        // [ts, task, stack]
  kUserRegion = 47,         // [ts, task, mode (0 start, 1 end), name string, stack]
  kUserLog = 48,            // [ts, task, key string, stack] + value bytes
  kCPUSample = 49,          // [ts, real ts, real P (-1: none), g, stack]
};
inline constexpr int kNumEvents = 50;

// Identifier of the batch of events written without a P (runtime/trace.go traceGlobProc).
inline constexpr std::int64_t kGlobalProc = -1;

struct EventSpec {
  std::string_view name;  // parser.go EventDescriptions Name (1.21 names for 9/10)
  Ev type = Ev::kNone;
  std::uint8_t nargs = 0;  // arguments after the timestamp, without the stack
  bool stack = false;      // a stack id follows the arguments
  bool timed = true;       // false: Batch, Frequency, Stack, String, TimerGoroutine
  bool exists = false;
};

namespace detail {
constexpr std::array<EventSpec, kNumEvents> BuildLegacySpecs() {
  std::array<EventSpec, kNumEvents> t{};
  auto put = [&t](Ev e, std::string_view name, int nargs, bool stack, bool timed = true) {
    t[static_cast<int>(e)] = EventSpec{name, e, static_cast<std::uint8_t>(nargs), stack, timed, true};
  };
  put(Ev::kBatch, "Batch", 2, false, false);
  put(Ev::kFrequency, "Frequency", 1, false, false);
  put(Ev::kStack, "Stack", 2, false, false);
  put(Ev::kGomaxprocs, "Gomaxprocs", 1, true);
  put(Ev::kProcStart, "ProcStart", 1, false);
  put(Ev::kProcStop, "ProcStop", 0, false);
  put(Ev::kGCStart, "GCStart", 1, true);
  put(Ev::kGCDone, "GCDone", 0, false);
  put(Ev::kSTWStart, "STWStart", 1, false);
  put(Ev::kSTWDone, "STWDone", 0, false);
  put(Ev::kGCSweepStart, "GCSweepStart", 0, true);
  put(Ev::kGCSweepDone, "GCSweepDone", 2, false);
  put(Ev::kGoCreate, "GoCreate", 2, true);
  put(Ev::kGoStart, "GoStart", 2, false);
  put(Ev::kGoEnd, "GoEnd", 0, false);
  put(Ev::kGoStop, "GoStop", 0, true);
  put(Ev::kGoSched, "GoSched", 0, true);
  put(Ev::kGoPreempt, "GoPreempt", 0, true);
  put(Ev::kGoSleep, "GoSleep", 0, true);
  put(Ev::kGoBlock, "GoBlock", 0, true);
  put(Ev::kGoUnblock, "GoUnblock", 2, true);
  put(Ev::kGoBlockSend, "GoBlockSend", 0, true);
  put(Ev::kGoBlockRecv, "GoBlockRecv", 0, true);
  put(Ev::kGoBlockSelect, "GoBlockSelect", 0, true);
  put(Ev::kGoBlockSync, "GoBlockSync", 0, true);
  put(Ev::kGoBlockCond, "GoBlockCond", 0, true);
  put(Ev::kGoBlockNet, "GoBlockNet", 0, true);
  put(Ev::kGoSysCall, "GoSysCall", 0, true);
  put(Ev::kGoSysExit, "GoSysExit", 3, false);
  put(Ev::kGoSysBlock, "GoSysBlock", 0, false);
  put(Ev::kGoWaiting, "GoWaiting", 1, false);
  put(Ev::kGoInSyscall, "GoInSyscall", 1, false);
  put(Ev::kHeapAlloc, "HeapAlloc", 1, false);
  put(Ev::kHeapGoal, "HeapGoal", 1, false);
  put(Ev::kTimerGoroutine, "TimerGoroutine", 1, false, false);
  put(Ev::kFutileWakeup, "FutileWakeup", 0, false);
  put(Ev::kString, "String", 0, false, false);
  put(Ev::kGoStartLocal, "GoStartLocal", 1, false);
  put(Ev::kGoUnblockLocal, "GoUnblockLocal", 1, true);
  put(Ev::kGoSysExitLocal, "GoSysExitLocal", 2, false);
  put(Ev::kGoStartLabel, "GoStartLabel", 3, false);
  put(Ev::kGoBlockGC, "GoBlockGC", 0, true);
  put(Ev::kGCMarkAssistStart, "GCMarkAssistStart", 0, true);
  put(Ev::kGCMarkAssistDone, "GCMarkAssistDone", 0, false);
  put(Ev::kUserTaskCreate, "UserTaskCreate", 3, true);
  put(Ev::kUserTaskEnd, "UserTaskEnd", 1, true);
  put(Ev::kUserRegion, "UserRegion", 3, true);
  put(Ev::kUserLog, "UserLog", 2, true);
  put(Ev::kCPUSample, "CPUSample", 3, true);
  return t;
}
}  // namespace detail

inline constexpr std::array<EventSpec, kNumEvents> kSpecs = detail::BuildLegacySpecs();

constexpr const EventSpec &SpecOf(Ev e) {
  auto i = static_cast<std::uint8_t>(e);
  return kSpecs[i < kNumEvents ? i : 0];
}

// The argument-count bits of an event's first byte (runtime/trace.go traceArgCountShift).
inline constexpr int kArgCountShift = 6;

// Block reasons as the v2 model names them -> the legacy event that carries them. The
// inverse of internal/trace/tracev1.go convertEvent (Go 1.26), which is how every
// reader since Go 1.22 names legacy blocks, and of runtime/trace.go's traceBlockReason
// table (1.21: traceBlockGeneric = traceEvGoBlock, traceBlockForever = traceEvGoStop, ...).
// A reason not listed (repairs, "preempted" on <= 1.21, "" for a generic block) is a
// plain GoBlock.
struct BlockReason {
  std::string_view reason;
  Ev ev;
};
inline constexpr BlockReason kBlockReasons[] = {
    {"forever", Ev::kGoStop},
    {"sleep", Ev::kGoSleep},
    {"chan send", Ev::kGoBlockSend},
    {"chan receive", Ev::kGoBlockRecv},
    {"select", Ev::kGoBlockSelect},
    {"sync", Ev::kGoBlockSync},
    {"sync.(*Cond).Wait", Ev::kGoBlockCond},
    {"network", Ev::kGoBlockNet},
    {"GC mark assist wait for work", Ev::kGoBlockGC},
};
constexpr Ev BlockEventFor(std::string_view reason) {
  for (const BlockReason &b : kBlockReasons)
    if (b.reason == reason) return b.ev;
  return Ev::kGoBlock;
}

// STW kinds. Go 1.19 (parser.go): 0 "mark termination", 1 "sweep termination"; any
// other kind fails the parse. Go 1.21: the index into stwReasonStringsGo121 (parser.go,
// the runtime's stwReason strings of that release).
inline constexpr std::string_view kStwReasonsGo121[] = {
    "unknown",
    "GC mark termination",
    "GC sweep termination",
    "write heap dump",
    "goroutine profile",
    "goroutine profile cleanup",
    "all goroutines stack trace",
    "read mem stats",
    "AllThreadsSyscall",
    "GOMAXPROCS",
    "start trace",
    "stop trace",
    "CountPagesInUse (test)",
    "ReadMetricsSlow (test)",
    "ReadMemStatsSlow (test)",
    "PageCachePagesLeaked (test)",
    "ResetDebugLog (test)",
};
// The wire kind of an STW named `reason`, or -1 when `version` cannot express it.
constexpr int StwKindFor(Version version, std::string_view reason) {
  if (version == Version::kGo119) {
    if (reason == "GC mark termination" || reason == "mark termination") return 0;
    if (reason == "GC sweep termination" || reason == "sweep termination") return 1;
    return -1;
  }
  int i = 0;
  for (std::string_view s : kStwReasonsGo121) {
    if (s == reason) return i;
    ++i;
  }
  return 0;  // "unknown"
}

}  // namespace gotraced::encoder::legacy
