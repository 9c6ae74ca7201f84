// GT_REC_CPU_SAMPLE -> model::Record (kCPUSample). See cpu_sample.h.
#include "daemon/model/cpu_sample.h"

namespace gotraced::model {

namespace {

// The leaf's return address when the frame-pointer chain does not have it. On amd64 Go
// keeps frame pointers (cmd/internal/obj/x86 preprocess: PUSHQ BP; MOVQ SP, BP after the
// stack check, ADDQ/POPQ BP before RET), but a function with no frame (a leaf without
// locals: no BP set-up at all) and any function in its prologue or at its RET runs with
// RBP still pointing at its CALLER's frame, so the chain [ip, [bp+8], ...] misses the
// caller. The runtime's unwinder uses pcsp instead (runtime/traceback.go
// unwinder.resolveInternal: frame.fp = sp + funcspdelta(f, pc)); so do we, for the leaf:
//   spdelta == 0: return address at [sp]      (entry, frameless leaf, at RET)
//   spdelta == 8 and bp != sp: at [sp + 8]    (after PUSHQ BP, before MOVQ SP, BP)
// Otherwise (bp == sp + spdelta - 8: the function's own frame) the chain is complete.
std::uint64_t MissingCaller(const gt_cpu_sample_record &s, std::optional<std::int32_t> spdelta) {
  if (!spdelta) return 0;
  if (*spdelta == 0) return s.sp_words[0];
  if (*spdelta == 8 && s.bp != s.sp) return s.sp_words[1];
  return 0;
}

// The stack of a sample taken outside Go code: pcs as walked. For a VDSO call, pcs[0] is
// the return address below m.vdsoSP, which is m.vdsoPC when the function that called the
// VDSO has its frame record where the walk assumed (every such function in
// sys_linux_amd64.s / time_linux_amd64.s of 1.19-1.27 has a frame); when it is not, the
// chain from there is not trusted and the stack is m.vdsoPC alone.
void AppendExternalStack(const gt_stack_tail &t, std::span<const std::uint64_t> pcs, std::vector<std::uint64_t> &out) {
  if (t.source == GT_STACK_VDSO && (pcs.empty() || pcs[0] != t.sched_sp_word)) {
    if (t.sched_sp_word != 0) out.push_back(t.sched_sp_word);
    return;
  }
  for (std::uint64_t pc : pcs) {
    if (pc == 0) break;
    out.push_back(pc);
  }
}

}  // namespace

void DecodeCpuSample(const capture::RecordView &v, const DecoderConfig &cfg, std::vector<Record> &out) {
  const gt_cpu_sample_record *s = v.cpu_sample();
  if (s == nullptr) return;
  Record r;
  r.kind = RecordKind::kCPUSample;
  r.ts = s->h.ts_ns;
  r.m = s->h.tid;  // the trace's M id is the thread id (runtime/tracecpu.go traceCPUSample: mp.procid)
  // P and G are the model's (Model::OnCPUSample): the runtime reports m.p and m.curg
  // (runtime/proc.go sigprof: gprof = gp.m.curg, pp = gp.m.p), which the model tracks
  // per M from the scheduling records.
  r.p = kUnknownP;
  r.g = kUnknownG;
  if (cfg.sparse) {
    // Capture level "low": no scheduling records, so the sample's own reading of m.curg
    // and m.p (bpf/gt_cpu.bpf.h) is all there is (Model::OnCPUSample in sparse mode).
    r.p = s->p_id >= 0 ? s->p_id : kNoP;
    r.g = s->curg_goid;
  }
  r.flag = cfg.go_minor < 26;  // runtime/proc.go (1.22, 1.23) reentersyscall: gp.m.p = 0
  // The runtime's sample stack is a logical one (sigprof -> tracebackPCs: inline-expanded
  // frames, each as a "return PC" = pc + 1; the interrupted instruction itself as pc + 1,
  // runtime/traceback.go tracebackPCs). Ours is physical: pcs[0] is the interrupted
  // instruction, the rest return addresses. Writing pcs[0] + 1 makes every entry a return
  // PC, so the stack builder's expansion (callPC = retPC - 1) finds the instruction.
  // The sampled goroutine's pprof label set (bpf/gt_cpu.bpf.h: m.curg's g.labels), just
  // before the sample: work that sets a set and drops it without blocking, yielding or a
  // syscall in between is seen only here (model_labels.cc OnGoLabels: said when it
  // differs from the goroutine's last one, on the goroutine the model has running on this
  // M, which must be the one BPF read).
  if (!cfg.sparse && cfg.plan != nullptr && cfg.plan->offsets.g_labels >= 0 && s->curg_goid != 0) {
    Record l;
    l.kind = RecordKind::kGoLabels;
    l.ts = r.ts;
    l.m = r.m;
    l.g = s->curg_goid;
    l.target_g = s->curg_goid;  // from a sample (model_labels.cc OnGoLabels)
    l.value = s->labels;
    l.value2 = LabelsId(cfg.go_minor, s->labels, s->labels_id);
    l.flag = true;
    out.push_back(std::move(l));
  }
  std::span<const std::uint64_t> pcs = v.stack();
  r.stack.reserve(pcs.size() + 1);
  const gt_stack_tail *t = v.stack_tail();
  if (t != nullptr && (t->source == GT_STACK_SYSCALL || t->source == GT_STACK_VDSO)) {
    // Outside Go code (bpf/gotrace_cpu.bpf.h cpu_ext_start): the walk sigprof does from
    // curg.syscallpc (cgo call) or m.vdsoPC (VDSO call). Those are return addresses and
    // the runtime writes them as such (traceback.go tracebackPCs: symPC = pc - 1 without
    // unwindTrap, written + 1), so every entry goes in as it is, no leaf fix-up.
    AppendExternalStack(*t, pcs, r.stack);
    r.value = s->r14;
    out.push_back(std::move(r));
    return;
  }
  for (std::size_t i = 0; i < pcs.size(); ++i) {
    if (pcs[i] == 0) break;
    r.stack.push_back(i == 0 ? pcs[i] + 1 : pcs[i]);
    if (i == 0 && cfg.sp_delta)
      if (std::uint64_t ret = MissingCaller(*s, cfg.sp_delta(pcs[0]))) r.stack.push_back(ret);
  }
  r.value = s->r14;
  out.push_back(std::move(r));
}

}  // namespace gotraced::model
