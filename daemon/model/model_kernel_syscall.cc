// The kernel view of goroutine syscalls (docs/kernel-view.md "Syscalls"): a syscall that
// went off CPU, or took 1 ms or more, becomes a region "kernel: syscall <name> <target>"
// on its goroutine (target: what its fd is, FdNamer), plus a log "kernel: syscall" at its
// end with where the time went: on CPU in the kernel, off CPU by cause (model_kernel.cc's
// causes: blocked, sleep, preempted, throttled), the run-queue wait after each wake-up,
// and, when the runtime took the P meanwhile, the wait for a P before the goroutine ran.
//
// Where the events go, as Go's parser requires (internal/trace/order.go):
//   * The region begins just after GoSyscallBegin (t0 + 1 ns), written later: while its
//     thread is in the kernel the M writes nothing, so the M's batch is still at t0.
//     advanceUserRegionBegin's userGoReqs (M, P, G) holds in a syscall
//     (advanceGoSyscallBegin: "still running on this P and M") until a ProcSteal takes the
//     P: so it is written when the P is stolen (before the ProcSteal), else at the end.
//   * GoSyscallEnd (the P kept): the region's end and the log just before it, at t1.
//   * GoSyscallEndBlocked (the P lost): the goroutine has no P until it runs again, so the
//     end and the log come right after its next GoStart, on the M that runs it.
// The syscall's number and first argument (its fd), and its return value (the byte count
// of read, write ...): Go 1.26+'s GoSyscallBegin from the sys_enter tracepoint carries the
// first two (Record::value = nr + 1, value2 = arg0: record_decoder.cc), a
// kKernelSyscallExit the third; Go <= 1.25's syscalls come from uprobes, and the kernel
// view's own sys_enter / sys_exit records (bpf/gt_kernel_syscall.bpf.h) give all three as
// kKernelSyscallEnter / kKernelSyscallExit on the same M (OnKernelSyscall). A syscall
// whose number never came (a cgo call, entersyscallblock's futex) gets no region.
#include <fmt/format.h>

#include "daemon/model/kernel_view.h"
#include "daemon/model/model.h"
#include "daemon/model/syscall_names.h"

namespace gotraced::model {

using encoder::GoStatus;

namespace {
constexpr std::uint64_t kMinSyscallNs = 1'000'000;  // on CPU throughout: a region from 1 ms
// A steal this close to the syscall's entry may be ordered before the region's begin by the
// parser (ticks of 64 ns; and a P taken between reentersyscall and the sys_enter
// tracepoint has its ProcSteal stamped before the GoSyscallBegin, the model applying it
// after): such a syscall gets no region.
constexpr std::uint64_t kStealMargin = 1'000;

std::string Ms(std::uint64_t ns) { return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6); }
}  // namespace

void Model::KernelSyscallBegin(const Record &r, std::uint64_t t0) {
  if (!opt_.kernel_view) return;
  KernelModelState::Syscall s;
  s.g = st_.M(r.m).g;
  s.t0 = t0;
  kernel_.sys[r.m] = std::move(s);
  // Go 1.26+ (the sys_enter tracepoint): the record is the kernel's entry too. Otherwise
  // (uprobes at entersyscall, a cgo call) a kKernelSyscallEnter may follow.
  if (r.value != 0) KernelSyscallNamed(kernel_.sys[r.m], r);
}

// The syscall's number, fd and the fd's name (the decoder's, kernel_view.h FdNamer) from
// its entry record: value = nr + 1, value2 = the first argument, text = the name.
void Model::KernelSyscallNamed(KernelModelState::Syscall &s, const Record &r) {
  s.nr = static_cast<std::int64_t>(r.value) - 1;
  s.fd = SyscallTakesFd(s.nr) ? static_cast<std::int64_t>(r.value2) : -1;
  if (s.fd >= 0) s.target = r.text.empty() ? fmt::format("fd {}", s.fd) : r.text.str();
}

