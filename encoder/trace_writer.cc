#include "encoder/trace_writer.h"

#include <fmt/format.h>
#include <time.h>

#include <algorithm>
#include <array>
#include <bit>
#include <limits>
#include <optional>
#include <vector>

#include "encoder/byte_buffer.h"
#include "encoder/id_hash_map.h"
#include "encoder/section_buffer.h"
#include "encoder/stack_table.h"
#include "encoder/string_table.h"
#include "encoder/trace_header.h"
#include "encoder/varint.h"

namespace gotraced::encoder {
namespace {

// Largest timed event: type byte + kMaxTimedEventArgs varints. The runtime reserves the
// same bound before each event (runtime/traceevent.go traceEventWriter.event:
// 1 + (len(args)+1)*traceBytesPerNumber).
constexpr std::size_t kMaxEventLen = 1 + kMaxTimedEventArgs * kMaxVarintLen;

// Per event type, what the cheap checks need, derived once from kEventSpecs.
struct EmitRule {
  bool allowed = false;  // caller-emittable timed event present in this version
  std::uint8_t nargs = 0;  // arguments after dt
  std::uint8_t string_mask = 0, stack_mask = 0, status_mask = 0;  // bit i = args[i] (after dt)
  std::uint8_t check_mask = 0;                                     // union of the three
};

std::array<EmitRule, kNumEventTypes> BuildRules(Version v) {
  std::array<EmitRule, kNumEventTypes> rules{};
  for (const EventSpec &s : kEventSpecs) {
    if (!s.exists || !IsCallerTimedEvent(s.type) || !VersionHas(v, s.type)) continue;
    EmitRule &r = rules[static_cast<int>(s.type)];
    r.allowed = true;
    r.nargs = static_cast<std::uint8_t>(s.nargs - 1);
    for (int i = 1; i < s.nargs; ++i) {
      std::uint8_t bit = static_cast<std::uint8_t>(1u << (i - 1));
      if (s.IsStringArg(i)) r.string_mask |= bit;
      if (s.IsStackArg(i)) r.stack_mask |= bit;
      ArgKind k = s.Kind(i);
      if (k == ArgKind::kGStatus || k == ArgKind::kPStatus) r.status_mask |= bit;
    }
    r.check_mask = r.string_mask | r.stack_mask | r.status_mask;
  }
  return rules;
}

std::int64_t MeasureWallMinusMono() {
  timespec mono{}, wall{};
  clock_gettime(CLOCK_MONOTONIC, &mono);
  clock_gettime(CLOCK_REALTIME, &wall);
  auto ns = [](const timespec &t) { return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec; };
  return ns(wall) - ns(mono);
}

std::uint64_t MonoNowNs() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::uint64_t>(t.tv_sec) * 1000000000ULL + static_cast<std::uint64_t>(t.tv_nsec);
}

// One thread's event batches of the current generation: all event bytes back to back,
// and where each batch starts (a batch is cut before it would exceed kMaxBatchData).
struct MState {
  struct Batch {
    std::size_t offset;
    std::uint64_t base_tick;
  };
  MId id = 0;
  ByteBuffer data;
  std::vector<Batch> batches;
  std::uint64_t last_tick = 0;  // time of the previous event of this M (clamp floor)
  std::size_t batch_start = 0;  // offset in data of the current batch
  bool in_generation = false;
};

}  // namespace

std::string_view EmitStatusName(EmitStatus s) {
  switch (s) {
    case EmitStatus::kOk: return "ok";
    case EmitStatus::kUnsupportedEvent: return "unsupported event";
    case EmitStatus::kBadStringId: return "bad string id";
    case EmitStatus::kBadStackId: return "bad stack id";
    case EmitStatus::kBadStatus: return "bad status";
    case EmitStatus::kClosed: return "writer closed";
    case EmitStatus::kBadState: return "contradicts the writer's state";
  }
  return "?";
}

