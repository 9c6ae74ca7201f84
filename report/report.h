// `gotraced report`: the diagnosis of a Go execution trace (any version gotraced or
// runtime/trace writes): ranked findings, then one section per area. Built in one pass
// over the events (trace_reader.h); each section is its own file (sched_latency.cc,
// stw_gc.cc, blocking.cc, syscalls.cc, goroutine_growth.cc, cpu_samples.cc,
// kernel_side.cc) and groups goroutines by a key the caller chooses (ReportOptions),
// the goroutine's start function by default, as go tool trace groups them.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "report/histogram.h"

namespace gotraced::report {

struct ReportOptions {
  // A goroutine's group: its start function, or (kLabel) the value of its pprof label
  // label_key, from gotraced's "gotraced: labels" logs (docs/trace-contents.md): the set
  // it started running with, so one goroutine moves between groups as its labels change.
  enum class GroupBy { kStartFunction, kLabel };
  GroupBy group_by = GroupBy::kStartFunction;
  std::string label_key;  // kLabel
  std::size_t top = 5;  // rows per table, findings per area
};

// A distribution of durations, as printed and in --json.
struct Dist {
  std::uint64_t count = 0, total_ns = 0, p50_ns = 0, p90_ns = 0, p99_ns = 0, max_ns = 0;
  static Dist Of(const Histogram &h);
};

// One moment worth opening: a goroutine's wait, an STW, a blocked call site ...
struct Moment {
  std::uint64_t start_ns = 0, dur_ns = 0;  // since the trace's first event
  std::uint64_t g = 0;                     // 0: not one goroutine's
  std::string what;                        // "runnable 12.3 ms (main.worker)" ...
  std::string kernel;                      // the kernel's side of the window, "" if none or unknown
};

struct GroupDist {
  std::string group;
  std::uint64_t goroutines = 0;
  Dist dist;
};

struct SchedLatency {
  Dist all;
  std::vector<GroupDist> groups;  // biggest p99 first
  std::vector<Moment> worst;      // longest waits first
};

struct StwGc {
  struct Kind {
    std::string kind;
    Dist dist;
  };
  Dist all;                     // every stop-the-world
  Dist gc;                      // those of the GC ("GC ..." kinds)
  std::vector<Kind> kinds;      // longest total first
  std::vector<Moment> longest;  // longest first
  std::uint64_t gc_cycles = 0;  // GCBegin..GCEnd completed in the window
  std::uint64_t gc_total_ns = 0, gc_max_ns = 0;
  std::uint64_t heap_max = 0;          // bytes (HeapAlloc events)
  std::vector<GroupDist> mark_assist;  // per group, biggest total first: time running in an assist
  std::uint64_t mark_assist_range_ns = 0;  // the assists' GCMarkAssistBegin..End, parks and waits for a P too
};

struct Blocking {
  struct Row {
    std::string reason;     // "mutex", "chan receive", "network", ...
    std::string call_site;  // "" in the per-reason table
    Dist dist;
    std::uint64_t worst_g = 0, worst_start_ns = 0;
  };
  std::vector<Row> reasons;     // by reason, biggest total first
  std::vector<Row> call_sites;  // by reason and the top frames outside the runtime, biggest first
  std::vector<GroupDist> groups;  // by the waiting goroutine's group, biggest total first
};

struct Syscalls {
  struct Row {
    std::string what;  // Go's view: the call site; the kernel's: "read tcp 127.0.0.1:*"
    Dist dist;
    std::uint64_t bytes = 0, calls_with_bytes = 0;
  };
  Dist all;
  std::vector<Row> by_call_site;  // Go's events: GoSyscallBegin's stack
  std::vector<Row> by_target;     // the kernel view's syscall regions, what they touched aggregated
  std::vector<GroupDist> groups;  // by the calling goroutine's group, biggest total first
};

struct Goroutines {
  std::uint64_t at_start = 0, at_end = 0, created = 0, ended = 0;
  std::int64_t growth = 0;  // at_end - at_start, the runtime's own goroutines left out
  struct Group {
    std::string group;
    std::int64_t growth = 0;
    std::uint64_t at_end = 0;
  };
  std::vector<Group> groups;  // biggest growth first
  struct Suspect {
    std::uint64_t g = 0, blocked_since_ns = 0, blocked_ns = 0;
    std::string group, reason, stack;  // stack: innermost first, " < "
    std::uint64_t same = 0;            // goroutines blocked at the same place
  };
  std::vector<Suspect> leak_suspects;  // longest blocked first, one per place
};

struct Cpu {
  std::uint64_t samples = 0;
  struct Row {
    std::string name;
    std::uint64_t samples = 0;
  };
  std::vector<Row> functions;  // innermost frame
  std::vector<Row> groups;
};

// The kernel view's regions ("kernel: ..." user regions gotraced writes:
// docs/kernel-view.md), per cause and per group: where goroutines lost time to the kernel.
struct KernelSide {
  struct Cause {
    std::string type;  // "kernel: throttled", "kernel: syscall read tcp 127.0.0.1:*" ...
    std::uint64_t total_ns = 0, count = 0, max_ns = 0;
    struct PerG {
      std::uint64_t g = 0, total_ns = 0, count = 0;
    };
    std::vector<PerG> goroutines;                    // biggest first (per group only)
    std::map<std::string, std::uint64_t> breakdown;  // syscall regions: "on CPU", "off-CPU blocked" ... -> ns
    std::uint64_t bytes = 0, calls_with_bytes = 0;
  };
  struct Group {
    std::string function;
    std::uint64_t goroutines = 0, total_ns = 0;
    std::vector<Cause> causes;
    std::map<std::string, std::pair<std::uint64_t, std::uint64_t>> syscall_bytes;  // "read" -> bytes, calls
  };
  std::uint64_t regions = 0;
  std::vector<Cause> totals;
  std::vector<Group> groups;
};

struct Finding {
  std::string area;           // "sched", "stw", "blocking", "syscall", "goroutines", "cpu"
  std::uint64_t size_ns = 0;  // what ranks it (goroutine counts: 1 ms per goroutine)
  std::string line;           // the one line printed
  std::string open;           // what to open in go tool trace
};

struct Report {
  std::string version;
  std::string grouped_by = "start function";  // or "label KEY"
  std::uint64_t duration_ns = 0, events = 0, goroutines = 0, generations = 0;
  std::uint64_t max_generation_bytes = 0;
  std::vector<Finding> findings;  // biggest first
  SchedLatency sched;
  StwGc stw;
  Blocking blocking;
  Syscalls syscalls;
  Goroutines goroutines_section;
  Cpu cpu;
  KernelSide kernel;
  std::string error;  // "" when the whole trace was read
  // Every figure --fail-on can name (fail_on.h), in ns or counts.
  std::map<std::string, double> Metrics() const;
};

Report BuildReport(std::istream &in, const ReportOptions &opt = {});
Report BuildReport(std::span<const std::uint8_t> trace, const ReportOptions &opt = {});

std::string ReportText(const Report &r, const ReportOptions &opt = {});
std::string ReportJson(const Report &r);

// "12.3 ms", "1.234 s", "850.0 us"
std::string Dur(std::uint64_t ns);

}  // namespace gotraced::report
