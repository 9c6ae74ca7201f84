// The go1.22+ format, a generation at a time (trace_reader.h). A generation's batches
// are read into one buffer (event batches kept as bytes, decoded lazily), its tables
// decoded by encoder/trace_decoder.h; then its events are merged across the Ms by time,
// as x/exp/trace orders them when no sequence number says otherwise
// (internal/trace/order.go orders by timestamps first, seq numbers resolve the ties and
// the skew between CPUs: here a goroutine seen out of its order costs a latency figure
// of 0, never a failure). Per M, the goroutine it runs follows the scheduling events
// (internal/trace/tracev2/events.go: which event names which G).
#include <fmt/format.h>

#include <algorithm>
#include <queue>
#include <unordered_map>
#include <vector>

#include "encoder/byte_buffer.h"
#include "encoder/section_buffer.h"
#include "encoder/trace_decoder.h"
#include "encoder/trace_header.h"
#include "report/trace_reader.h"

namespace gotraced::report {
namespace {

using encoder::DecodedEvent;
using encoder::EventType;

GState StatusOf(std::uint64_t s) {
  switch (static_cast<encoder::GoStatus>(s)) {
    case encoder::GoStatus::kRunnable:
      return GState::kRunnable;
    case encoder::GoStatus::kRunning:
      return GState::kRunning;
    case encoder::GoStatus::kSyscall:
      return GState::kSyscall;
    case encoder::GoStatus::kWaiting:
      return GState::kWaiting;
    default:
      return GState::kUndetermined;
  }
}

class V2Reader {
 public:
  V2Reader(std::istream &in, StackTable &stacks, EventSink &sink) : in_(*in.rdbuf()), stacks_(stacks), sink_(sink) {}
  ReadResult Run();

 private:
  struct EventBatch {
    std::uint64_t m, base;
    std::size_t off, len;
  };
  struct Cursor {
    std::span<const std::uint8_t> rest;
    std::uint64_t t;
    DecodedEvent e;
    std::size_t batch;
    std::uint64_t *running;  // running_[the batch's M] (node-based map: stable)
  };

  bool Varint(std::uint64_t &v);
  bool ReadBatch(std::uint64_t &gen);
  bool SkipExperimental();
  bool Read(std::uint8_t *dst, std::size_t n) {
    return in_.sgetn(reinterpret_cast<char *>(dst), static_cast<std::streamsize>(n)) ==
           static_cast<std::streamsize>(n);
  }
  void EndGeneration();
  void IndexTables();
  bool DecodeNext(Cursor &c);
  void Translate(const DecodedEvent &e, std::uint64_t m, std::uint64_t &cur);
  std::uint32_t Stack(std::uint64_t id);
  std::uint32_t StackSlow(std::uint64_t id);
  std::string_view Str(std::uint64_t id) {
    if (id < strs_.size()) return strs_[id];
    auto it = tables_.strings.find(id);
    return it == tables_.strings.end() ? std::string_view() : std::string_view(it->second);
  }
  // The string's id in the StackTable (Event::str_id), interned once per id and generation.
  std::uint32_t StrId(std::uint64_t id) {
    if (id < str_ids_.size() && str_ids_[id] != kUnset) return str_ids_[id];
    const std::uint32_t s = stacks_.InternString(Str(id));
    if (id < str_ids_.size()) str_ids_[id] = s;
    return s;
  }
  std::uint64_t Ns(std::uint64_t ticks) const {
    // The runtime's tick is a whole number of ns on Linux (runtime/tracetime.go:
    // traceTimeDiv = 64), so the product is exact in integers; the same as the double's
    // while it stays below 2^53 ns (104 days of uptime). The unsigned<->double
    // conversions were a tenth of the merge loop's time (perf annotate, issue 33).
    if (ticks < exact_ticks_) return ticks * tick_ns_;
    return static_cast<std::uint64_t>(static_cast<double>(ticks) * ns_per_tick_);
  }
  void Emit(Event &ev);
  bool Fail(std::string msg) {
    if (res_.error.empty()) res_.error = std::move(msg);
    return false;
  }

