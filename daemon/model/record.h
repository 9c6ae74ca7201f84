// model::Record: one scheduler transition as the capture saw it, already decoded from the
// BPF record layout (proto/records.h) and from the target's Go version. This is the
// model's whole input besides the attach-time snapshot (snapshot.h); it names the
// transition in the trace's own vocabulary (one kind per runtime trace call in
// $GOROOT/src/runtime/traceruntime.go), so the model is the same for every Go version
// and can be tested with synthetic records.
//
// Conventions:
//   * `m` is the OS thread id (the runtime's m.procid, which is also the trace's M id).
//   * `p` / `g` are what the probe read from that M at the time: m.p.id and m.curg.goid
//     (-1 / 0 when the M had none, kUnknownP / kUnknownG when the probe could not tell).
//     The model uses them to check and repair its own state, never blindly.
//   * `stack` holds the physical return addresses the runtime's traceStack would have
//     walked (runtime/tracestack.go: gp.sched.pc or gp.syscallpc first, then the frame
//     pointer chain), and `stack_skip` the number of *logical* frames the runtime's
//     skip argument removes after inline expansion. docs/model.md lists both per event.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace gotraced::model {

using ThreadId = std::uint64_t;  // M: OS thread id
using ProcId = std::int64_t;     // P: runtime p.id
using Goid = std::uint64_t;      // G: runtime g.goid

inline constexpr ProcId kNoP = -1;
inline constexpr ProcId kUnknownP = -2;
inline constexpr Goid kNoG = 0;
inline constexpr Goid kUnknownG = ~Goid{0};

enum class RecordKind : std::uint8_t {
  // Ps (traceruntime.go: Gomaxprocs, ProcStart, ProcStop, ProcSteal).
  kProcsChange,  // value = new GOMAXPROCS (procresize)
  kProcStart,    // this M acquired idle P target_p (acquirep / wirep)
  kProcStop,     // this M released its P (releasep)
  kProcSteal,    // this M took P target_p, in a syscall on M victim_m (retake, exitsyscall)
  // Goroutines (GoCreate, GoStart, GoEnd, GoSched/GoPreempt/GoStop, GoPark, GoUnpark).
  kGoCreate,     // curg (or g0) created target_g; value = g.startpc; flag = created parked
  kGoStart,      // this M started running target_g (execute); flag = value is its g.labels
                 // (the pprof label set's pointer, 0: none), read at that casgstatus
  kGoEnd,        // curg exits (goexit1)
  kGoStop,       // curg yields/preempted: runnable again; reason = stop reason string;
                 // flag = value is its g.labels, as kGoStart's
  kGoBlock,      // curg parks; reason = block reason string (traceBlockReasonStrings);
                 // flag = value is its g.labels, as kGoStart's
  kGoUnblock,    // target_g made runnable (ready / injectglist ...)
  // Syscalls (GoSysCall, GoSysExit).
  kGoSyscallBegin,       // curg enters a syscall holding its P
  kGoSyscallEnd,         // curg leaves the syscall and kept its P (GoSysExit(false))
  kGoSyscallEndBlocked,  // curg leaves the syscall having lost its P (GoSysExit(true))
  // cgo callbacks on extra Ms (GoCreateSyscall, GoDestroySyscall).
  kGoCreateSyscall,   // target_g appears in a syscall on this M (needm)
  kGoDestroySyscall,  // curg (in a syscall) leaves this M (dropm)
  // Coroutines, Go 1.23+ (GoSwitch). flag = the current goroutine is destroyed.
  kGoSwitch,
  // A CPU profile sample of this M (cpu_sample.h); stack = logical return PCs, flag = the
  // runtime clears m.p during syscalls (Go < 1.26). model_cpu.cc.
  kCPUSample,
  // GC (traceruntime.go GCStart/GCDone, STWStart/STWDone, HeapAlloc, HeapGoal); the
  // model's part is model_gc.cc. reason = STW reason string (kSTWBegin), value = bytes
  // (kHeapAlloc: gcController.heapLive; kHeapGoal: the heap goal, 0 when GC is off).
  kGCBegin,
  kGCEnd,
  kSTWBegin,
  kSTWEnd,
  kHeapAlloc,
  kHeapGoal,
  // GC mark workers and assists (traceruntime.go GoStart's GoLabel, GCMarkAssistStart/
  // Done): reason = the label ("GC (dedicated)" ...), for the current goroutine.
  kGoLabel,
  kGCMarkAssistBegin,
  kGCMarkAssistEnd,
  // GC sweeps (traceruntime.go GCSweepSpan/GCSweepDone), bound to the record's P:
  // kGCSweepEnd value = bytes swept, value2 = bytes reclaimed.
  kGCSweepBegin,
  kGCSweepEnd,
  // User annotations (runtime/trace; model_user.cc). value = task id; kUserTaskBegin:
  // value2 = parent task, text = task type; kUserRegion*: text = region type, kUserLog:
  // text = category, text2 = message.
  kUserTaskBegin,
  kUserTaskEnd,
  kUserRegionBegin,
  kUserRegionEnd,
  kUserLog,
  // The kernel view (kernel_view.h, model_kernel.cc): this M's thread went off CPU
  // (reason = the region type of the cause, value = prev_state, value2 = the next thread)
  // / came back (value = its off instant, value2 = its wake-up instant or 0).
  kKernelOff,
  kKernelOn,
  // ... this M's goroutine syscall as the kernel saw it (model_kernel_syscall.cc): its entry
  // (value = nr + 1, value2 = the first argument, text = what that fd is, "" unnamed) and
  // its exit (value = the return value). Go <= 1.25 only has both; Go 1.26+'s
  // GoSyscallBegin carries the entry's fields itself.
  kKernelSyscallEnter,
  kKernelSyscallExit,
  // Goroutine states sampled read-only (capture level "low", procmem/goroutine_states.h):
  // text = the census, written as a log of a goroutine of the trace's own
  // (kStateSampleG on M kStateSampleM; model_sparse.cc). The record's m is kStateSampleM.
  // text2 = another category for the same kind of log (Session::Note: "gotraced:
  // trigger"); empty: "gotraced: goroutine states".
  kStateSample,
  // Go <= 1.23: the goid of a goroutine whose kGoCreate was written without one
  // (target_g = kNoG, value2 = the g's address: newproc1 assigns newg.goid after the
  // casgstatus when the P's goid cache is refilled). This record names that address
  // (value2) and the id (target_g) once the decoder has seen it. Not an event: the model
  // fills the id into the queued create, which until then holds its M's later records
  // (Model::Push); the decoder knows the runtime, the model keeps the order.
  kGoidResolved,
  // The pprof label set (value = g.labels, flag set) of this M's running goroutine at a
  // moment its record had no field for: a goroutine syscall's entry seen by the sys_enter
  // tracepoint (the kGoSyscallBegin that follows carries the syscall). model_labels.cc.
  kGoLabels,
};

