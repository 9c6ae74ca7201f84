// What tests/tracecheck should report for a generated scenario: the same keys as its
// JSON summary (tests/tracecheck/README.md), counted as the scenario emits events,
// following how the Go parser turns wire events into trace.Events
// (x/exp/trace order.go, event.go: StateTransition, Range, Metric, Stack).
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace gotraced::encoder::scenario {

struct ExpectedSummary {
  std::string version;  // "go1.NN"
  std::int64_t events = 0;
  std::map<std::string, std::int64_t> kinds, go_transitions, proc_transitions, block_reasons, stop_reasons,
      ranges, range_actives, range_ends, metrics;
  std::set<std::uint64_t> goroutines, procs, threads;
  std::int64_t creates = 0, syscalls = 0, stacks = 0, frames = 0;
  std::set<std::string> distinct_stacks;
  std::int64_t tasks = 0, task_ends = 0, regions = 0, region_ends = 0, logs = 0, labels = 0;
  std::int64_t cpu_samples = 0, cpu_samples_with_goroutine = 0, syncs = 0, generations = 0, clock_snapshots = 0;

  // One parser event of `kind` (EventKind.String()).
  void Event(const char *kind) {
    ++events;
    ++kinds[kind];
  }
  // A goroutine transition; reason counts for Running->Waiting / Running->Runnable.
  void GoTransition(std::uint64_t g, const char *from, const char *to, const std::string &reason = "");
  void ProcTransition(std::uint64_t p, const char *from, const char *to);
  // The event's own stack (Event.Stack()): `key` is "func file:line\n" per frame.
  void Stack(int nframes, const std::string &key) {
    ++stacks;
    frames += nframes;
    distinct_stacks.insert(key);
  }

  std::string ToJson() const;
};

}  // namespace gotraced::encoder::scenario
