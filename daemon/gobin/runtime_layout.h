// RuntimeLayout: the byte offsets of the Go runtime struct fields the probes and the
// attach-time snapshot read (runtime.g, m, p, gobuf, schedt), the runtime's status and
// wait-reason constants, and the string tables the in-process tracer writes. Per Go
// version, amd64.
//
// Authority: $GOROOT/src/runtime/runtime2.go of each Go (type g / m / p / gobuf /
// schedt, the _G* and _P* constants, type waitReason and waitReasonStrings) and
// src/runtime/trace2runtime.go (1.22) / traceruntime.go (1.23+) for traceBlockReason and
// traceGoStopReason. Where the numbers come from at run time:
//   1. the binary's own DWARF (dwarf_layout.h), when present;
//   2. else the table generated from each toolchain's DWARF (layout_tables.h), chosen by
//      the binary's Go major version (go1.22.0 .. go1.22.12 share one layout: Go does not
//      change runtime structs in point releases).
// Fields that a version does not have are absent (offset -1), never guessed.
//
// What moved across versions (checked by tests/unit/gobin-layout against every Go here):
//   * g.syscallbp appears in 1.23, which shifts everything after g.syscallpc by 8
//     (goid 152 -> 160);
//   * g.parentGoid appears in 1.21; g.labels, g.waitreason stay put relative to neighbours
//     but their absolute offsets move with the fields before them;
//   * gobuf.ret is gone in 1.25 (gobuf 56 -> 48 bytes, moving every g field after sched);
//   * m.waittraceev (<= 1.20, a legacy trace event type) became m.waitTraceBlockReason
//     (1.21+): both are exposed as m.wait_trace_block_reason;
//   * Go 1.26 adds _Gleaked/_Gdeadextra and retires _Psyscall (now _Psyscall_unused: a P
//     no longer enters a syscall state); see the constant tables.
//
// Block reasons, for the model (details: daemon/gobin/wait_reasons.h): the string a
// GoBlock event carries in an in-process trace (Go >= 1.22) is
// traceBlockReasonStrings[traceReason], where traceReason is gopark's 4th argument
// (ABIInternal: DI; also stored in m.waitTraceBlockReason by gopark and read back by
// park_m). It is chosen per gopark call site, not derived from g.waitreason; the
// call-site table is TraceBlockForWaitReason() in wait_reasons.h, for when only
// g.waitreason is known. On Go 1.19-1.21 the same argument is a legacy trace event type
// (traceEvGoBlockSend ...).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gotraced::gobin {

// One field: byte offset from the start of its struct and width in bytes. A nested field
// (g.sched.sp) carries its offset from the start of the outer struct (g).
struct FieldLoc {
  int32_t offset = -1;
  int32_t size = 0;
  constexpr bool present() const { return offset >= 0; }
  bool operator==(const FieldLoc &) const = default;
};

// runtime.g (runtime2.go "type g struct").
struct GLayout {
  int32_t size = 0;
  FieldLoc stack_lo, stack_hi;           // g.stack.lo / .hi
  FieldLoc stackguard0;                  // == 0x10 on amd64: the prologue's CMPQ SP, 16(R14)
  FieldLoc m;                            // *m running this g
  FieldLoc sched;                        // gobuf (whole)
  FieldLoc sched_sp, sched_pc, sched_g, sched_bp;  // g.sched.sp ... (offsets within g)
  FieldLoc syscallsp, syscallpc, syscallbp;        // syscallbp: 1.23+
  FieldLoc atomicstatus;                 // uint32 (atomic.Uint32 from 1.20)
  FieldLoc goid;                         // int64 <= 1.20, uint64 after
  FieldLoc schedlink;
  FieldLoc waitsince;
  FieldLoc waitreason;                   // uint8 waitReason
  FieldLoc preempt;
  FieldLoc lockedm;
  FieldLoc parent_goid;                  // 1.21+
  FieldLoc gopc, startpc;
  FieldLoc labels;                       // unsafe.Pointer (pprof labels)
  FieldLoc trace;                        // gTraceState (1.21+), for in-process tracer state
  FieldLoc sync_safe_point;              // bool g.syncSafePoint (1.24+): stopped in morestack
  bool operator==(const GLayout &) const = default;
};