// The M and goroutine that carry the state samples' logs. Neither can be a real one: a
// thread id is at most PID_MAX_LIMIT (2^22, include/linux/threads.h), and goroutine ids
// count up from 1 (runtime/proc.go sched.goidgen) and would need 2^62 creations.
inline constexpr ThreadId kStateSampleM = ThreadId{1} << 32;
inline constexpr Goid kStateSampleG = Goid{1} << 62;

std::string_view RecordKindName(RecordKind k);

// A string a few records own (annotations, fd names, state samples): one pointer in the
// Record, so the other ~99% of records carry 8 bytes of it instead of a 32-byte
// std::string, and moving a Record (decoder -> pipeline -> per-M queue) moves a pointer.
// Reads as a std::string_view; "" when never set.
class RecordText {
 public:
  RecordText() = default;
  RecordText(const RecordText &o) : s_(o.s_ ? std::make_unique<std::string>(*o.s_) : nullptr) {}
  RecordText(RecordText &&) noexcept = default;
  RecordText &operator=(const RecordText &o) {
    if (this != &o) s_ = o.s_ ? std::make_unique<std::string>(*o.s_) : nullptr;
    return *this;
  }
  RecordText &operator=(RecordText &&) noexcept = default;
  RecordText &operator=(std::string v) {
    if (v.empty()) s_.reset();
    else if (s_) *s_ = std::move(v);
    else s_ = std::make_unique<std::string>(std::move(v));
    return *this;
  }
  RecordText &operator=(std::string_view v) { return *this = std::string(v); }
  RecordText &operator=(const char *v) { return *this = std::string(v); }

  std::string_view view() const { return s_ ? std::string_view(*s_) : std::string_view(); }
  operator std::string_view() const { return view(); }  // NOLINT: reads as a string
  std::string str() const { return std::string(view()); }
  bool empty() const { return !s_ || s_->empty(); }

  friend bool operator==(const RecordText &a, std::string_view b) { return a.view() == b; }
  friend bool operator==(const RecordText &a, const char *b) { return a.view() == std::string_view(b); }
  friend bool operator==(const RecordText &a, const std::string &b) { return a.view() == std::string_view(b); }
  friend std::ostream &operator<<(std::ostream &o, const RecordText &t) { return o << t.view(); }

 private:
  std::unique_ptr<std::string> s_;
};

struct Record {
  std::uint64_t ts = 0;  // ns, CLOCK_MONOTONIC (the runtime's nanotime clock)
  ThreadId m = 0;
  ProcId p = kUnknownP;   // the M's P at the probe
  Goid g = kUnknownG;     // the M's current goroutine at the probe
  RecordKind kind = RecordKind::kGoStart;
  bool flag = false;      // kGoCreate: parked (GoCreateBlocked); kGoSwitch: destroy
  std::uint32_t stack_skip = 0;

  Goid target_g = kNoG;       // kGoCreate/kGoStart/kGoUnblock/kGoCreateSyscall/kGoSwitch/kGoidResolved
  ProcId target_p = kNoP;     // kProcStart/kProcSteal
  ThreadId victim_m = 0;      // kProcSteal
  std::uint64_t value = 0;    // kProcsChange: procs; kGoCreate: start pc
  std::uint64_t value2 = 0;   // kUserTaskBegin: parent task id; kGoCreate without an id and
                              // kGoidResolved: the g's address
  std::string_view reason;    // kGoBlock/kGoStop; must point to static storage
  RecordText text, text2;     // kUser*: the annotation's strings (owned); the fd's name of a
                              // syscall entry (kGoSyscallBegin with value, kKernelSyscallEnter)

  std::vector<std::uint64_t> stack;  // physical return addresses, leaf first
};
static_assert(sizeof(Record) <= 136, "a Record is moved several times per event: keep it small");

}  // namespace gotraced::model
