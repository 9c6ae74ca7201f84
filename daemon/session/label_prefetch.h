// LabelPrefetch: reads each pprof label set a record names as the record comes off the BPF
// ring (capture::ConsumerOptions::on_read), before the reorder buffer, the decoder and the
// model (issue 34). A set lives until its goroutine drops it and a GC cycle frees it; read
// when the model asks (the drain interval, up to 64 ms, plus the reorder and model slacks
// after the record), go1.19 at 3,000 requests/s found 57% of them reused already and
// dropped them (procmem/label_reader.h). The reader keeps each answer for the model.
//
// Which raw records name a set (the decoder's Record::value / value2 of the same records:
// record_decoder.cc, record_decoder_syscall.cc, cpu_sample_decoder.cc, with LabelsId):
//   GSTATUS        gs.labels (BPF fills it at the transitions that read g.labels)
//   CALL           args[5] of a syscall entry from the sys_enter tracepoint
//   CPU_SAMPLE     labels of the sampled goroutine
// and the end of a GC cycle (CALL of the kGCDone site, gcMarkTermination): freed sets may
// be reused from then on, so the reader starts a new epoch (ForgetAtDrain) in ring order,
// before the records after it are read.
#pragma once

#include "daemon/capture/record_view.h"
#include "daemon/procmem/label_reader.h"
#include "daemon/probes/probe_plan.h"

namespace gotraced::session {

class LabelPrefetch {
 public:
  // All three must outlive it.
  LabelPrefetch(procmem::LabelReader &reader, const probes::ProbePlan &plan, int go_minor)
      : reader_(reader), plan_(plan), go_minor_(go_minor) {}
  // One record as it comes off the ring (any kind; most name no set).
  void OnRead(const capture::RecordView &v);

 private:
  void Named(std::uint64_t ptr, const gt_labels_id &id, std::uint64_t ts);
  procmem::LabelReader &reader_;
  const probes::ProbePlan &plan_;
  int go_minor_;
};

}  // namespace gotraced::session
