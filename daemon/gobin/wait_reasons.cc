#include "daemon/gobin/wait_reasons.h"

#include <utility>

#include "daemon/gobin/runtime_layout.h"

namespace gotraced::gobin {

namespace {

// waitReason -> traceBlockReason, from the gopark/goparkunlock call sites of Go 1.19,
// 1.21, 1.22, 1.23, 1.26, 1.27 (tests/gobin-layouts/gopark_sites.sh; 1.19 passes legacy
// event types, mapped back through Go 1.21's trace.go equivalences), plus the two
// GoBlock emitters that bypass gopark (proc.go preemptPark, debugcall.go debugCallWrap).
constexpr std::pair<std::string_view, std::string_view> kWaitToBlock[] = {
    // chan.go: nil channels and select{} block forever; panic.go/proc.go main's panicwait.
    {"waitReasonChanSendNilChan", "traceBlockForever"},
    {"waitReasonChanReceiveNilChan", "traceBlockForever"},
    {"waitReasonSelectNoCases", "traceBlockForever"},
    {"waitReasonPanicWait", "traceBlockForever"},
    // chan.go chansend/chanrecv (reason is ChanSend/ChanRecv or their synctest variants).
    {"waitReasonChanSend", "traceBlockChanSend"},
    {"waitReasonSynctestChanSend", "traceBlockChanSend"},
    {"waitReasonChanReceive", "traceBlockChanRecv"},
    {"waitReasonSynctestChanReceive", "traceBlockChanRecv"},
    // select.go selectgo.
    {"waitReasonSelect", "traceBlockSelect"},
    {"waitReasonSynctestSelect", "traceBlockSelect"},
    // sema.go semacquire1 (reason from the caller: sync.Mutex, RWMutex, WaitGroup ...).
    {"waitReasonSemacquire", "traceBlockSync"},
    {"waitReasonSyncMutexLock", "traceBlockSync"},
    {"waitReasonSyncRWMutexRLock", "traceBlockSync"},
    {"waitReasonSyncRWMutexLock", "traceBlockSync"},
    {"waitReasonSyncWaitGroupWait", "traceBlockSync"},
    {"waitReasonSynctestWaitGroupWait", "traceBlockSync"},
    // sema.go notifyListWait (sync.Cond).
    {"waitReasonSyncCondWait", "traceBlockCondWait"},
    // netpoll.go netpollblock.
    {"waitReasonIOWait", "traceBlockNet"},
    // time.go timeSleep; mgcscavenge.go scavenger sleep.
    {"waitReasonSleep", "traceBlockSleep"},
    // mgcmark.go gcParkAssist; mgc.go gcWaitOnMark; mgcsweep.go bgsweep.
    {"waitReasonGCAssistWait", "traceBlockGCMarkAssist"},
    {"waitReasonWaitForGCCycle", "traceBlockUntilGCEnds"},
    {"waitReasonGCSweepWait", "traceBlockGCSweep"},
    // Runtime-owned goroutines parking idle.
    {"waitReasonFinalizerWait", "traceBlockSystemGoroutine"},
    {"waitReasonGCWorkerIdle", "traceBlockSystemGoroutine"},
    {"waitReasonGCScavengeWait", "traceBlockSystemGoroutine"},
    {"waitReasonForceGCIdle", "traceBlockSystemGoroutine"},
    {"waitReasonTraceReaderBlocked", "traceBlockSystemGoroutine"},
    {"waitReasonUpdateGOMAXPROCSIdle", "traceBlockSystemGoroutine"},
    {"waitReasonCleanupWait", "traceBlockSystemGoroutine"},
    // mheap.go getOrAddWeakHandle / internal/weak (1.24+).
    {"waitReasonGCWeakToStrongWait", "traceBlockGCWeakToStrongWait"},
    // synctest.go (1.24+).
    {"waitReasonSynctestRun", "traceBlockSynctest"},
    {"waitReasonSynctestWait", "traceBlockSynctest"},
    // Not gopark: proc.go preemptPark, debugcall.go debugCallWrap.
    {"waitReasonPreempted", "traceBlockPreempted"},
    {"waitReasonDebugCall", "traceBlockDebugCall"},
};

// Go 1.21 trace.go: `traceBlockX = traceEvY`; reasons added later map to traceEvGoBlock.
constexpr std::pair<std::string_view, std::string_view> kBlockToLegacy[] = {
    {"traceBlockGeneric", "traceEvGoBlock"},
    {"traceBlockForever", "traceEvGoStop"},
    {"traceBlockNet", "traceEvGoBlockNet"},
    {"traceBlockSelect", "traceEvGoBlockSelect"},
    {"traceBlockCondWait", "traceEvGoBlockCond"},
    {"traceBlockSync", "traceEvGoBlockSync"},
    {"traceBlockChanSend", "traceEvGoBlockSend"},
    {"traceBlockChanRecv", "traceEvGoBlockRecv"},
    {"traceBlockGCMarkAssist", "traceEvGoBlockGC"},
    {"traceBlockGCSweep", "traceEvGoBlock"},
    {"traceBlockSystemGoroutine", "traceEvGoBlock"},
    {"traceBlockPreempted", "traceEvGoBlock"},
    {"traceBlockDebugCall", "traceEvGoBlock"},
    {"traceBlockUntilGCEnds", "traceEvGoBlock"},
    {"traceBlockSleep", "traceEvGoSleep"},
    // Newer than the legacy tracer: the generic block event, as 1.21 did for every
    // reason without an event of its own.
    {"traceBlockGCWeakToStrongWait", "traceEvGoBlock"},
    {"traceBlockSynctest", "traceEvGoBlock"},
};

}  // namespace

std::optional<std::string_view> TraceBlockForWaitReason(std::string_view wait_reason_name) {
  for (const auto &[w, b] : kWaitToBlock)
    if (w == wait_reason_name) return b;
  return std::nullopt;
}

std::optional<std::string_view> LegacyEventForTraceBlock(std::string_view trace_block_name) {
  for (const auto &[b, e] : kBlockToLegacy)
    if (b == trace_block_name) return e;
  return std::nullopt;
}

std::string_view TraceBlockString(const RuntimeLayout &l, uint32_t trace_reason) {
  if (trace_reason >= l.trace_block_reason_strings.size()) return "";
  return l.trace_block_reason_strings[trace_reason];
}

std::optional<BlockReason> BlockReasonForWaitReason(const RuntimeLayout &l, uint32_t wait_reason) {
  // The constant name for this value (constants are sorted by name, so scan).
  std::string name;
  for (const auto &[k, v] : l.constants)
    if (v == static_cast<int64_t>(wait_reason) && k.starts_with("waitReason")) name = k;
  if (name.empty()) return std::nullopt;
  auto block = TraceBlockForWaitReason(name);
  if (!block) return std::nullopt;
  BlockReason r;
  r.wait_reason = name;
  r.trace_block = std::string(*block);
  if (auto v = l.Constant(r.trace_block)) {
    r.trace_block_value = *v;
    r.string = std::string(TraceBlockString(l, static_cast<uint32_t>(*v)));
  }
  if (auto e = LegacyEventForTraceBlock(r.trace_block)) r.legacy_event = std::string(*e);
  return r;
}

}  // namespace gotraced::gobin
