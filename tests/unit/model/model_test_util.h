// Test scaffolding for the model: a table symbolizer, record builders (a small DSL so a
// test reads like the situation it checks), and the judge: Go's own parser through
// tracecheck ($GOTRACED_BUILD/tools/tracecheck, built on demand by
// scripts/build-tools.sh).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/model/model.h"
#include "daemon/model/record.h"
#include "encoder/sink.h"
#include "encoder/trace_writer.h"

namespace gotraced::model::testing {

// pc -> one frame named after the pc. Special pcs: kGoexitPc -> runtime.goexit,
// kMainPc -> runtime.main, pcs in [kInlinedBase, +0x1000) expand to two frames.
inline constexpr std::uint64_t kGoexitPc = 0x401000;
inline constexpr std::uint64_t kMainPc = 0x402000;
inline constexpr std::uint64_t kInlinedBase = 0x500000;

class TableSymbolizer final : public Symbolizer {
 public:
  void Expand(std::span<const std::uint64_t> pcs, std::vector<encoder::Frame> &out) override;
  void StartFrame(std::uint64_t start_pc, std::vector<encoder::Frame> &out) override;
  int expand_calls = 0;

 private:
  std::map<std::uint64_t, std::string> names_;
  const std::string &Name(std::uint64_t pc, std::string_view prefix);
};

// Record builders. m = thread id, p = P the M holds (kNoP none), g = current goroutine.
Record RProcStart(std::uint64_t ts, ThreadId m, ProcId p);
Record RProcStop(std::uint64_t ts, ThreadId m, ProcId p);
Record RProcSteal(std::uint64_t ts, ThreadId m, ProcId p, ThreadId victim);
Record RProcsChange(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::uint64_t procs);
Record RGoCreate(std::uint64_t ts, ThreadId m, ProcId p, Goid g, Goid newg, bool blocked = false);
Record RGoStart(std::uint64_t ts, ThreadId m, ProcId p, Goid g);
Record RGoBlock(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::string_view reason = "chan receive");
Record RGoStop(std::uint64_t ts, ThreadId m, ProcId p, Goid g, std::string_view reason = "runtime.Gosched");
Record RGoEnd(std::uint64_t ts, ThreadId m, ProcId p, Goid g);
Record RGoUnblock(std::uint64_t ts, ThreadId m, ProcId p, Goid g, Goid target);
Record RSyscall(std::uint64_t ts, ThreadId m, ProcId p, Goid g);
Record RSyscallEnd(std::uint64_t ts, ThreadId m, ProcId p, Goid g);
Record RSyscallEndBlocked(std::uint64_t ts, ThreadId m, ProcId p, Goid g);
Record RGoSwitch(std::uint64_t ts, ThreadId m, ProcId p, Goid g, Goid next, bool destroy = false);

struct CheckResult {
  int exit_code = -1;
  std::string json;    // stdout
  std::string errors;  // stderr
  std::string path;    // where the trace was written
  bool ok() const { return exit_code == 0; }
  // Integer at a top-level key, or inside a top-level object: Int("creates"),
  // Int("block_reasons", "chan receive"). -1 when absent.
  long Int(std::string_view key, std::string_view sub = {}) const;
};

// Path to tracecheck; builds it once if missing. Empty (with a message on stderr) if it
// cannot be had.
std::string TracecheckPath();
CheckResult RunTracecheck(const std::vector<std::uint8_t> &bytes, const std::string &name);

// One model writing into memory.
struct Harness {
  explicit Harness(encoder::Version v = encoder::Version::kGo126);
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
