// The kernel view's records (bpf/gt_kernel.bpf.h, proto/records.h GT_REC_SCHED_SWITCH) as
// model records: a thread off CPU with its cause, and back on CPU with the instants the
// model needs (docs/kernel-view.md). Nothing of the Go runtime is interpreted here; the
// model decides whether the thread's goroutine was running (model_kernel.cc).
#include "daemon/model/kernel_view.h"
#include "daemon/model/record_decoder.h"

namespace gotraced::model {

void RecordDecoder::DecodeKernelSwitch(const capture::RecordView &v, std::vector<Record> &out) {
  const gt_sched_switch_record *s = v.sched_switch();
  if (s == nullptr) return;
  Record r;
  r.ts = v.ts();
  r.m = v.tid();
  if (s->dir == GT_SCHED_OFF) {
    r.kind = RecordKind::kKernelOff;
    r.reason = KernelOffCause(s->prev_state, s->preempt != 0, s->throttle == 1);
    r.value = s->prev_state;
    r.value2 = s->other_tid;
  } else {
    r.kind = RecordKind::kKernelOn;
    r.value = s->off_ts;
    r.value2 = s->wake_ts;
    // After a throttle: the period boundary (the quota's refill, where the kernel
    // unthrottles) last passed before the switch-in, as the wake-up instant: from there on
    // the thread was runnable again, waiting in the run queue.
    if (s->curg != 0 && s->prev_state != 0) {
      std::uint64_t b = s->curg;
      for (int i = 0; i < 4 && b > r.ts && b >= s->prev_state; ++i) b -= s->prev_state;
      if (b > s->off_ts && b <= r.ts) r.value2 = b;
    }
  }
  Emit(out, std::move(r));
}

}  // namespace gotraced::model
