// Goroutine states sampled read-only: how many of the target's goroutines are running,
// runnable, in a syscall or waiting (and on what) at one moment, read from its memory
// while it runs. Capture level "low" (session/capture_level.h) traps no goroutine
// transition, so this census, every SessionOptions::state_sample, is what its trace says
// about the goroutines that make no syscall.
//
// What is read (runtime/runtime2.go): allglen and allgs as the attach snapshot reads
// them (snapshot.h: allgadd stores allglen after the append), then of every g only the
// bytes from the first to the last of atomicstatus, goid, waitreason and waitsince
// (~40 bytes; gs close together are read as one range, ProcessMemory::ReadEach). No stack
// is walked. The target is not stopped: each g is as it was when its bytes were copied,
// so the counts are of a moment a few ms wide (~0.4 us per g), not of one instant.
//
// waitsince (runtime2.go "approx time when the g become blocked") is set only by the GC:
// markroot's scan of a waiting or syscall goroutine stores work.tstart when it is 0
// (mgcmark.go, Go 1.19..1.27), and execute / exitsyscall clear it (proc.go). So a
// goroutine's wait is known only once a GC cycle has seen it waiting, as at least
// "now - waitsince" (nanotime is CLOCK_MONOTONIC, our clock); the message lists the
// longest such waits.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "daemon/gobin/result.h"
#include "daemon/procmem/snapshot.h"

namespace gotraced::gobin {
struct RuntimeLayout;
}

namespace gotraced::procmem {

class ProcessMemory;

struct GoroutineStates {
  uint64_t begin_ts_ns = 0;  // CLOCK_MONOTONIC before allglen was read
  uint64_t end_ts_ns = 0;    // ... and after the last g
  uint64_t allglen = 0;      // gs in allgs (dead ones included)
  uint64_t unreadable = 0;   // gs whose bytes could not be read
  // Live goroutines per status (the _Gscan bit cleared), index = the runtime's _G value;
  // _Gidle, _Gdead and _Gdeadextra (1.27) are not counted.
  std::array<uint64_t, 16> by_status{};
  uint64_t other_status = 0;  // values >= 16 (a runtime newer than this table)
  // _Gwaiting goroutines per waitreason value (this binary's waitReason enum).
  std::array<uint64_t, 256> waiting_by_reason{};
  // The longest waits known (waitsince != 0), longest first, at most
  // GoroutineStatesOptions::longest.
  struct Wait {
    uint64_t goid = 0;
    uint32_t status = 0;   // _Gwaiting or _Gsyscall
    uint8_t waitreason = 0;
    uint64_t since_ns = 0;  // g.waitsince (CLOCK_MONOTONIC)
  };
  std::vector<Wait> longest;
  // GoroutineStatesOptions::labels: live goroutines with a pprof label set (g.labels != 0)
  // per set pointer, counted by status: running, runnable, syscall, waiting (kLabelStates).
  std::vector<std::pair<uint64_t, std::array<uint64_t, 4>>> by_labels;  // ascending pointer

  uint64_t live() const;  // goroutines counted in by_status and other_status
};

// The statuses by_labels counts, in its order.
inline constexpr uint32_t kLabelStates[4] = {2 /*_Grunning*/, 1 /*_Grunnable*/, 3 /*_Gsyscall*/, 4 /*_Gwaiting*/};

struct GoroutineStatesOptions {
  std::size_t longest = 3;
  // Also read each goroutine's g.labels (the window per g widened to it: ~220 bytes
  // instead of ~40; pprof labels at capture level low, issue 34): by_labels.
  bool labels = false;
  // When set, the goid of every live goroutine counted is appended (unsorted): the
  // model's pruning after a loss (session/pipeline.h live_goroutines).
  std::vector<uint64_t> *live_goids = nullptr;
  std::size_t max_goroutines = 1 << 22;  // refuse absurd allglen (corrupt read), as the snapshot does
};

// Fails when allgs cannot be read at all or the layout lacks goid/atomicstatus/waitreason.
gobin::Result<GoroutineStates> ReadGoroutineStates(const ProcessMemory &mem, const gobin::RuntimeLayout &layout,
                                                   const RuntimeGlobalAddrs &addrs,
                                                   const GoroutineStatesOptions &opts = {});

// The trace log's message: "1012 goroutines: running 2, runnable 5, syscall 1, waiting
// 1004 (chan receive 1000, select 3, IO wait 1); longest waits: G17 chan receive >= 12.3 s
// ...". Wait reasons are the runtime's waitReasonStrings (layout.wait_reason_strings),
// by count, most first.
std::string GoroutineStatesMessage(const GoroutineStates &s, const gobin::RuntimeLayout &layout);

// The per-label part of the message: "; labels [route=/a] running 1 waiting 3,
// [tenant=1] waiting 2 ..." (each label of each set, `text(ptr)` its LabelText, a
// goroutine counted under each of its labels, unreadable sets ("") left out; most
// goroutines first, at most `max_sets` labels, then "+N more labels"). "" when no
// goroutine has a readable set.
std::string GoroutineLabelsMessage(const GoroutineStates &s,
                                   const std::function<std::string_view(uint64_t)> &text, std::size_t max_sets = 8);

}  // namespace gotraced::procmem
