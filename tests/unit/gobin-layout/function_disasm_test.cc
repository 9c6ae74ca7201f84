// FunctionDisasm (daemon/gobin/function_disasm.h), the one reader of a function's code:
// synthetic bytes with undecodable ones in between (skipped, counted, placed), a real
// runtime function of a Go binary (every byte of [entry, end) decoded once, in order,
// with operand details), and the errors a caller shows: a missing function, a range
// larger than the caller allows.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/function_disasm.h"
#include "tests/unit/gobin-layout/targets.h"

namespace gotraced::gobin {
namespace {

TEST(FunctionDisasmTest, SkipsUndecodableBytesAndSaysWhere) {
  // PUSH RBP; 06 06 (PUSH ES: invalid in 64-bit mode); MOV RBP, RSP; RET; 06
  const std::vector<uint8_t> code = {0x55, 0x06, 0x06, 0x48, 0x89, 0xe5, 0xc3, 0x06};
  auto d = FunctionDisasm::Decode(code, 0x1000);
  ASSERT_TRUE(d) << d.error();
  EXPECT_EQ(d->entry(), 0x1000u);
  EXPECT_EQ(d->end(), 0x1008u);
  ASSERT_EQ(d->insns().size(), 3u);
  EXPECT_EQ(d->insns()[0]->address, 0x1000u);
  EXPECT_EQ(d->insns()[0]->id, X86_INS_PUSH);
  EXPECT_EQ(d->insns()[0].skipped_before, 0u);
  EXPECT_EQ(d->insns()[1]->address, 0x1003u);
  EXPECT_EQ(d->insns()[1]->id, X86_INS_MOV);
  EXPECT_EQ(d->insns()[1].skipped_before, 2u);
  ASSERT_EQ(d->insns()[1].x86().op_count, 2);
  EXPECT_EQ(d->insns()[1].x86().operands[0].reg, X86_REG_RBP);
  EXPECT_EQ(d->insns()[2]->id, X86_INS_RET);
  EXPECT_EQ(d->insns()[2].skipped_before, 0u);
  EXPECT_EQ(d->undecodable_bytes(), 3u);  // the trailing 06 too
  // The handle outlives decoding: PUSH writes RSP.
  cs_regs rr, rw;
  uint8_t nr = 0, nw = 0;
  ASSERT_TRUE(d->RegsAccess(d->insns()[0].get(), rr, &nr, rw, &nw));
  EXPECT_NE(std::find(rw, rw + nw, X86_REG_RSP), rw + nw);
  // Nothing to decode is not an error.
  auto empty = FunctionDisasm::Decode({}, 0x2000);
  ASSERT_TRUE(empty) << empty.error();
  EXPECT_TRUE(empty->insns().empty());
  EXPECT_EQ(empty->undecodable_bytes(), 0u);
}

class FunctionDisasmBinaryTest : public ::testing::TestWithParam<std::string> {};

TEST_P(FunctionDisasmBinaryTest, DecodesARuntimeFunctionWhole) {
  GOBIN_OPEN_OR_SKIP(bin, "go1.26", GetParam());
  const char *fn = "runtime.casgstatus";
  const FunctionSym *f = bin->FindFunction(fn);
  ASSERT_NE(f, nullptr);
  auto d = FunctionDisasm::Of(*bin, fn, 1u << 16);
  ASSERT_TRUE(d) << d.error();
  EXPECT_EQ(d->entry(), f->entry);
  EXPECT_EQ(d->end(), f->end);
  ASSERT_GT(d->insns().size(), 20u);
  EXPECT_EQ(d->undecodable_bytes(), 0u);
  auto bytes = bin->elf().ReadVirtual(f->entry, f->end - f->entry);
  ASSERT_TRUE(bytes);
  // Back to back from the entry to the end, each instruction's bytes the file's.
  uint64_t at = f->entry;
  int calls = 0;
  for (const DisasmInsn &in : d->insns()) {
    ASSERT_EQ(in->address, at);
    ASSERT_EQ(in.skipped_before, 0u);
    EXPECT_TRUE(std::equal(in->bytes, in->bytes + in->size, bytes->begin() + (at - f->entry)));
    calls += in->id == X86_INS_CALL;
    at += in->size;
  }
  EXPECT_EQ(at, f->end);
  EXPECT_GT(calls, 0);  // casgstatus calls throw, lock, nanotime ... (proc.go)
}

TEST_P(FunctionDisasmBinaryTest, ErrorsNameTheFunction) {
  GOBIN_OPEN_OR_SKIP(bin, "go1.26", GetParam());
  auto missing = FunctionDisasm::Of(*bin, "runtime.noSuchFunction", 1u << 16);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error(), "function runtime.noSuchFunction not found (inlined everywhere, or not linked in)");
  auto large = FunctionDisasm::Of(*bin, "runtime.casgstatus", 16);
  ASSERT_FALSE(large);
  EXPECT_EQ(large.error().rfind("function runtime.casgstatus: bad range [0x", 0), 0u) << large.error();
}

INSTANTIATE_TEST_SUITE_P(Modes, FunctionDisasmBinaryTest, ::testing::Values("plain", "pie-stripped"));

}  // namespace
}  // namespace gotraced::gobin
