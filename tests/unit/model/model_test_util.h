// Test scaffolding for the model: a table symbolizer, the record builders of
// record_builders.h, and the judge: Go's own parser through
// tracecheck (tests/unit/common/tracecheck_runner.h).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/model/model.h"
#include "daemon/model/record.h"
#include "encoder/legacy_writer.h"
#include "encoder/sink.h"
#include "encoder/trace_writer.h"
#include "tests/unit/common/tracecheck_runner.h"

// The trace the harness wrote is accepted by Go's parser (tracecheck), or the test stops
// with its errors and the trace's path.
#define EXPECT_ACCEPTED(res) \
  ASSERT_TRUE((res).ok()) << "tracecheck exit " << (res).exit_code << "\n" << (res).errors << "\ntrace: " << (res).path
#include "tests/unit/model/record_builders.h"

namespace gotraced::model::testing {

// pc -> one frame named after the pc. Special pcs (record_builders.h): kGoexitPc ->
// runtime.goexit, kMainPc -> runtime.main, pcs in [kInlinedBase, +0x1000) expand to two
// frames.

class TableSymbolizer final : public Symbolizer {
 public:
  void Expand(std::span<const std::uint64_t> pcs, std::vector<encoder::Frame> &out) override;
  void StartFrame(std::uint64_t start_pc, std::vector<encoder::Frame> &out) override;
  int expand_calls = 0;

 private:
  std::map<std::uint64_t, std::string> names_;
  const std::string &Name(std::uint64_t pc, std::string_view prefix);
};

using testutil::CheckResult;
using testutil::TracecheckPath;
using testutil::TraceEvents;
// tracecheck on bytes written to <ProcessTestDir>/gotraced-model-tests/<name>.trace.
inline CheckResult RunTracecheck(const std::vector<std::uint8_t> &bytes, const std::string &name) {
  return testutil::RunTracecheck(bytes, name, "gotraced-model-tests");
}

// The writer of version v into `sink`: the legacy one for go1.19/go1.21 (then also in
// *legacy, for its goroutines_tracked()), else the v2 one.
std::unique_ptr<encoder::EventWriter> MakeWriter(encoder::Sink &sink, encoder::Version v,
                                                 encoder::LegacyTraceWriter **legacy);

// One model writing into memory.
struct Harness {
  // sparse: the model's capture level "low" mode (model_sparse.cc).
  // labels: the model's LabelSource (model_labels.cc), or none.
  explicit Harness(encoder::Version v = encoder::Version::kGo126, bool sparse = false, LabelSource *labels = nullptr);
  encoder::MemorySink sink;
  encoder::TraceWriter writer;
  TableSymbolizer sym;
  Model model;
  std::uint64_t last_ts = 0;

  void Push(Record r);
  void PushAll(std::vector<Record> rs);
  // Applies everything, closes the writer and runs tracecheck.
  CheckResult Finish(const std::string &name);
};

}  // namespace gotraced::model::testing
