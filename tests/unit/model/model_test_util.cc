#include "tests/unit/model/model_test_util.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace gotraced::model::testing {

const std::string &TableSymbolizer::Name(std::uint64_t pc, std::string_view prefix) {
  auto it = names_.find(pc);
  if (it != names_.end()) return it->second;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*s_%llx", static_cast<int>(prefix.size()), prefix.data(),
                static_cast<unsigned long long>(pc));
  return names_.emplace(pc, buf).first->second;
}

void TableSymbolizer::Expand(std::span<const std::uint64_t> pcs, std::vector<encoder::Frame> &out) {
  ++expand_calls;
  static const std::string kFile = "/src/app/main.go";
  for (std::uint64_t pc : pcs) {
    if (pc == kGoexitPc) {
      out.push_back({pc - 1, "runtime.goexit", "/usr/local/go/src/runtime/asm_amd64.s", 1700});
    } else if (pc == kMainPc) {
      out.push_back({pc - 1, "runtime.main", "/usr/local/go/src/runtime/proc.go", 283});
    } else if (pc >= kInlinedBase && pc < kInlinedBase + 0x1000) {
      // Inlined callee first (leaf first), then its physical function; distinct pcs.
      out.push_back({pc - 1, Name(pc, "main.inlined"), kFile, pc % 1000});
      out.push_back({pc + 0x100000, Name(pc + 0x100000, "main.outer"), kFile, pc % 1000 + 1});
    } else {
      out.push_back({pc - 1, Name(pc, "main.f"), kFile, pc % 1000});
    }
  }
}

void TableSymbolizer::StartFrame(std::uint64_t start_pc, std::vector<encoder::Frame> &out) {
  out.push_back({start_pc, Name(start_pc, "main.start"), "/src/app/main.go", start_pc % 1000});
}

static ModelOptions TestModelOptions(bool sparse, LabelSource *labels) {
  ModelOptions o;
  o.sparse = sparse;
  o.labels = labels;
  if (std::getenv("GOTRACED_MODEL_DEBUG")) o.on_repair = [](const std::string &s) { std::cerr << "repair: " << s << "\n"; };
  return o;
}

Harness::Harness(encoder::Version v, bool sparse, LabelSource *labels)
    : writer(sink, encoder::WriterOptions{.version = v, .tick_divisor = 1}),
      model(writer, &sym, TestModelOptions(sparse, labels)) {}

void Harness::Push(Record r) {
  last_ts = std::max(last_ts, r.ts);
  model.Push(std::move(r));
}

void Harness::PushAll(std::vector<Record> rs) {
  for (auto &r : rs) Push(std::move(r));
}

CheckResult Harness::Finish(const std::string &name) {
  model.Finish(last_ts + 1);
  writer.Close();
  return RunTracecheck(sink.bytes(), name);
}

std::unique_ptr<encoder::EventWriter> MakeWriter(encoder::Sink &sink, encoder::Version v,
                                                 encoder::LegacyTraceWriter **legacy) {
  *legacy = nullptr;
  if (!encoder::IsLegacy(v))
    return std::make_unique<encoder::TraceWriter>(sink, encoder::WriterOptions{.version = v, .tick_divisor = 1});
  auto lw = std::make_unique<encoder::LegacyTraceWriter>(sink, encoder::LegacyWriterOptions{.version = v, .tick_divisor = 1});
  *legacy = lw.get();
  return lw;
}

}  // namespace gotraced::model::testing