// runtime.m.
struct MLayout {
  int32_t size = 0;
  FieldLoc g0, procid, gsignal, curg, p, nextp, oldp, id;
  FieldLoc spinning, blocked;
  FieldLoc mstartfn, alllink, lockedg;
  // m.waitTraceBlockReason (1.21+) or m.waittraceev (<= 1.20): set by gopark.
  FieldLoc wait_trace_block_reason;
  FieldLoc wait_trace_skip;              // m.waitTraceSkip / m.waittraceskip
  FieldLoc syscalltick;                  // uint32 m.syscalltick (copied from p at entersyscall)
  // Where a CPU sample's stack starts outside Go code (runtime/proc.go sigprof): m.vdsoSP /
  // m.vdsoPC (uintptr: set around a VDSO call, sys_linux_amd64.s nanotime1, time·now) and
  // m.ncgo (int32: cgo calls in progress on this m, runtime/cgocall.go cgocall).
  FieldLoc vdso_sp, vdso_pc, ncgo;
  bool operator==(const MLayout &) const = default;
};

// runtime.p.
struct PLayout {
  int32_t size = 0;
  FieldLoc id, status, link, schedtick, syscalltick, m;
  FieldLoc runqhead, runqtail, runq, runnext;
  FieldLoc goidcache, goidcacheend;
  bool operator==(const PLayout &) const = default;
};

// runtime.gobuf (offsets within the gobuf). ret: absent from 1.25 on.
struct GobufLayout {
  int32_t size = 0;
  FieldLoc sp, pc, g, ctxt, ret, lr, bp;
  bool operator==(const GobufLayout &) const = default;
};

// runtime.schedt (the runtime.sched global).
struct SchedtLayout {
  int32_t size = 0;
  FieldLoc goidgen, lastpoll, lock, midle, nmidle, nmspinning, npidle, gcwaiting, stopwait;
  bool operator==(const SchedtLayout &) const = default;
};

// runtime.gcControllerState (the runtime.gcController global, mgcpacer.go). heap_live:
// gcController.heapLive (uint64 in 1.19, atomic.Uint64 from 1.20: same offset, 8 bytes),
// read at attach to seed the HeapAlloc values (record_decoder_gc.cc). The others are what
// (*gcControllerState).heapGoal reads (heapGoalInternal, memoryLimitHeapGoal: the same
// fields 1.19 .. 1.27), read at attach for the trace's first HeapGoal
// (daemon/model/heap_goal.h).
struct GcControllerLayout {
  int32_t size = 0;
  FieldLoc heap_live;
  FieldLoc gc_percent;              // atomic.Int32
  FieldLoc memory_limit;            // atomic.Int64
  FieldLoc heap_marked;             // uint64
  FieldLoc gc_percent_heap_goal;    // atomic.Uint64
  FieldLoc sweep_dist_min_trigger;  // atomic.Uint64
  FieldLoc triggered;               // uint64
  FieldLoc heap_free;               // sysMemStat (uint64)
  FieldLoc total_alloc, total_free; // atomic.Uint64
  FieldLoc mapped_ready;            // atomic.Uint64
  bool operator==(const GcControllerLayout &) const = default;
};

// runtime.mspan (mheap.go): what a sweep reads at (*sweepLocked).sweep's entry
// (docs/probe-plan.md §3.9 sweeps). nelems is a uintptr before 1.22, a uint16 after.
struct MspanLayout {
  int32_t size = 0;
  FieldLoc npages, nelems, allocCount, elemsize, gcmarkBits;
  bool operator==(const MspanLayout &) const = default;
};

// Where a RuntimeLayout came from.
enum class LayoutSource { kNone, kDwarf, kTable };
std::string_view LayoutSourceName(LayoutSource s);

struct RuntimeLayout {
  GLayout g;
  MLayout m;
  PLayout p;
  GobufLayout gobuf;
  SchedtLayout sched;
  GcControllerLayout gc_controller;
  MspanLayout mspan;

