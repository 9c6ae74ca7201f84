// LegacyTraceWriter: writes the pre-1.22 ("v1") trace format, headers "go 1.19 trace" and
// "go 1.21 trace", from the same calls the v2 TraceWriter takes (event_writer.h), so the
// runtime model drives either. Authority: runtime/trace.go and
// internal/trace/{parser,order}.go of Go 1.19 and 1.21 (/usr/lib/go-1.19, -1.21); the
// readers since Go 1.22 read it through internal/trace/internal/tracev1 (the same rules)
// and tracev1.go (the conversion to v2 events).
//
// What differs from v2 and how the translation bridges it (legacy_writer.cc has the
// per-event rules, each citing the runtime function that writes the event):
// * Events belong to Ps, not threads: an event goes to the batch of the P its thread
//   holds (kGlobalProc without one), and the parser knows which goroutine runs on a P
//   only from that batch's GoStart/block events. The writer mirrors the reader's view
//   (P running and its goroutine; goroutine dead/runnable/running/waiting) and writes
//   what the v2 event means in it: a syscall is an instant GoSysCall while the goroutine
//   keeps its P; losing the P (ProcSteal, or ProcStop in a syscall) is GoSysBlock +
//   ProcStop; GoSyscallEndBlocked is GoSysExit.
// * No generations, no statuses: every goroutine a trace mentions must be created in it,
//   those that exist at the start by GoCreate (+ GoWaiting / GoInSyscall, or a GoStart on
//   its P for a running one) before the first EvGomaxprocs, which is where Go's tracev1
//   converter stops treating creations as the trace's initial state (tracev1.go
//   preInit). The first generation's statuses are hoisted into such a prelude, written
//   before the generation's events: a lazy status states what held since the
//   generation's start (the model writes one on an entity's first touch).
// * Cross-P order: the parser merges the Ps' event lists by taking, among the events
//   whose goroutine is in the state they require, the earliest timestamp (order.go
//   order1007) and rejects a result whose timestamps go back. The writer gives events
//   strictly increasing timestamps in call order (the model's order, which is
//   consistent), so that merge reproduces the call order exactly, and writes the
//   goroutine transitions in their "Local" form (GoStartLocal, GoUnblockLocal,
//   GoSysExitLocal: ordered by state, not sequence number), which keeps a generation
//   independent of the sequence numbers before it (what lets a flight-recorder dump
//   start at any generation with a prelude of its own).
// * One string and stack table per file: see legacy_tables.h.
// * Timestamps are ns / tick_divisor; EvFrequency (ticks per second) ends every
//   generation (the parser keeps the last one it reads).
//
// * A goroutine in a syscall writes nothing of its own until the syscall returns or
//   loses its P: Go's converter (tracev1.go) reads the goroutine's next event after
//   GoSysCall to tell a blocked syscall from an instant one. The kernel view's regions
//   and logs that come meanwhile are held and written when it runs again.
// * GC workers' labels: the GoStartLocal is written again as GoStartLabel [g, seq, label]
//   when the label follows it on its P (GoLabel), as traceGoStart writes it.
//
// Not written (and why): a label that comes after other events of the worker's P;
// GCActive / GCSweepActive / GCMarkAssistActive (no legacy form: a GC in progress at the
// start is not shown, and its end is dropped); STW kinds go1.19 cannot name (the parser
// rejects kinds other than the GC's two).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "encoder/event_writer.h"
#include "encoder/legacy_restart.h"
#include "encoder/sink.h"

namespace gotraced::encoder {

struct LegacyWriterOptions {
  Version version = Version::kGo121;  // kGo119 or kGo121
  std::uint64_t tick_divisor = 64;    // ticks = ns / tick_divisor
  // GOMAXPROCS for the prelude's EvGomaxprocs when no ProcsChange says it before the
  // first generation ends (attach mode: the snapshot's). 0: the Ps seen.
  std::uint64_t gomaxprocs = 0;
};

class LegacyTraceWriter final : public EventWriter {
 public:
  // `restart` may be null (or the same object as `sink`).
  LegacyTraceWriter(Sink &sink, LegacyWriterOptions options = {}, LegacyRestartSink *restart = nullptr);
  ~LegacyTraceWriter() override;
  LegacyTraceWriter(const LegacyTraceWriter &) = delete;
  LegacyTraceWriter &operator=(const LegacyTraceWriter &) = delete;

