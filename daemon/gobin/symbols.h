// SymbolTable: Go function names <-> [entry, end) address ranges, from .gopclntab (works
// on stripped binaries), cross-checked against .symtab when the binary has one.
// Lookups are O(log n): functions sorted by entry for PC lookups, by name for names.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gotraced::gobin {

class ElfFile;
class Pclntab;

// runtime.funcNameForPrint (runtime/traceback.go, Go 1.21+): everything between the
// first '[' and the last ']' becomes "...". The 1.18-1.20 linker already wrote names
// that way into funcnametab (cmd/link/internal/ld/pcln.go generateFuncnametab), so this
// is the identity on those.
std::string FuncNameForPrint(std::string_view name);

struct FunctionSym {
  std::string_view name;  // as in the pclntab (e.g. "runtime.casgstatus", "main.(*T).M")
  uint64_t entry = 0;     // link-time vaddr of the first instruction
  uint64_t end = 0;       // one past the last byte (the next function's entry)
  uint32_t pcln_index = 0;  // index into Pclntab::Func()
  uint8_t func_id = 0;      // raw runtime FuncID (per-version meaning)
  bool operator==(const FunctionSym &) const = default;
};

// One disagreement between .symtab and .gopclntab, described for a human.
struct SymtabMismatch {
  std::string name;
  std::string what;  // e.g. "symtab entry 0x401000 != pclntab entry 0x401020"
};

class SymbolTable {
 public:
  SymbolTable() = default;
  // Builds from every function of the pclntab. Names view into the pclntab bytes.
  static SymbolTable FromPclntab(const Pclntab &tab);

  // Exact name match (e.g. "runtime.gopark"); nullptr when absent. A few names occur
  // twice (an assembly function and its ABIInternal wrapper share the name): this
  // returns the lowest address; GoBinary::FindFunction prefers the non-wrapper.
  const FunctionSym *FindFunction(std::string_view name) const;
  // Every function with this name (usually one), sorted by entry.
  std::vector<const FunctionSym *> FindFunctions(std::string_view name) const;
  // The function whose [entry, end) contains pc; nullptr when pc is in no Go function
  // (C code of a cgo binary, PLT, padding before the first function ...).
  const FunctionSym *FuncForPC(uint64_t pc) const;
  // All functions, sorted by entry.
  std::span<const FunctionSym> Functions() const { return by_entry_; }

  // Every pclntab function must have a .symtab STT_FUNC symbol at its entry with the
  // same name (modulo FuncNameForPrint: Go <= 1.20 pclntabs hold shortened generic
  // names) and, when the symbol has a size, entry+size <= end; every .symtab function
  // symbol with a pclntab function's name must sit at that function's entry.
  // Empty when all agree or when there is no .symtab. *checked = functions compared.
  std::vector<SymtabMismatch> CheckAgainstSymtab(const ElfFile &elf, size_t *checked = nullptr) const;

 private:
  std::vector<FunctionSym> by_entry_;
  std::vector<uint32_t> by_name_;  // indexes into by_entry_, sorted by name
};

}  // namespace gotraced::gobin
