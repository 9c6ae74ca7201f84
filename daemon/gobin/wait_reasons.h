// Block reasons: which string the in-process tracer writes for a goroutine that parks,
// given what a probe can see.
//
// How the runtime does it (Go 1.22+, proc.go gopark / traceruntime.go GoPark):
//   gopark(unlockf, lock, reason waitReason, traceReason traceBlockReason, traceskip)
//   stores reason in g.waitreason and traceReason in m.waitTraceBlockReason; park_m then
//   emits GoBlock with the string traceBlockReasonStrings[traceReason]. traceReason is
//   chosen by each gopark CALL SITE, not derived from waitReason. Two more GoBlock sources
//   bypass gopark: preemptPark (traceBlockPreempted) and debugCallWrap
//   (traceBlockDebugCall).
// Go 1.21: same gopark signature, but traceBlockReason values ARE legacy event types
//   (trace.go: traceBlockChanRecv = traceEvGoBlockRecv ...): the legacy trace has no
//   reason string; the event type is the reason.
// Go 1.19/1.20: gopark's 4th argument is the legacy event type itself (traceEv byte,
//   stored in m.waittraceev).
//
// So the exact answer is gopark's 4th argument (ABIInternal register DI at the gopark
// probe; or m.waitTraceBlockReason / m.waittraceev at park_m, see RuntimeLayout) mapped
// through RuntimeLayout::trace_block_reason_strings. When only g.waitreason is known
// (e.g. a goroutine already waiting at attach), TraceBlockForWaitReason gives the reason
// every gopark call site in Go 1.19..1.27 pairs with that waitReason (derived from
// tests/gobin-layouts/gopark_sites.sh over each toolchain; checked by suite 31). Where
// one waitReason is used with one traceReason everywhere (all of them today) the answer
// is exact.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gotraced::gobin {

struct RuntimeLayout;

// "waitReasonChanReceive" -> "traceBlockChanRecv". nullopt for wait reasons that no
// gopark call site uses (GC/STW states set by casGToWaiting*, waitReasonZero,
// waitReasonCoroutine: coroswitch emits GoSwitch, not GoBlock).
std::optional<std::string_view> TraceBlockForWaitReason(std::string_view wait_reason_name);

// The legacy (<= 1.21 trace format) event for a traceBlock name: "traceBlockChanRecv" ->
// "traceEvGoBlockRecv" (per Go 1.21 trace.go, which defines one as the other).
std::optional<std::string_view> LegacyEventForTraceBlock(std::string_view trace_block_name);

struct BlockReason {
  std::string wait_reason;   // "waitReasonChanReceive"
  std::string trace_block;   // "traceBlockChanRecv"
  int64_t trace_block_value = -1;  // this binary's value of that constant (1.21+), else -1
  std::string string;        // what a Go >= 1.22 trace writes: "chan receive" ("" when unknown)
  std::string legacy_event;  // "traceEvGoBlockRecv" (the event a <= 1.21 trace writes)
};

// For g.waitreason == `wait_reason` (this binary's enum value): the block reason, or
// nullopt when the value is not a gopark reason or unknown to the layout.
std::optional<BlockReason> BlockReasonForWaitReason(const RuntimeLayout &l, uint32_t wait_reason);

// For gopark's traceReason argument / m.waitTraceBlockReason (Go >= 1.22): the string.
std::string_view TraceBlockString(const RuntimeLayout &l, uint32_t trace_reason);

}  // namespace gotraced::gobin
