// EventWriter: what the runtime model writes to, whatever the file format. The model
// (daemon/model) speaks the v2 trace vocabulary — threads, statuses, sequence numbers,
// generations, per-generation string and stack ids — and two writers turn it into bytes:
//   TraceWriter        (trace_writer.h)   the v2 format, go1.22 / 1.23 / 1.25 / 1.26
//   LegacyTraceWriter  (legacy_writer.h)  the pre-1.22 format, go1.19 / go1.21
// so both formats come from one model and the model never knows which one it feeds.
// Calls and their meaning are documented on TraceWriter.
//
// The legacy writer reports version() as the go1.19 / go1.21 value, which compares
// below kGo123: the model then uses only what go1.22 has (no GoCreateBlocked,
// GoSwitch or GoStatusStack), the subset the legacy writer translates.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "encoder/trace_types.h"

namespace gotraced::encoder {

// Result of one emit call. Anything but kOk means the event was dropped.
enum class EmitStatus : std::uint8_t {
  kOk = 0,
  kUnsupportedEvent,  // not in this version, or not a caller-emittable timed event
  kBadStringId,       // string id not defined in the current generation
  kBadStackId,        // stack id not defined in the current generation
  kBadStatus,         // status 0 (Bad) or out of range
  kClosed,            // Close() was called
  kBadState,          // legacy writer: the event contradicts the state it mirrors
};
std::string_view EmitStatusName(EmitStatus s);

// A string-typed event argument: either an id from InternString (this generation) or the
// text itself, interned on the spot. Implicit from both so event calls read naturally.
class StringArg {
 public:
  constexpr StringArg(StringId id) : id_(id), is_id_(true) {}  // NOLINT(implicit)
  constexpr StringArg(std::string_view s) : text_(s) {}       // NOLINT(implicit)
  constexpr StringArg(const char *s) : text_(s) {}            // NOLINT(implicit)
  StringArg(const std::string &s) : text_(s) {}               // NOLINT(implicit)
  constexpr bool is_id() const { return is_id_; }
  constexpr StringId id() const { return id_; }
  constexpr std::string_view text() const { return text_; }

 private:
  StringId id_{};
  std::string_view text_;
  bool is_id_ = false;
};

// Non-owning callable reference (for the stack resolver; avoids std::function allocs).
template <typename Sig>
class FunctionRef;
template <typename R, typename... A>
class FunctionRef<R(A...)> {
 public:
  template <typename F, typename = std::enable_if_t<!std::is_same_v<std::decay_t<F>, FunctionRef>>>
  FunctionRef(F &&f)  // NOLINT(implicit)
      : obj_(const_cast<void *>(static_cast<const void *>(&f))),
        call_([](void *o, A... a) -> R {
          return (*static_cast<std::remove_reference_t<F> *>(o))(std::forward<A>(a)...);
        }) {}
  R operator()(A... a) const { return call_(obj_, std::forward<A>(a)...); }

 private:
  void *obj_;
  R (*call_)(void *, A...);
};

struct WriterStats {
  std::uint64_t events = 0;           // timed events written (incl. CPU samples)
  std::uint64_t cpu_samples = 0;
  std::uint64_t dropped = 0;          // emit calls that returned != kOk
  std::uint64_t clamped_timestamps = 0;  // events earlier than their M's previous one (written at that time)
  std::uint64_t generations = 0;      // finished generations handed to the sink
  std::uint64_t batches = 0;          // event batches of finished generations
  std::uint64_t bytes = 0;            // bytes handed to the sink
  std::uint64_t strings = 0;          // strings defined in finished generations
  std::uint64_t stacks = 0;           // stacks defined in finished generations
  std::uint64_t strings_over_bound = 0;  // legacy: strings past the table's bound (legacy_tables.h)
  // legacy: what lost records left open for the reader, closed by the writer (an STW's
  // end, a syscall's return): the format has no generation to restate it in.
  std::uint64_t repairs = 0;
};

class EventWriter {
 public:
  virtual ~EventWriter() = default;

  // ---- Generations ---------------------------------------------------------------------
  virtual void EndGeneration() = 0;
  virtual void Close() = 0;
  virtual std::uint64_t generation() const = 0;
  virtual Version version() const = 0;
  // The model gave goroutine g up: its end was among lost records and the target no
  // longer has it (model.h ForgetGone). No event is written; what a writer keeps for g
  // goes. Writers that keep nothing per goroutine (the v2 one) ignore it.
  virtual void ForgetGoroutine(GId /*g*/) {}

  // ---- Tables (current generation) -----------------------------------------------------
  virtual StringId InternString(std::string_view s) = 0;
  virtual StackId InternStack(std::span<const Frame> frames) = 0;
  using PcResolver = FunctionRef<void(std::span<const std::uint64_t> pcs, std::vector<Frame> &out)>;
  virtual StackId InternStackPcs(std::span<const std::uint64_t> pcs, PcResolver resolve) = 0;
  virtual StackId InternStackPcs(std::uint64_t head, std::span<const std::uint64_t> pcs, PcResolver resolve) = 0;

