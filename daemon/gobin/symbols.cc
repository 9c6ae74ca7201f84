// SymbolTable: sorted views of the pclntab's function table, plus the .symtab check.
#include "daemon/gobin/symbols.h"

#include <elf.h>

#include <algorithm>

#include <fmt/format.h>

#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/pclntab.h"

namespace gotraced::gobin {

std::string FuncNameForPrint(std::string_view name) {
  size_t i = name.find('[');
  if (i == std::string_view::npos) return std::string(name);
  size_t j = name.rfind(']');
  if (j == std::string_view::npos || j <= i) return std::string(name);
  std::string out(name.substr(0, i));
  out += "[...]";
  out += name.substr(j + 1);
  return out;
}

namespace {

// How a .symtab name may differ from the pclntab name of the same function:
//   * assembly (ABI0) functions carry ".abi0" in .symtab (cmd/link/internal/ld/symtab.go
//     putelfsym mangles ABI0 names when the ABIInternal name exists too);
//   * Go <= 1.20 pclntabs shorten generic names ("F[...]");
//   * the pclntab keeps the middle dot '·' (U+00B7) the linker writes as '.' in .symtab.
std::string NormalizeDots(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (size_t i = 0; i < s.size(); i++) {
    if (i + 1 < s.size() && static_cast<unsigned char>(s[i]) == 0xC2 && static_cast<unsigned char>(s[i + 1]) == 0xB7) {
      o += '.';
      i++;
    } else {
      o += s[i];
    }
  }
  return o;
}

bool SameFunctionName(std::string_view symtab_name, std::string_view pcln_name) {
  if (symtab_name == pcln_name) return true;
  std::string_view s = symtab_name;
  constexpr std::string_view kAbi0 = ".abi0";
  if (s.size() > kAbi0.size() && s.substr(s.size() - kAbi0.size()) == kAbi0) {
    s.remove_suffix(kAbi0.size());
    if (s == pcln_name) return true;
  }
  std::string a = NormalizeDots(s), b = NormalizeDots(pcln_name);
  return a == b || FuncNameForPrint(a) == b;
}

}  // namespace

SymbolTable SymbolTable::FromPclntab(const Pclntab &tab) {
  SymbolTable st;
  st.by_entry_.reserve(tab.num_funcs());
  for (uint32_t i = 0; i < tab.num_funcs(); i++) {
    auto f = tab.Func(i);
    if (!f) continue;
    FunctionSym s;
    s.name = tab.FuncName(f->name_off);
    s.entry = f->entry;
    s.end = f->end;
    s.pcln_index = i;
    s.func_id = f->func_id;
    st.by_entry_.push_back(s);
  }
  // The linker writes the functab sorted by address; keep the table sorted even for a
  // corrupt input so that binary searches stay correct.
  std::stable_sort(st.by_entry_.begin(), st.by_entry_.end(),
                   [](const FunctionSym &a, const FunctionSym &b) { return a.entry < b.entry; });
  st.by_name_.resize(st.by_entry_.size());
  for (uint32_t i = 0; i < st.by_name_.size(); i++) st.by_name_[i] = i;
  std::stable_sort(st.by_name_.begin(), st.by_name_.end(),
                   [&](uint32_t a, uint32_t b) { return st.by_entry_[a].name < st.by_entry_[b].name; });
  return st;
}

const FunctionSym *SymbolTable::FindFunction(std::string_view name) const {
  auto it = std::lower_bound(by_name_.begin(), by_name_.end(), name,
                             [&](uint32_t i, std::string_view n) { return by_entry_[i].name < n; });
  if (it != by_name_.end() && by_entry_[*it].name == name) return &by_entry_[*it];
  return nullptr;
}

std::vector<const FunctionSym *> SymbolTable::FindFunctions(std::string_view name) const {
  std::vector<const FunctionSym *> out;
  auto it = std::lower_bound(by_name_.begin(), by_name_.end(), name,
                             [&](uint32_t i, std::string_view n) { return by_entry_[i].name < n; });
  for (; it != by_name_.end() && by_entry_[*it].name == name; ++it) out.push_back(&by_entry_[*it]);
  return out;
}

const FunctionSym *SymbolTable::FuncForPC(uint64_t pc) const {
  auto it = std::upper_bound(by_entry_.begin(), by_entry_.end(), pc,
                             [](uint64_t p, const FunctionSym &s) { return p < s.entry; });
  if (it == by_entry_.begin()) return nullptr;
  --it;
  if (pc >= it->end) return nullptr;
  return &*it;
}

std::vector<SymtabMismatch> SymbolTable::CheckAgainstSymtab(const ElfFile &elf, size_t *checked) const {
  std::vector<SymtabMismatch> out;
  size_t n = 0;
  if (checked) *checked = 0;
  if (elf.Symtab().empty()) return out;
  // Function symbols by address.
  std::vector<const ElfSymbol *> funcs;
  for (const auto &sym : elf.Symtab()) {
    if (sym.type == STT_FUNC && sym.shndx != SHN_UNDEF) funcs.push_back(&sym);
  }
  std::sort(funcs.begin(), funcs.end(), [](const ElfSymbol *a, const ElfSymbol *b) { return a->value < b->value; });
  for (const auto &f : by_entry_) {
    n++;
    auto it = std::lower_bound(funcs.begin(), funcs.end(), f.entry,
                               [](const ElfSymbol *s, uint64_t v) { return s->value < v; });
    const ElfSymbol *match = nullptr;
    std::string names;
    for (; it != funcs.end() && (*it)->value == f.entry; ++it) {
      if (SameFunctionName((*it)->name, f.name)) {
        match = *it;
        break;
      }
      names += (names.empty() ? "" : ", ") + (*it)->name;
    }
    if (!match) {
      out.push_back({std::string(f.name),
                     names.empty() ? fmt::format("no .symtab function symbol at pclntab entry 0x{:x}", f.entry)
                                   : fmt::format(".symtab has {} at 0x{:x}", names, f.entry)});
      continue;
    }
    if (match->size != 0 && match->value + match->size > f.end) {
      out.push_back({std::string(f.name), fmt::format(".symtab end 0x{:x} past pclntab end 0x{:x}",
                                                      match->value + match->size, f.end)});
    }
  }
  for (const ElfSymbol *sym : funcs) {
    auto same = FindFunctions(sym->name);
    if (same.empty()) continue;
    bool at_entry = std::any_of(same.begin(), same.end(), [&](const FunctionSym *f) { return f->entry == sym->value; });
    if (!at_entry) {
      out.push_back({sym->name, fmt::format(".symtab value 0x{:x} != pclntab entry 0x{:x}", sym->value, same[0]->entry)});
    }
  }
  if (checked) *checked = n;
  return out;
}

}  // namespace gotraced::gobin
