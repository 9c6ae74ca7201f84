// pprof labels on the timeline (issue 34, docs/trace-contents.md): when a goroutine starts
// running (GoStart), blocks (GoBlock) or stops (GoStop) with a label set other than the
// one it was last seen with, a log on it, category "gotraced: labels", text "k=v k2=v2"
// (keys sorted), at that instant (before the block or stop: the goroutine still runs).
// The ends of a running interval matter as much as its start: pprof.Do sets a request's
// labels while the goroutine runs, and a handler's first block is the first time the set
// is seen. Go's own tracer does not record labels (golang/go#56295); the pointer comes
// from the casgstatus record (record.h kGoStart/kGoBlock/kGoStop value with flag), the
// set from the target's memory (LabelSource). The first start of a labelled goroutine in each
// generation is logged again, so a window of generations (the flight recorder) still
// names every labelled goroutine's set.
#include <functional>

#include "daemon/model/model.h"

namespace gotraced::model {

inline constexpr std::string_view kLabelsCategory = "gotraced: labels";

using encoder::GoStatus;

void Model::RunningLabels(const Record &r, Goid g) {
  if (opt_.labels == nullptr || !r.flag) return;  // no pointer read for this start
  LabelModelState &ls = labels_;
  auto it = ls.last.find(g);
  const std::uint64_t gen = w_.generation();
  if (r.value == 0 && it == ls.last.end()) return;  // never labelled: nothing to say
  if (it != ls.last.end() && it->second.ptr == r.value && it->second.gen == gen) return;
  std::string_view text;
  if (r.value != 0) {
    // value2: the fingerprint of the words BPF copied with the pointer (record_decoder.cc).
    const std::optional<std::string_view> t = opt_.labels->Text(r.value, r.value2);
    if (!t) {
      ++ls.unknown;  // unreadable, or freed and reused since the record: nothing said
      return;
    }
    text = *t;
  }
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

// A set read where no goroutine transition happens (a syscall's entry, a CPU sample): said on the
// goroutine this M runs, when the model has it running here; else nothing (a start or
// block of its own names it soon).
void Model::OnGoLabels(const Record &r) {
  if (opt_.labels == nullptr) return;
  const Goid g = r.g == kUnknownG ? st_.M(r.m).g : r.g;
  const GoState *gs = g != kNoG && g != kUnknownG ? st_.G(g) : nullptr;
  if (gs == nullptr || gs->status != GoStatus::kRunning || gs->m != r.m) {
    // A CPU sample's set (target_g: the goroutine the sample found) may catch its
    // goroutine where the model does not have it running on that M: in a syscall, or
    // between the records of a switch. Not a fault: the set is named at the goroutine's
    // next start, block or syscall. A syscall entry's set (target_g kNoG) must find it.
    if (r.target_g == kNoG) ++stats_.records_discarded;
    return;
  }
  RunningLabels(r, g);
}

}  // namespace gotraced::model