struct TraceWriter::Impl {
  Impl(Sink &s, const WriterOptions &o)
      : sink(s), opt(o), rules(BuildRules(o.version)), gen(o.first_generation ? o.first_generation : 1) {
    if (opt.tick_divisor == 0) opt.tick_divisor = 1;
    pow2 = std::has_single_bit(opt.tick_divisor);
    shift = static_cast<unsigned>(std::countr_zero(opt.tick_divisor));
    wall_minus_mono = opt.wall_minus_mono_ns ? opt.wall_minus_mono_ns : MeasureWallMinusMono();
  }

  std::uint64_t Ticks(std::uint64_t ns) const { return pow2 ? ns >> shift : ns / opt.tick_divisor; }

  // Cold: the thread is not the one of the previous event.
  [[gnu::noinline]] MState &LookupM(MId m) {
    std::uint64_t h = MixHash(0, m);
    std::uint32_t idx = m_index.Find(h, [&](std::uint32_t i) { return ms[i - 1]->id == m; });
    if (idx == IdHashMap::kNotFound) {
      ms.push_back(std::make_unique<MState>());
      ms.back()->id = m;
      idx = static_cast<std::uint32_t>(ms.size());
      m_index.Insert(h, idx);
    }
    last_m = ms[idx - 1].get();
    return *last_m;
  }

  // Cold paths format their message here, so the hot path keeps a small frame.
  [[gnu::noinline]] EmitStatus Drop(EmitStatus s, EventType t, std::uint64_t value) {
    ++stats.dropped;
    std::string_view name = static_cast<int>(t) < kNumEventTypes ? SpecOf(t).name : std::string_view("event");
    std::string detail;
    switch (s) {
      case EmitStatus::kUnsupportedEvent:
        detail = fmt::format("type {} with {} args is not a timed event of go1.{}", static_cast<int>(t), value,
                             static_cast<int>(opt.version));
        break;
      case EmitStatus::kBadStringId: detail = fmt::format("string id {} not in generation {}", value, gen); break;
      case EmitStatus::kBadStackId: detail = fmt::format("stack id {} not in generation {}", value, gen); break;
      case EmitStatus::kBadStatus: detail = fmt::format("status {}", value); break;
      case EmitStatus::kClosed: detail = "after Close()"; break;
      case EmitStatus::kOk:
      case EmitStatus::kBadState: break;
    }
    last_error = fmt::format("{} dropped ({}): {}", name, EmitStatusName(s), detail);
    return s;
  }

  // Cold: first event of the M in this generation, or the current batch is full.
  [[gnu::noinline]] void StartBatch(MState &st, std::uint64_t tick) {
    if (!st.in_generation) {
      st.in_generation = true;
      touched.push_back(&st);
    }
    st.batch_start = st.data.size();
    st.batches.push_back({st.batch_start, tick});
    st.last_tick = tick;
  }

  EmitStatus Emit(EventType t, MId m, std::uint64_t ns, const std::uint64_t *args, std::size_t n) {
    if (closed) [[unlikely]]
      return Drop(EmitStatus::kClosed, t, 0);
    auto ti = static_cast<std::uint8_t>(t);
    const EmitRule &r = rules[ti < kNumEventTypes ? ti : 0];
    if (!r.allowed || n != r.nargs) [[unlikely]]
      return Drop(EmitStatus::kUnsupportedEvent, t, n);
    if (r.check_mask) {
      for (std::size_t i = 0; i < n; ++i) {
        std::uint8_t bit = static_cast<std::uint8_t>(1u << i);
        if (!(r.check_mask & bit)) continue;
        if ((r.string_mask & bit) && !strings.Has(args[i])) [[unlikely]]
          return Drop(EmitStatus::kBadStringId, t, args[i]);
        if ((r.stack_mask & bit) && !stacks.Has(args[i])) [[unlikely]]
          return Drop(EmitStatus::kBadStackId, t, args[i]);
        if ((r.status_mask & bit) && (args[i] == 0 || args[i] > 4)) [[unlikely]]
          return Drop(EmitStatus::kBadStatus, t, args[i]);
      }
    }

    MState &st = last_m && last_m->id == m ? *last_m : LookupM(m);
    std::uint64_t tick = Ticks(ns);
    if (tick < st.last_tick) [[unlikely]] {
      tick = st.last_tick;
      ++stats.clamped_timestamps;
    }
    if (!st.in_generation || st.data.size() - st.batch_start > kMaxBatchData - kMaxEventLen) [[unlikely]]
      StartBatch(st, tick);
    st.data.Reserve(kMaxEventLen);
    std::uint8_t *p = st.data.cursor();
    *p++ = ti;
    p = PutVarint(p, tick - st.last_tick);
    for (std::size_t i = 0; i < n; ++i) p = PutVarint(p, args[i]);
    st.data.CommitTo(p);
    st.last_tick = tick;
    ++stats.events;
    return EmitStatus::kOk;
  }

