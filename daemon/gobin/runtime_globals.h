// RuntimeGlobals: link-time addresses of the runtime's global variables that the
// attach-time snapshot (procmem/) and the tracing-state check read: allgs/allglen,
// allp, allm, gomaxprocs, sched, ncpu, buildVersion, waitReasonStrings, the tracer's
// "enabled" flag, gcController, memstats, and (symtab only) work and trace.
//
// With .symtab: by name. Without (-s -w): recovered from the machine code of anchor
// functions, found through the pclntab, by their RIP-relative references. Each anchor
// was chosen by reading the Go source of every supported version (1.19 .. 1.27) and is
// checked against .symtab of the unstripped build of the same program in
// tests/unit/gobin-layout (globals_test):
//   allgs        runtime.forEachG: `for _, gp := range allgs` loads allgs.ptr, allgs.len
//                (two 8-byte loads at X, X+8) - proc.go
//   allglen      runtime.forEachGRace -> atomicAllG: first 8-byte load is allglen, the
//   allgptr      second allgptr (proc.go atomicAllG: Loaduintptr(&allglen) first)
//   allp         runtime.preemptall: `for _, pp := range allp` (X, X+8) - proc.go
//   allm         runtime.mcommoninit: `mp.alllink = allm; atomicstorep(&allm, mp)`: the
//                one address both loaded (8 bytes) and LEA'd - proc.go
//   gomaxprocs   runtime.GOMAXPROCS: `ret := int(gomaxprocs)`: the first MOVSXD of a
//                32-bit global - debug.go
//   sched        runtime.GOMAXPROCS: `lock(&sched.lock)`: first LEA minus the layout's
//                offset of schedt.lock (so it needs the RuntimeLayout)
//   ncpu         runtime.osinit: `ncpu = getproccount()` (numCPUStartup from 1.26): the
//                first 32-bit store - os_linux.go
//   waitReasonStrings  runtime.waitReason.String: the LEA of a writable-data address;
//                its length from the bounds check `CMP $N, reg` - runtime2.go
//   buildVersion runtime.schedinit: the referenced 16-byte string header whose string
//                equals the binary's Go version from .go.buildinfo - proc.go
//   trace.enabled  runtime.acquirep: `if trace.enabled` (1.19-1.21), `traceEnabled()`
//                (1.23+: trace.enabled, a bool: `CMPB $0, X`; 1.22: trace.gen, a uint64:
//                `MOVQ X, reg; TEST`) - proc.go, trace*.go. The in-process tracer is on
//                iff the `size` bytes at X are non-zero. Code only, also with .symtab
//                (a field, not a symbol).
//   gcController  the receiver of calls to (*gcControllerState) methods: `LEAQ X(RIP),
//   memstats      AX; CALL method` counted over all Go text (mgcpacer.go); likewise
//                memstats.heapStats.acquire() (heapStats is mstats' first field, mstats.go)
// Not recovered without .symtab (no reliable anchor yet): work, trace (the struct):
// DescribeGlobals says what that loses.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gotraced::gobin {

class GoBinary;
struct RuntimeLayout;

enum class GlobalId : uint8_t {
  kAllgs,              // []*g
  kAllglen,            // uintptr
  kAllgptr,            // **g
  kAllp,               // []*p
  kAllm,               // *m
  kGomaxprocs,         // int32
  kNcpu,               // int32 (runtime.ncpu; runtime.numCPUStartup from 1.26)
  kSched,              // schedt
  kBuildVersion,       // string
  kWaitReasonStrings,  // [N]string
  kTraceEnabled,       // non-zero (size 1 or 8 bytes) while the in-process tracer is on
  kGcController,       // gcControllerState
  kWork,               // workType (symtab only)
  kMemstats,           // mstats
  kTrace,              // the tracer's state struct (symtab only)
  kCount,
};

struct GlobalAddr {
  uint64_t vaddr = 0;   // link-time; 0 = not found
  uint64_t size = 0;    // bytes, when known (symtab size, or count*16 for string arrays)
  std::string found_by; // "symtab", "code: runtime.forEachG", "" when not found
  bool found() const { return vaddr != 0; }
};

struct GlobalInfo {
  GlobalId id;
  const char *name;     // what `inspect` prints
  const char *symbols[2];  // .symtab names tried in order (nullptr-terminated)
  const char *loses;    // what is lost when the address is unknown
};
const std::array<GlobalInfo, static_cast<size_t>(GlobalId::kCount)> &GlobalInfos();

struct RuntimeGlobals {
  std::array<GlobalAddr, static_cast<size_t>(GlobalId::kCount)> addr;
  const GlobalAddr &operator[](GlobalId id) const { return addr[static_cast<size_t>(id)]; }
  GlobalAddr &operator[](GlobalId id) { return addr[static_cast<size_t>(id)]; }
  // "not available in this binary: runtime.gcController (loses: ...)" per missing global.
  std::vector<std::string> Missing() const;
};

enum class GlobalsSource { kAuto, kSymtabOnly, kCodeOnly };

// kAuto: .symtab when present, code recovery for what it lacks. `layout` (may be null)
// is needed for sched without .symtab.
RuntimeGlobals FindRuntimeGlobals(const GoBinary &bin, const RuntimeLayout *layout,
                                  GlobalsSource source = GlobalsSource::kAuto);

std::string DescribeGlobals(const RuntimeGlobals &g);

}  // namespace gotraced::gobin
