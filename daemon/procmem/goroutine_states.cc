#include "daemon/procmem/goroutine_states.h"

#include <time.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "daemon/gobin/runtime_layout.h"
#include "daemon/procmem/label_text.h"
#include "daemon/procmem/mono_clock.h"
#include "daemon/procmem/process_memory.h"

namespace gotraced::procmem {
namespace {

// _Gdeadextra (runtime2.go, Go 1.27): a dead goroutine kept for cgo's extra Ms.
constexpr uint32_t kGdeadExtra = 11;

// Statuses other than the four every message names, by their runtime2.go names.
constexpr std::pair<uint32_t, std::string_view> kOtherStatuses[] = {
    {gobin::kGcopystack, "copystack"}, {gobin::kGpreempted, "preempted"}, {10, "leaked"}};

// The field at `f` of a g whose bytes from `base` on are in `p`.
uint64_t At(const uint8_t *p, int32_t base, const gobin::FieldLoc &f) {
  if (!f.present()) return 0;
  uint64_t v = 0;
  std::memcpy(&v, p + (f.offset - base), size_t(f.size));
  return v;
}

}  // namespace

uint64_t GoroutineStates::live() const {
  uint64_t n = other_status;
  for (uint64_t c : by_status) n += c;
  return n;
}

gobin::Result<GoroutineStates> ReadGoroutineStates(const ProcessMemory &mem, const gobin::RuntimeLayout &l,
                                                   const RuntimeGlobalAddrs &a, const GoroutineStatesOptions &opts) {
  const gobin::GLayout &g = l.g;
  if (!a.allgs || !a.allglen) return gobin::Error{"runtime.allgs/allglen unknown: cannot read goroutine states"};
  const gobin::FieldLoc *need[] = {&g.atomicstatus, &g.goid, &g.waitreason};
  for (const gobin::FieldLoc *f : need)
    if (!f->present() || f->size < 1 || f->size > 8) return gobin::Error{"g.atomicstatus/goid/waitreason unknown"};
  const bool since = g.waitsince.present() && g.waitsince.size == 8;
  const bool labels = opts.labels && g.labels.present() && g.labels.size == 8;
  // The bytes of a g that hold the four fields (and g.labels), one window per g: a wider
  // window costs less than a second read per g (process_vm_readv's cost is per range:
  // 10,000 goroutines took 2-10 ms more with an 8-byte read of g.labels of their own).
  int32_t lo = g.atomicstatus.offset, hi = 0;
  for (const gobin::FieldLoc *f : {&g.atomicstatus, &g.goid, &g.waitreason, &g.waitsince, &g.labels}) {
    if (f == &g.waitsince && !since) continue;
    if (f == &g.labels && !labels) continue;
    lo = std::min(lo, f->offset);
    hi = std::max(hi, f->offset + f->size);
  }
  const auto each = static_cast<std::size_t>(hi - lo);

  GoroutineStates s;
  s.begin_ts_ns = MonoNowNs();
  uint64_t allglen = 0, allgs_ptr = 0;
  if (!mem.ReadValue(a.allglen, &allglen)) return gobin::Error{"reading runtime.allglen: " + mem.last_error()};
  if (!mem.ReadValue(a.allgs, &allgs_ptr)) return gobin::Error{"reading runtime.allgs: " + mem.last_error()};
  if (allglen > opts.max_goroutines) return gobin::Error{fmt::format("runtime.allglen is implausible: {}", allglen)};
  s.allglen = allglen;
  std::vector<uint64_t> gptrs(allglen);
  if (allglen && !mem.Read(allgs_ptr, gptrs.data(), allglen * 8))
    return gobin::Error{"reading allgs[]: " + mem.last_error()};
  for (uint64_t &p : gptrs) p += static_cast<uint64_t>(lo);
  std::vector<uint8_t> bytes(allglen * each);
  std::vector<uint8_t> ok(allglen);
  mem.ReadEach(gptrs.data(), gptrs.size(), each, bytes.data(), ok.data());

  std::vector<std::pair<uint64_t, uint32_t>> labelled;  // (g.labels != 0, slot of its status)
  std::vector<GoroutineStates::Wait> waits;
  for (std::size_t i = 0; i < allglen; ++i) {
    if (!ok[i]) {
      ++s.unreadable;
      continue;
    }
    const uint8_t *p = bytes.data() + i * each;
    const uint32_t st = uint32_t(At(p, lo, g.atomicstatus)) & ~gobin::kGscan;
    if (st == gobin::kGidle || st == gobin::kGdead || st == kGdeadExtra) continue;
    if (opts.live_goids) opts.live_goids->push_back(At(p, lo, g.goid));
    if (st >= s.by_status.size()) {
      ++s.other_status;
      continue;
    }
    ++s.by_status[st];
    if (labels && (st == gobin::kGrunning || st == gobin::kGrunnable || st == gobin::kGsyscall || st == gobin::kGwaiting)) {
      const uint64_t set = At(p, lo, g.labels);
      const uint32_t slot = st == gobin::kGrunning ? 0 : st == gobin::kGrunnable ? 1 : st == gobin::kGsyscall ? 2 : 3;
      if (set != 0) labelled.emplace_back(set, slot);
    }
    const auto reason = static_cast<uint8_t>(At(p, lo, g.waitreason));
    if (st == gobin::kGwaiting) ++s.waiting_by_reason[reason];
    if (since && (st == gobin::kGwaiting || st == gobin::kGsyscall)) {
      const uint64_t t = At(p, lo, g.waitsince);
      if (t != 0 && t < s.begin_ts_ns) waits.push_back({At(p, lo, g.goid), st, reason, t});
    }
  }
  std::sort(labelled.begin(), labelled.end());
  for (const auto &[ptr, slot] : labelled) {
    if (s.by_labels.empty() || s.by_labels.back().first != ptr) s.by_labels.push_back({ptr, {}});
    ++s.by_labels.back().second[slot];
  }
  const std::size_t keep = std::min(opts.longest, waits.size());
  std::partial_sort(waits.begin(), waits.begin() + static_cast<std::ptrdiff_t>(keep), waits.end(),
                    [](const auto &x, const auto &y) { return x.since_ns < y.since_ns || (x.since_ns == y.since_ns && x.goid < y.goid); });
  waits.resize(keep);
  s.longest = std::move(waits);
  s.end_ts_ns = MonoNowNs();
  return s;
}

std::string GoroutineStatesMessage(const GoroutineStates &s, const gobin::RuntimeLayout &l) {
  auto reason_name = [&l](uint32_t w) -> std::string {
    const std::string_view name = l.WaitReasonString(w);
    return name.empty() ? fmt::format("waitreason {}", w) : std::string(name);
  };
  std::string out = fmt::format("{} goroutines: running {}, runnable {}, syscall {}, waiting {}", s.live(),
                                s.by_status[gobin::kGrunning], s.by_status[gobin::kGrunnable],
                                s.by_status[gobin::kGsyscall], s.by_status[gobin::kGwaiting]);
  std::vector<std::pair<uint64_t, uint32_t>> reasons;  // (count, waitreason)
  for (uint32_t w = 0; w < s.waiting_by_reason.size(); ++w)
    if (s.waiting_by_reason[w]) reasons.emplace_back(s.waiting_by_reason[w], w);
  std::sort(reasons.begin(), reasons.end(),
            [](const auto &x, const auto &y) { return x.first > y.first || (x.first == y.first && x.second < y.second); });
  for (std::size_t i = 0; i < reasons.size(); ++i)
    out += fmt::format("{}{} {}", i == 0 ? " (" : ", ", reason_name(reasons[i].second), reasons[i].first);
  if (!reasons.empty()) out += ")";
  for (const auto &[st, name] : kOtherStatuses)
    if (s.by_status[st]) out += fmt::format(", {} {}", name, s.by_status[st]);
  if (s.other_status) out += fmt::format(", other {}", s.other_status);
  if (s.unreadable) out += fmt::format("; {} of {} unreadable", s.unreadable, s.allglen);
  for (std::size_t i = 0; i < s.longest.size(); ++i) {
    const GoroutineStates::Wait &w = s.longest[i];
    const std::string what = w.status == gobin::kGsyscall ? "syscall" : reason_name(w.waitreason);
    out += fmt::format("{}G{} {} >= {:.1f} s", i == 0 ? "; longest waits (since a GC saw them): " : ", ", w.goid,
                       what, double(s.begin_ts_ns - w.since_ns) / 1e9);
  }
  return out;
}

std::string GoroutineLabelsMessage(const GoroutineStates &s, const std::function<std::string_view(uint64_t)> &text,
                                   std::size_t max_sets) {
  auto total = [](const std::array<uint64_t, 4> &c) { return c[0] + c[1] + c[2] + c[3]; };
  // The pointers that hold the most goroutines are read, at most kMaxReads of them: each
  // is a few reads of the target, and a sample's cost is bounded (state_sampler.h).
  constexpr std::size_t kMaxReads = 256;
  std::vector<std::size_t> order(s.by_labels.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return total(s.by_labels[a].second) > total(s.by_labels[b].second); });
  // By label value ("route=/a"), as issue 34 asks: a goroutine counts once under each of
  // its labels, so a set's other labels (a request id, a shard) do not split a route's count.
  std::map<std::string, std::array<uint64_t, 4>, std::less<>> by_text;
  std::vector<std::pair<std::string, std::string>> pairs;
  uint64_t not_read = 0;
  for (std::size_t n = 0; n < order.size(); ++n) {
    const auto &[ptr, counts] = s.by_labels[order[n]];
    if (n >= kMaxReads) {
      not_read += total(counts);
      continue;
    }
    const std::string_view t = text(ptr);
    if (t.empty()) continue;
    ParseLabelText(t, &pairs);  // a cut set: the labels before its tail
    for (auto &kv : pairs) {
      LabelSet one;
      one.labels.push_back(std::move(kv));
      one.total = 1;
      auto [it, added] = by_text.try_emplace(LabelText(std::move(one)));
      for (std::size_t k = 0; k < 4; ++k) it->second[k] += counts[k];
    }
  }
  if (by_text.empty()) return "";
  std::vector<std::pair<std::string, std::array<uint64_t, 4>>> sets(by_text.begin(), by_text.end());
  std::sort(sets.begin(), sets.end(), [&](const auto &x, const auto &y) {
    return total(x.second) > total(y.second) || (total(x.second) == total(y.second) && x.first < y.first);
  });
  static constexpr std::string_view kNames[4] = {"running", "runnable", "syscall", "waiting"};
  std::string out = "; labels";
  for (std::size_t i = 0; i < sets.size() && i < max_sets; ++i) {
    out += fmt::format("{} [{}]", i == 0 ? "" : ",", sets[i].first);
    for (std::size_t k = 0; k < 4; ++k)
      if (sets[i].second[k]) out += fmt::format(" {} {}", kNames[k], sets[i].second[k]);
  }
  if (sets.size() > max_sets) out += fmt::format(", +{} more labels", sets.size() - max_sets);
  if (not_read) out += fmt::format(", +{} goroutines in sets not read", not_read);
  return out;
}

}  // namespace gotraced::procmem
