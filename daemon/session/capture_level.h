// Capture levels: how much of a Go program's execution a recording traps for, and so what
// it costs (docs/levels.md, docs/probe-plan.md §10). One option for the CLI
// (`--level`) and for serve (`level` per watch table).
//
//   full   every event the in-process tracer writes that gotraced can see: scheduling
//          through casgstatus (one uprobe hit per goroutine transition), Ps, syscalls,
//          GC and STW with heap metrics, mark workers, assists and sweeps, user
//          annotations, stacks.
//   sched  full's scheduling, syscalls, Ps, GC cycles, STW, heap metrics, workers,
//          assists and user annotations, without stack walks (~0.5 us of BPF per hit
//          saved) and without GC sweeps (~2 hits per span, the costliest GC probes).
//   low    no per-goroutine-switch site: no casgstatus, acquirep/releasep, handoffp,
//          preemptPark or syscall uprobe. Syscalls with their goroutine from
//          sched_switch (by default only those of 1 ms or more, SessionOptions::
//          syscall_min; every Go version) or the sys_enter/sys_exit tracepoints
//          (SessionOptions::syscall_switch, syscall_path.h), GC cycles and STW (a few
//          hits per cycle), HeapGoal, GOMAXPROCS, CPU samples with goroutine and stack,
//          and the goroutines' states sampled read-only every few seconds (a trace log
//          per sample: session/state_sampler.h). No scheduling: the model writes each
//          observation on its own (model/model_sparse.cc).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gotraced::probes {
struct PlanOptions;
}

namespace gotraced::session {

enum class CaptureLevel : std::uint8_t { kFull, kSched, kLow };

// "full", "sched", "low"; nullopt if unknown. Inline: serve's config parser links
// without the capture pipeline.
inline std::optional<CaptureLevel> ParseCaptureLevel(std::string_view text) {
  if (text == "full") return CaptureLevel::kFull;
  if (text == "sched") return CaptureLevel::kSched;
  if (text == "low") return CaptureLevel::kLow;
  return std::nullopt;
}
inline std::string_view CaptureLevelName(CaptureLevel level) {
  switch (level) {
    case CaptureLevel::kFull: return "full";
    case CaptureLevel::kSched: return "sched";
    case CaptureLevel::kLow: return "low";
  }
  return "?";
}

// The probe plan options of a level (what it leaves out), applied over `opts`.
void ApplyCaptureLevel(CaptureLevel level, probes::PlanOptions &opts);

// One line for the summary: what a trace of this level holds and what it does not.
// `state_sample`: level low's interval of goroutine state samples (0 = none).
std::string CaptureLevelContents(CaptureLevel level, std::chrono::milliseconds state_sample);

}  // namespace gotraced::session
