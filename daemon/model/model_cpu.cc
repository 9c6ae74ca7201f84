// CPU samples: Model::OnCPUSample writes one CPUSample event per kCPUSample record
// (cpu_sample.h), the way the runtime's profiler writes them into the trace.
//
// In-process (Go 1.22-1.27; runtime/tracecpu.go, trace2cpu.go in 1.22): the SIGPROF
// handler (runtime/proc.go sigprof) calls traceCPUSample(gp.m.curg or gp, gp.m, gp.m.p,
// stk), which logs [time, p.id<<1|hasP, goid, m.procid] + the logical stack into a
// profBuf; the trace's CPU-sample reader goroutine (traceReadCPU) writes them as
// EvCPUSample{time, m, p, g, stack} into the generation's special CPU-sample batches,
// with absolute timestamps. The parser (internal/trace/generation.go addCPUSamples)
// validates nothing about the sample's M, P or G against the scheduler state; it only
// needs the stack id in that generation's table and merges samples with the events by
// time (reader.go). So the sample goes into the generation that is open when the record
// is applied, which is the one whose time range holds it (records are applied in time
// order, generations cut at watermarks).
//
// M = the sampled thread. P and G: what the M holds in the model's state at the
// sample's time (records of one M are applied in that M's order, the sample among them),
// which is what the runtime reads from m.p / m.curg: no goroutine when the M runs the
// scheduler on g0 (the runtime then reports g0's goid, 0 = none), the goroutine of a
// syscall while it is in the kernel (m.curg stays set), and before Go 1.26 no P during a
// syscall (reentersyscall clears m.p; 1.26 keeps it). Samples of threads the runtime
// does not profile (sysmon) were left out by the decoder (cpu_sample_decoder.cc).
#include <algorithm>

#include "daemon/model/model.h"

namespace gotraced::model {

void Model::OnCPUSample(const Record &r) {
  ProcId p = kNoP;
  Goid g = kNoG;
  auto it = st_.ms.find(r.m);
  if (opt_.sparse) {
    // No scheduling records: the sample's own m.curg / m.p as BPF read them
    // (bpf/gt_cpu.bpf.h), what sigprof reports.
    if (r.g != kUnknownG) g = r.g;
    if (r.p != kUnknownP) p = r.p;
  } else if (it != st_.ms.end()) {
    p = it->second.p;
    g = it->second.g;
  }
  if (r.flag && g != kNoG) {
    const GoState *gs = st_.G(g);
    if (gs != nullptr && gs->status == encoder::GoStatus::kSyscall) p = kNoP;
  }
  const encoder::StackId stack = stacks_.BuildLogical(r.stack);
  if (stack == encoder::kNoStack) {
    // The runtime always writes a stack (sigprof falls back to _System/_ExternalCode);
    // a sample whose user stack could not be read is not worth a frameless event.
    ++stats_.cpu_samples_dropped;
    return;
  }
  const auto status = w_.CPUSample(r.ts, static_cast<encoder::MId>(r.m),
                                   p >= 0 ? static_cast<encoder::PId>(p) : encoder::kNoProc,
                                   static_cast<encoder::GId>(g), stack);
  if (status == encoder::EmitStatus::kOk)
    ++stats_.cpu_samples;
  else
    ++stats_.writer_dropped;
}

}  // namespace gotraced::model