// Go <= 1.25 (bpf/gt_kernel_syscall.bpf.h): the kernel's entry and exit of the syscall the
// uprobes' GoSyscallBegin opened on this M, matched by thread and time (the entry after
// the GoSyscallBegin, the first one only: a restarted syscall enters again; the exit
// before its end, the last one). Go 1.26+: the exit's return value.
void Model::OnKernelSyscall(const Record &r) {
  auto it = kernel_.sys.find(r.m);
  if (it == kernel_.sys.end() || r.ts < it->second.t0) return;
  KernelModelState::Syscall &s = it->second;
  if (r.kind == RecordKind::kKernelSyscallEnter) {
    if (s.nr < 0 && s.type.empty()) KernelSyscallNamed(s, r);
    return;
  }
  s.have_ret = true;
  s.ret = static_cast<std::int64_t>(r.value);
}

// The steal of a syscall's P (sysmon's retake after 20 us or more, or a STW): the region
// begins now, before the ProcSteal is written, while the M still holds the P in the
// parser's view; its end comes when the goroutine runs again (the P is gone).
void Model::KernelProcSteal(ThreadId victim, std::uint64_t ts) {
  auto it = kernel_.sys.find(victim);
  if (it == kernel_.sys.end() || it->second.steal_ts != 0) return;
  it->second.steal_ts = ts;
  if (ts < it->second.t0 + kStealMargin) return;
  // The legacy formats: Go 1.22+'s reader of them (internal/trace/tracev1.go) decides that
  // a GoSysCall blocked when the goroutine's next event is GoSysBlock; a region begun in
  // between would make it an instant syscall, and the GoSysExit after it an error. Such a
  // syscall gets only its log (KernelSyscallEnd).
  if (encoder::IsLegacy(w_.version())) return;
  KernelSyscallRegionBegin(victim, it->second);
}

// Writes the region's begin at t0 + 1 ns on the M, if the M's batch is still at the
// syscall's entry (its thread has been in the kernel since) and the goroutine is in the
// syscall on it with its P, in this generation.
bool Model::KernelSyscallRegionBegin(ThreadId m, KernelModelState::Syscall &s) {
  if (!s.type.empty()) return true;
  if (s.nr < 0) return false;  // no kernel entry seen (a cgo call, runtime.futex, a lost record)
  const MState &ms = st_.M(m);
  const GoState *gs = st_.G(s.g);
  if (ms.g != s.g || ms.p < 0 || gs == nullptr || gs->status != GoStatus::kSyscall || gs->m != m ||
      ms.last_ts > s.t0 || s.t0 < gen_start_ts_)
    return false;
  s.type = fmt::format("{}syscall {}{}{}", kKernelRegionPrefix, SyscallName(s.nr), s.target.empty() ? "" : " ",
                       s.target);
  user_.regions[s.g].emplace_back(0, s.type);
  Count(w_.UserRegionBegin(m, Ts(m, s.t0 + 1), 0, s.type, encoder::kNoStack));
  ++stats_.kernel_regions;
  return true;
}

// One off-CPU interval of a thread in a syscall (model_kernel.cc OnKernel).
bool Model::KernelSyscallOffCpu(ThreadId m, std::string_view cause, std::uint64_t off, std::uint64_t on,
                                std::uint64_t wake) {
  auto it = kernel_.sys.find(m);
  if (it == kernel_.sys.end() || off < it->second.t0) return false;
  KernelModelState::Syscall &s = it->second;
  std::uint64_t until = on;
  if (KernelCauseSleeps(cause) && wake > off && wake < on) {
    s.runq_ns += on - wake;
    until = wake;
  }
  s.off_ns[std::string(cause)] += until - off;
  s.off_total += on - off;
  return true;
}

