#include "daemon/capture/verifier_stats.h"

#include <algorithm>
#include <charconv>
#include <numeric>

namespace gotraced::capture {
namespace {

// Reads an unsigned decimal at the start of `s`, advancing it.
bool TakeNumber(std::string_view &s, uint64_t *out) {
  uint64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end == s.data()) return false;
  s.remove_prefix(size_t(end - s.data()));
  *out = v;
  return true;
}

bool TakePrefix(std::string_view &s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

// "KEY N" anywhere in `line` -> N.
bool FieldAfter(std::string_view line, std::string_view key, uint64_t *out) {
  size_t at = line.find(key);
  if (at == std::string_view::npos) return false;
  std::string_view rest = line.substr(at + key.size());
  return TakeNumber(rest, out);
}

void ParseLine(std::string_view line, VerifierStats &st) {
  // The verifier prints its lines whole, but a rotated (6.4+) or truncated log may cut
  // the first one: a line is recognised where it starts, never by a fragment.
  std::string_view s = line;
  uint64_t n = 0;
  if (TakePrefix(s, "processed ") && TakeNumber(s, &n) && TakePrefix(s, " insns")) {
    st.processed_insns = n;
    uint64_t v = 0;
    st.insn_limit = FieldAfter(s, "(limit ", &v) ? v : 0;
    st.max_states_per_insn = FieldAfter(s, "max_states_per_insn ", &v) ? v : 0;
    st.total_states = FieldAfter(s, "total_states ", &v) ? v : 0;
    st.peak_states = FieldAfter(s, "peak_states ", &v) ? v : 0;
    st.mark_read = FieldAfter(s, "mark_read ", &v) ? v : 0;
    return;
  }
  s = line;
  if (TakePrefix(s, "stack depth ")) {
    std::vector<uint32_t> depths;
    while (TakeNumber(s, &n)) {
      depths.push_back(uint32_t(n));
      if (!TakePrefix(s, "+")) break;
    }
    if (!depths.empty()) st.subprog_depths = std::move(depths);
    return;
  }
  s = line;
  if (TakePrefix(s, "verification time ") && TakeNumber(s, &n) && TakePrefix(s, " usec")) {
    st.verification_usec = n;
    return;
  }
  s = line;
  uint64_t calls = 0;
  if (TakePrefix(s, "combined stack size of ") && TakeNumber(s, &calls) && TakePrefix(s, " calls is ") &&
      TakeNumber(s, &n)) {
    st.too_large_combined = uint32_t(n);
    st.too_large_calls = uint32_t(calls);
  }
}

}  // namespace

uint32_t VerifierStats::MaxSubprogDepth() const {
  return subprog_depths.empty() ? 0 : *std::max_element(subprog_depths.begin(), subprog_depths.end());
}

uint32_t VerifierStats::SumOfDepths() const {
  return std::accumulate(subprog_depths.begin(), subprog_depths.end(), uint32_t{0});
}

double VerifierStats::PercentOfLimit() const {
  if (!processed_insns) return 0;
  const uint64_t limit = insn_limit ? insn_limit : kVerifierInsnLimit;
  return 100.0 * double(*processed_insns) / double(limit);
}

VerifierStats ParseVerifierStats(std::string_view log) {
  VerifierStats st;
  while (!log.empty()) {
    size_t nl = log.find('\n');
    std::string_view line = log.substr(0, nl);
    log = nl == std::string_view::npos ? std::string_view{} : log.substr(nl + 1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\0')) line.remove_suffix(1);
    if (!line.empty()) ParseLine(line, st);
  }
  return st;
}

}  // namespace gotraced::capture
