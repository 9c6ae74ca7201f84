#include "daemon/gobin/runtime_strings.h"

#include "daemon/gobin/elf_file.h"

namespace gotraced::gobin {

std::optional<std::vector<std::string>> ReadGoStringArray(const ElfFile &elf, uint64_t vaddr, uint64_t count) {
  constexpr uint64_t kMaxLen = 4096;
  if (count > 4096) return std::nullopt;
  std::vector<std::string> out;
  out.reserve(count);
  for (uint64_t i = 0; i < count; ++i) {
    const uint64_t hdr = vaddr + i * 16;
    auto len = elf.ReadU64(hdr + 8);
    if (!len || *len > kMaxLen) return std::nullopt;
    if (*len == 0) {  // "" may have a nil data pointer
      out.emplace_back();
      continue;
    }
    auto ptr = elf.ReadPointer(hdr);
    if (!ptr) return std::nullopt;
    auto bytes = elf.ReadVirtual(*ptr, *len);
    if (!bytes) return std::nullopt;
    out.emplace_back(reinterpret_cast<const char *>(bytes->data()), bytes->size());
  }
  return out;
}

std::optional<std::vector<std::string>> ReadRuntimeStringTable(const ElfFile &elf, std::string_view symbol) {
  const ElfSymbol *s = elf.FindSymtabSymbol(symbol);
  if (!s || s->size == 0 || s->size % 16 != 0) return std::nullopt;
  return ReadGoStringArray(elf, s->value, s->size / 16);
}

}  // namespace gotraced::gobin