  EmitStatus CPUSample(std::uint64_t ns, MId m, PId p, GId g, std::uint64_t stack) {
    if (closed) return Drop(EmitStatus::kClosed, EventType::kCPUSample, 0);
    if (!stacks.Has(stack)) return Drop(EmitStatus::kBadStackId, EventType::kCPUSample, stack);
    ByteBuffer &b = cpu.BeginEntry(1 + 5 * kMaxVarintLen);
    std::uint8_t *q = b.cursor();
    *q++ = static_cast<std::uint8_t>(EventType::kCPUSample);
    q = PutVarint(q, Ticks(ns));
    q = PutVarint(q, m);
    q = PutVarint(q, p);
    q = PutVarint(q, g);
    q = PutVarint(q, stack);
    b.CommitTo(q);
    cpu.EndEntry();
    if (ns < cpu_min_ns) cpu_min_ns = ns;
    ++stats.events;
    ++stats.cpu_samples;
    return EmitStatus::kOk;
  }

  // Earliest event time of the generation (ns, at tick resolution): each M's first batch
  // starts at its earliest event, since an M's events are in time order.
  std::uint64_t EarliestNs() const {
    std::uint64_t min = cpu_min_ns;
    for (const MState *st : touched)
      if (!st->batches.empty()) min = std::min(min, st->batches.front().base_tick * opt.tick_divisor);
    return min;
  }

  bool GenerationHasContent() const {
    return !touched.empty() || strings.size() || stacks.size() || !cpu.empty();
  }

  // The generation's clock reading: caller's, else the earliest event's time. Each
  // component is kept strictly increasing and non-zero across generations, which the
  // parser's validator expects (internal/trace/testtrace/validation.go, sync checks).
  void TakeSnapshot(std::uint64_t &tick, std::uint64_t &mono, std::uint64_t &wall_ns) {
    if (snapshot) {
      mono = snapshot->mono_ns;
      wall_ns = snapshot->wall_sec * 1000000000ULL + snapshot->wall_nsec;
    } else {
      std::uint64_t min_ns = EarliestNs();
      if (min_ns != kNone) {
        mono = min_ns;
      } else if (have_prev_snapshot) {
        mono = prev_mono + opt.tick_divisor;
      } else {
        mono = MonoNowNs();
      }
      wall_ns = static_cast<std::uint64_t>(static_cast<std::int64_t>(mono) + wall_minus_mono);
    }
    tick = Ticks(mono);
    if (have_prev_snapshot) {
      if (tick <= prev_tick) tick = prev_tick + 1;
      if (mono <= prev_mono) mono = prev_mono + 1;
      if (wall_ns <= prev_wall) wall_ns = prev_wall + 1;
    }
    if (tick == 0) tick = 1;
    if (mono == 0) mono = 1;
    if (wall_ns == 0) wall_ns = 1;
    prev_tick = tick;
    prev_mono = mono;
    prev_wall = wall_ns;
    have_prev_snapshot = true;
  }

