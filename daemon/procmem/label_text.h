// The text of a pprof label set in the trace: the message of a "gotraced: labels" log
// (daemon/model/model_labels.cc), "k=v k2=v2" with keys sorted. Written by the daemon
// (LabelText), read back by `gotraced report --by-label` (LabelValue). A key or value that
// is empty or holds a space, '=', '"', '\', a control byte or bytes that are not UTF-8 is
// written quoted, Go-style ("a b", "\xff", "\n"), so the text splits back unambiguously
// and stays valid UTF-8 (JSON). Bounded: at most kMaxLabels labels, keys and values of at
// most kMaxStringBytes, kMaxTextBytes of text (a trace log's message holds 1024:
// tracev2.MaxEventTrailerDataSize); a set over a bound ends with " [cut: N labels]".
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gotraced::procmem {

inline constexpr std::size_t kMaxLabels = 64;
inline constexpr std::size_t kMaxStringBytes = 256;
inline constexpr std::size_t kMaxTextBytes = 1000;

struct LabelSet {
  std::vector<std::pair<std::string, std::string>> labels;  // sorted by key once read
  std::size_t total = 0;  // labels the set holds in the target
  bool cut = false;       // labels left out or a key/value shortened
};

std::string LabelText(LabelSet set);

// The labels of a LabelText, in order (a " [cut: ...]" tail is skipped); false when the
// text is not one (its labels so far are in *out).
bool ParseLabelText(std::string_view text, std::vector<std::pair<std::string, std::string>> *out);

}  // namespace gotraced::procmem
