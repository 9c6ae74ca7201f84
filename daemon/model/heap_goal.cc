#include "daemon/model/heap_goal.h"

#include <algorithm>
#include <charconv>
#include <limits>

namespace gotraced::model {

namespace {

constexpr std::uint64_t kNone = ~std::uint64_t{0};
constexpr std::uint64_t kMiB = 1 << 20;
// mgcpacer.go: defaultHeapMinimum (4 MiB without GOEXPERIMENT=heapminimum512kib),
// memoryLimitMinHeapGoalHeadroom (1.21+) / memoryLimitHeapGoalHeadroom (1.19, 1.20),
// memoryLimitHeapGoalHeadroomPercent (1.21+), heapGoalInternal's minRunway.
constexpr std::uint64_t kDefaultHeapMinimum = 4 * kMiB;
constexpr std::uint64_t kMinHeadroom = kMiB;
constexpr std::uint64_t kHeadroomPercent = 3;
constexpr std::uint64_t kMinRunway = 64 << 10;
constexpr int kFirstHeadroomPercentMinor = 21;
// traceruntime.go HeapGoal: `|| gcController.gcPercent.Load() < 0` is in 1.26 and 1.27,
// not in 1.22 (trace2runtime.go) nor 1.23 (traceruntime.go). 1.24/1.25 sources are not on
// this machine; they are taken to have it (the check came with go.dev/issue/63864's fix).
constexpr int kFirstGcOffCheckMinor = 24;

// mgcpacer.go memoryLimitHeapGoal.
std::uint64_t MemoryLimitHeapGoal(const GcPacerState &s, int go_minor) {
  const std::uint64_t heap_alloc = s.total_alloc - s.total_free;
  const std::uint64_t memory_limit = static_cast<std::uint64_t>(s.memory_limit);
  // The runtime retries until heapFree+heapAlloc <= mappedReady (a torn read of stats
  // updated separately); a snapshot that shows otherwise is clamped instead.
  const std::uint64_t used = s.heap_free + heap_alloc;
  const std::uint64_t non_heap = s.mapped_ready > used ? s.mapped_ready - used : 0;
  const std::uint64_t overage = s.mapped_ready > memory_limit ? s.mapped_ready - memory_limit : 0;
  if (non_heap + overage >= memory_limit) return s.heap_marked;
  std::uint64_t goal = memory_limit - (non_heap + overage);
  std::uint64_t headroom = kMinHeadroom;
  if (go_minor >= kFirstHeadroomPercentMinor) headroom = std::max(goal / 100 * kHeadroomPercent, kMinHeadroom);
  if (goal < headroom || goal - headroom < headroom) {
    goal = headroom;
  } else {
    goal -= headroom;
  }
  return std::max(goal, s.heap_marked);
}

}  // namespace

std::uint64_t HeapGoal(const GcPacerState &s, int go_minor) {
  std::uint64_t goal = s.gc_percent_heap_goal;
  if (const std::uint64_t limit_goal = MemoryLimitHeapGoal(s, go_minor); limit_goal < goal) return limit_goal;
  goal = std::max(goal, s.sweep_dist_min_trigger);
  if (s.triggered != kNone && goal < s.triggered + kMinRunway) goal = s.triggered + kMinRunway;
  return goal;
}

std::uint64_t TraceHeapGoal(const GcPacerState &s, int go_minor) {
  const std::uint64_t goal = HeapGoal(s, go_minor);
  if (goal == kNone || (go_minor >= kFirstGcOffCheckMinor && s.gc_percent < 0)) return 0;
  return goal;
}

GcPacerState PacerAfterGcInit(std::int32_t gc_percent, std::int64_t memory_limit, std::uint64_t globals_scan) {
  GcPacerState s;
  s.gc_percent = gc_percent < 0 ? -1 : gc_percent;
  s.memory_limit = memory_limit;
  // setGCPercent: defaultHeapMinimum * uint64(in) / 100, in = -1 for off (a wrapped
  // product; only used when gcPercent >= 0).
  const std::uint64_t heap_minimum = kDefaultHeapMinimum * static_cast<std::uint64_t>(std::int64_t{s.gc_percent}) / 100;
  if (s.gc_percent >= 0) {
    s.gc_percent_heap_goal =
        std::max(globals_scan * static_cast<std::uint64_t>(s.gc_percent) / 100, heap_minimum);
  } else {
    s.gc_percent_heap_goal = kNone;  // commit: "if gcPercent >= 0" only; ^0 is above any minimum
  }
  return s;
}

std::int32_t ParseGOGC(std::optional<std::string_view> v) {
  if (!v) return 100;
  if (*v == "off") return -1;
  std::int32_t n = 0;
  const char *b = v->data(), *e = v->data() + v->size();
  if (b != e && *b == '+') ++b;  // strconv.ParseInt accepts a sign
  auto [p, ec] = std::from_chars(b, e, n);
  if (b == e || ec != std::errc{} || p != e) return 100;
  return n;
}

std::optional<std::int64_t> ParseGOMEMLIMIT(std::optional<std::string_view> v) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  if (!v || v->empty() || *v == "off") return kMax;
  std::string_view s = *v;
  std::uint64_t mult = 1;
  if (s.back() < '0' || s.back() > '9') {
    if (s.back() != 'B' || s.size() < 2) return std::nullopt;
    s.remove_suffix(1);
    if (s.back() == 'i') {
      if (s.size() < 3) return std::nullopt;
      const std::string_view units = "KMGT";
      const auto k = units.find(s[s.size() - 2]);
      if (k == std::string_view::npos) return std::nullopt;
      for (std::size_t i = 0; i <= k; ++i) mult *= 1024;
      s.remove_suffix(2);
    }
  }
  std::int64_t n = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || n < 0) return std::nullopt;
  const std::uint64_t un = static_cast<std::uint64_t>(n);
  if (un > ~std::uint64_t{0} / mult) return std::nullopt;  // parseByteCount: overflow
  const std::uint64_t bytes = un * mult;
  if (bytes > static_cast<std::uint64_t>(kMax)) return std::nullopt;  // overflow too
  return static_cast<std::int64_t>(bytes);
}

}  // namespace gotraced::model