  // Runtime constants: "_Grunning", "_Gscan", "_Pidle", "waitReasonChanReceive",
  // "traceBlockChanRecv", "traceEvGoBlockSend" (legacy), "traceGoStopPreempted",
  // "stwGCMarkTerm"...
  // (without the "runtime." prefix), sorted by name.
  std::vector<std::pair<std::string, int64_t>> constants;

  // Index = enum value. Empty when unknown.
  std::vector<std::string> wait_reason_strings;        // runtime.waitReasonStrings
  std::vector<std::string> trace_block_reason_strings; // runtime.traceBlockReasonStrings (1.22+)
  std::vector<std::string> trace_go_stop_reason_strings;  // runtime.traceGoStopReasonStrings (1.22+)
  std::vector<std::string> stw_reason_strings;            // runtime.stwReasonStrings (1.21+)

  LayoutSource source = LayoutSource::kNone;
  std::string go_version;  // the toolchain the numbers are from, e.g. "go1.23.5"

  std::optional<int64_t> Constant(std::string_view name) const;
  // waitReasonStrings[w], or "" when out of range/unknown.
  std::string_view WaitReasonString(uint32_t w) const;
  // true when every field the probes cannot do without is present (see kRequiredFields).
  bool Complete(std::string *missing = nullptr) const;

  bool operator==(const RuntimeLayout &) const = default;
};

// Goroutine statuses (runtime2.go; unchanged 1.19..1.27 for these values; newer
// statuses such as _Gleaked come from RuntimeLayout::constants).
inline constexpr uint32_t kGidle = 0, kGrunnable = 1, kGrunning = 2, kGsyscall = 3, kGwaiting = 4,
                          kGdead = 6, kGcopystack = 8, kGpreempted = 9, kGscan = 0x1000;

// ---- The field table: one row per field, read by the DWARF extractor, the table
// generator, the drift test and `inspect`. Nothing else restates which struct member a
// field is.

enum class RuntimeStruct { kG, kM, kP, kGobuf, kSchedt, kGcController, kMspan };
// Every RuntimeStruct, in table order.
inline constexpr RuntimeStruct kRuntimeStructs[] = {RuntimeStruct::kG,      RuntimeStruct::kM,
                                                    RuntimeStruct::kP,      RuntimeStruct::kGobuf,
                                                    RuntimeStruct::kSchedt, RuntimeStruct::kGcController,
                                                    RuntimeStruct::kMspan};

struct FieldSpec {
  RuntimeStruct in;
  const char *name;  // our name, as printed: "g.sched.sp"
  // DWARF member paths tried in order (first that exists wins), '.'-separated:
  // {"waitTraceBlockReason", "waittraceev"}.
  std::vector<const char *> paths;
  FieldLoc &(*get)(RuntimeLayout &);
  bool required;  // the probes cannot work without it (RuntimeLayout::Complete)
};

// The DWARF type name of a struct ("runtime.g") and its size slot.
const char *RuntimeStructDwarfName(RuntimeStruct s);
int32_t &RuntimeStructSize(RuntimeLayout &l, RuntimeStruct s);
int32_t RuntimeStructSize(const RuntimeLayout &l, RuntimeStruct s);

const std::vector<FieldSpec> &RuntimeFieldSpecs();
inline const FieldLoc &FieldOf(const RuntimeLayout &l, const FieldSpec &f) {
  return f.get(const_cast<RuntimeLayout &>(l));
}

// Constant-name prefixes collected from DWARF into RuntimeLayout::constants.
const std::vector<std::string_view> &RuntimeConstantPrefixes();

// Human-readable lines: "g.goid  @152 (8)" etc., for `gotraced inspect`.
std::string DescribeLayout(const RuntimeLayout &l);

// Field-by-field differences ("g.goid: 152 != 160"), empty when equal. Compares fields,
// sizes, constants and string tables; not source/go_version.
std::vector<std::string> DiffLayouts(const RuntimeLayout &a, const RuntimeLayout &b);

}  // namespace gotraced::gobin
