// The kernel view's records (bpf/gt_kernel.bpf.h, proto/records.h GT_REC_SCHED_SWITCH;
// bpf/gt_kernel_syscall.bpf.h GT_REC_KSYS_*) as model records: a thread off CPU with its cause, and back on CPU with the instants the
// model needs (docs/kernel-view.md). Nothing of the Go runtime is interpreted here; the
// model decides whether the thread's goroutine was running (model_kernel.cc).
#include "daemon/model/kernel_view.h"
#include "daemon/model/record_decoder.h"
#include "daemon/model/syscall_names.h"

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

// Go <= 1.25's goroutine syscalls as the kernel saw them (bpf/gt_kernel_syscall.bpf.h):
// the model pairs them with the syscall the uprobes recorded on the same thread
// (model_kernel_syscall.cc). value = nr + 1 (as a tracepoint GoSyscallBegin's), value2 =
// the first argument / value = the return value.
void RecordDecoder::DecodeKernelSyscall(const capture::RecordView &v, std::vector<Record> &out) {
  const gt_syscall_record *s = v.syscall();
  if (s == nullptr) return;
  Record r;
  r.ts = v.ts();
  r.m = v.tid();
  if (v.kind() == GT_REC_KSYS_ENTER) {
    r.kind = RecordKind::kKernelSyscallEnter;
    r.value = static_cast<std::uint64_t>(s->id) + 1;
    r.value2 = static_cast<std::uint64_t>(s->ret);
    r.text = FdName(s->id, r.value2);
  } else {
    r.kind = RecordKind::kKernelSyscallExit;
    r.value = static_cast<std::uint64_t>(s->ret);
  }
  Emit(out, std::move(r));
}

std::string RecordDecoder::FdName(std::int64_t nr, std::uint64_t arg0) {
  if (cfg_.fd_namer == nullptr || !SyscallTakesFd(nr)) return {};
  const auto fd = static_cast<std::int64_t>(arg0);
  std::string n = cfg_.fd_namer->Name(fd);
  if (SyscallCloses(nr)) cfg_.fd_namer->Forget(fd);
  return n;
}

}  // namespace gotraced::model
