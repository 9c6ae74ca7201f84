// CPU samples: DecodeCpuSample (daemon/model/cpu_sample_decoder.cc) and
// Model::OnCPUSample (daemon/model/model_cpu.cc).
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <vector>

#include "daemon/capture/record_view.h"
#include "daemon/model/cpu_sample.h"
#include "encoder/trace_decoder.h"
#include "tests/unit/model/model_test_util.h"

namespace gotraced::model {
namespace {

using testing::Harness;

// A GT_REC_CPU_SAMPLE as the BPF program writes it: body, stack tail, pcs.
std::vector<std::uint8_t> SampleBytes(std::uint64_t ip, std::uint64_t sp, std::uint64_t bp,
                                      std::vector<std::uint64_t> chain, std::uint64_t w0, std::uint64_t w1) {
  gt_cpu_sample_record r{};
  r.h.ts_ns = 1000;
  r.h.tid = 42;
  r.h.kind = GT_REC_CPU_SAMPLE;
  r.ip = ip;
  r.sp = sp;
  r.bp = bp;
  r.sp_words[0] = w0;
  r.sp_words[1] = w1;
  std::vector<std::uint64_t> pcs{ip};
  pcs.insert(pcs.end(), chain.begin(), chain.end());
  gt_stack_tail t{};
  t.nframes = static_cast<std::uint16_t>(pcs.size());
  t.source = GT_STACK_USER;
  std::vector<std::uint8_t> b(sizeof(r) + sizeof(t) + pcs.size() * 8);
  std::memcpy(b.data(), &r, sizeof(r));
  std::memcpy(b.data() + sizeof(r), &t, sizeof(t));
  std::memcpy(b.data() + sizeof(r) + sizeof(t), pcs.data(), pcs.size() * 8);
  return b;
}

// A sample the BPF program took outside Go code (bpf/gotrace_cpu.bpf.h cpu_ext_start):
// the tail's source says where the walk started; pcs are return addresses throughout.
std::vector<std::uint8_t> ExternalSampleBytes(std::uint8_t source, std::vector<std::uint64_t> pcs,
                                              std::uint64_t vdso_pc) {
  auto b = SampleBytes(0x9000, 0x7000, 0x7100, {}, 0, 0);  // ip in C/VDSO code, no chain
  gt_stack_tail t{};
  t.nframes = static_cast<std::uint16_t>(pcs.size());
  t.source = source;
  t.sched_sp_word = vdso_pc;
  b.resize(sizeof(gt_cpu_sample_record) + sizeof(t) + pcs.size() * 8);
  std::memcpy(b.data() + sizeof(gt_cpu_sample_record), &t, sizeof(t));
  std::memcpy(b.data() + sizeof(gt_cpu_sample_record) + sizeof(t), pcs.data(), pcs.size() * 8);
  return b;
}

std::vector<std::uint64_t> Decode(const std::vector<std::uint8_t> &b, std::optional<std::int32_t> spdelta,
                                  int go_minor = 26, Record *rec = nullptr) {
  capture::RecordView v(b.data(), b.size());
  EXPECT_TRUE(v.valid());
  DecoderConfig cfg;
  cfg.go_minor = go_minor;
  cfg.sp_delta = [spdelta](std::uint64_t) { return spdelta; };
  std::vector<Record> out;
  DecodeCpuSample(v, cfg, out);
  EXPECT_EQ(out.size(), 1u);
  if (out.empty()) return {};
  if (rec) *rec = out[0];
  return out[0].stack;
}

TEST(CpuSampleDecode, LeafWithFrameKeepsTheChain) {
  // bp == sp + spdelta - 8: the leaf's own frame, [bp+8] is its caller.
  auto b = SampleBytes(0x1000, 0x7000, 0x7000 + 0x20 - 8, {0x2005, 0x3005}, 0xdead, 0xbeef);
  Record r;
  EXPECT_EQ(Decode(b, 0x20, 26, &r), (std::vector<std::uint64_t>{0x1001, 0x2005, 0x3005}));
  EXPECT_EQ(r.kind, RecordKind::kCPUSample);
  EXPECT_EQ(r.m, 42u);
  EXPECT_EQ(r.ts, 1000u);
  EXPECT_FALSE(r.flag);  // 1.26 keeps m.p in a syscall
}

TEST(CpuSampleDecode, FramelessLeafGetsItsCallerFromSp) {
  // spdelta 0 (a leaf without a frame, or at entry / RET): RBP is the caller's frame, the
  // return address into the caller is at [sp].
  auto b = SampleBytes(0x1000, 0x7000, 0x7100, {0x3005}, 0x2005, 0xbeef);
  EXPECT_EQ(Decode(b, 0), (std::vector<std::uint64_t>{0x1001, 0x2005, 0x3005}));
}

TEST(CpuSampleDecode, AfterPushBpTheCallerIsAtSpPlus8) {
  auto pushed = SampleBytes(0x1000, 0x7000, 0x7100, {0x3005}, 0x7100, 0x2005);
  EXPECT_EQ(Decode(pushed, 8), (std::vector<std::uint64_t>{0x1001, 0x2005, 0x3005}));
  // MOVQ SP, BP done (or POPQ BP pending in the epilogue): bp == sp, the chain is whole.
  auto framed = SampleBytes(0x1000, 0x7000, 0x7000, {0x2005, 0x3005}, 0x7100, 0x2005);
  EXPECT_EQ(Decode(framed, 8), (std::vector<std::uint64_t>{0x1001, 0x2005, 0x3005}));
}

TEST(CpuSampleDecode, OutsideGoCodeNothingIsInserted) {
  auto b = SampleBytes(0x1000, 0x7000, 0x7100, {0x3005}, 0x2005, 0xbeef);
  EXPECT_EQ(Decode(b, std::nullopt), (std::vector<std::uint64_t>{0x1001, 0x3005}));
}

// runtime/proc.go sigprof, cgo call: the stack is curg's from syscallpc (a return
// address into runtime.cgocall), written as is: no +1, no caller from [sp] (the
// interrupted ip and sp are C code's).
TEST(CpuSampleDecode, CgoCallStartsAtSyscallPcAsIs) {
  auto b = ExternalSampleBytes(GT_STACK_SYSCALL, {0x2005, 0x3005, 0x4005}, 0);
  EXPECT_EQ(Decode(b, 0), (std::vector<std::uint64_t>{0x2005, 0x3005, 0x4005}));
}

// sigprof, VDSO call: from m.vdsoPC; the walk's first PC is checked against it.
TEST(CpuSampleDecode, VdsoCallStartsAtVdsoPc) {
  auto b = ExternalSampleBytes(GT_STACK_VDSO, {0x2005, 0x3005}, 0x2005);
  EXPECT_EQ(Decode(b, 0), (std::vector<std::uint64_t>{0x2005, 0x3005}));
  // The word below m.vdsoSP is not m.vdsoPC: the chain from there is not trusted.
  auto off = ExternalSampleBytes(GT_STACK_VDSO, {0x6666, 0x3005}, 0x2005);
  EXPECT_EQ(Decode(off, 0), (std::vector<std::uint64_t>{0x2005}));
}

TEST(CpuSampleDecode, BeforeGo126ASyscallHasNoP) {
  auto b = SampleBytes(0x1000, 0x7000, 0x7000, {}, 0, 0);
  Record r;
  Decode(b, 8, 23, &r);
  EXPECT_TRUE(r.flag);
}

// The runtime arms a thread's profiling timer in execute only (runtime/proc.go execute:
// setThreadCPUProfiler), so sysmon and threads that never ran a goroutine have no samples.
TEST(CpuSampleDecode, ThreadsThatNeverRanAGoroutineAreLeftOut) {
  DecoderConfig cfg;
  cfg.cpu_samples = true;
  RecordDecoder dec(cfg);
  auto sample = SampleBytes(0x1000, 0x7000, 0x7000, {0x2005}, 0, 0);  // tid 42
  std::vector<Record> out;
  dec.Decode(capture::RecordView(sample.data(), sample.size()), out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(dec.stats().cpu_samples_unprofiled, 1u);
  // A runtime record of tid 42 with a current goroutine: from now on it is profiled.
  gt_gstatus_record g{};
  g.h.kind = GT_REC_GSTATUS;
  g.h.tid = 42;
  g.h.ts_ns = 900;
  g.ctx.curg = 0xc000001000;
  g.ctx.curg_goid = 7;
  g.ctx.p_id = 0;
  std::vector<std::uint8_t> gb(sizeof(g));
  std::memcpy(gb.data(), &g, sizeof(g));
  std::vector<Record> ignored;
  dec.Decode(capture::RecordView(gb.data(), gb.size()), ignored);
  dec.Decode(capture::RecordView(sample.data(), sample.size()), out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].kind, RecordKind::kCPUSample);
  EXPECT_EQ(dec.stats().cpu_samples_unprofiled, 1u);
}

Record Sample(std::uint64_t ts, ThreadId m, bool no_p_in_syscall = false) {
  Record r;
  r.kind = RecordKind::kCPUSample;
  r.ts = ts;
  r.m = m;
  r.flag = no_p_in_syscall;
  r.stack = {0x600011, testing::kGoexitPc};
  return r;
}

struct Seen {
  std::uint64_t m, p, g;
  bool goexit_kept;
};

TEST(CpuSampleModel, SamplesCarryTheMsPAndGoroutineAndParse) {
  Harness h;
  h.Push(testing::RProcStart(100, 1, 0));
  h.Push(testing::RGoStart(200, 1, 0, 7));
  h.Push(Sample(300, 1));                         // running g7 on P0
  h.Push(testing::RSyscall(400, 1, 0, 7));
  h.Push(Sample(500, 1, /*no_p_in_syscall=*/true));  // <= 1.25: m.p cleared
  h.Push(Sample(510, 1));                         // 1.26+: m.p kept
  h.Push(testing::RSyscallEnd(600, 1, 0, 7));
  h.Push(testing::RGoBlock(700, 1, 0, 7));
  h.Push(Sample(800, 1));                         // scheduler on g0: no goroutine
  h.Push(Sample(900, 99));                        // a thread the model never saw
  auto res = h.Finish("cpu_samples");
  ASSERT_TRUE(res.ok()) << res.errors;
  EXPECT_EQ(res.Int("cpu_samples"), 5);
  EXPECT_EQ(h.model.stats().cpu_samples, 5u);

  auto tr = encoder::DecodeTrace(h.sink.bytes());
  ASSERT_TRUE(tr.ok()) << tr.error;
  std::vector<Seen> seen;
  for (const auto &gen : tr.generations)
    for (const auto &e : gen.cpu_samples) {
      bool goexit = false;
      auto st = gen.stacks.find(e.arg(3));
      if (st != gen.stacks.end() && !st->second.empty()) {
        auto name = gen.strings.find(st->second.back().func);
        goexit = name != gen.strings.end() && name->second == "runtime.goexit";
      }
      seen.push_back({e.arg(0), e.arg(1), e.arg(2), goexit});
    }
  ASSERT_EQ(seen.size(), 5u);
  const std::uint64_t kNoP = encoder::kNoProc;
  EXPECT_EQ(seen[0].m, 1u);
  EXPECT_EQ(seen[0].p, 0u);
  EXPECT_EQ(seen[0].g, 7u);
  EXPECT_EQ(seen[1].p, kNoP);
  EXPECT_EQ(seen[1].g, 7u);
  EXPECT_EQ(seen[2].p, 0u);
  EXPECT_EQ(seen[2].g, 7u);
  EXPECT_EQ(seen[3].p, 0u);
  EXPECT_EQ(seen[3].g, 0u);
  EXPECT_EQ(seen[4].m, 99u);
  EXPECT_EQ(seen[4].p, kNoP);
  EXPECT_EQ(seen[4].g, 0u);
  // sigprof's tracebackPCs keeps runtime.goexit (no trimming, unlike traceStack).
  for (const Seen &s : seen) EXPECT_TRUE(s.goexit_kept);
}

}  // namespace
}  // namespace gotraced::model
