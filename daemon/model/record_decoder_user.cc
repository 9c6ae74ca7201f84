// GT_REC_USER records (bpf/user.bpf.h, sites in daemon/probes/user_sites.cc) -> the
// model's user annotation records. Which Go function each role is, and what its argument
// registers hold, per runtime/trace/annotation.go (unchanged in Go 1.19-1.27) and the
// runtime's trace_user* (runtime/traceruntime.go 1.23+, trace2runtime.go 1.22, trace.go
// before):
//
//   role               function (ABIInternal args)                     -> record
//   kUserTaskCreate    userTaskCreate(id, parentID, taskType)           UserTaskBegin
//   kUserTaskEnd       userTaskEnd(id)                                  UserTaskEnd
//   kUserRegion        userRegion(id, mode, name) mode 0 / 1            UserRegionBegin / End
//   kUserLog           userLog(id, category, message)                   UserLog
//   kUserStartRegion   StartRegion(ctx, regionType)                     see below
//   kUserLogf          Logf(ctx, category, format, args...)             see below
//
// package runtime/trace calls the runtime half for NewTask, (*Task).End, Log and
// WithRegion whether tracing is on or not (the runtime returns at once when it is off:
// "Need to do this check because the caller won't have it"), so those four are exact.
// StartRegion and Logf return before calling the runtime when !IsEnabled(): their entry
// records (which carry the runtime's "tracer on" flag, deref[0..1]) stand in for the
// runtime call only when tracing is off; when it is on, the runtime call that follows
// is the event and the entry record is dropped. Off: StartRegion's region has no end we
// can see ((*Region).End of noopRegion returns at once, and is inlined), so it is written
// as a UserLog with category "trace.StartRegion" and the region type as message; Logf
// is written as a UserLog whose message is the unformatted format string.
//
// Stacks: in-process, trace_userTaskEnd takes tl.stack(2) and the others tl.stack(3):
// [traceLocker.stack, trace_user*, <its caller>] are skipped for the latter, i.e. the
// stack starts at the annotation call in user code. Our walk at the runtime function's
// entry starts with the return address into that caller: skip 1 logical frame (0 for
// userTaskEnd, whose caller (*Task).End stays in the stack; it is inlined into user code,
// and the inline expansion yields it). At StartRegion/Logf's entry the walk already
// starts in user code: skip 0.
#include <algorithm>

#include "daemon/model/record_decoder.h"

namespace gotraced::model {

namespace {

std::string Str(const gt_user_record &u, int i) {
  const std::uint32_t n = std::min<std::uint32_t>(u.str_len[i], GT_USER_STR_MAX);
  return std::string(reinterpret_cast<const char *>(u.str[i]), n);
}

constexpr std::size_t kMaxLiveTasks = 1 << 16;

}  // namespace

// The task of a context.Context that runtime/trace.NewTask returned: a *context.valueCtx
// {Context, key any, val any} whose val is the *Task {id uint64} (annotation.go NewTask:
// context.WithValue(pctx, traceContextKey{}, s)). BPF copied the words; the id counts only
// if it names a task this session saw created and not yet ended (any other context:
// background, 0).
std::uint64_t RecordDecoder::UserTaskOfContext(const gt_user_record &u) const {
  const std::uint64_t id = u.ctx_val0;
  if (id == 0 || u.ctx_words[5] == 0) return 0;
  return user_live_tasks_.count(id) ? id : 0;
}

void RecordDecoder::DecodeUser(const capture::RecordView &v, std::vector<Record> &out) {
  const gt_user_record &u = *v.user();
  const probes::ProbeSite *site = cfg_.plan ? cfg_.plan->site(u.call.probe_id) : nullptr;
  if (site == nullptr) {
    ++stats_.unusable;
    return;
  }
  auto stack = v.stack();
  Record r = Base(v, RecordKind::kUserLog);
  r.stack.assign(stack.begin(), stack.end());
  r.stack_skip = 1;
  r.value = u.call.args[0];
  // deref[1] != 0: deref[0] is the runtime's trace-enabled flag at the hit.
  const bool known = u.call.deref[1] != 0, tracing = u.call.deref[0] != 0;
  switch (site->role) {
    case probes::ProbeRole::kUserTaskCreate:
      r.kind = RecordKind::kUserTaskBegin;
      r.value2 = u.call.args[1];
      r.text = Str(u, 0);
      if (user_live_tasks_.size() < kMaxLiveTasks) user_live_tasks_.insert(r.value);
      break;
    case probes::ProbeRole::kUserTaskEnd:
      r.kind = RecordKind::kUserTaskEnd;
      r.stack_skip = 0;
      user_live_tasks_.erase(r.value);
      break;
    case probes::ProbeRole::kUserRegion:
      // mode: regionStartCode 0, regionEndCode 1; anything else is ignored by the runtime.
      if (u.call.args[1] > 1) {
        ++stats_.ignored;
        return;
      }
      r.kind = u.call.args[1] == 0 ? RecordKind::kUserRegionBegin : RecordKind::kUserRegionEnd;
      r.text = Str(u, 0);
      break;
    case probes::ProbeRole::kUserLog:
      r.text = Str(u, 0);
      r.text2 = Str(u, 1);
      break;
    case probes::ProbeRole::kUserStartRegion:
    case probes::ProbeRole::kUserLogf:
      if (!known || tracing) {
        ++stats_.ignored;  // the runtime call that follows is the event (or: cannot tell)
        return;
      }
      r.value = UserTaskOfContext(u);
      r.stack_skip = 0;
      if (site->role == probes::ProbeRole::kUserStartRegion) {
        r.text = "trace.StartRegion";
        r.text2 = Str(u, 0);
      } else {
        r.text = Str(u, 0);
        r.text2 = Str(u, 1);
      }
      break;
    default:
      ++stats_.ignored;
      return;
  }
  Emit(out, std::move(r));
}

}  // namespace gotraced::model