  void WriteTimingBatch(std::uint64_t tick, std::uint64_t mono, std::uint64_t wall_ns) {
    // runtime/tracetime.go traceFrequency: 1e9 / traceTimeDiv (truncated).
    std::uint64_t freq = 1000000000ULL / opt.tick_divisor;
    ByteBuffer body;
    if (opt.version >= Version::kGo125) {
      // runtime/trace.go traceSyncBatch (1.25+): Sync, Frequency, ClockSnapshot.
      body.PutByte(static_cast<std::uint8_t>(EventType::kSync));
      body.PutByte(static_cast<std::uint8_t>(EventType::kFrequency));
      body.PutVarint(freq);
      body.PutByte(static_cast<std::uint8_t>(EventType::kClockSnapshot));
      body.PutVarint(0);  // dt from the batch base
      body.PutVarint(mono);
      body.PutVarint(wall_ns / 1000000000ULL);
      body.PutVarint(wall_ns % 1000000000ULL);
    } else {
      // Go 1.22/1.23: a batch holding only the Frequency event (runtime traceFrequency).
      body.PutByte(static_cast<std::uint8_t>(EventType::kFrequency));
      body.PutVarint(freq);
    }
    PutBatchHeader(kNoThread, tick, body.size());
    out.PutBytes(body.span());
  }

  void PutBatchHeader(MId m, std::uint64_t base_tick, std::size_t len) {
    out.PutByte(static_cast<std::uint8_t>(EventType::kEventBatch));
    out.PutVarint(gen);
    out.PutVarint(m);
    out.PutVarint(base_tick);
    out.PutVarint(len);
  }

  void EndGeneration() {
    if (closed) return;
    if (!header_written) {
      auto h = MakeHeader(opt.version);
      sink.WriteHeader(h);
      stats.bytes += h.size();
      header_written = true;
    }
    out.Clear();
    std::uint64_t tick, mono, wall_ns;
    TakeSnapshot(tick, mono, wall_ns);
    WriteTimingBatch(tick, mono, wall_ns);
    // One M's batches in its order; Ms in first-touch order (any order is valid between Ms).
    for (MState *st : touched) {
      for (std::size_t i = 0; i < st->batches.size(); ++i) {
        std::size_t begin = st->batches[i].offset;
        std::size_t end = i + 1 < st->batches.size() ? st->batches[i + 1].offset : st->data.size();
        PutBatchHeader(st->id, st->batches[i].base_tick, end - begin);
        out.PutBytes(st->data.span(begin, end - begin));
      }
      stats.batches += st->batches.size();
      st->batches.clear();
      st->data.Clear();
      st->in_generation = false;
    }
    touched.clear();
    strings.section().WriteBatches(out, gen, tick);
    stacks.section().WriteBatches(out, gen, tick);
    cpu.WriteBatches(out, gen, tick);
    if (opt.version >= Version::kGo126) out.PutByte(static_cast<std::uint8_t>(EventType::kEndOfGeneration));

    sink.WriteGeneration(gen, out.span());
    stats.bytes += out.size();
    stats.strings += strings.size();
    stats.stacks += stacks.size();
    ++stats.generations;

    ++gen;
    stacks.Reset();
    strings.Reset();
    cpu.Clear();
    cpu_min_ns = kNone;
    snapshot.reset();
  }

  static constexpr std::uint64_t kNone = std::numeric_limits<std::uint64_t>::max();

  Sink &sink;
  WriterOptions opt;
  std::array<EmitRule, kNumEventTypes> rules;
  std::uint64_t gen;
  bool pow2 = true;
  unsigned shift = 0;
  std::int64_t wall_minus_mono = 0;
  bool header_written = false;
  bool closed = false;

  std::vector<std::unique_ptr<MState>> ms;
  IdHashMap m_index;
  MState *last_m = nullptr;
  std::vector<MState *> touched;

