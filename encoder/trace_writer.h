// TraceWriter: writes Go's execution trace format (v2; headers go1.22/23/25/26) from
// events given in terms of threads (M), processors (P), goroutines (G), strings and
// stacks. It does not model the scheduler: the caller passes sequence numbers and
// statuses (see docs/go-trace-format §4 and internal/trace/order.go); the writer only
// checks what is cheap (the version has the event, string/stack ids exist in this
// generation, statuses are not Bad) and drops an event that fails, counting it.
//
// Layout (runtime/tracebuf.go, internal/trace/generation.go):
//   header, then per generation: the timing batch (lone Frequency for v22/23; Sync +
//   Frequency + ClockSnapshot for v25/26), each M's event batches (<= 64 KiB data each,
//   in that M's order), string batches, stack batches, CPU sample batches, and for v26
//   the EndOfGeneration byte 0x34.
// Timestamps are nanoseconds on CLOCK_MONOTONIC (the runtime's nanotime); the file
// carries ns / tick_divisor with frequency 1e9 / tick_divisor (runtime/tracetime.go).
//
// Not thread-safe: one thread drives a writer.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "encoder/event_table.h"
#include "encoder/event_writer.h"
#include "encoder/sink.h"
#include "encoder/trace_types.h"

namespace gotraced::encoder {

struct WriterOptions {
  Version version = Version::kGo126;
  // Trace clock = nanoseconds / tick_divisor. 64 as runtime/tracetime.go traceTimeDiv on
  // Linux; 1 gives nanosecond resolution.
  std::uint64_t tick_divisor = 64;
  // Number of the first generation (>= 1). The runtime starts at 1 for a process's first trace.
  std::uint64_t first_generation = 1;
  // Wall clock minus monotonic clock, in ns, used for ClockSnapshot when the caller does
  // not give one (SetClockSnapshot). 0 = measure once at construction (clock_gettime).
  std::int64_t wall_minus_mono_ns = 0;
};

class TraceWriter final : public EventWriter {
 public:
  // The sink must outlive the writer. Nothing is written until the first generation ends.
  TraceWriter(Sink &sink, WriterOptions options = {});
  ~TraceWriter() override;  // does NOT Close(); call Close() to finish the file
  TraceWriter(const TraceWriter &) = delete;
  TraceWriter &operator=(const TraceWriter &) = delete;

  // ---- Generations -------------------------------------------------------------------
  // Ends the current generation: hands it to the sink (writing the header first if this
  // is the first generation) and starts the next one with empty string/stack tables and
  // no sequence state. What the sink holds afterwards is a complete file. The caller must
  // then write statuses for every live G and P again before their next sequenced event.
  // An empty generation is still written (timing batch only).
  void EndGeneration() override;
  void Flush() { EndGeneration(); }  // same thing; name for callers that think in flushes
  // Ends the current generation if anything was emitted in it (or if no generation was
  // ever written, so the file is never empty), then closes the sink. Later calls are
  // dropped with kClosed.
  void Close() override;

  std::uint64_t generation() const override;         // number of the current (open) generation
  Version version() const override;
  std::uint64_t tick_divisor() const;
  // Optional: the clock reading for this generation's ClockSnapshot (v25+). Default:
  // mono = earliest event time of the generation, wall = mono + wall_minus_mono_ns.
  void SetClockSnapshot(const ClockSnapshot &snapshot);

  // ---- Tables (current generation) ---------------------------------------------------
  // Interns a string (truncated to its first 1024 bytes, runtime/tracestring.go
  // writeString). "" is always id 0.
  StringId InternString(std::string_view s) override;
  // Interns a stack, leaf frame first. Func/file names are cut to their last 1024 bytes
  // (runtime/tracestack.go makeTraceFrame); at most 128 frames are kept, leaf-most
  // (tracev2.MaxFramesPerStack). An empty stack is kNoStack.
  StackId InternStack(std::span<const Frame> frames) override;
  // Fast path for callers holding raw PCs: the key is the pc list; `resolve` (pcs ->
  // frames, e.g. symbolize and expand inlining, appending to `out`) is called only the
  // first time this pc list is seen in the generation.
  StackId InternStackPcs(std::span<const std::uint64_t> pcs, PcResolver resolve) override;
  // The same for the pc list [head, pcs...] (the resolver gets it joined), without the
  // caller building it for every lookup.
  StackId InternStackPcs(std::uint64_t head, std::span<const std::uint64_t> pcs, PcResolver resolve) override;

  // ---- Events --------------------------------------------------------------------------
  // Every event takes the writing thread `m` (its batch; kNoThread for a "no thread"
  // batch of status events) and a timestamp in ns. Events of one M must be given in
  // time order; an earlier timestamp is written as the M's previous time (counted in
  // stats().clamped_timestamps). Argument meanings: docs/go-trace-format.md §3.2.

  // Table-driven emit: `args` are the wire arguments after dt, in the order of
  // SpecOf(type).args[1..]; string/stack arguments are ids. All typed calls below go here.
  EmitStatus Emit(EventType type, MId m, std::uint64_t ts_ns, std::span<const std::uint64_t> args);

