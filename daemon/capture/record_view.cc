#include "daemon/capture/record_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace gotraced::capture {

const char *RecordKindName(uint16_t kind) {
  switch (kind) {
    case GT_REC_HELLO: return "HELLO";
    case GT_REC_GSTATUS: return "GSTATUS";
    case GT_REC_CALL: return "CALL";
    case GT_REC_SCHED_SWITCH: return "SCHED_SWITCH";
    case GT_REC_SYS_ENTER: return "SYS_ENTER";
    case GT_REC_SYS_EXIT: return "SYS_EXIT";
    case GT_REC_KSYS_ENTER: return "KSYS_ENTER";
    case GT_REC_KSYS_EXIT: return "KSYS_EXIT";
    case GT_REC_TASK_EXIT: return "TASK_EXIT";
    case GT_REC_EXEC: return "EXEC";
    case GT_REC_TASK_NEW: return "TASK_NEW";
    case GT_REC_USER: return "USER";
    case GT_REC_CPU_SAMPLE: return "CPU_SAMPLE";
    case GT_REC_SYS_SAMPLE: return "SYS_SAMPLE";
    case GT_REC_SYS_SWITCH: return "SYS_SWITCH";
    default: return "?";
  }
}

size_t RecordBodySize(uint16_t kind) {
  switch (kind) {
    case GT_REC_HELLO: return sizeof(gt_hello_record);
    case GT_REC_GSTATUS: return sizeof(gt_gstatus_record);
    case GT_REC_CALL: return sizeof(gt_call_record);
    case GT_REC_SCHED_SWITCH: return sizeof(gt_sched_switch_record);
    case GT_REC_SYS_ENTER:
    case GT_REC_SYS_EXIT:
    case GT_REC_KSYS_ENTER:
    case GT_REC_KSYS_EXIT: return sizeof(gt_syscall_record);
    case GT_REC_TASK_EXIT:
    case GT_REC_EXEC:
    case GT_REC_TASK_NEW: return sizeof(gt_task_record);
    case GT_REC_USER: return sizeof(gt_user_record);
    case GT_REC_CPU_SAMPLE: return sizeof(gt_cpu_sample_record);
    case GT_REC_SYS_SAMPLE: return sizeof(gt_sys_sample_record);
    case GT_REC_SYS_SWITCH: return sizeof(gt_sys_switch_record);
    default: return 0;
  }
}

RecordView::RecordView(const void *data, size_t size) : data_(static_cast<const uint8_t *>(data)), size_(size) {
  if (!data_ || size_ < sizeof(gt_record_header)) return;
  size_t body = RecordBodySize(header().kind);
  if (body == 0 || size_ < body) return;
  uint8_t has_stack = 0;
  if (header().kind == GT_REC_GSTATUS) has_stack = reinterpret_cast<const gt_gstatus_record *>(data_)->has_stack;
  if (header().kind == GT_REC_CALL) has_stack = reinterpret_cast<const gt_call_record *>(data_)->has_stack;
  if (header().kind == GT_REC_USER) has_stack = reinterpret_cast<const gt_user_record *>(data_)->call.has_stack;
  if (header().kind == GT_REC_CPU_SAMPLE) has_stack = 1;  // always carries its (maybe empty) stack
  if (has_stack) {
    if (size_ < body + sizeof(gt_stack_tail)) return;
    auto *t = reinterpret_cast<const gt_stack_tail *>(data_ + body);
    if (t->nframes > GT_MAX_FRAMES || size_ < body + sizeof(gt_stack_tail) + size_t(t->nframes) * 8) return;
    tail_off_ = body;
  }
  valid_ = true;
}

const gt_gstatus_record *RecordView::gstatus() const {
  return valid_ && header().kind == GT_REC_GSTATUS ? reinterpret_cast<const gt_gstatus_record *>(data_) : nullptr;
}
const gt_call_record *RecordView::call() const {
  return valid_ && header().kind == GT_REC_CALL ? reinterpret_cast<const gt_call_record *>(data_) : nullptr;
}
const gt_sched_switch_record *RecordView::sched_switch() const {
  return valid_ && header().kind == GT_REC_SCHED_SWITCH ? reinterpret_cast<const gt_sched_switch_record *>(data_)
                                                        : nullptr;
}
const gt_syscall_record *RecordView::syscall() const {
  const uint16_t k = header().kind;
  return valid_ && (k == GT_REC_SYS_ENTER || k == GT_REC_SYS_EXIT || k == GT_REC_KSYS_ENTER || k == GT_REC_KSYS_EXIT)
             ? reinterpret_cast<const gt_syscall_record *>(data_)
             : nullptr;
}
const gt_task_record *RecordView::task() const {
  uint16_t k = valid_ ? header().kind : 0;
  return (k == GT_REC_TASK_EXIT || k == GT_REC_EXEC || k == GT_REC_TASK_NEW)
             ? reinterpret_cast<const gt_task_record *>(data_)
             : nullptr;
}
const gt_hello_record *RecordView::hello() const {
  return valid_ && header().kind == GT_REC_HELLO ? reinterpret_cast<const gt_hello_record *>(data_) : nullptr;
}
const gt_cpu_sample_record *RecordView::cpu_sample() const {
  return valid_ && header().kind == GT_REC_CPU_SAMPLE ? reinterpret_cast<const gt_cpu_sample_record *>(data_) : nullptr;
}
const gt_sys_switch_record *RecordView::sys_switch() const {
  return valid_ && header().kind == GT_REC_SYS_SWITCH ? reinterpret_cast<const gt_sys_switch_record *>(data_) : nullptr;
}

