#include "daemon/gobin/function_disasm.h"

#include <fmt/format.h>

#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/go_binary.h"

namespace gotraced::gobin {

FunctionDisasm::Handle::~Handle() {
  if (h) cs_close(&h);
}

Result<FunctionDisasm> FunctionDisasm::Decode(std::span<const uint8_t> code, uint64_t entry) {
  FunctionDisasm d;
  d.entry_ = entry;
  d.end_ = entry + code.size();
  d.cs_ = std::make_unique<Handle>();
  if (const cs_err e = cs_open(CS_ARCH_X86, CS_MODE_64, &d.cs_->h); e != CS_ERR_OK) {
    d.cs_->h = 0;
    return Error{fmt::format("capstone: cs_open: {}", cs_strerror(e))};
  }
  cs_option(d.cs_->h, CS_OPT_DETAIL, CS_OPT_ON);
  const uint8_t *p = code.data();
  size_t left = code.size();
  uint64_t addr = entry;
  uint32_t skipped = 0;
  std::unique_ptr<cs_insn, CsInsnFree> in;
  while (left > 0) {
    if (!in) in.reset(cs_malloc(d.cs_->h));
    if (!in) return Error{"capstone: cs_malloc failed"};
    if (!cs_disasm_iter(d.cs_->h, &p, &left, &addr, in.get())) {
      ++skipped, ++d.undecodable_;  // skip one byte and resync
      ++p, --left, ++addr;
      continue;
    }
    d.insns_.push_back(DisasmInsn{std::move(in), skipped});
    skipped = 0;
  }
  return d;
}

Result<FunctionDisasm> FunctionDisasm::Of(const GoBinary &bin, std::string_view function, uint64_t max_size) {
  const FunctionSym *f = bin.FindFunction(function);
  if (!f) return Error{fmt::format("function {} not found (inlined everywhere, or not linked in)", function)};
  if (f->end <= f->entry || f->end - f->entry > max_size)
    return Error{fmt::format("function {}: bad range [0x{:x}, 0x{:x})", function, f->entry, f->end)};
  auto code = bin.elf().ReadVirtual(f->entry, f->end - f->entry);
  if (!code) return Error{fmt::format("function {}: code not in the file", function)};
  return Decode(*code, f->entry);
}

bool FunctionDisasm::RegsAccess(const cs_insn *in, cs_regs read, uint8_t *nread, cs_regs write,
                                uint8_t *nwrite) const {
  return cs_regs_access(cs_->h, in, read, nread, write, nwrite) == CS_ERR_OK;
}

}  // namespace gotraced::gobin
