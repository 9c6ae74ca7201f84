// Vocabulary of the Go execution trace (format "v2", Go 1.22+): versions, ids, statuses,
// stack frames. Values are the wire values of internal/trace/tracev2 (events.go, event.go).
#pragma once

#include <cstdint>
#include <string_view>

namespace gotraced::encoder {

// Trace format version written in the 16-byte header ("go 1.NN trace").
// go1.24 wrote "go 1.23" (no format change), so there is no kGo124.
// Authority: internal/trace/version/version.go.
// kGo119 and kGo121 are the pre-1.22 ("v1") format: per-P batches, no generations
// (legacy_writer.h; runtime/trace.go and internal/trace/parser.go of Go 1.19 / 1.21).
// go1.20 wrote "go 1.19" and the format did not change from 1.19 to 1.21 but for the
// meaning of the STW kind, so these two are all the legacy headers a Go of 1.19+ wrote.
enum class Version : std::uint8_t { kGo119 = 19, kGo121 = 21, kGo122 = 22, kGo123 = 23, kGo125 = 25, kGo126 = 26 };

// The v2 versions (TraceWriter).
inline constexpr Version kAllVersions[] = {Version::kGo122, Version::kGo123, Version::kGo125,
                                           Version::kGo126};
// The legacy versions (LegacyTraceWriter).
inline constexpr Version kLegacyVersions[] = {Version::kGo119, Version::kGo121};
constexpr bool IsLegacy(Version v) { return v == Version::kGo119 || v == Version::kGo121; }

// Thread (M), processor (P) and goroutine (G) ids as the trace carries them. Any uint64
// except kNoId; G id 0 means "no goroutine" in CPU samples and is never a real goroutine.
using MId = std::uint64_t;
using PId = std::uint64_t;
using GId = std::uint64_t;
using TaskId = std::uint64_t;  // user task id; 0 = background task
using Seq = std::uint64_t;     // sequence number (per G, per P, or the global GC one)

// "None": no thread / no P. Authority: runtime/tracebuf.go (traceNoThread is ^0),
// internal/trace/base.go (NoThread, NoProc).
inline constexpr std::uint64_t kNoId = ~std::uint64_t{0};
inline constexpr MId kNoThread = kNoId;
inline constexpr PId kNoProc = kNoId;
inline constexpr GId kNoGoroutine = 0;

// Ids into the current generation's string and stack tables. 0 means "" / "no stack".
// Distinct types so an argument list cannot mix them up with each other or with G ids.
// Valid only in the generation that returned them (tables restart every generation).
struct StringId {
  std::uint64_t value = 0;
  friend constexpr bool operator==(StringId, StringId) = default;
};
struct StackId {
  std::uint64_t value = 0;
  friend constexpr bool operator==(StackId, StackId) = default;
};
inline constexpr StringId kEmptyString{0};
inline constexpr StackId kNoStack{0};

// Goroutine status (tracev2.GoStatus). 0 (Bad) is never written.
enum class GoStatus : std::uint8_t { kBad = 0, kRunnable = 1, kRunning = 2, kSyscall = 3, kWaiting = 4 };

// Processor status (tracev2.ProcStatus). kSyscallAbandoned: the P is first mentioned in
// this generation by a ProcSteal (runtime/traceruntime.go, ProcSteal).
enum class ProcStatus : std::uint8_t {
  kBad = 0,
  kRunning = 1,
  kIdle = 2,
  kSyscall = 3,
  kSyscallAbandoned = 4,
};

// One frame of a stack, leaf first. Non-owning: the strings need only live for the call
// that receives the frame (the encoder copies what it keeps). The parser keys frames by
// pc within a generation (internal/trace/generation.go, addStack), so distinct frames
// must have distinct pcs.
struct Frame {
  std::uint64_t pc = 0;
  std::string_view func;
  std::string_view file;
  std::uint64_t line = 0;
};

// A wall/monotonic clock reading for the ClockSnapshot event of a generation (v25+).
// Authority: runtime/trace.go traceAdvance / tracetime.go (mono = nanotime(), wall = walltime()).
struct ClockSnapshot {
  std::uint64_t mono_ns = 0;   // CLOCK_MONOTONIC, same clock as event timestamps
  std::uint64_t wall_sec = 0;  // Unix time
  std::uint64_t wall_nsec = 0;
};

}  // namespace gotraced::encoder