  StringTable strings;
  StackTable stacks{strings};
  SectionBuffer cpu{EventType::kCPUSamples};
  std::uint64_t cpu_min_ns = kNone;

  std::optional<ClockSnapshot> snapshot;
  bool have_prev_snapshot = false;
  std::uint64_t prev_tick = 0, prev_mono = 0, prev_wall = 0;

  ByteBuffer out;
  WriterStats stats;
  std::string last_error;
};

TraceWriter::TraceWriter(Sink &sink, WriterOptions options) : impl_(std::make_unique<Impl>(sink, options)) {}
TraceWriter::~TraceWriter() = default;

void TraceWriter::EndGeneration() { impl_->EndGeneration(); }

void TraceWriter::Close() {
  if (impl_->closed) return;
  if (impl_->GenerationHasContent() || impl_->stats.generations == 0) impl_->EndGeneration();
  impl_->closed = true;
  impl_->sink.Close();
}

std::uint64_t TraceWriter::generation() const { return impl_->gen; }
Version TraceWriter::version() const { return impl_->opt.version; }
std::uint64_t TraceWriter::tick_divisor() const { return impl_->opt.tick_divisor; }
void TraceWriter::SetClockSnapshot(const ClockSnapshot &s) { impl_->snapshot = s; }
const WriterStats &TraceWriter::stats() const { return impl_->stats; }
std::size_t TraceWriter::buffered_bytes() const {
  std::size_t n = impl_->strings.section().bytes() + impl_->stacks.section().bytes() + impl_->cpu.bytes();
  for (const MState *st : impl_->touched) n += st->data.size();
  return n;
}
const std::string &TraceWriter::last_error() const { return impl_->last_error; }

StringId TraceWriter::InternString(std::string_view s) { return StringId{impl_->strings.Intern(TruncateStringHead(s))}; }
StackId TraceWriter::InternStack(std::span<const Frame> frames) { return StackId{impl_->stacks.Intern(frames)}; }
StackId TraceWriter::InternStackPcs(std::span<const std::uint64_t> pcs, PcResolver resolve) {
  return StackId{impl_->stacks.InternPcs(pcs, resolve)};
}

StackId TraceWriter::InternStackPcs(std::uint64_t head, std::span<const std::uint64_t> pcs, PcResolver resolve) {
  return StackId{impl_->stacks.InternPcs(head, pcs, resolve)};
}

StringId TraceWriter::Str(const StringArg &a) {
  return a.is_id() ? a.id() : StringId{impl_->strings.Intern(TruncateStringHead(a.text()))};
}

EmitStatus TraceWriter::Emit(EventType type, MId m, std::uint64_t ts, std::span<const std::uint64_t> args) {
  return impl_->Emit(type, m, ts, args.data(), args.size());
}

#define GOTRACED_EMIT(type, ...)                                              \
  do {                                                                        \
    const std::uint64_t a_[] = {__VA_ARGS__};                                 \
    return impl_->Emit(EventType::type, m, ts, a_, sizeof(a_) / sizeof(a_[0])); \
  } while (0)
#define GOTRACED_EMIT0(type) return impl_->Emit(EventType::type, m, ts, nullptr, 0)

