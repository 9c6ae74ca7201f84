// See label_prefetch.h.
#include "daemon/session/label_prefetch.h"

#include "daemon/model/record_decoder.h"

namespace gotraced::session {

void LabelPrefetch::Named(std::uint64_t ptr, const gt_labels_id &id, std::uint64_t ts) {
  if (ptr == 0) return;  // no set: nothing to read
  reader_.Prefetch(ptr, model::LabelsId(go_minor_, ptr, id), ts);
}

void LabelPrefetch::OnRead(const capture::RecordView &v) {
  if (plan_.offsets.g_labels < 0) return;  // g.labels is not read (the decoder says nothing either)
  switch (v.header().kind) {
    case GT_REC_GSTATUS: {
      const gt_gstatus_record &gs = *v.gstatus();
      Named(gs.labels, gs.labels_id, v.ts());
      return;
    }
    case GT_REC_CALL: {
      const gt_call_record &c = *v.call();
      const probes::ProbeSite *site = plan_.site(c.probe_id);
      if (site == nullptr) return;
      if (site->role == probes::ProbeRole::kGCDone) {
        reader_.ForgetAtDrain();
      } else if (site->role == probes::ProbeRole::kEnterSyscall && (c.flags & GT_CALL_FROM_TRACEPOINT)) {
        Named(c.args[5], c.labels_id, v.ts());
      }
      return;
    }
    case GT_REC_CPU_SAMPLE: {
      const gt_cpu_sample_record &s = *v.cpu_sample();
      if (s.curg_goid != 0) Named(s.labels, s.labels_id, v.ts());
      return;
    }
    default: return;
  }
}

}  // namespace gotraced::session
