// User annotations: runtime/trace's tasks, regions and logs, written as the runtime's
// trace_userTaskCreate / trace_userTaskEnd / trace_userRegion / trace_userLog do
// (runtime/traceruntime.go, 1.23-1.27; trace2runtime.go in 1.22): each one is an event of
// the running goroutine, `tl.eventWriter(tracev2.GoRunning, tracev2.ProcRunning)`, with
// the task id, strings and a stack. The reader's rules (internal/trace/order.go
// advanceUserTaskBegin/End, advanceUserRegionBegin/End, userGoReqs = M, P and G) are
// mirrored in UserModelState so the output always parses.
#include <fmt/format.h>

#include "daemon/model/model.h"

namespace gotraced::model {

using encoder::GoStatus;

namespace {
bool ValidG(Goid g) { return g != kNoG && g != kUnknownG; }
}  // namespace

void Model::OnUser(const Record &r) {
  UserModelState &us = user_;
  const Goid g = r.g == kUnknownG ? st_.M(r.m).g : r.g;
  // An annotation never moves the scheduling state: if the model has this goroutine
  // somewhere else than running on this M, the record is dropped rather than repaired
  // (a known goroutine; an unknown one is introduced as for any other record).
  const GoState *gs = ValidG(g) ? st_.G(g) : nullptr;
  bool ok = ValidG(g) && (gs == nullptr || (gs->status == GoStatus::kRunning && gs->m == r.m));
  ok = ok && EnsureProc(r, kNoP) && EnsureRunning(r, g);
  if (!ok) {
    ++us.dropped;
    ++stats_.records_discarded;
    return;
  }
  const std::uint64_t ts = Ts(r.m, r.ts);
  auto stack = [&] { return stacks_.Build(r.stack, r.stack_skip, g == 1); };
  auto count = [&](encoder::EmitStatus s) {
    Count(s);
    if (s == encoder::EmitStatus::kOk) ++us.events;
  };
  switch (r.kind) {
    case RecordKind::kUserTaskBegin:
      if (!us.active_tasks.insert(r.value).second) {
        ++us.dropped;  // order.go: "task ID conflict"
        ++stats_.records_discarded;
        return;
      }
      count(w_.UserTaskBegin(r.m, ts, r.value, r.value2, r.text.view(), stack()));
      return;
    case RecordKind::kUserTaskEnd:
      us.active_tasks.erase(r.value);
      count(w_.UserTaskEnd(r.m, ts, r.value, stack()));
      return;
    case RecordKind::kUserRegionBegin:
      us.regions[g].emplace_back(r.value, r.text);
      count(w_.UserRegionBegin(r.m, ts, r.value, r.text.view(), stack()));
      return;
    case RecordKind::kUserRegionEnd: {
      auto it = us.regions.find(g);
      if (it == us.regions.end() || it->second.empty()) {
        // order.go endRegion: a region begun before the trace may end in it.
        count(w_.UserRegionEnd(r.m, ts, r.value, r.text.view(), stack()));
        return;
      }
      auto &open = it->second;
      std::size_t k = open.size();
      while (k > 0 && !(open[k - 1].first == r.value && open[k - 1].second == r.text)) --k;
      if (k == 0) {
        ++us.dropped;  // ends nothing open: writing it would be "misuse of region"
        ++stats_.records_discarded;
        return;
      }
      // Inner regions still open lost their end (a lost record): close them here.
      while (open.size() > k) {
        Repair(r, fmt::format("region {:?} of goroutine {} closed by its enclosing region's end", open.back().second, g));
        ++us.repaired;
        ++stats_.repair_events;
        count(w_.UserRegionEnd(r.m, ts, open.back().first, open.back().second, encoder::kNoStack));
        open.pop_back();
      }
      open.pop_back();
      if (open.empty()) us.regions.erase(it);
      count(w_.UserRegionEnd(r.m, ts, r.value, r.text.view(), stack()));
      return;
    }
    case RecordKind::kUserLog:
      count(w_.UserLog(r.m, ts, r.value, r.text.view(), r.text2.view(), stack()));
      return;
    default:
      return;
  }
}

}  // namespace gotraced::model