  void EndGeneration() override;
  void Close() override;
  std::uint64_t generation() const override;
  Version version() const override;

  StringId InternString(std::string_view s) override;
  StackId InternStack(std::span<const Frame> frames) override;
  StackId InternStackPcs(std::span<const std::uint64_t> pcs, PcResolver resolve) override;
  StackId InternStackPcs(std::uint64_t head, std::span<const std::uint64_t> pcs, PcResolver resolve) override;

  EmitStatus ProcsChange(MId m, std::uint64_t ts, std::uint64_t procs, StackId stack = kNoStack) override;
  EmitStatus ProcStart(MId m, std::uint64_t ts, PId p, Seq p_seq) override;
  EmitStatus ProcStop(MId m, std::uint64_t ts) override;
  EmitStatus ProcSteal(MId m, std::uint64_t ts, PId p, Seq p_seq, MId victim) override;
  EmitStatus ProcStatusEvent(MId m, std::uint64_t ts, PId p, ProcStatus status) override;
  EmitStatus GoCreate(MId m, std::uint64_t ts, GId new_g, StackId new_stack, StackId stack) override;
  EmitStatus GoCreateSyscall(MId m, std::uint64_t ts, GId new_g) override;
  EmitStatus GoCreateBlocked(MId m, std::uint64_t ts, GId new_g, StackId new_stack, StackId stack) override;
  EmitStatus GoStart(MId m, std::uint64_t ts, GId g, Seq g_seq) override;
  EmitStatus GoDestroy(MId m, std::uint64_t ts) override;
  EmitStatus GoDestroySyscall(MId m, std::uint64_t ts) override;
  EmitStatus GoStop(MId m, std::uint64_t ts, StringArg reason, StackId stack) override;
  EmitStatus GoBlock(MId m, std::uint64_t ts, StringArg reason, StackId stack) override;
  EmitStatus GoUnblock(MId m, std::uint64_t ts, GId g, Seq g_seq, StackId stack) override;
  EmitStatus GoSwitch(MId m, std::uint64_t ts, GId g, Seq g_seq) override;
  EmitStatus GoSwitchDestroy(MId m, std::uint64_t ts, GId g, Seq g_seq) override;
  EmitStatus GoSyscallBegin(MId m, std::uint64_t ts, Seq p_seq, StackId stack) override;
  EmitStatus GoSyscallEnd(MId m, std::uint64_t ts) override;
  EmitStatus GoSyscallEndBlocked(MId m, std::uint64_t ts) override;
  EmitStatus GoStatusEvent(MId m, std::uint64_t ts, GId g, MId g_m, GoStatus status) override;
  EmitStatus GoStatusStack(MId m, std::uint64_t ts, GId g, MId g_m, GoStatus status, StackId stack) override;
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
  EmitStatus GoLabel(MId m, std::uint64_t ts, StringArg label) override;
  EmitStatus UserTaskBegin(MId m, std::uint64_t ts, TaskId task, TaskId parent, StringArg name,
                           StackId stack) override;
  EmitStatus UserTaskEnd(MId m, std::uint64_t ts, TaskId task, StackId stack) override;
  EmitStatus UserRegionBegin(MId m, std::uint64_t ts, TaskId task, StringArg name, StackId stack) override;
  EmitStatus UserRegionEnd(MId m, std::uint64_t ts, TaskId task, StringArg name, StackId stack) override;
  EmitStatus UserLog(MId m, std::uint64_t ts, TaskId task, StringArg key, StringArg value, StackId stack) override;
  EmitStatus CPUSample(std::uint64_t ts, MId m, PId p, GId g, StackId stack) override;

  void ForgetGoroutine(GId g) override;
  std::size_t buffered_bytes() const override;
  // Goroutines the writer keeps state for: the live ones (and those EvGoStop ended for
  // the reader only); an ended goroutine is forgotten (tests: memory stays flat).
  std::size_t goroutines_tracked() const;
  const WriterStats &stats() const override;
  const std::string &last_error() const override;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gotraced::encoder
