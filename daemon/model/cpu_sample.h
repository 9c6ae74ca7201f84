// CPU samples (gotraced --cpu-hz): the decoding of a GT_REC_CPU_SAMPLE capture record
// into a model::Record of kind kCPUSample. The model's half (which M, P and goroutine
// the sample belongs to, and the CPUSample event) is Model::OnCPUSample, model_cpu.cc.
#pragma once

#include <vector>

#include "daemon/capture/record_view.h"
#include "daemon/model/record.h"
#include "daemon/model/record_decoder.h"

namespace gotraced::model {

// Appends one kCPUSample record for a GT_REC_CPU_SAMPLE view (nothing for other kinds).
// From `cfg`: go_minor (before 1.26 reentersyscall clears m.p, so a sample of a thread in
// a syscall carries no P: flag = true says so) and sp_delta (the leaf's caller).
void DecodeCpuSample(const capture::RecordView &v, const DecoderConfig &cfg, std::vector<Record> &out);

}  // namespace gotraced::model