std::string Model::KernelSyscallMessage(const KernelModelState::Syscall &s, std::uint64_t t1,
                                        std::uint64_t resumed) const {
  const std::uint64_t total = t1 - s.t0;
  // "read pipe: 300.649 ms, 4096 bytes: on CPU ...": a successful byte-moving syscall's
  // return value is its byte count; a failure says its errno.
  std::string moved;
  if (s.have_ret && s.ret < 0 && s.ret >= -4095) moved = fmt::format(", error {}", -s.ret);
  else if (s.have_ret && SyscallMovesBytes(s.nr)) moved = fmt::format(", {} bytes", s.ret);
  std::string m = fmt::format("{}{}{}: {}{}: on CPU {}", SyscallName(s.nr), s.target.empty() ? "" : " ", s.target,
                              Ms(total), moved, Ms(total > s.off_total ? total - s.off_total : 0));
  for (const auto &[cause, ns] : s.off_ns) m += fmt::format(", {} {}", cause.substr(kKernelRegionPrefix.size()), Ms(ns));
  if (s.runq_ns) m += fmt::format(", {} {}", kKernelRunQueue.substr(kKernelRegionPrefix.size()), Ms(s.runq_ns));
  if (resumed > t1 + 1000) m += fmt::format(", then waiting for a P {}", Ms(resumed - t1));
  return m;
}

void Model::KernelSyscallEnd(const Record &r, bool lost_p) {
  auto it = kernel_.sys.find(r.m);
  if (it == kernel_.sys.end()) return;
  KernelModelState::Syscall s = std::move(it->second);
  kernel_.sys.erase(it);
  s.t1 = std::max(r.ts, s.t0);
  const bool worth = s.off_total != 0 || s.t1 - s.t0 >= kMinSyscallNs;
  if (encoder::IsLegacy(w_.version())) {
    // The legacy formats (KernelProcSteal): the syscall's log alone. A region could not
    // begin in the syscall, and the legacy writer holds a goroutine's events while it is
    // in one until it returns (legacy_writer.cc HoldInSyscall), which would make the
    // region an instant; the log says how long the syscall took. Written at once for a
    // syscall that kept its P (the writer places it at the return), after the goroutine's
    // next GoStart for one that lost it.
    if (!worth || s.nr < 0 || (s.steal_ts != 0 && !lost_p)) return;
    s.log_only = true;
    if (lost_p) kernel_.resume[s.g] = std::move(s);
    else KernelSyscallClose(r.m, s, s.t1);
    return;
  }
  if (s.type.empty()) {
    // Not begun at a steal: a syscall that kept its P. Worth a region when it went off
    // CPU or took kMinSyscallNs.
    if (lost_p || s.steal_ts != 0 || !worth) return;
    if (!KernelSyscallRegionBegin(r.m, s)) return;
  }
  if (lost_p) {
    kernel_.resume[s.g] = std::move(s);
    return;
  }
  KernelSyscallClose(r.m, s, s.t1);
}

void Model::KernelSyscallClose(ThreadId m, const KernelModelState::Syscall &s, std::uint64_t at) {
  if (s.log_only) {
    Count(w_.UserLog(m, Ts(m, at), 0, std::string(kKernelSyscallLog), KernelSyscallMessage(s, s.t1, at),
                     encoder::kNoStack));
    return;
  }
  auto it = user_.regions.find(s.g);
  if (it == user_.regions.end() || it->second.empty() || it->second.back().first != 0 ||
      it->second.back().second != s.type)
    return;
  it->second.pop_back();
  const std::uint64_t ts = Ts(m, at);
  Count(w_.UserRegionEnd(m, ts, 0, s.type, encoder::kNoStack));
  Count(w_.UserLog(m, ts, 0, std::string(kKernelSyscallLog), KernelSyscallMessage(s, s.t1, at), encoder::kNoStack));
}

void Model::KernelGoStart(ThreadId m, Goid g) {
  if (kernel_.resume.empty()) return;
  auto it = kernel_.resume.find(g);
  if (it == kernel_.resume.end()) return;
  KernelModelState::Syscall s = std::move(it->second);
  kernel_.resume.erase(it);
  KernelSyscallClose(m, s, st_.M(m).last_ts);
}

}  // namespace gotraced::model