  // Procs.
  EmitStatus ProcsChange(MId m, std::uint64_t ts, std::uint64_t procs, StackId stack = kNoStack) override;
  EmitStatus ProcStart(MId m, std::uint64_t ts, PId p, Seq p_seq) override;
  EmitStatus ProcStop(MId m, std::uint64_t ts) override;
  EmitStatus ProcSteal(MId m, std::uint64_t ts, PId p, Seq p_seq, MId victim) override;
  EmitStatus ProcStatusEvent(MId m, std::uint64_t ts, PId p, ProcStatus status) override;
  // Goroutines.
  EmitStatus GoCreate(MId m, std::uint64_t ts, GId new_g, StackId new_stack, StackId stack) override;
  EmitStatus GoCreateSyscall(MId m, std::uint64_t ts, GId new_g) override;
  EmitStatus GoCreateBlocked(MId m, std::uint64_t ts, GId new_g, StackId new_stack, StackId stack) override;  // v23+
  EmitStatus GoStart(MId m, std::uint64_t ts, GId g, Seq g_seq) override;
  EmitStatus GoDestroy(MId m, std::uint64_t ts) override;
  EmitStatus GoDestroySyscall(MId m, std::uint64_t ts) override;
  EmitStatus GoStop(MId m, std::uint64_t ts, StringArg reason, StackId stack) override;
  EmitStatus GoBlock(MId m, std::uint64_t ts, StringArg reason, StackId stack) override;
  EmitStatus GoUnblock(MId m, std::uint64_t ts, GId g, Seq g_seq, StackId stack) override;
  EmitStatus GoSwitch(MId m, std::uint64_t ts, GId g, Seq g_seq) override;         // v23+
  EmitStatus GoSwitchDestroy(MId m, std::uint64_t ts, GId g, Seq g_seq) override;  // v23+
  EmitStatus GoSyscallBegin(MId m, std::uint64_t ts, Seq p_seq, StackId stack) override;
  EmitStatus GoSyscallEnd(MId m, std::uint64_t ts) override;
  EmitStatus GoSyscallEndBlocked(MId m, std::uint64_t ts) override;
  // `g_m`: the thread G runs on / is in a syscall on; kNoThread for runnable/waiting.
  EmitStatus GoStatusEvent(MId m, std::uint64_t ts, GId g, MId g_m, GoStatus status) override;
  EmitStatus GoStatusStack(MId m, std::uint64_t ts, GId g, MId g_m, GoStatus status, StackId stack) override;  // v23+
  // STW, GC.
  EmitStatus STWBegin(MId m, std::uint64_t ts, StringArg kind, StackId stack) override;
  EmitStatus STWEnd(MId m, std::uint64_t ts) override;
  EmitStatus GCActive(MId m, std::uint64_t ts, Seq gc_seq) override;
  EmitStatus GCBegin(MId m, std::uint64_t ts, Seq gc_seq, StackId stack) override;
  EmitStatus GCEnd(MId m, std::uint64_t ts, Seq gc_seq) override;
  EmitStatus GCSweepActive(MId m, std::uint64_t ts, PId p) override;
  EmitStatus GCSweepBegin(MId m, std::uint64_t ts, StackId stack) override;
  EmitStatus GCSweepEnd(MId m, std::uint64_t ts, std::uint64_t swept_bytes, std::uint64_t reclaimed_bytes) override;
  EmitStatus GCMarkAssistActive(MId m, std::uint64_t ts, GId g) override;
  EmitStatus GCMarkAssistBegin(MId m, std::uint64_t ts, StackId stack) override;
  EmitStatus GCMarkAssistEnd(MId m, std::uint64_t ts) override;
  EmitStatus HeapAlloc(MId m, std::uint64_t ts, std::uint64_t bytes) override;
  EmitStatus HeapGoal(MId m, std::uint64_t ts, std::uint64_t bytes) override;
  // Annotations (runtime/trace user API).
  EmitStatus GoLabel(MId m, std::uint64_t ts, StringArg label) override;
  EmitStatus UserTaskBegin(MId m, std::uint64_t ts, TaskId task, TaskId parent, StringArg name,
                           StackId stack) override;
  EmitStatus UserTaskEnd(MId m, std::uint64_t ts, TaskId task, StackId stack) override;
  EmitStatus UserRegionBegin(MId m, std::uint64_t ts, TaskId task, StringArg name, StackId stack) override;
  EmitStatus UserRegionEnd(MId m, std::uint64_t ts, TaskId task, StringArg name, StackId stack) override;
  EmitStatus UserLog(MId m, std::uint64_t ts, TaskId task, StringArg key, StringArg value, StackId stack) override;
  // CPU profile sample (absolute time; p = kNoProc, g = kNoGoroutine when none).
  EmitStatus CPUSample(std::uint64_t ts, MId m, PId p, GId g, StackId stack) override;

  // Bytes held for the current generation (event batches and tables), e.g. to end a
  // generation by size as well as by time.
  std::size_t buffered_bytes() const override;

  const WriterStats &stats() const override;
  // Text of the last dropped event's problem ("" if none), for logs.
  const std::string &last_error() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  StringId Str(const StringArg &a);
};

}  // namespace gotraced::encoder
