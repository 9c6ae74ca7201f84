// What the report knows of each live goroutine while it reads a trace: its state since
// when, why it waits, and its group (ReportOptions::group_by; the start function by
// default). Holds live goroutines only: an ended one is forgotten, so memory follows the
// target's goroutine count, not the trace's length.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "daemon/model/flat_map.h"
#include "report/report.h"
#include "report/stack_table.h"
#include "report/trace_event.h"

namespace gotraced::report {

struct GInfo {
  GState state = GState::kUndetermined;
  std::uint64_t since_ns = 0;     // when it entered `state`
  std::uint32_t group = 0;        // GoroutineTable::GroupName
  std::uint32_t block_stack = 0;  // where it waits (kWaiting), or its syscall's stack
  std::uint32_t block_reason =
      0;  // kWaiting: GoroutineTable::ReasonName (the reason refined by the stack: BlockClass)
  bool runnable_known = false;  // since_ns is a real runnable start (not a trace-start status)
  bool system = false;          // the runtime's own (runtime.* start function but runtime.main)
  bool named = false;           // its start function was looked at (Name)
  bool in_assist = false;       // between its GCMarkAssistBegin (or Active) and End
};

class GoroutineTable {
 public:
  static constexpr std::size_t kRecent = 512;  // Find's cache: 8 KB; goroutine ids are dense
  GoroutineTable(const StackTable &stacks, const ReportOptions &opt)
      : stacks_(stacks), group_by_(opt.group_by), label_key_(opt.label_key) {
    // By label: group 0 is the goroutines without that label.
    names_.emplace_back(group_by_ == ReportOptions::GroupBy::kLabel ? label_key_ + " unset" : "?");
  }
  // The goroutine an event is about, as it was before the event (created if new).
  GInfo &Get(std::uint64_t g) { return gs_[g]; }
  // The live goroutine g, or nullptr: stable until g ends. Called for nearly every
  // event (report_builder.cc), and a goroutine's events come in runs (it runs, blocks,
  // is unblocked, runs): a direct-mapped cache of recent lookups answers most of them
  // without the hash, its probe and the deque's slot arithmetic (a fifth of the
  // report's time per event in perf, issue 33). An entry is dropped when its goroutine
  // ends (the only erase), so a pointer in it is always live.
  GInfo *Find(std::uint64_t g) {
    Recent &r = recent_[g % kRecent];
    if (r.g == g && r.info) return r.info;
    GInfo *gi = gs_.get(g);
    if (gi) r = {g, gi};
    return gi;
  }
  bool Known(std::uint64_t g) const { return gs_.count(g) != 0; }
  // Applies the event's transition to its goroutine; `gi`: Find(e.g) when the caller
  // has it (one lookup per event), else nullptr.
  void Apply(const Event &e, GInfo *gi = nullptr);
  const std::string &GroupName(std::uint32_t id) const { return names_[id < names_.size() ? id : 0]; }
  const std::string &ReasonName(std::uint32_t id) const { return reasons_[id < reasons_.size() ? id : 0]; }
  // The reason of a wait, interned (0: unknown, before the trace); reason_id: the
  // reason's StackTable::InternString id (Event::str_id).
  std::uint32_t ReasonId(std::string_view reason, std::uint32_t reason_id, std::uint32_t stack);
  // Live goroutines (a flat map: no allocation per goroutine; iterated in slot order).
  const model::FlatMap<std::uint64_t, GInfo> &Live() const { return gs_; }
  std::uint64_t seen() const { return seen_; }

 private:
  std::uint32_t ReasonIdOf(std::string_view reason, std::uint32_t stack);
  // Names a goroutine's group from a stack, once: a GoCreate's new stack (its start
  // function), else the outermost frame of the first stack it shows.
  void Name(GInfo &gi, std::uint32_t stack, bool start_stack);
  std::uint32_t GroupId(const std::string &name);
  static constexpr std::uint32_t kUnset = ~std::uint32_t{0};
  std::vector<std::pair<std::uint32_t, bool>> group_of_func_;  // function id -> group, system
  const StackTable &stacks_;
  ReportOptions::GroupBy group_by_;
  std::string label_key_;  // kLabel
  // kLabel: a "gotraced: labels" log names the goroutine's set from now on.
  void Relabel(GInfo &gi, std::string_view text);
  model::FlatMap<std::uint64_t, GInfo> gs_;
  struct Recent {
    std::uint64_t g = 0;
    GInfo *info = nullptr;
  };
  std::array<Recent, kRecent> recent_{};
  void Erase(std::uint64_t g) {
    if (Recent &r = recent_[g % kRecent]; r.g == g) r = {};
    gs_.erase(g);
  }
  std::vector<std::string> names_;
  std::unordered_map<std::string, std::uint32_t> name_ids_;
  std::vector<std::string> reasons_{"unknown (before the trace)"};
  std::unordered_map<std::string, std::uint32_t> reason_ids_;
  model::FlatMap<std::uint64_t, std::uint32_t> reason_of_;  // reason_id << 32 | stack -> id
  std::uint64_t seen_ = 0;
};

// The reason a goroutine blocked, as people name it: Go's reason string
// (runtime/traceruntime.go traceBlockReasonStrings) with "sync" told apart by the stack
// (sync.(*Mutex).Lock, sync.(*RWMutex).RLock, sync.(*WaitGroup).Wait ...).
std::string BlockClass(std::string_view reason, const std::vector<std::uint32_t> &frames,
                       const StackTable &stacks);

}  // namespace gotraced::report
