// pprof labels on the timeline (issue 34, docs/trace-contents.md): when a goroutine starts
// running (GoStart) with a label set other than the one it last started with, a log on it,
// category "gotraced: labels", text "k=v k2=v2" (keys sorted), at the GoStart's time. Go's
// own tracer does not record labels (golang/go#56295); the pointer comes from the
// casgstatus(_Grunnable, _Grunning) record (record.h kGoStart value), the set from the
// target's memory (LabelSource). The first start of a labelled goroutine in each
// generation is logged again, so a window of generations (the flight recorder) still
// names every labelled goroutine's set.
#include <functional>

#include "daemon/model/model.h"

namespace gotraced::model {

inline constexpr std::string_view kLabelsCategory = "gotraced: labels";

void Model::GoStartLabels(const Record &r, Goid g) {
  if (opt_.labels == nullptr || !r.flag) return;  // no pointer read for this start
  LabelModelState &ls = labels_;
  auto it = ls.last.find(g);
  const std::uint64_t gen = w_.generation();
  if (r.value == 0 && it == ls.last.end()) return;  // never labelled: nothing to say
  if (it != ls.last.end() && it->second.ptr == r.value && it->second.gen == gen) return;
  std::string_view text = r.value ? opt_.labels->Text(r.value) : std::string_view();
  const std::uint64_t hash = std::hash<std::string_view>{}(text);
  if (it != ls.last.end() && it->second.hash == hash && it->second.gen == gen) {
    it->second.ptr = r.value;  // another pointer, the same set
    return;
  }
  if (text.empty() && it == ls.last.end()) return;
  Count(w_.UserLog(r.m, Ts(r.m, r.ts), 0, kLabelsCategory, text, encoder::kNoStack));
  ++ls.logs;
  if (text.empty()) {
    ls.last.erase(g);  // back to no labels: said once, nothing kept
    return;
  }
  ls.last[g] = LabelModelState::Last{r.value, hash, gen};
}

}  // namespace gotraced::model