  static constexpr std::uint32_t kUnset = ~std::uint32_t{0};
  std::streambuf &in_;  // read through its buffer: no istream sentry per byte
  StackTable &stacks_;
  EventSink &sink_;
  ReadResult res_;
  encoder::Version version_ = encoder::Version::kGo126;
  // The generation being read.
  std::uint64_t gen_ = 0;
  // Its event batches' data: grown by realloc (glibc moves a big block's pages with
  // mremap, no copy) and never zero-filled (a vector's resize zeroed every byte before the
  // read overwrote it: with the copies of its growth, 40% of the demo file's page faults).
  encoder::ByteBuffer bytes_;
  std::vector<EventBatch> batches_;
  encoder::DecodedGeneration tables_;
  std::unordered_map<std::uint64_t, std::uint32_t> stack_ids_;  // this generation's -> StackTable's
  // The generation's tables indexed by their dense ids (the runtime numbers strings and
  // stacks from 1 in each generation: runtime/tracestring.go, tracestack.go), built once
  // per generation so an event's lookup is an array index: ids past the bound (a
  // malformed or foreign file) fall back to the maps.
  std::vector<std::string_view> strs_;
  std::vector<std::uint32_t> str_ids_, stack_cache_;  // kUnset: not looked up yet
  double ns_per_tick_ = 1.0;
  std::uint64_t tick_ns_ = 1;      // ns_per_tick_ when it is a whole number
  std::uint64_t exact_ticks_ = 0;  // 2^53 / tick_ns_, 0 if it is not one (no division per event)
  std::vector<std::uint8_t> scratch_;
  // Across generations.
  std::unordered_map<std::uint64_t, std::uint64_t> running_;  // M -> the goroutine it runs (0: none)
  bool have_t0_ = false;
  std::uint64_t t0_ = 0, last_ns_ = 0;
};

bool V2Reader::Varint(std::uint64_t &v) {
  v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    const int c = in_.sbumpc();
    if (c == std::char_traits<char>::eof()) return false;
    v |= static_cast<std::uint64_t>(c & 0x7f) << shift;
    if (!(c & 0x80)) return true;
  }
  return false;
}

// One EventBatch after its type byte: its header, then its data into the generation.
// `gen` gets the batch's generation; a batch of a new generation ends the one before.
bool V2Reader::ReadBatch(std::uint64_t &gen) {
  std::uint64_t m, base, len;
  if (!Varint(gen) || !Varint(m) || !Varint(base) || !Varint(len)) return Fail("truncated batch header");
  if (len > encoder::kMaxBatchData)
    return Fail(fmt::format("batch length {} > {}", len, encoder::kMaxBatchData));
  if (gen == 0) return Fail("generation number 0");
  if (gen_ != 0 && gen != gen_) EndGeneration();
  gen_ = gen;
  // Read straight to the end of the generation's bytes; kept there if it is an event batch.
  const std::size_t off = bytes_.size();
  bytes_.Reserve(len);
  if (!Read(bytes_.cursor(), len)) return Fail("truncated batch data");
  bytes_.CommitTo(bytes_.cursor() + len);
  encoder::DecodedBatch b;
  b.m = m;
  b.base_time = base;
  if (std::string err = encoder::DecodeBatchData(version_, bytes_.span(off, len),
                                                 b, tables_, /*keep_events=*/false);
      !err.empty())
    return Fail(fmt::format("generation {}: {}", gen, err));
  if (b.kind == encoder::BatchKind::kEvents && len > 0)
    batches_.push_back({m, base, off, len});
  else
    bytes_.Truncate(off);
  return true;
}

// ExperimentalBatch (tracev2 spec: exp, gen, m, time, then length-prefixed data): events
// of a GOEXPERIMENT, which Go's parser hands out uninterpreted. Skipped.
bool V2Reader::SkipExperimental() {
  std::uint64_t exp, gen, m, t, len;
  if (!Varint(exp) || !Varint(gen) || !Varint(m) || !Varint(t) || !Varint(len))
    return Fail("truncated experimental batch");
  while (len > 0) {
    const std::size_t n = std::min<std::uint64_t>(len, 1 << 16);
    scratch_.resize(n);
    if (!Read(scratch_.data(), n)) return Fail("truncated experimental batch");
    len -= n;
  }
  return true;
}

// The generation's tables as arrays (strs_, str_ids_, stack_cache_) and its tick length.
void V2Reader::IndexTables() {
  ns_per_tick_ = tables_.frequency ? 1e9 / static_cast<double>(tables_.frequency) : 1.0;
  const bool whole = ns_per_tick_ >= 1 && ns_per_tick_ < 1e6 &&
                     ns_per_tick_ == static_cast<double>(static_cast<std::uint64_t>(ns_per_tick_));
  tick_ns_ = whole ? static_cast<std::uint64_t>(ns_per_tick_) : 1;
  exact_ticks_ = whole ? (std::uint64_t{1} << 53) / tick_ns_ : 0;
  auto bound = [](std::size_t n) { return 2 * n + 1024; };  // dense ids, with slack
  strs_.clear();
  for (const auto &[id, s] : tables_.strings) {
    if (id >= bound(tables_.strings.size())) break;
    if (id >= strs_.size()) strs_.resize(id + 1);
    strs_[id] = s;
  }
  str_ids_.assign(strs_.size(), kUnset);
  std::size_t nstacks = 0;
  for (const auto &[id, f] : tables_.stacks)
    if (id < bound(tables_.stacks.size())) nstacks = id + 1;
  stack_cache_.assign(nstacks, kUnset);
}

std::uint32_t V2Reader::Stack(std::uint64_t id) {
  if (id < stack_cache_.size()) {
    std::uint32_t &s = stack_cache_[id];
    if (s == kUnset) s = StackSlow(id);
    return s;
  }
  return StackSlow(id);
}

std::uint32_t V2Reader::StackSlow(std::uint64_t id) {
  if (id == 0) return 0;
  if (auto it = stack_ids_.find(id); it != stack_ids_.end()) return it->second;
  // Frames by their functions' string ids, interned once per string and generation: a
  // generation's stacks repeat the same few hundred function names.
  std::vector<std::uint32_t> funcs;
  if (auto it = tables_.stacks.find(id); it != tables_.stacks.end())
    for (const auto &f : it->second) funcs.push_back(StrId(f.func));
  const std::uint32_t s = stacks_.InternFrames(std::move(funcs));
  stack_ids_.emplace(id, s);
  return s;
}

void V2Reader::Emit(Event &ev) {
  ++res_.events;
  sink_.On(ev);
}

[[gnu::always_inline]] inline bool V2Reader::DecodeNext(Cursor &c) {
  if (encoder::TryDecodeNextEvent(version_, c.rest, c.t, c.e)) return true;
  if (std::string err = encoder::DecodeNextEvent(version_, c.rest, c.t, c.e); !err.empty())
    return Fail(fmt::format("generation {}: {}", gen_, err));
  return true;
}

// The generation's events in time order across Ms, then its CPU samples. A heap of
// (time, batch) picks the next batch to read from; each batch decodes one event ahead.
void V2Reader::EndGeneration() {
  ++res_.generations;
  IndexTables();
  res_.max_generation_bytes = std::max<std::uint64_t>(res_.max_generation_bytes, bytes_.size());
  std::vector<Cursor> cursors(batches_.size());
  using Head = std::pair<std::uint64_t, std::size_t>;  // next event's time, batch
  std::priority_queue<Head, std::vector<Head>, std::greater<>> heap;
  auto advance = [&](std::size_t i) {
    Cursor &c = cursors[i];
    if (c.rest.empty() || !DecodeNext(c)) return;
    heap.emplace(c.e.time, i);
  };
  for (std::size_t i = 0; i < batches_.size(); ++i) {
    const EventBatch &b = batches_[i];
    cursors[i] =
        Cursor{bytes_.span(b.off, b.len), b.base, {}, i, &running_[b.m]};
    advance(i);
  }
  while (!heap.empty() && res_.error.empty()) {
    const std::size_t i = heap.top().second;
    heap.pop();
    // A batch's events come in runs before another batch's next one: stay on this batch
    // while its next event is still the earliest, without a heap push and pop per event.
    Cursor &c = cursors[i];
    for (;;) {
      Translate(c.e, batches_[i].m, *c.running);
      if (c.rest.empty() || !DecodeNext(c)) break;
      if (!heap.empty() && Head{c.e.time, i} > heap.top()) {
        heap.emplace(c.e.time, i);
        break;
      }
    }
  }
  for (const DecodedEvent &s : tables_.cpu_samples) {  // [time, m, p, g, stack]
    Event ev{.kind = Kind::kCPUSample, .ns = 0, .g = s.args[2], .m = s.args[0], .stack = Stack(s.args[3])};
    const std::uint64_t ns = Ns(s.time);
    ev.ns = have_t0_ && ns > t0_ ? ns - t0_ : 0;
    ++res_.cpu_samples;
    Emit(ev);
  }
  bytes_.Clear();
  batches_.clear();
  stack_ids_.clear();
  strs_.clear();
  str_ids_.clear();
  stack_cache_.clear();
  tables_ = {};
  gen_ = 0;
}

ReadResult V2Reader::Run() {
  std::array<std::uint8_t, encoder::kHeaderLen> head{};
  const bool whole = Read(head.data(), head.size());
  auto v = encoder::ParseHeader(head);
  if (!whole || !v) {
    res_.error = "not a Go execution trace of a version this reader knows (go1.19 ... go1.26)";
    return res_;
  }
  version_ = *v;
  res_.version = fmt::format("go1.{}", static_cast<int>(version_));
  for (;;) {
    const int b = in_.sbumpc();
    if (b == std::char_traits<char>::eof()) break;
    std::uint64_t gen = 0;
    if (b == static_cast<int>(EventType::kEndOfGeneration) && version_ >= encoder::Version::kGo126) {
      if (gen_ != 0) EndGeneration();
    } else if (b == static_cast<int>(EventType::kEventBatch)) {
      if (!ReadBatch(gen)) break;
    } else if (b == static_cast<int>(EventType::kExperimentalBatch)) {
      if (!SkipExperimental()) break;
    } else {
      Fail(fmt::format("expected a batch, got byte {}", b));
      break;
    }
    if (!res_.error.empty()) break;
  }
  if (gen_ != 0 && res_.error.empty()) EndGeneration();
  res_.duration_ns = last_ns_;
  return res_;
}

// One event in the neutral terms (trace_event.h), with the goroutine its M runs.
void V2Reader::Translate(const DecodedEvent &e, std::uint64_t m, std::uint64_t &cur) {
  const std::uint64_t abs = Ns(e.time);
  if (!have_t0_) t0_ = abs, have_t0_ = true;
  Event ev;  // zeroed by stores, not `rep stos` (report/CMakeLists.txt)
  ev.ns = abs > t0_ ? abs - t0_ : 0;
  last_ns_ = std::max(last_ns_, ev.ns);
  ev.m = m;
  ev.g = cur;
  auto a = [&](int i) { return e.arg(i); };
  switch (e.type) {
    case EventType::kGoStatus:
    case EventType::kGoStatusStack:  // [g, m, status(, stack)]
      ev.kind = Kind::kGoStatus;
      ev.g = a(0);
      ev.status = StatusOf(a(2));
      if (e.type == EventType::kGoStatusStack) ev.stack = Stack(a(3));
      if ((ev.status == GState::kRunning || ev.status == GState::kSyscall) && a(1) != encoder::kNoThread)
        running_[a(1)] = a(0);
      break;
    case EventType::kGoCreate:
    case EventType::kGoCreateBlocked:  // [new g, new stack, stack]
      ev.kind = e.type == EventType::kGoCreate ? Kind::kGoCreate : Kind::kGoCreateBlocked;
      ev.from = cur;
      ev.g = a(0);
      ev.stack = Stack(a(1));
      break;
    case EventType::kGoCreateSyscall:  // a C thread's goroutine, born in a syscall
      ev.kind = Kind::kGoStatus;
      ev.g = cur = a(0);
      ev.status = GState::kSyscall;
      break;
    case EventType::kGoStart:
      ev.kind = Kind::kGoStart;
      ev.g = cur = a(0);
      break;
    case EventType::kGoSwitch:
    case EventType::kGoSwitchDestroy:  // the running goroutine waits (or ends), g runs: a coroutine switch
      if (cur) {
        ev.kind = e.type == EventType::kGoSwitch ? Kind::kGoBlock : Kind::kGoEnd;
        ev.str = "coroutine";
        ev.str_id = stacks_.InternString(ev.str);
        Emit(ev);
      }
      ev = Event{.kind = Kind::kGoStart, .ns = ev.ns, .g = a(0), .m = m};
      cur = a(0);
      break;
    case EventType::kGoDestroy:
    case EventType::kGoDestroySyscall:
      ev.kind = Kind::kGoEnd;
      cur = 0;
      break;
    case EventType::kGoStop:
    case EventType::kGoBlock:  // [reason, stack]
      ev.kind = e.type == EventType::kGoStop ? Kind::kGoStop : Kind::kGoBlock;
      ev.str = Str(a(0));
      ev.str_id = StrId(a(0));
      ev.stack = Stack(a(1));
      cur = 0;
      break;
    case EventType::kGoUnblock:  // [g, seq, stack]
      ev.kind = Kind::kGoUnblock;
      ev.from = cur;
      ev.g = a(0);
      ev.stack = Stack(a(2));
      break;
    case EventType::kGoSyscallBegin:
      ev.kind = Kind::kSyscallBegin;
      ev.stack = Stack(a(1));
      break;
    case EventType::kGoSyscallEnd:
      ev.kind = Kind::kSyscallEnd;
      break;
    case EventType::kGoSyscallEndBlocked:
      ev.kind = Kind::kSyscallEndBlocked;
      cur = 0;
      break;
    case EventType::kSTWBegin:
      ev.kind = Kind::kSTWBegin;
      ev.str = Str(a(0));
      ev.str_id = StrId(a(0));
      ev.stack = Stack(a(1));
      break;
    case EventType::kSTWEnd:
      ev.kind = Kind::kSTWEnd;
      break;
    case EventType::kGCBegin:
      ev.kind = Kind::kGCBegin;
      ev.stack = Stack(a(1));
      break;
    case EventType::kGCActive:
      ev.kind = Kind::kGCActive;
      break;
    case EventType::kGCEnd:
      ev.kind = Kind::kGCEnd;
      break;
    case EventType::kGCMarkAssistBegin:
      ev.kind = Kind::kMarkAssistBegin;
      ev.stack = Stack(a(0));
      break;
    case EventType::kGCMarkAssistActive:
      ev.kind = Kind::kMarkAssistBegin;
      ev.g = a(0);
      break;
    case EventType::kGCMarkAssistEnd:
      ev.kind = Kind::kMarkAssistEnd;
      break;
    case EventType::kHeapAlloc:
      ev.kind = Kind::kHeapAlloc;
      ev.value = a(0);
      break;
    case EventType::kUserRegionBegin:
    case EventType::kUserRegionEnd:  // [task, name, stack]
      ev.kind = e.type == EventType::kUserRegionBegin ? Kind::kRegionBegin : Kind::kRegionEnd;
      ev.str = Str(a(1));
      ev.str_id = StrId(a(1));
      break;
    case EventType::kUserLog:  // [task, key, value, stack]
      ev.kind = Kind::kLog;
      ev.str = Str(a(1));
      ev.str_id = StrId(a(1));
      ev.str2 = Str(a(2));
      break;
    default:
      return;  // procs, sweeps, tasks, labels, heap goal: nothing the report reads yet
  }
  Emit(ev);
}

}  // namespace

ReadResult ReadV2Trace(std::istream &in, StackTable &stacks, EventSink &sink) {
  return V2Reader(in, stacks, sink).Run();
}

}  // namespace gotraced::report
