// The pre-1.22 format (trace_reader.h): read whole by encoder/legacy_decoder.h, sorted by
// time as Go 1.21's parser.go does before it checks anything, then per P: the goroutine a
// P runs is set by GoStart* and cleared by the events that take it off (parser.go's
// per-P state; tracev1.go, Go 1.22's converter of this format, says which new-format
// event each one is). Not streamed: the format has no generations, and its events of one
// goroutine can sit anywhere in the file.
#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <unordered_map>
#include <vector>

#include "encoder/legacy_decoder.h"
#include "report/trace_reader.h"

namespace gotraced::report {
namespace {

using encoder::legacy::Ev;
using LEvent = encoder::legacy::DecodedEvent;

// The block reasons of the old event types, in Go 1.22's words (runtime/traceruntime.go
// traceBlockReasonStrings; tracev1.go maps each old type to one).
std::string_view BlockReason(Ev t) {
  switch (t) {
    case Ev::kGoStop:
      return "forever";
    case Ev::kGoSleep:
      return "sleep";
    case Ev::kGoBlockSend:
      return "chan send";
    case Ev::kGoBlockRecv:
      return "chan receive";
    case Ev::kGoBlockSelect:
      return "select";
    case Ev::kGoBlockSync:
      return "sync";
    case Ev::kGoBlockCond:
      return "sync.(*Cond).Wait";
    case Ev::kGoBlockNet:
      return "network";
    case Ev::kGoBlockGC:
      return "GC mark assist wait for work";
    default:
      return "unspecified";
  }
}

class LegacyReader {
 public:
  LegacyReader(StackTable &stacks, EventSink &sink) : stacks_(stacks), sink_(sink) {}
  ReadResult Run(std::istream &in);

 private:
  void Translate(const LEvent &e, std::uint64_t now);
  std::uint32_t Stack(std::uint64_t id);
  std::string_view Str(std::uint64_t id) {
    auto it = t_.strings.find(id);
    return it == t_.strings.end() ? std::string_view() : std::string_view(it->second);
  }
  std::uint64_t Ns(std::uint64_t ticks) const {
    const double k = t_.frequency ? 1e9 / static_cast<double>(t_.frequency) : 1.0;
    const auto ns = static_cast<std::uint64_t>(static_cast<double>(ticks) * k);
    return ns > t0_ ? ns - t0_ : 0;
  }
  void Emit(Event ev) {
    ++res_.events;
    if (!ev.str.empty()) ev.str_id = stacks_.InternString(ev.str);  // per event: this format is read whole anyway
    sink_.On(ev);
  }
  std::string_view StwKind(std::uint64_t k) const;

