#include "report/goroutine_table.h"

#include "daemon/procmem/label_text.h"

namespace gotraced::report {

using procmem::ParseLabelText;

std::uint32_t GoroutineTable::GroupId(const std::string &name) {
  auto [it, added] = name_ids_.try_emplace(name, static_cast<std::uint32_t>(names_.size()));
  if (added) names_.push_back(name);
  return it->second;
}

void GoroutineTable::Relabel(GInfo &gi, std::string_view text) {
  std::vector<std::pair<std::string, std::string>> labels;
  ParseLabelText(text, &labels);  // a text cut short keeps the labels before the cut
  gi.group = 0;
  for (const auto &[k, v] : labels)
    if (k == label_key_) gi.group = GroupId(k + "=" + v);
}

void GoroutineTable::Name(GInfo &gi, std::uint32_t stack, bool start_stack) {
  const bool by_label = group_by_ == ReportOptions::GroupBy::kLabel;
  if ((by_label ? gi.named : gi.group != 0) || stack == 0) return;
  const auto &fr = stacks_.Frames(stack);
  if (fr.empty()) return;
  // A GoCreate's new stack is one frame, the start function; any other stack's start
  // function is its outermost frame.
  const std::uint32_t f = start_stack ? fr.front() : fr.back();
  // Per function id, once (a server starts the same few functions thousands of times).
  if (f >= group_of_func_.size()) group_of_func_.resize(f + 1, {kUnset, false});
  auto &[group, system] = group_of_func_[f];
  if (group == kUnset) {
    const std::string &fn = stacks_.Func(f);
    group = GroupId(fn);
    system = (fn.starts_with("runtime.") && fn != "runtime.main") || fn.starts_with("runtime/trace.");
  }
  if (!by_label) gi.group = group;
  gi.system = system;
  gi.named = true;
}

std::string BlockClass(std::string_view reason, const std::vector<std::uint32_t> &frames,
                       const StackTable &stacks) {
  if (reason == "sync" || reason == "unspecified" || reason.empty()) {
    for (std::uint32_t f : frames) {
      const std::string &fn = stacks.Func(f);
      if (fn.starts_with("sync.(*RWMutex)")) return "RWMutex";
      if (fn.starts_with("sync.(*Mutex)")) return "mutex";
      if (fn.starts_with("sync.(*WaitGroup)")) return "WaitGroup";
      if (fn.starts_with("sync.(*Cond)")) return "Cond";
    }
  }
  if (reason == "sync.(*Cond).Wait") return "Cond";
  return std::string(reason.empty() ? "unspecified" : reason);
}

std::uint32_t GoroutineTable::ReasonId(std::string_view reason, std::uint32_t reason_id, std::uint32_t stack) {
  // Cached per (wire reason, stack): a goroutine blocks at the same few places again and again.
  const std::uint64_t key = std::uint64_t{reason_id} << 32 | stack;
  if (const std::uint32_t *id = reason_of_.get(key)) return *id;
  const std::uint32_t id = ReasonIdOf(reason, stack);
  reason_of_.emplace(key, id);
  return id;
}

std::uint32_t GoroutineTable::ReasonIdOf(std::string_view reason, std::uint32_t stack) {
  const std::string cls = BlockClass(reason, stacks_.Frames(stack), stacks_);
  auto [it, added] = reason_ids_.try_emplace(cls, static_cast<std::uint32_t>(reasons_.size()));
  if (added) reasons_.push_back(cls);
  return it->second;
}

void GoroutineTable::Apply(const Event &e, GInfo *known) {
  if (e.kind == Kind::kCPUSample || e.g == 0) return;
  auto get = [&]() -> GInfo & { return known ? *known : gs_[e.g]; };
  auto set = [&](GInfo &gi, GState s) {
    gi.state = s;
    gi.since_ns = e.ns;
  };
  switch (e.kind) {
    case Kind::kGoStatus: {
      auto [it, added] = gs_.try_emplace(e.g);
      if (added) ++seen_;
      GInfo &gi = it->second;
      Name(gi, e.stack, false);
      if (gi.state != e.status) {
        set(gi, e.status);
        gi.runnable_known = false;
        if (e.status == GState::kWaiting) gi.block_reason = 0;
        if (e.status == GState::kWaiting && e.stack)
          gi.block_reason = ReasonId("", 0, e.stack), gi.block_stack = e.stack;
      }
      break;
    }
    case Kind::kGoCreate:
    case Kind::kGoCreateBlocked: {
      // By label: a new goroutine has its creator's labels (runtime/proc.go newproc1:
      // newg.labels = curg.labels) until its own log says otherwise.
      const GInfo *creator = group_by_ == ReportOptions::GroupBy::kLabel && e.from ? gs_.get(e.from) : nullptr;
      const std::uint32_t inherited = creator ? creator->group : 0;
      GInfo &gi = gs_[e.g];
      ++seen_;
      gi = GInfo{};
      gi.group = inherited;
      Name(gi, e.stack, true);
      set(gi, e.kind == Kind::kGoCreate ? GState::kRunnable : GState::kWaiting);
      gi.runnable_known = e.kind == Kind::kGoCreate;
      break;
    }
    case Kind::kGoStart:
      set(get(), GState::kRunning);
      break;
    case Kind::kGoStop: {
      GInfo &gi = get();
      Name(gi, e.stack, false);
      set(gi, GState::kRunnable);
      gi.runnable_known = true;
      break;
    }
    case Kind::kGoBlock: {
      GInfo &gi = get();
      Name(gi, e.stack, false);
      set(gi, GState::kWaiting);
      gi.block_stack = e.stack;
      gi.block_reason = ReasonId(e.str, e.str_id, e.stack);
      break;
    }
    case Kind::kGoUnblock:
    case Kind::kSyscallEndBlocked: {
      GInfo &gi = get();
      set(gi, GState::kRunnable);
      gi.runnable_known = true;
      break;
    }
    case Kind::kSyscallBegin: {
      GInfo &gi = get();
      Name(gi, e.stack, false);
      set(gi, GState::kSyscall);
      gi.block_stack = e.stack;
      break;
    }
    case Kind::kSyscallEnd:
      set(get(), GState::kRunning);
      break;
    case Kind::kGoEnd:
      Erase(e.g);
      break;
    case Kind::kMarkAssistBegin:
    case Kind::kMarkAssistEnd: {
      GInfo &gi = get();
      Name(gi, e.stack, false);
      gi.in_assist = e.kind == Kind::kMarkAssistBegin;
      break;
    }
    case Kind::kLog:
      if (group_by_ == ReportOptions::GroupBy::kLabel && e.str == "gotraced: labels") Relabel(get(), e.str2);
      Name(get(), e.stack, false);
      break;
    default:
      Name(get(), e.stack, false);
      break;
  }
}

}  // namespace gotraced::report
