// What `gotraced report FILE` summarizes (report_command.cc prints it): where goroutines
// of a trace lost time to the kernel, from the kernel view's "kernel: ..." regions
// (daemon/model/kernel_view.h, docs/kernel-view.md) and Go's own syscall events, per
// goroutine group (the goroutine's start function, as go tool trace groups them).
// Reads Go 1.22+ (v2) traces with encoder/trace_decoder.h: per M, the goroutine it runs
// follows the scheduling events of its batches, and a region belongs to that goroutine
// (a user region is an event of the running goroutine: runtime/traceruntime.go
// trace_userRegion; internal/trace/order.go advanceUserRegionBegin). Reads go1.19 / go1.21
// (legacy) traces with encoder/legacy_decoder.h: the same per P (docs/kernel-view.md).
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace gotraced::cli {

// Bytes moved by the syscalls of a region type or of a syscall kind (the logs' ", N
// bytes": a successful read, write, pread64, sendto, recvmsg ... that got a region).
struct SyscallBytes {
  std::uint64_t bytes = 0, calls = 0;
  void Add(const SyscallBytes &o) {
    bytes += o.bytes;
    calls += o.calls;
  }
};

struct ReportCause {
  std::string type;  // region type ("kernel: throttled" ...) or "go: syscall"
  std::uint64_t total_ns = 0, count = 0, max_ns = 0;
  struct PerG {
    std::uint64_t g = 0, total_ns = 0, count = 0;
  };
  std::vector<PerG> goroutines;  // biggest first
  // Syscall regions ("kernel: syscall ..."): where their time went, from the logs at
  // their ends (model_kernel_syscall.cc): "on CPU", "off-CPU blocked", "run-queue wait",
  // "waiting for a P" ... -> ns.
  std::map<std::string, std::uint64_t> breakdown;
  SyscallBytes bytes;  // syscall regions: the bytes their syscalls moved
};

struct ReportGroup {
  std::string function;  // the start function ("?" when the trace does not say)
  std::uint64_t goroutines = 0;
  std::uint64_t total_ns = 0;      // of the kernel causes (not "go: syscall")
  std::vector<ReportCause> causes;  // biggest first
  std::map<std::string, SyscallBytes> syscall_bytes;  // per syscall kind ("read", "pwrite64" ...)
};

struct TraceReport {
  std::string version;           // "go1.26"
  std::uint64_t duration_ns = 0; // first to last event
  std::uint64_t goroutines = 0;
  std::uint64_t kernel_regions = 0;  // and, in the legacy formats, syscall logs that stand for one
  std::vector<ReportGroup> groups;  // biggest kernel total first
  std::vector<ReportCause> totals;  // per cause over all goroutines (goroutines: empty)
  std::string error;                // "" when the trace was read
};

// The syscall duration of Go's own events (GoSyscallBegin to GoSyscallEnd/EndBlocked).
inline constexpr const char *kGoSyscallCause = "go: syscall";

TraceReport BuildReport(std::span<const std::uint8_t> trace);
std::string ReportText(const TraceReport &r, std::size_t top_goroutines = 3);
std::string ReportJson(const TraceReport &r);

}  // namespace gotraced::cli