  // ---- Events (see TraceWriter) -----------------------------------------------------------
  virtual EmitStatus ProcsChange(MId m, std::uint64_t ts, std::uint64_t procs, StackId stack = kNoStack) = 0;
  virtual EmitStatus ProcStart(MId m, std::uint64_t ts, PId p, Seq p_seq) = 0;
  virtual EmitStatus ProcStop(MId m, std::uint64_t ts) = 0;
  virtual EmitStatus ProcSteal(MId m, std::uint64_t ts, PId p, Seq p_seq, MId victim) = 0;
  virtual EmitStatus ProcStatusEvent(MId m, std::uint64_t ts, PId p, ProcStatus status) = 0;
  virtual EmitStatus GoCreate(MId m, std::uint64_t ts, GId new_g, StackId new_stack, StackId stack) = 0;
  virtual EmitStatus GoCreateSyscall(MId m, std::uint64_t ts, GId new_g) = 0;
  virtual EmitStatus GoCreateBlocked(MId m, std::uint64_t ts, GId new_g, StackId new_stack, StackId stack) = 0;
  virtual EmitStatus GoStart(MId m, std::uint64_t ts, GId g, Seq g_seq) = 0;
  virtual EmitStatus GoDestroy(MId m, std::uint64_t ts) = 0;
  virtual EmitStatus GoDestroySyscall(MId m, std::uint64_t ts) = 0;
  virtual EmitStatus GoStop(MId m, std::uint64_t ts, StringArg reason, StackId stack) = 0;
  virtual EmitStatus GoBlock(MId m, std::uint64_t ts, StringArg reason, StackId stack) = 0;
  virtual EmitStatus GoUnblock(MId m, std::uint64_t ts, GId g, Seq g_seq, StackId stack) = 0;
  virtual EmitStatus GoSwitch(MId m, std::uint64_t ts, GId g, Seq g_seq) = 0;
  virtual EmitStatus GoSwitchDestroy(MId m, std::uint64_t ts, GId g, Seq g_seq) = 0;
  virtual EmitStatus GoSyscallBegin(MId m, std::uint64_t ts, Seq p_seq, StackId stack) = 0;
  virtual EmitStatus GoSyscallEnd(MId m, std::uint64_t ts) = 0;
  virtual EmitStatus GoSyscallEndBlocked(MId m, std::uint64_t ts) = 0;
  virtual EmitStatus GoStatusEvent(MId m, std::uint64_t ts, GId g, MId g_m, GoStatus status) = 0;
  virtual EmitStatus GoStatusStack(MId m, std::uint64_t ts, GId g, MId g_m, GoStatus status, StackId stack) = 0;
  virtual EmitStatus STWBegin(MId m, std::uint64_t ts, StringArg kind, StackId stack) = 0;
  virtual EmitStatus STWEnd(MId m, std::uint64_t ts) = 0;
  virtual EmitStatus GCActive(MId m, std::uint64_t ts, Seq gc_seq) = 0;
  virtual EmitStatus GCBegin(MId m, std::uint64_t ts, Seq gc_seq, StackId stack) = 0;
  virtual EmitStatus GCEnd(MId m, std::uint64_t ts, Seq gc_seq) = 0;
  virtual EmitStatus GCSweepActive(MId m, std::uint64_t ts, PId p) = 0;
  virtual EmitStatus GCSweepBegin(MId m, std::uint64_t ts, StackId stack) = 0;
  virtual EmitStatus GCSweepEnd(MId m, std::uint64_t ts, std::uint64_t swept_bytes, std::uint64_t reclaimed_bytes) = 0;
  virtual EmitStatus GCMarkAssistActive(MId m, std::uint64_t ts, GId g) = 0;
  virtual EmitStatus GCMarkAssistBegin(MId m, std::uint64_t ts, StackId stack) = 0;
  virtual EmitStatus GCMarkAssistEnd(MId m, std::uint64_t ts) = 0;
  virtual EmitStatus HeapAlloc(MId m, std::uint64_t ts, std::uint64_t bytes) = 0;
  virtual EmitStatus HeapGoal(MId m, std::uint64_t ts, std::uint64_t bytes) = 0;
  virtual EmitStatus GoLabel(MId m, std::uint64_t ts, StringArg label) = 0;
  virtual EmitStatus UserTaskBegin(MId m, std::uint64_t ts, TaskId task, TaskId parent, StringArg name,
                                   StackId stack) = 0;
  virtual EmitStatus UserTaskEnd(MId m, std::uint64_t ts, TaskId task, StackId stack) = 0;
  virtual EmitStatus UserRegionBegin(MId m, std::uint64_t ts, TaskId task, StringArg name, StackId stack) = 0;
  virtual EmitStatus UserRegionEnd(MId m, std::uint64_t ts, TaskId task, StringArg name, StackId stack) = 0;
  virtual EmitStatus UserLog(MId m, std::uint64_t ts, TaskId task, StringArg key, StringArg value,
                             StackId stack) = 0;
  virtual EmitStatus CPUSample(std::uint64_t ts, MId m, PId p, GId g, StackId stack) = 0;

  virtual std::size_t buffered_bytes() const = 0;
  virtual const WriterStats &stats() const = 0;
  virtual const std::string &last_error() const = 0;
};

}  // namespace gotraced::encoder