  StackTable &stacks_;
  EventSink &sink_;
  encoder::legacy::DecodedTrace t_;
  ReadResult res_;
  std::uint64_t t0_ = 0;
  std::unordered_map<std::uint64_t, std::uint32_t> stack_ids_;
  std::unordered_map<std::int64_t, std::uint64_t> running_;  // P -> goroutine (0: none)
  // P -> the goroutine whose GoSysCall is the P's last event: the P's next event says
  // whether the syscall blocked (GoSysBlock) or was already over (tracev1.go: 1 ns).
  std::unordered_map<std::int64_t, std::pair<std::uint64_t, std::uint64_t>> sys_pending_;
  bool started_ = false;  // a GoStart seen: GoCreates before it are StartTrace's list of goroutines
};

std::uint32_t LegacyReader::Stack(std::uint64_t id) {
  if (id == 0) return 0;
  if (auto it = stack_ids_.find(id); it != stack_ids_.end()) return it->second;
  std::vector<std::string_view> funcs;
  if (auto it = t_.stack_funcs.find(id); it != t_.stack_funcs.end())
    for (std::uint64_t f : it->second) funcs.push_back(Str(f));
  const std::uint32_t s = stacks_.Intern(funcs);
  stack_ids_.emplace(id, s);
  return s;
}

std::string_view LegacyReader::StwKind(std::uint64_t k) const {
  if (t_.version == encoder::Version::kGo119) return k == 0 ? "GC mark termination" : "GC sweep termination";
  return k < std::size(encoder::legacy::kStwReasonsGo121) ? encoder::legacy::kStwReasonsGo121[k] : "unknown";
}

void LegacyReader::Translate(const LEvent &e, std::uint64_t now) {
  auto arg = [&](std::size_t i) { return i < e.args.size() ? e.args[i] : 0; };
  auto last_stack = [&] { return Stack(e.args.empty() ? 0 : e.args.back()); };
  if (auto sp = sys_pending_.find(e.p); sp != sys_pending_.end()) {
    if (e.type != Ev::kGoSysBlock)
      Emit({.kind = Kind::kSyscallEnd, .ns = sp->second.second + 1, .g = sp->second.first});
    sys_pending_.erase(sp);
  }
  std::uint64_t &cur = running_[e.p];
  Event ev{.kind = Kind::kGoStart, .ns = now, .g = cur};
  switch (e.type) {
    case Ev::kGoCreate:  // [g, new stack, stack]
      ev.kind = started_ ? Kind::kGoCreate : Kind::kGoStatus;
      ev.status = GState::kRunnable;
      ev.from = cur;
      ev.g = arg(0);
      ev.stack = Stack(arg(1));
      break;
    case Ev::kGoWaiting:
    case Ev::kGoInSyscall:
      ev.kind = Kind::kGoStatus;
      ev.g = arg(0);
      ev.status = e.type == Ev::kGoWaiting ? GState::kWaiting : GState::kSyscall;
      break;
    case Ev::kGoStart:
    case Ev::kGoStartLocal:
    case Ev::kGoStartLabel:
      started_ = true;
      ev.g = cur = arg(0);
      break;
    case Ev::kGoSched:
    case Ev::kGoPreempt:
      ev.kind = Kind::kGoStop;
      ev.str = e.type == Ev::kGoSched ? "yield" : "preempted";
      ev.stack = last_stack();
      cur = 0;
      break;
    case Ev::kGoStop:
    case Ev::kGoSleep:
    case Ev::kGoBlock:
    case Ev::kGoBlockSend:
    case Ev::kGoBlockRecv:
    case Ev::kGoBlockSelect:
    case Ev::kGoBlockSync:
    case Ev::kGoBlockCond:
    case Ev::kGoBlockNet:
    case Ev::kGoBlockGC:
      ev.kind = Kind::kGoBlock;
      ev.str = BlockReason(e.type);
      ev.stack = last_stack();
      cur = 0;
      break;
    case Ev::kGoUnblock:
    case Ev::kGoUnblockLocal:
      ev.kind = Kind::kGoUnblock;
      ev.from = cur;
      ev.g = arg(0);
      ev.stack = last_stack();
      break;
    case Ev::kGoEnd:
      ev.kind = Kind::kGoEnd;
      cur = 0;
      break;
    case Ev::kGoSysCall:
      ev.kind = Kind::kSyscallBegin;
      ev.stack = last_stack();
      if (cur) sys_pending_[e.p] = {cur, now};
      break;
    case Ev::kGoSysBlock:
      cur = 0;
      return;  // the P leaves; the goroutine stays in its syscall
    case Ev::kGoSysExit:
    case Ev::kGoSysExitLocal: {  // [g, seq, real ts] / [g, real ts]: when the syscall returned
      const std::uint64_t real = e.type == Ev::kGoSysExit ? arg(2) : arg(1);
      ev.kind = Kind::kSyscallEndBlocked;
      ev.g = arg(0);
      if (real) ev.ns = std::min(now, Ns(real));
      break;
    }
    case Ev::kSTWStart:
      ev.kind = Kind::kSTWBegin;
      ev.str = StwKind(arg(0));
      break;
    case Ev::kSTWDone:
      ev.kind = Kind::kSTWEnd;
      break;
    case Ev::kGCStart:
      ev.kind = Kind::kGCBegin;
      break;
    case Ev::kGCDone:
      ev.kind = Kind::kGCEnd;
      break;
    case Ev::kGCMarkAssistStart:
      ev.kind = Kind::kMarkAssistBegin;
      ev.stack = last_stack();
      break;
    case Ev::kGCMarkAssistDone:
      ev.kind = Kind::kMarkAssistEnd;
      break;
    case Ev::kHeapAlloc:
      ev.kind = Kind::kHeapAlloc;
      ev.value = arg(0);
      break;
    case Ev::kUserRegion:  // [task, mode, name, stack]
      ev.kind = arg(1) == 0 ? Kind::kRegionBegin : Kind::kRegionEnd;
      ev.str = Str(arg(2));
      break;
    case Ev::kUserLog:  // [task, key, stack] + value
      ev.kind = Kind::kLog;
      ev.str = Str(arg(1));
      ev.str2 = e.data;
      break;
    default:
      return;
  }
  Emit(ev);
}

ReadResult LegacyReader::Run(std::istream &in) {
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  t_ = encoder::legacy::DecodeLegacy(bytes);
  bytes = {};
  res_.version = t_.version == encoder::Version::kGo119 ? "go1.19" : "go1.21";
  if (!t_.ok()) {
    res_.error = t_.error;
    return res_;
  }
  std::vector<const LEvent *> order;
  std::vector<const LEvent *> samples;
  for (const LEvent &e : t_.events) (e.cpu_batch ? samples : order).push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](auto *x, auto *y) { return x->ticks < y->ticks; });
  if (!order.empty()) {
    const double k = t_.frequency ? 1e9 / static_cast<double>(t_.frequency) : 1.0;
    t0_ = static_cast<std::uint64_t>(static_cast<double>(order.front()->ticks) * k);
  }
  for (const LEvent *e : order) {
    const std::uint64_t now = Ns(e->ticks);
    res_.duration_ns = std::max(res_.duration_ns, now);
    Translate(*e, now);
  }
  for (const LEvent *e : samples) {  // [real ts, P, g, stack]
    if (e->type != Ev::kCPUSample || e->args.size() < 4) continue;
    ++res_.cpu_samples;
    Emit({.kind = Kind::kCPUSample, .ns = Ns(e->ticks), .g = e->args[2], .stack = Stack(e->args[3])});
  }
  return res_;
}

}  // namespace

ReadResult ReadLegacyTrace(std::istream &in, StackTable &stacks, EventSink &sink) {
  return LegacyReader(stacks, sink).Run(in);
}

}  // namespace gotraced::report