EmitStatus TraceWriter::ProcsChange(MId m, std::uint64_t ts, std::uint64_t procs, StackId stack) {
  GOTRACED_EMIT(kProcsChange, procs, stack.value);
}
EmitStatus TraceWriter::ProcStart(MId m, std::uint64_t ts, PId p, Seq p_seq) { GOTRACED_EMIT(kProcStart, p, p_seq); }
EmitStatus TraceWriter::ProcStop(MId m, std::uint64_t ts) { GOTRACED_EMIT0(kProcStop); }
EmitStatus TraceWriter::ProcSteal(MId m, std::uint64_t ts, PId p, Seq p_seq, MId victim) {
  GOTRACED_EMIT(kProcSteal, p, p_seq, victim);
}
EmitStatus TraceWriter::ProcStatusEvent(MId m, std::uint64_t ts, PId p, ProcStatus status) {
  GOTRACED_EMIT(kProcStatus, p, static_cast<std::uint64_t>(status));
}
EmitStatus TraceWriter::GoCreate(MId m, std::uint64_t ts, GId new_g, StackId new_stack, StackId stack) {
  GOTRACED_EMIT(kGoCreate, new_g, new_stack.value, stack.value);
}
EmitStatus TraceWriter::GoCreateSyscall(MId m, std::uint64_t ts, GId new_g) { GOTRACED_EMIT(kGoCreateSyscall, new_g); }
EmitStatus TraceWriter::GoCreateBlocked(MId m, std::uint64_t ts, GId new_g, StackId new_stack, StackId stack) {
  GOTRACED_EMIT(kGoCreateBlocked, new_g, new_stack.value, stack.value);
}
EmitStatus TraceWriter::GoStart(MId m, std::uint64_t ts, GId g, Seq g_seq) { GOTRACED_EMIT(kGoStart, g, g_seq); }
EmitStatus TraceWriter::GoDestroy(MId m, std::uint64_t ts) { GOTRACED_EMIT0(kGoDestroy); }
EmitStatus TraceWriter::GoDestroySyscall(MId m, std::uint64_t ts) { GOTRACED_EMIT0(kGoDestroySyscall); }
EmitStatus TraceWriter::GoStop(MId m, std::uint64_t ts, StringArg reason, StackId stack) {
  GOTRACED_EMIT(kGoStop, Str(reason).value, stack.value);
}
EmitStatus TraceWriter::GoBlock(MId m, std::uint64_t ts, StringArg reason, StackId stack) {
  GOTRACED_EMIT(kGoBlock, Str(reason).value, stack.value);
}
EmitStatus TraceWriter::GoUnblock(MId m, std::uint64_t ts, GId g, Seq g_seq, StackId stack) {
  GOTRACED_EMIT(kGoUnblock, g, g_seq, stack.value);
}
EmitStatus TraceWriter::GoSwitch(MId m, std::uint64_t ts, GId g, Seq g_seq) { GOTRACED_EMIT(kGoSwitch, g, g_seq); }
EmitStatus TraceWriter::GoSwitchDestroy(MId m, std::uint64_t ts, GId g, Seq g_seq) {
  GOTRACED_EMIT(kGoSwitchDestroy, g, g_seq);
}
EmitStatus TraceWriter::GoSyscallBegin(MId m, std::uint64_t ts, Seq p_seq, StackId stack) {
  GOTRACED_EMIT(kGoSyscallBegin, p_seq, stack.value);
}
EmitStatus TraceWriter::GoSyscallEnd(MId m, std::uint64_t ts) { GOTRACED_EMIT0(kGoSyscallEnd); }
EmitStatus TraceWriter::GoSyscallEndBlocked(MId m, std::uint64_t ts) { GOTRACED_EMIT0(kGoSyscallEndBlocked); }
EmitStatus TraceWriter::GoStatusEvent(MId m, std::uint64_t ts, GId g, MId g_m, GoStatus status) {
  GOTRACED_EMIT(kGoStatus, g, g_m, static_cast<std::uint64_t>(status));
}
EmitStatus TraceWriter::GoStatusStack(MId m, std::uint64_t ts, GId g, MId g_m, GoStatus status, StackId stack) {
  GOTRACED_EMIT(kGoStatusStack, g, g_m, static_cast<std::uint64_t>(status), stack.value);
}
EmitStatus TraceWriter::STWBegin(MId m, std::uint64_t ts, StringArg kind, StackId stack) {
  GOTRACED_EMIT(kSTWBegin, Str(kind).value, stack.value);
}
EmitStatus TraceWriter::STWEnd(MId m, std::uint64_t ts) { GOTRACED_EMIT0(kSTWEnd); }
EmitStatus TraceWriter::GCActive(MId m, std::uint64_t ts, Seq gc_seq) { GOTRACED_EMIT(kGCActive, gc_seq); }
EmitStatus TraceWriter::GCBegin(MId m, std::uint64_t ts, Seq gc_seq, StackId stack) {
  GOTRACED_EMIT(kGCBegin, gc_seq, stack.value);
}
EmitStatus TraceWriter::GCEnd(MId m, std::uint64_t ts, Seq gc_seq) { GOTRACED_EMIT(kGCEnd, gc_seq); }
EmitStatus TraceWriter::GCSweepActive(MId m, std::uint64_t ts, PId p) { GOTRACED_EMIT(kGCSweepActive, p); }
EmitStatus TraceWriter::GCSweepBegin(MId m, std::uint64_t ts, StackId stack) {
  GOTRACED_EMIT(kGCSweepBegin, stack.value);
}
EmitStatus TraceWriter::GCSweepEnd(MId m, std::uint64_t ts, std::uint64_t swept, std::uint64_t reclaimed) {
  GOTRACED_EMIT(kGCSweepEnd, swept, reclaimed);
}
EmitStatus TraceWriter::GCMarkAssistActive(MId m, std::uint64_t ts, GId g) { GOTRACED_EMIT(kGCMarkAssistActive, g); }
EmitStatus TraceWriter::GCMarkAssistBegin(MId m, std::uint64_t ts, StackId stack) {
  GOTRACED_EMIT(kGCMarkAssistBegin, stack.value);
}
EmitStatus TraceWriter::GCMarkAssistEnd(MId m, std::uint64_t ts) { GOTRACED_EMIT0(kGCMarkAssistEnd); }
EmitStatus TraceWriter::HeapAlloc(MId m, std::uint64_t ts, std::uint64_t bytes) { GOTRACED_EMIT(kHeapAlloc, bytes); }
EmitStatus TraceWriter::HeapGoal(MId m, std::uint64_t ts, std::uint64_t bytes) { GOTRACED_EMIT(kHeapGoal, bytes); }
EmitStatus TraceWriter::GoLabel(MId m, std::uint64_t ts, StringArg label) { GOTRACED_EMIT(kGoLabel, Str(label).value); }
EmitStatus TraceWriter::UserTaskBegin(MId m, std::uint64_t ts, TaskId task, TaskId parent, StringArg name,
                                      StackId stack) {
  GOTRACED_EMIT(kUserTaskBegin, task, parent, Str(name).value, stack.value);
}
EmitStatus TraceWriter::UserTaskEnd(MId m, std::uint64_t ts, TaskId task, StackId stack) {
  GOTRACED_EMIT(kUserTaskEnd, task, stack.value);
}
EmitStatus TraceWriter::UserRegionBegin(MId m, std::uint64_t ts, TaskId task, StringArg name, StackId stack) {
  GOTRACED_EMIT(kUserRegionBegin, task, Str(name).value, stack.value);
}
EmitStatus TraceWriter::UserRegionEnd(MId m, std::uint64_t ts, TaskId task, StringArg name, StackId stack) {
  GOTRACED_EMIT(kUserRegionEnd, task, Str(name).value, stack.value);
}
EmitStatus TraceWriter::UserLog(MId m, std::uint64_t ts, TaskId task, StringArg key, StringArg value,
                                StackId stack) {
  GOTRACED_EMIT(kUserLog, task, Str(key).value, Str(value).value, stack.value);
}
EmitStatus TraceWriter::CPUSample(std::uint64_t ts, MId m, PId p, GId g, StackId stack) {
  return impl_->CPUSample(ts, m, p, g, stack.value);
}

#undef GOTRACED_EMIT
#undef GOTRACED_EMIT0

}  // namespace gotraced::encoder
