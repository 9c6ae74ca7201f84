// The event table of the Go trace format, as data. Mirrors
// internal/trace/tracev2/events.go (specs) and spec.go (EventSpec) of Go 1.26: one
// entry per event number, with its argument names (the suffix after '_' is the type,
// as in Go), which arguments are string / stack ids, and the first format version
// that has it. The emit path (trace_writer.cc), the debug dumper (trace_dump.cc) and
// the tests read this table; nothing else restates the format.
#pragma once

#include <array>
#include <cstdint>
#include <initializer_list>
#include <string_view>

#include "encoder/trace_types.h"

namespace gotraced::encoder {

// Event numbers (tracev2.EventType). Numbers never change between versions; newer
// versions only append.
enum class EventType : std::uint8_t {
  kNone = 0,
  // Structural.
  kEventBatch = 1,
  kStacks = 2,
  kStack = 3,
  kStrings = 4,
  kString = 5,
  kCPUSamples = 6,
  kCPUSample = 7,
  kFrequency = 8,
  // Procs.
  kProcsChange = 9,
  kProcStart = 10,
  kProcStop = 11,
  kProcSteal = 12,
  kProcStatus = 13,
  // Goroutines.
  kGoCreate = 14,
  kGoCreateSyscall = 15,
  kGoStart = 16,
  kGoDestroy = 17,
  kGoDestroySyscall = 18,
  kGoStop = 19,
  kGoBlock = 20,
  kGoUnblock = 21,
  kGoSyscallBegin = 22,
  kGoSyscallEnd = 23,
  kGoSyscallEndBlocked = 24,
  kGoStatus = 25,
  // STW.
  kSTWBegin = 26,
  kSTWEnd = 27,
  // GC.
  kGCActive = 28,
  kGCBegin = 29,
  kGCEnd = 30,
  kGCSweepActive = 31,
  kGCSweepBegin = 32,
  kGCSweepEnd = 33,
  kGCMarkAssistActive = 34,
  kGCMarkAssistBegin = 35,
  kGCMarkAssistEnd = 36,
  kHeapAlloc = 37,
  kHeapGoal = 38,
  // Annotations.
  kGoLabel = 39,
  kUserTaskBegin = 40,
  kUserTaskEnd = 41,
  kUserRegionBegin = 42,
  kUserRegionEnd = 43,
  kUserLog = 44,
  // Go 1.23: coroutines, GoStatusStack, experimental batches.
  kGoSwitch = 45,
  kGoSwitchDestroy = 46,
  kGoCreateBlocked = 47,
  kGoStatusStack = 48,
  kExperimentalBatch = 49,
  // Go 1.25: sync batch.
  kSync = 50,
  kClockSnapshot = 51,
  // Go 1.26: in-band end of generation.
  kEndOfGeneration = 52,
};

inline constexpr int kNumEventTypes = 53;
// tracev2.MaxTimedEventArgs: dt plus at most four more.
inline constexpr int kMaxTimedEventArgs = 5;

// Argument types, from the suffix of Go's argument names (tracev2.EventArgTypes).
enum class ArgKind : std::uint8_t {
  kValue,  // no suffix or "_value": raw uint64
  kTime,   // "dt" / "time": timestamp (delta or absolute)
  kSeq,
  kPStatus,
  kGStatus,
  kG,
  kM,
  kP,
  kString,
  kStack,
  kTask,
};

constexpr ArgKind ArgKindOf(std::string_view arg) {
  if (arg == "dt" || arg == "time") return ArgKind::kTime;
  auto us = arg.rfind('_');
  std::string_view t = us == std::string_view::npos ? arg : arg.substr(us + 1);
  if (t == "seq") return ArgKind::kSeq;
  if (t == "pstatus") return ArgKind::kPStatus;
  if (t == "gstatus") return ArgKind::kGStatus;
  if (t == "g") return ArgKind::kG;
  if (t == "m") return ArgKind::kM;
  if (t == "p") return ArgKind::kP;
  if (t == "string") return ArgKind::kString;
  if (t == "stack") return ArgKind::kStack;
  if (t == "task") return ArgKind::kTask;
  return ArgKind::kValue;
}

struct EventSpec {
  std::string_view name;                         // tracev2 name, e.g. "GoCreate"
  EventType type = EventType::kNone;
  Version min_version = Version::kGo122;         // first header version that has it
  std::uint8_t nargs = 0;                        // wire arguments (timed: incl. dt)
  std::array<std::string_view, kMaxTimedEventArgs> args{};
  std::uint8_t string_mask = 0;                  // bit i: args[i] is a string id
  std::uint8_t stack_mask = 0;                   // bit i: args[i] is a stack id
  EventType start_event = EventType::kNone;      // for an "end"/"active" event: its begin
  bool timed = false;                            // appears in per-M batches, args[0] = dt
  bool has_data = false;                         // trailing length-prefixed bytes
  bool is_stack = false;                         // trailing nframes x {pc,func,file,line}
  bool exists = false;                           // false for unused numbers (0)