const gt_sys_sample_record *RecordView::sys_sample() const {
  return valid_ && header().kind == GT_REC_SYS_SAMPLE ? reinterpret_cast<const gt_sys_sample_record *>(data_) : nullptr;
}
const gt_user_record *RecordView::user() const {
  return valid_ && header().kind == GT_REC_USER ? reinterpret_cast<const gt_user_record *>(data_) : nullptr;
}
const gt_go_ctx *RecordView::go_ctx() const {
  if (auto *g = gstatus()) return &g->ctx;
  if (auto *c = call()) return &c->ctx;
  if (auto *u = user()) return &u->call.ctx;
  return nullptr;
}
const gt_stack_tail *RecordView::stack_tail() const {
  return valid_ && tail_off_ ? reinterpret_cast<const gt_stack_tail *>(data_ + tail_off_) : nullptr;
}
std::span<const uint64_t> RecordView::stack() const {
  const gt_stack_tail *t = stack_tail();
  if (!t) return {};
  return {reinterpret_cast<const uint64_t *>(data_ + tail_off_ + sizeof(gt_stack_tail)), t->nframes};
}

namespace {
const char *SourceName(uint8_t s) {
  switch (s) {
    case GT_STACK_REGS: return "regs";
    case GT_STACK_SCHED: return "sched";
    case GT_STACK_SYSCALL: return "syscall";
    case GT_STACK_USER: return "user";
    case GT_STACK_VDSO: return "vdso";
    default: return "none";
  }
}
}  // namespace

std::string RecordView::Describe() const {
  if (!valid_) return fmt::format("invalid record ({} bytes)", size_);
  const auto &h = header();
  std::string out = fmt::format("{}.{:09} tgid={} tid={} cpu={} seq={} {}", h.ts_ns / 1000000000, h.ts_ns % 1000000000,
                                h.tgid, h.tid, h.cpu, h.seq, RecordKindName(h.kind));
  auto ctx_str = [](const gt_go_ctx &c) {
    return fmt::format(" | M{} P{} curg={:#x}(g{}) g={:#x} caller={:#x}", c.m_id, c.p_id, c.curg, c.curg_goid, c.g,
                       c.caller_pc);
  };
  if (auto *g = gstatus()) {
    out += fmt::format(" gp={:#x} goid={} {:#x}->{:#x} wr={} blk={} skip={} parent={} startpc={:#x} spill=[{:#x} {:#x}]",
                       g->gp, g->goid, g->oldval, g->newval, g->waitreason, g->m_block_reason, g->m_trace_skip,
                       g->parent_goid, g->startpc, g->caller_spill[0], g->caller_spill[1]);
    out += ctx_str(g->ctx);
  } else if (auto *c = call()) {
    out += fmt::format(" probe={} flags={:#x} args=[{:#x} {:#x} {:#x}] deref=[{} {} {:#x} {}]", c->probe_id, c->flags,
                       c->args[0], c->args[1], c->args[2], c->deref[0], c->deref[1], c->deref[2], c->deref[3]);
    out += ctx_str(c->ctx);
  } else if (auto *u = user()) {
    auto str = [&](int i) {
      return std::string(reinterpret_cast<const char *>(u->str[i]), std::min<uint32_t>(u->str_len[i], GT_USER_STR_MAX));
    };
    out += fmt::format(" probe={} args=[{:#x} {:#x}] str=[\"{}\" \"{}\"]", u->call.probe_id, u->call.args[0],
                       u->call.args[1], str(0), str(1));
    out += ctx_str(u->call.ctx);
  } else if (auto *s = sched_switch()) {
    if (s->dir == GT_SCHED_OFF)
      out += fmt::format(" off state={} preempt={} throttle={} curg={:#x} next={}/{}", s->prev_state, s->preempt,
                         s->throttle, s->curg, s->other_tgid, s->other_tid);
    else
      out += fmt::format(" on off_ts={} wake_ts={} prev={}/{}", s->off_ts, s->wake_ts, s->other_tgid, s->other_tid);
  } else if (auto *s = syscall()) {
    out += fmt::format(" nr={} {}={}", s->id, h.kind == GT_REC_SYS_EXIT || h.kind == GT_REC_KSYS_EXIT ? "ret" : "arg0", s->ret);
  } else if (auto *t = task()) {
    out += fmt::format(" other_tid={} exit_code={} group_dead={}", t->other_tid, t->exit_code, t->group_dead);
  } else if (auto *cs = cpu_sample()) {
    out += fmt::format(" ip={:#x} sp={:#x} bp={:#x} r14={:#x} sp_words=[{:#x} {:#x}]{}", cs->ip, cs->sp, cs->bp, cs->r14,
                       cs->sp_words[0], cs->sp_words[1], cs->kernel ? " kernel" : "");
  } else if (auto *ss = sys_sample()) {
    out += fmt::format(" nr={} arg0={} g={:#x} goid={} nvcsw={} state={} gstatus={}", ss->nr, ss->arg0, ss->g, ss->goid,
                       ss->nvcsw, ss->state, ss->gstatus);
  } else if (auto *sw = sys_switch()) {
    out += fmt::format(" off_ts={} nr={} arg0={} g={:#x} goid={} prev_state={}", sw->off_ts, sw->nr, sw->arg0, sw->g,
                       sw->goid, sw->prev_state);
  } else if (auto *hl = hello()) {
    out += fmt::format(" value={}", hl->value);
  }
  if (auto *t = stack_tail()) {
    out += fmt::format(" | stack[{} {} flags={:#x}]:", SourceName(t->source), t->nframes, t->flags);
    for (uint64_t pc : stack()) out += fmt::format(" {:#x}", pc);
  }
  return out;
}

}  // namespace gotraced::capture
