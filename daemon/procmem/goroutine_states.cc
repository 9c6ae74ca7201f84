#include "daemon/procmem/goroutine_states.h"

#include <time.h>

#include <algorithm>
#include <cstring>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "daemon/gobin/runtime_layout.h"
#include "daemon/procmem/process_memory.h"
#include "daemon/procmem/mono_clock.h"

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
  // The bytes of a g that hold the four fields, one window per g.
  int32_t lo = g.atomicstatus.offset, hi = 0;
  for (const gobin::FieldLoc *f : {&g.atomicstatus, &g.goid, &g.waitreason, &g.waitsince}) {
    if (f == &g.waitsince && !since) continue;
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

  std::vector<GoroutineStates::Wait> waits;
  for (std::size_t i = 0; i < allglen; ++i) {
    if (!ok[i]) {
      ++s.unreadable;
      continue;
    }
    const uint8_t *p = bytes.data() + i * each;
    const uint32_t st = uint32_t(At(p, lo, g.atomicstatus)) & ~gobin::kGscan;
    if (st == gobin::kGidle || st == gobin::kGdead || st == kGdeadExtra) continue;
    if (st >= s.by_status.size()) {
      ++s.other_status;
      continue;
    }
    ++s.by_status[st];
    const auto reason = static_cast<uint8_t>(At(p, lo, g.waitreason));
    if (st == gobin::kGwaiting) ++s.waiting_by_reason[reason];
    if (since && (st == gobin::kGwaiting || st == gobin::kGsyscall)) {
      const uint64_t t = At(p, lo, g.waitsince);
      if (t != 0 && t < s.begin_ts_ns) waits.push_back({At(p, lo, g.goid), st, reason, t});
    }
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

}  // namespace gotraced::procmem
