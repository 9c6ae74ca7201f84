// One Go function's x86-64 instructions, decoded with capstone (operand details on): the
// one place that finds a function, reads its bytes and disassembles them, for every
// reader of Go code (probe_sites.cc, runtime_globals.cc, probes/sweep_sites.cc). The
// capstone handle and the instructions are freed by RAII; errors are gobin::Error.
//
// Decoding is linear from the entry, as the Go linker lays functions out (no data in
// Go text between a function's entry and the next one's). A byte capstone cannot decode
// is skipped and decoding resumes at the next byte; DisasmInsn::skipped_before says how
// many were skipped before each instruction, so a reader that must stop at the first
// undecodable byte (a look-ahead) can.
//
// Memory: each instruction holds capstone's cs_insn and cs_detail, ~2 KiB (about 500
// times the code's size) for as long as the FunctionDisasm lives; `max_size` is the
// caller's bound. Decoding all 2,033 functions of a go1.26 test binary this way (191k
// instructions, one function at a time) took 232 ms against 181 ms for the former
// one-instruction loop (medians of 7); the probe plan's few dozen functions, no change
// above noise.
#pragma once

#include <capstone/capstone.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>
#include <vector>

#include "daemon/gobin/result.h"

namespace gotraced::gobin {

class GoBinary;

struct CsInsnFree {
  void operator()(cs_insn *i) const { cs_free(i, 1); }
};

// One decoded instruction (cs_insn with its detail, as cs_disasm_iter fills it).
struct DisasmInsn {
  std::unique_ptr<cs_insn, CsInsnFree> insn;
  uint32_t skipped_before = 0;  // undecodable bytes between the previous instruction and this one

  const cs_insn *get() const { return insn.get(); }
  const cs_insn *operator->() const { return insn.get(); }
  const cs_x86 &x86() const { return insn->detail->x86; }
};

class FunctionDisasm {
 public:
  // Decodes `code`, the bytes of [entry, entry + code.size()). Error only when capstone
  // cannot be opened (or an instruction not allocated).
  static Result<FunctionDisasm> Decode(std::span<const uint8_t> code, uint64_t entry);

  // The function by name (GoBinary::FindFunction: the pclntab, works stripped), read
  // from the file and decoded. Errors: "function X not found (inlined everywhere, or not
  // linked in)", "function X: bad range [a, b)" (empty, or more than max_size bytes),
  // "function X: code not in the file".
  static Result<FunctionDisasm> Of(const GoBinary &bin, std::string_view function, uint64_t max_size);

  uint64_t entry() const { return entry_; }
  uint64_t end() const { return end_; }
  const std::vector<DisasmInsn> &insns() const { return insns_; }
  // Every byte skipped, the trailing ones after the last instruction included.
  uint32_t undecodable_bytes() const { return undecodable_; }

  // cs_regs_access on one of insns() (it needs the handle that decoded it).
  bool RegsAccess(const cs_insn *in, cs_regs read, uint8_t *nread, cs_regs write, uint8_t *nwrite) const;

 private:
  struct Handle {
    csh h = 0;
    ~Handle();
  };
  std::unique_ptr<Handle> cs_;
  uint64_t entry_ = 0, end_ = 0;
  std::vector<DisasmInsn> insns_;
  uint32_t undecodable_ = 0;
};

}  // namespace gotraced::gobin