  constexpr bool IsStringArg(int i) const { return (string_mask >> i) & 1; }
  constexpr bool IsStackArg(int i) const { return (stack_mask >> i) & 1; }
  constexpr ArgKind Kind(int i) const { return ArgKindOf(args[i]); }
};

namespace detail {

constexpr std::uint8_t Mask(std::initializer_list<int> idx) {
  std::uint8_t m = 0;
  for (int i : idx) m = static_cast<std::uint8_t>(m | (1u << i));
  return m;
}

struct SpecBuilder {
  EventSpec s;
  constexpr SpecBuilder(EventType t, std::string_view name, Version v,
                        std::initializer_list<std::string_view> args) {
    s.type = t;
    s.name = name;
    s.min_version = v;
    s.exists = true;
    std::uint8_t n = 0;
    for (auto a : args) s.args[n++] = a;
    s.nargs = n;
    s.timed = n > 0 && s.args[0] == "dt";
  }
  constexpr SpecBuilder &Strings(std::initializer_list<int> idx) { s.string_mask = Mask(idx); return *this; }
  constexpr SpecBuilder &Stacks(std::initializer_list<int> idx) { s.stack_mask = Mask(idx); return *this; }
  constexpr SpecBuilder &Start(EventType t) { s.start_event = t; return *this; }
  constexpr SpecBuilder &Data() { s.has_data = true; return *this; }
  constexpr SpecBuilder &IsStack() { s.is_stack = true; return *this; }
};

constexpr std::array<EventSpec, kNumEventTypes> BuildSpecs() {
  using E = EventType;
  constexpr Version v22 = Version::kGo122, v23 = Version::kGo123;
  constexpr Version v25 = Version::kGo125, v26 = Version::kGo126;
  std::array<EventSpec, kNumEventTypes> t{};
  auto put = [&t](const SpecBuilder &b) { t[static_cast<int>(b.s.type)] = b.s; };
  // Structural events (not timed even where they carry a time).
  put(SpecBuilder(E::kEventBatch, "EventBatch", v22, {"gen", "m", "time", "size"}));
  put(SpecBuilder(E::kStacks, "Stacks", v22, {}));
  put(SpecBuilder(E::kStack, "Stack", v22, {"id", "nframes"}).IsStack());
  put(SpecBuilder(E::kStrings, "Strings", v22, {}));
  put(SpecBuilder(E::kString, "String", v22, {"id"}).Data());
  put(SpecBuilder(E::kCPUSamples, "CPUSamples", v22, {}));
  put(SpecBuilder(E::kCPUSample, "CPUSample", v22, {"time", "m", "p", "g", "stack"}).Stacks({4}));
  put(SpecBuilder(E::kFrequency, "Frequency", v22, {"freq"}));
  put(SpecBuilder(E::kExperimentalBatch, "ExperimentalBatch", v23, {"exp", "gen", "m", "time"}).Data());
  put(SpecBuilder(E::kSync, "Sync", v25, {}));
  put(SpecBuilder(E::kEndOfGeneration, "EndOfGeneration", v26, {}));
  // Timed events.
  put(SpecBuilder(E::kProcsChange, "ProcsChange", v22, {"dt", "procs_value", "stack"}).Stacks({2}));
  put(SpecBuilder(E::kProcStart, "ProcStart", v22, {"dt", "p", "p_seq"}));
  put(SpecBuilder(E::kProcStop, "ProcStop", v22, {"dt"}));
  put(SpecBuilder(E::kProcSteal, "ProcSteal", v22, {"dt", "p", "p_seq", "m"}));
  put(SpecBuilder(E::kProcStatus, "ProcStatus", v22, {"dt", "p", "pstatus"}));
  put(SpecBuilder(E::kGoCreate, "GoCreate", v22, {"dt", "new_g", "new_stack", "stack"}).Stacks({3, 2}));
  put(SpecBuilder(E::kGoCreateSyscall, "GoCreateSyscall", v22, {"dt", "new_g"}));
  put(SpecBuilder(E::kGoStart, "GoStart", v22, {"dt", "g", "g_seq"}));
  put(SpecBuilder(E::kGoDestroy, "GoDestroy", v22, {"dt"}));
  put(SpecBuilder(E::kGoDestroySyscall, "GoDestroySyscall", v22, {"dt"}));
  put(SpecBuilder(E::kGoStop, "GoStop", v22, {"dt", "reason_string", "stack"}).Stacks({2}).Strings({1}));
  put(SpecBuilder(E::kGoBlock, "GoBlock", v22, {"dt", "reason_string", "stack"}).Stacks({2}).Strings({1}));
  put(SpecBuilder(E::kGoUnblock, "GoUnblock", v22, {"dt", "g", "g_seq", "stack"}).Stacks({3}));
  put(SpecBuilder(E::kGoSyscallBegin, "GoSyscallBegin", v22, {"dt", "p_seq", "stack"}).Stacks({2}));
  put(SpecBuilder(E::kGoSyscallEnd, "GoSyscallEnd", v22, {"dt"}).Start(E::kGoSyscallBegin));
  put(SpecBuilder(E::kGoSyscallEndBlocked, "GoSyscallEndBlocked", v22, {"dt"}).Start(E::kGoSyscallBegin));
  put(SpecBuilder(E::kGoStatus, "GoStatus", v22, {"dt", "g", "m", "gstatus"}));
  put(SpecBuilder(E::kSTWBegin, "STWBegin", v22, {"dt", "kind_string", "stack"}).Stacks({2}).Strings({1}));
  put(SpecBuilder(E::kSTWEnd, "STWEnd", v22, {"dt"}).Start(E::kSTWBegin));
  put(SpecBuilder(E::kGCActive, "GCActive", v22, {"dt", "gc_seq"}).Start(E::kGCBegin));
  put(SpecBuilder(E::kGCBegin, "GCBegin", v22, {"dt", "gc_seq", "stack"}).Stacks({2}));
  put(SpecBuilder(E::kGCEnd, "GCEnd", v22, {"dt", "gc_seq"}).Start(E::kGCBegin));
  put(SpecBuilder(E::kGCSweepActive, "GCSweepActive", v22, {"dt", "p"}).Start(E::kGCSweepBegin));
  put(SpecBuilder(E::kGCSweepBegin, "GCSweepBegin", v22, {"dt", "stack"}).Stacks({1}));
  put(SpecBuilder(E::kGCSweepEnd, "GCSweepEnd", v22, {"dt", "swept_value", "reclaimed_value"})
          .Start(E::kGCSweepBegin));
  put(SpecBuilder(E::kGCMarkAssistActive, "GCMarkAssistActive", v22, {"dt", "g"})
          .Start(E::kGCMarkAssistBegin));
  put(SpecBuilder(E::kGCMarkAssistBegin, "GCMarkAssistBegin", v22, {"dt", "stack"}).Stacks({1}));
  put(SpecBuilder(E::kGCMarkAssistEnd, "GCMarkAssistEnd", v22, {"dt"}).Start(E::kGCMarkAssistBegin));
  put(SpecBuilder(E::kHeapAlloc, "HeapAlloc", v22, {"dt", "heapalloc_value"}));
  put(SpecBuilder(E::kHeapGoal, "HeapGoal", v22, {"dt", "heapgoal_value"}));
  put(SpecBuilder(E::kGoLabel, "GoLabel", v22, {"dt", "label_string"}).Strings({1}));
  put(SpecBuilder(E::kUserTaskBegin, "UserTaskBegin", v22,
                  {"dt", "task", "parent_task", "name_string", "stack"})
          .Stacks({4}).Strings({3}));
  put(SpecBuilder(E::kUserTaskEnd, "UserTaskEnd", v22, {"dt", "task", "stack"}).Stacks({2}));
  put(SpecBuilder(E::kUserRegionBegin, "UserRegionBegin", v22, {"dt", "task", "name_string", "stack"})
          .Stacks({3}).Strings({2}));
  put(SpecBuilder(E::kUserRegionEnd, "UserRegionEnd", v22, {"dt", "task", "name_string", "stack"})
          .Stacks({3}).Strings({2}).Start(E::kUserRegionBegin));
  put(SpecBuilder(E::kUserLog, "UserLog", v22, {"dt", "task", "key_string", "value_string", "stack"})
          .Stacks({4}).Strings({2, 3}));
  put(SpecBuilder(E::kGoSwitch, "GoSwitch", v23, {"dt", "g", "g_seq"}));
  put(SpecBuilder(E::kGoSwitchDestroy, "GoSwitchDestroy", v23, {"dt", "g", "g_seq"}));
  put(SpecBuilder(E::kGoCreateBlocked, "GoCreateBlocked", v23, {"dt", "new_g", "new_stack", "stack"})
          .Stacks({3, 2}));
  put(SpecBuilder(E::kGoStatusStack, "GoStatusStack", v23, {"dt", "g", "m", "gstatus", "stack"}).Stacks({4}));
  // ClockSnapshot has a dt but may only appear inside the sync batch
  // (internal/trace/generation.go, processSyncBatch); the writer emits it itself.
  put(SpecBuilder(E::kClockSnapshot, "ClockSnapshot", v25, {"dt", "mono", "sec", "nsec"}));
  return t;
}

}  // namespace detail

inline constexpr std::array<EventSpec, kNumEventTypes> kEventSpecs = detail::BuildSpecs();

// Numbers past the table (e.g. experimental events 128+) give the empty spec of 0.
constexpr const EventSpec &SpecOf(EventType t) {
  auto i = static_cast<std::uint8_t>(t);
  return kEventSpecs[i < kNumEventTypes ? i : 0];
}

constexpr bool VersionHas(Version v, EventType t) {
  const auto &s = SpecOf(t);
  return s.exists && static_cast<int>(v) >= static_cast<int>(s.min_version);
}

// True for events a caller may put in a per-M batch through TraceWriter::Emit: timed and
// not ClockSnapshot (which only lives in the writer-made sync batch).
constexpr bool IsCallerTimedEvent(EventType t) {
  return SpecOf(t).timed && t != EventType::kClockSnapshot;
}

}  // namespace gotraced::encoder
