// The casgstatus decisions of RecordDecoder (record_decoder.cc DecodeGstatus), as data:
// which function called casgstatus (its Site), and for each (Site, old status, new
// status, Go minor range) what the runtime's tracer writes there — the record kind, the
// skip of its stack, whether it has one — or that the tracer writes nothing. It is to
// the decoder what encoder/event_table.h is to the trace format (Go's events.go): one
// row per place in $GOROOT/src/runtime/proc.go (and coro.go, debugcall.go, mgc*.go,
// stack.go, trace.go) where a status change and a trace call meet. docs/model.md §3.1's
// rows are these rows.
//
// Rows whose record needs more than the row (an id from the P's goid cache, gopark's
// block reason, ready's traceskip, the ProcStop entersyscallblock's handoff holds, the
// syscall exit's P bookkeeping) name a Handler: the decoder's code for it, with the row
// still giving the kind and skip it starts from. Header-only and constexpr, so the
// tests (tests/unit/model/gstatus_table_test.cc) can check the table at compile time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "daemon/model/record.h"

namespace gotraced::model::gstatus {

// runtime2.go status values (unchanged 1.19-1.27; _Gdeadextra is 11 in 1.26+).
inline constexpr std::uint32_t kGidle = 0, kGrunnable = 1, kGrunning = 2, kGsyscall = 3, kGwaiting = 4,
                               kGdead = 6, kGdeadextra = 11, kGscan = 0x1000;
inline constexpr std::uint32_t kAnyStatus = 0xffff;  // a row for every status there
inline constexpr std::uint8_t kLatest = 0xff;        // a range open to future minors

// What a casgstatus call site means, by its caller's function.
enum class Site : std::uint8_t {
  kUnknown,        // no row in kCallerSites: counted as unclassified
  kIgnore,         // transitions the tracer never reports
  kNewproc1,
  kExecute,
  kParkM,
  kGoschedImpl,    // not inlined: the reason from the goroutine's stack
  kGosched,        // gosched_m / goschedguarded_m (goschedImpl inlined into it)
  kGopreempt,      // gopreempt_m (goschedImpl inlined into it)
  kGoyield,
  kGdestroy,
  kReentersyscall,
  kEntersyscallBlock,
  kExitSyscall,      // exitsyscall (fast path)
  kExitSyscallSlow,  // exitsyscall0 (<= 1.25) / exitsyscallNoP (1.26+)
  kReady,
  kUnparkNoSkip,  // findRunnable, injectglist, GC worker wakeup: GoUnpark(gp, 0)
  kDebugCall,     // debugCallWrap (GoPark debug call) / debugCallWrap1
  kCoroswitch,
  kNeedm,
  kDropm,
  kCount,
};

constexpr std::string_view SiteName(Site s) {
  switch (s) {
    case Site::kUnknown: return "unknown";
    case Site::kIgnore: return "ignore";
    case Site::kNewproc1: return "newproc1";
    case Site::kExecute: return "execute";
    case Site::kParkM: return "park_m";
    case Site::kGoschedImpl: return "goschedImpl";
    case Site::kGosched: return "gosched_m";
    case Site::kGopreempt: return "gopreempt_m";
    case Site::kGoyield: return "goyield_m";
    case Site::kGdestroy: return "gdestroy";
    case Site::kReentersyscall: return "reentersyscall";
    case Site::kEntersyscallBlock: return "entersyscallblock";
    case Site::kExitSyscall: return "exitsyscall";
    case Site::kExitSyscallSlow: return "exitsyscallNoP";
    case Site::kReady: return "ready";
    case Site::kUnparkNoSkip: return "unpark_noskip";
    case Site::kDebugCall: return "debugCallWrap";
    case Site::kCoroswitch: return "coroswitch_m";
    case Site::kNeedm: return "needm";
    case Site::kDropm: return "dropm";
    case Site::kCount: break;
  }
  return "?";
}

constexpr std::string_view StatusName(std::uint32_t s) {
  switch (s) {
    case kGidle: return "Gidle";
    case kGrunnable: return "Grunnable";
    case kGrunning: return "Grunning";
    case kGsyscall: return "Gsyscall";
    case kGwaiting: return "Gwaiting";
    case kGdead: return "Gdead";
    case kGdeadextra: return "Gdeadextra";
    case kAnyStatus: return "any";
    default: return "?";
  }
}

// ---------------------------------------------------------------------------------
// Caller function -> Site. The innermost inlined function at casgstatus's return address
// is looked up here (exact name, or a prefix for closures and generic instances); the
// first row that matches wins.
struct CallerSite {
  std::string_view name;
  bool prefix;
  Site site;
};

inline constexpr std::array kCallerSites = std::to_array<CallerSite>({
    {"runtime.newproc1", false, Site::kNewproc1},
    {"runtime.execute", false, Site::kExecute},
    {"runtime.park_m", false, Site::kParkM},
    {"runtime.goschedImpl", false, Site::kGoschedImpl},  // refined by kInlinedInto
    {"runtime.goyield_m", false, Site::kGoyield},
    {"runtime.gdestroy", false, Site::kGdestroy},
    {"runtime.goexit0", false, Site::kGdestroy},  // <= 1.21: goexit0 does gdestroy's work
    {"runtime.reentersyscall", false, Site::kReentersyscall},
    {"runtime.entersyscallblock", false, Site::kEntersyscallBlock},
    {"runtime.exitsyscall", false, Site::kExitSyscall},
    {"runtime.exitsyscall0", false, Site::kExitSyscallSlow},
    {"runtime.exitsyscallNoP", false, Site::kExitSyscallSlow},
    {"runtime.ready", false, Site::kReady},
    {"runtime.findRunnable", false, Site::kUnparkNoSkip},
    {"runtime.findrunnable", false, Site::kUnparkNoSkip},  // <= 1.19 spelling
    {"runtime.injectglist", false, Site::kUnparkNoSkip},
    {"runtime.(*gcControllerState).findRunnableGCWorker", true, Site::kUnparkNoSkip},
    {"runtime.debugCallWrap", true, Site::kDebugCall},  // debugCallWrap, debugCallWrap1, closures
    {"runtime.coroswitch_m", false, Site::kCoroswitch},
    {"runtime.needm", false, Site::kNeedm},
    {"runtime.dropm", false, Site::kDropm},
    // Transitions the tracer never reports (isWaitingForSuspendG, stack copies, extra Ms'
    // creation, GC workers' own status dance, STW, heap dumps...).
    {"runtime.casGToWaiting", false, Site::kIgnore},
    {"runtime.casGToWaitingForSuspendG", false, Site::kIgnore},
    {"runtime.newstack", false, Site::kIgnore},
    {"runtime.oneNewExtraM", false, Site::kIgnore},
    {"runtime.gcMarkTermination", false, Site::kIgnore},
    {"runtime.gcBgMarkWorker", false, Site::kIgnore},
    {"runtime.markroot", false, Site::kIgnore},
    {"runtime.gcAssistAlloc1", false, Site::kIgnore},
    {"runtime.stopTheWorldWithSema", false, Site::kIgnore},
    {"runtime.forEachP", false, Site::kIgnore},
    {"runtime.traceAdvance", false, Site::kIgnore},
    {"runtime.writeheapdump_m", false, Site::kIgnore},
    {"runtime.findGoroutineLeaks", false, Site::kIgnore},
    {"runtime.malg", false, Site::kIgnore},
    {"runtime.allocm", false, Site::kIgnore},
});

// goschedImpl(gp, preempted) inlined into its callers: the physical function around it
// (anywhere in the inline chain) tells Gosched from preemption. First match wins.
struct InlinedInto {
  Site inner;
  std::string_view outer;
  Site site;
};

inline constexpr std::array kInlinedInto = std::to_array<InlinedInto>({
    {Site::kGoschedImpl, "runtime.gopreempt_m", Site::kGopreempt},
    {Site::kGoschedImpl, "runtime.gosched_m", Site::kGosched},
    {Site::kGoschedImpl, "runtime.goschedguarded_m", Site::kGosched},
});

constexpr bool NameMatches(const CallerSite &row, std::string_view f) {
  return row.prefix ? f.substr(0, row.name.size()) == row.name : f == row.name;
}

// The Site of a casgstatus return address whose function names are `chain` (innermost
// inlined frame first; empty: not in Go code).
constexpr Site SiteOf(std::span<const std::string_view> chain) {
  const std::string_view f = chain.empty() ? std::string_view() : chain.front();
  Site s = Site::kUnknown;
  for (const CallerSite &row : kCallerSites) {
    if (NameMatches(row, f)) {
      s = row.site;
      break;
    }
  }
  for (const InlinedInto &in : kInlinedInto) {
    if (in.inner != s) continue;
    for (std::string_view n : chain)
      if (n == in.outer) return in.site;
  }
  return s;
}

// ---------------------------------------------------------------------------------
// The decisions.
enum class Action : std::uint8_t {
  kIgnore,        // the tracer writes nothing here (stats: ignored)
  kUnclassified,  // a caller not in kCallerSites (stats: unclassified)
  kEmit,          // one record, entirely from the row
  kHandle,        // the row's Handler builds it
};

// Whose goroutine the casgstatus's gp is in the record.
enum class Subject : std::uint8_t {
  kNoRecord,   // no record
  kCurg,       // g = gp: the M's own goroutine changes state
  kTarget,     // target_g = gp; g stays the M's curg (the waker, or none)
  kTargetOffM, // target_g = gp; g = none: the M runs no goroutine of its own there
               // (execute sets m.curg before its CAS, park_m already dropped it)
};

enum class Handler : std::uint8_t {
  kNone,
  kCreate,              // GoCreate: value = startpc, flag = created parked
  kCreateFromGoidCache, // ... with the id from the P's goid cache (held at a refill)
  kParkLegacy,          // GoBlock: reason and skip from gopark; skip 0 = no stack
  kPark,                // GoBlock: reason and skip from gopark
  kGoStop,              // GoStop with the row's reason
  kGoStopReasonFromStack,  // GoStop: Gosched or preempted by where gp stopped
  kSyscallBegin,        // GoSyscallBegin from syscallpc's frame, then a held ProcStop
  kSyscallBeginUnlessEntryProbed,  // ... ignored when the plan probes entersyscallblock
  kExitSyscallFast,     // <= 1.25 exitsyscall: GoSyscallEnd, or lostP's events
  kExitSyscallNoP,      // GoSyscallEndBlocked with no P, the syscall's bookkeeping dropped
  kReadyTraceskip,      // GoUnblock with ready's traceskip
};

constexpr std::string_view HandlerName(Handler h) {
  switch (h) {
    case Handler::kNone: return "none";
    case Handler::kCreate: return "Create";
    case Handler::kCreateFromGoidCache: return "CreateFromGoidCache";
    case Handler::kParkLegacy: return "ParkLegacy";
    case Handler::kPark: return "Park";
    case Handler::kGoStop: return "GoStop";
    case Handler::kGoStopReasonFromStack: return "GoStopReasonFromStack";
    case Handler::kSyscallBegin: return "SyscallBegin";
    case Handler::kSyscallBeginUnlessEntryProbed: return "SyscallBeginUnlessEntryProbed";
    case Handler::kExitSyscallFast: return "ExitSyscallFast";
    case Handler::kExitSyscallNoP: return "ExitSyscallNoP";
    case Handler::kReadyTraceskip: return "ReadyTraceskip";
  }
  return "?";
}

// The skip comes from the runtime's own argument, read from the record (gopark's
// traceskip in m.waitTraceSkip, ready's traceskip), not from the row.
inline constexpr std::uint8_t kSkipFromArgument = 0xff;

// traceGoStopReasonStrings (runtime/traceruntime.go) and the traceBlockReasonStrings
// entry the decoder writes itself.
inline constexpr std::string_view kStopGosched = "runtime.Gosched";
inline constexpr std::string_view kStopPreempted = "preempted";
inline constexpr std::string_view kBlockDebugCall = "wait for debug call";

struct Row {
  Site site;
  std::uint32_t old_status;  // kAnyStatus: any
  std::uint32_t new_status;  // kAnyStatus: any
  std::uint8_t min_minor, max_minor;  // Go 1.<minor> range, inclusive
  Action action;
  RecordKind kind;  // meaningful for kEmit / kHandle
  Subject subject;
  bool keep_stack;  // the record carries the hit's stack
  std::uint8_t skip;  // logical frames the runtime's skip drops (or kSkipFromArgument)
  std::string_view reason;  // the record's reason, when the row fixes it
  // Go 1.24+ traceStack inserts *(gp.sched.sp) as the second PC of a goroutine stopped in
  // morestack (gp.syncSafePoint, tracestack.go, go.dev/issue/68090).
  bool sync_safe_point;
  Handler handler;
  std::string_view why;  // the runtime function the row stands for
};

namespace detail {
using enum Site;
using enum Subject;
using enum Handler;  // Action's names clash with Site's (kIgnore): spelled out below
inline constexpr Action kEmit = Action::kEmit, kHandle = Action::kHandle;
using RK = RecordKind;
constexpr Row Ignore(Site s, std::uint32_t o, std::uint32_t n, std::uint8_t lo, std::uint8_t hi,
                     std::string_view why) {
  return {s, o, n, lo, hi, Action::kIgnore, RK::kGoStart, Subject::kNoRecord, false, 0, {}, false, Handler::kNone, why};
}
}  // namespace detail

inline constexpr std::array kRows = [] {
  using namespace detail;
  constexpr std::uint32_t A = kAnyStatus;
  constexpr std::uint8_t L = kLatest;
  return std::to_array<Row>({
      // newproc1: casgstatus(newg, _Gdead, _Grunnable | _Gwaiting) -> trace.GoCreate(newg,
      // newg.startpc, parked), tl.stack(2) of the creator on the system stack
      // ([systemstack_switch, newproc] skipped). Go 1.19 unwinds with gcallers (logical
      // frames from gp.sched, skip 2: trace.go traceGoCreate): [systemstack_switch,
      // newproc, <go statement's function>]; our frame-pointer walk from sched.bp has no
      // newproc (systemstack pushes no frame), so one skip less. 1.21+ walk frame
      // pointers in-process too (traceStackID). Go <= 1.23 assigns newg.goid after the
      // casgstatus, from the P's goid cache (1.23 proc.go:5067 vs 5076).
      {kNewproc1, kGdead, kGrunnable, 0, 19, kHandle, RK::kGoCreate, kTarget, true, 1, {}, false,
       kCreateFromGoidCache, "newproc1 -> traceGoCreate (gcallers, skip 2)"},
      {kNewproc1, kGdead, kGrunnable, 20, 23, kHandle, RK::kGoCreate, kTarget, true, 2, {}, false,
       kCreateFromGoidCache, "newproc1 -> trace.GoCreate, goid assigned after the CAS"},
      {kNewproc1, kGdead, kGrunnable, 24, L, kHandle, RK::kGoCreate, kTarget, true, 2, {}, false, kCreate,
       "newproc1 -> trace.GoCreate(newg, startpc, false)"},
      {kNewproc1, kGdead, kGwaiting, 0, 19, kHandle, RK::kGoCreate, kTarget, true, 1, {}, false,
       kCreateFromGoidCache, "newproc1 (parked) -> traceGoCreate"},
      {kNewproc1, kGdead, kGwaiting, 20, 23, kHandle, RK::kGoCreate, kTarget, true, 2, {}, false,
       kCreateFromGoidCache, "newproc1 (parked) -> trace.GoCreate"},
      {kNewproc1, kGdead, kGwaiting, 24, L, kHandle, RK::kGoCreate, kTarget, true, 2, {}, false, kCreate,
       "newproc1 (parked) -> trace.GoCreate(newg, startpc, true): GoCreateBlocked"},
      // execute: casgstatus(gp, _Grunnable, _Grunning) -> trace.GoStart().
      {kExecute, kGrunnable, kGrunning, 0, L, kEmit, RK::kGoStart, kTargetOffM, false, 0, {}, false, kNone,
       "execute -> trace.GoStart"},
      // park_m: trace.GoPark(mp.waitTraceBlockReason, mp.waitTraceSkip), stack from
      // gp.sched (traceStack on g0). Go <= 1.21 writes no stack for traceskip 0
      // (trace.go traceEventLocked: skip 0 is "no stack", e.g. gcBgMarkWorker's idle
      // park); 1.22+'s traceStack(0) is the whole stack.
      {kParkM, kGrunning, kGwaiting, 0, 21, kHandle, RK::kGoBlock, kCurg, true, kSkipFromArgument, {}, false,
       kParkLegacy, "park_m -> traceGoPark(waittraceev, waittraceskip)"},
      {kParkM, kGrunning, kGwaiting, 22, L, kHandle, RK::kGoBlock, kCurg, true, kSkipFromArgument, {}, false,
       kPark, "park_m -> trace.GoPark(mp.waitTraceBlockReason, mp.waitTraceSkip)"},
      // park_m, waitunlockf said no: trace.GoUnpark(gp, 2), then execute(gp).
      {kParkM, kGwaiting, kGrunnable, 0, L, kEmit, RK::kGoUnblock, kTargetOffM, false, 0, {}, false, kNone,
       "park_m (unlockf false) -> trace.GoUnpark(gp, 2)"},
      // goschedImpl(gp, preempted): trace.GoPreempt() / GoSched() -> GoStop, tl.stack(1)
      // on 1.22/1.23 (trace2runtime.go, traceruntime.go), tl.stack(0) on 1.26+
      // (traceruntime.go GoStop; 1.24/1.25 unverified, 1 used).
      {kGoschedImpl, kGrunning, kGrunnable, 0, 23, kHandle, RK::kGoStop, kCurg, true, 1, kStopPreempted, false,
       kGoStopReasonFromStack, "goschedImpl (not inlined) -> GoSched/GoPreempt"},
      {kGoschedImpl, kGrunning, kGrunnable, 24, 25, kHandle, RK::kGoStop, kCurg, true, 1, kStopPreempted, true,
       kGoStopReasonFromStack, "goschedImpl (not inlined) -> GoSched/GoPreempt"},
      {kGoschedImpl, kGrunning, kGrunnable, 26, L, kHandle, RK::kGoStop, kCurg, true, 0, kStopPreempted, true,
       kGoStopReasonFromStack, "goschedImpl (not inlined) -> GoSched/GoPreempt, stack(0)"},
      {kGosched, kGrunning, kGrunnable, 0, 25, kHandle, RK::kGoStop, kCurg, true, 1, kStopGosched, false, kGoStop,
       "gosched_m / goschedguarded_m -> goschedImpl(gp, false) -> trace.GoSched"},
      {kGosched, kGrunning, kGrunnable, 26, L, kHandle, RK::kGoStop, kCurg, true, 0, kStopGosched, false, kGoStop,
       "gosched_m / goschedguarded_m -> goschedImpl(gp, false) -> trace.GoSched, stack(0)"},
      {kGopreempt, kGrunning, kGrunnable, 0, 23, kHandle, RK::kGoStop, kCurg, true, 1, kStopPreempted, false,
       kGoStop, "gopreempt_m -> goschedImpl(gp, true) -> trace.GoPreempt"},
      {kGopreempt, kGrunning, kGrunnable, 24, 25, kHandle, RK::kGoStop, kCurg, true, 1, kStopPreempted, true,
       kGoStop, "gopreempt_m -> goschedImpl(gp, true) -> trace.GoPreempt"},
      {kGopreempt, kGrunning, kGrunnable, 26, L, kHandle, RK::kGoStop, kCurg, true, 0, kStopPreempted, true,
       kGoStop, "gopreempt_m -> goschedImpl(gp, true) -> trace.GoPreempt, stack(0)"},
      {kGoyield, kGrunning, kGrunnable, 0, 23, kHandle, RK::kGoStop, kCurg, true, 1, kStopPreempted, false, kGoStop,
       "goyield_m -> trace.GoPreempt"},
      {kGoyield, kGrunning, kGrunnable, 24, 25, kHandle, RK::kGoStop, kCurg, true, 1, kStopPreempted, true, kGoStop,
       "goyield_m -> trace.GoPreempt"},
      {kGoyield, kGrunning, kGrunnable, 26, L, kHandle, RK::kGoStop, kCurg, true, 0, kStopPreempted, true, kGoStop,
       "goyield_m -> trace.GoPreempt, stack(0)"},
      // goexit1 writes GoEnd before mcall(goexit0); gdestroy's casgstatus(gp, _Grunning,
      // _Gdead) is the first probed point after it.
      {kGdestroy, kGrunning, kGdead, 0, L, kEmit, RK::kGoEnd, kCurg, false, 0, {}, false, kNone,
       "goexit1 -> trace.GoEnd; gdestroy's CAS"},
      // reentersyscall: GoSysCall's stack(1) from gp.syscallpc/syscallbp (1.23+) or from
      // systemstack_switch with skip 4 (1.22, three runtime frames in between): both are
      // the walk from syscallpc's frame, skip 1. Go 1.26 writes GoSyscallBegin at its
      // entry (CALL kEnterSyscall); its casgstatus only runs for synctest bubbles.
      {kReentersyscall, kGrunning, kGsyscall, 0, 25, kHandle, RK::kGoSyscallBegin, kCurg, true, 1, {}, false,
       kSyscallBegin, "reentersyscall -> casgstatus, then trace.GoSysCall"},
      Ignore(kReentersyscall, kGrunning, kGsyscall, 26, L,
             "reentersyscall: a duplicate of the CALL record at its entry"),
      // entersyscallblock (only notetsleepg calls it). Go 1.22: GoSysCall's hard-coded skip
      // 4 (trace2runtime.go, counted for entersyscall -> reentersyscall) starts one frame
      // further out from its systemstack(entersyscallblock_handoff): the stack starts at
      // notetsleepg's caller's caller (seen: gcBgMarkStartWorkers' GoSyscallBegin begins
      // at gcStart; fidelity gc workload, go1.22). Go 1.26+: "(1) trace, (2) handoff,
      // (3) _Gsyscall switch": the ProcStop was held for this CAS (DecodeCall kReleaseP),
      // unless the plan probes the function's entry (then that is the event).
      {kEntersyscallBlock, kGrunning, kGsyscall, 0, 21, kHandle, RK::kGoSyscallBegin, kCurg, true, 1, {}, false,
       kSyscallBegin, "entersyscallblock -> casgstatus, entersyscallblock_handoff"},
      {kEntersyscallBlock, kGrunning, kGsyscall, 22, 22, kHandle, RK::kGoSyscallBegin, kCurg, true, 2, {}, false,
       kSyscallBegin, "entersyscallblock -> entersyscallblock_handoff: GoSysCall's skip 4"},
      {kEntersyscallBlock, kGrunning, kGsyscall, 23, 25, kHandle, RK::kGoSyscallBegin, kCurg, true, 1, {}, false,
       kSyscallBegin, "entersyscallblock -> casgstatus, entersyscallblock_handoff"},
      {kEntersyscallBlock, kGrunning, kGsyscall, 26, L, kHandle, RK::kGoSyscallBegin, kCurg, true, 1, {}, false,
       kSyscallBeginUnlessEntryProbed, "entersyscallblock: GoSysCall, handoffp(releasep()), casgstatus"},
      // exitsyscall fast path, after exitsyscallfast got a P and p.syscalltick++ (<= 1.25);
      // 1.26+ decides the exit from the CALL record at exitsyscall's entry.
      {kExitSyscall, kGsyscall, kGrunning, 0, 25, kHandle, RK::kGoSyscallEnd, kCurg, false, 0, {}, false,
       kExitSyscallFast, "exitsyscall -> casgstatus, trace.GoSysExit(lostP)"},
      Ignore(kExitSyscall, kGsyscall, kGrunning, 26, L, "exitsyscall: covered by the CALL record at its entry"),
      // exitsyscall0 (<= 1.25: _Gsyscall -> _Grunnable) / exitsyscallNoP (1.26+:
      // _Grunning -> _Grunnable): trace.GoSysExit(true) without a P.
      {kExitSyscallSlow, A, kGrunnable, 0, L, kHandle, RK::kGoSyscallEndBlocked, kCurg, false, 0, {}, false,
       kExitSyscallNoP, "exitsyscall0 / exitsyscallNoP -> trace.GoSysExit(true)"},
      // ready(gp, traceskip, next) -> trace.GoUnpark(gp, traceskip) (docs/model.md §3.3).
      {kReady, kGwaiting, kGrunnable, 0, L, kHandle, RK::kGoUnblock, kTarget, true, kSkipFromArgument, {}, false,
       kReadyTraceskip, "ready -> trace.GoUnpark(gp, traceskip)"},
      {kUnparkNoSkip, kGwaiting, kGrunnable, 0, L, kEmit, RK::kGoUnblock, kTarget, true, 0, {}, false, kNone,
       "findRunnable / injectglist / findRunnableGCWorker -> trace.GoUnpark(gp, 0)"},
      // debugCallWrap: GoPark(traceBlockDebugCall, 1); debugCallWrap1: GoUnpark(callingG,
      // 0); its mcall back is a Gosched-like GoStop.
      {kDebugCall, kGrunning, kGwaiting, 0, L, kEmit, RK::kGoBlock, kCurg, true, 1, kBlockDebugCall, false, kNone,
       "debugCallWrap -> trace.GoPark(traceBlockDebugCall, 1)"},
      {kDebugCall, kGwaiting, kGrunnable, 0, L, kEmit, RK::kGoUnblock, kTarget, true, 0, {}, false, kNone,
       "debugCallWrap1 -> trace.GoUnpark(callingG, 0)"},
      {kDebugCall, kGrunning, kGrunnable, 0, 25, kHandle, RK::kGoStop, kCurg, true, 1, kStopGosched, false, kGoStop,
       "debugCallWrap1 -> trace.GoSched"},
      {kDebugCall, kGrunning, kGrunnable, 26, L, kHandle, RK::kGoStop, kCurg, true, 0, kStopGosched, false, kGoStop,
       "debugCallWrap1 -> trace.GoSched, stack(0)"},
      // needm: casgstatus(mp.curg, _Gdeadextra, _Gsyscall) -> trace.GoCreateSyscall.
      {kNeedm, A, kGsyscall, 0, L, kEmit, RK::kGoCreateSyscall, kTargetOffM, false, 0, {}, false, kNone,
       "needm -> trace.GoCreateSyscall"},
      // dropm: trace.GoDestroySyscall, casgstatus(mp.curg, _Gsyscall, _Gdead|_Gdeadextra).
      {kDropm, kGsyscall, kGdead, 0, L, kEmit, RK::kGoDestroySyscall, kCurg, false, 0, {}, false, kNone,
       "dropm -> trace.GoDestroySyscall"},
      {kDropm, kGsyscall, kGdeadextra, 0, L, kEmit, RK::kGoDestroySyscall, kCurg, false, 0, {}, false, kNone,
       "dropm (1.26+ _Gdeadextra) -> trace.GoDestroySyscall"},
      // Coroutine switches mostly bypass casgstatus (docs/model.md §6).
      Ignore(kCoroswitch, A, A, 0, L, "coroswitch_m: GoSwitch is not taken from here"),
      Ignore(kIgnore, A, A, 0, L, "no trace call at these casgstatus sites"),
      {kUnknown, A, A, 0, L, Action::kUnclassified, RK::kGoStart, kNoRecord, false, 0, {}, false, kNone,
       "a caller not in kCallerSites"},
  });
}();

constexpr bool StatusMatches(std::uint32_t row, std::uint32_t s) { return row == kAnyStatus || row == s; }

// The row for a casgstatus(gp, oldv, newv) (_Gscan bits already cleared) of `site` on Go
// 1.<minor>; nullptr: the site's transitions the tracer does not report (ignored).
constexpr const Row *Lookup(Site site, std::uint32_t oldv, std::uint32_t newv, int minor) {
  for (const Row &r : kRows)
    if (r.site == site && StatusMatches(r.old_status, oldv) && StatusMatches(r.new_status, newv) &&
        minor >= r.min_minor && minor <= r.max_minor)
      return &r;
  return nullptr;
}

// Checks of the table itself (also static_asserted in gstatus_table_test.cc).
constexpr bool StatusesOverlap(std::uint32_t a, std::uint32_t b) {
  return a == kAnyStatus || b == kAnyStatus || a == b;
}
constexpr bool RowsOverlap(const Row &a, const Row &b) {
  return a.site == b.site && StatusesOverlap(a.old_status, b.old_status) &&
         StatusesOverlap(a.new_status, b.new_status) && a.min_minor <= b.max_minor && b.min_minor <= a.max_minor;
}
constexpr bool NoOverlappingRows() {
  for (std::size_t i = 0; i < kRows.size(); ++i)
    for (std::size_t j = i + 1; j < kRows.size(); ++j)
      if (RowsOverlap(kRows[i], kRows[j])) return false;
  return true;
}
constexpr bool EverySiteHasARow() {
  for (std::uint8_t s = 0; s < static_cast<std::uint8_t>(Site::kCount); ++s) {
    bool found = false;
    for (const Row &r : kRows) found = found || r.site == static_cast<Site>(s);
    if (!found) return false;
  }
  return true;
}
constexpr bool RowsAreWellFormed() {
  for (const Row &r : kRows) {
    if (r.min_minor > r.max_minor) return false;
    const bool records = r.action == Action::kEmit || r.action == Action::kHandle;
    if (records != (r.subject != Subject::kNoRecord)) return false;
    if ((r.action == Action::kHandle) != (r.handler != Handler::kNone)) return false;
    if (r.skip == kSkipFromArgument && r.action != Action::kHandle) return false;  // a handler reads it
    if (!records && (r.keep_stack || r.skip != 0)) return false;
  }
  return true;
}
constexpr bool NoDuplicateNames() {
  for (std::size_t i = 0; i < kCallerSites.size(); ++i)
    for (std::size_t j = i + 1; j < kCallerSites.size(); ++j)
      if (kCallerSites[i].name == kCallerSites[j].name) return false;
  return true;
}

static_assert(NoOverlappingRows(), "two rows decide the same (site, old, new, minor)");
static_assert(EverySiteHasARow(), "a Site without a row");
static_assert(RowsAreWellFormed(), "a row's fields contradict its action");
static_assert(NoDuplicateNames(), "a caller name listed twice");

}  // namespace gotraced::model::gstatus
