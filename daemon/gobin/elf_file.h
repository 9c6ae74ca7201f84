// ElfFile: a read-only view of a 64-bit little-endian x86-64 ELF image (mmap'd file or
// an in-memory buffer). It parses untrusted input and is fuzzed: every offset and size
// read from the file is bounds-checked before use, and no accessor can read outside the
// image.
//
// Addresses: "vaddr" is the link-time virtual address (what the ELF headers, .symtab and
// .gopclntab use). For a PIE the runtime address is vaddr + load bias; callers convert
// (GoBinary does not know any process). Uprobes take *file offsets*: VaddrToFileOffset.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/gobin/result.h"

namespace gotraced::gobin {

struct ElfSection {
  std::string name;
  uint32_t type = 0;    // SHT_*
  uint64_t flags = 0;   // SHF_*
  uint64_t addr = 0;    // vaddr when SHF_ALLOC, else 0
  uint64_t offset = 0;  // file offset
  uint64_t size = 0;
  bool has_file_bytes = false;  // false for SHT_NOBITS (.bss) or out-of-range headers
};

struct ElfSegment {
  uint32_t type = 0;   // PT_*
  uint32_t flags = 0;  // PF_R/W/X
  uint64_t offset = 0;
  uint64_t vaddr = 0;
  uint64_t filesz = 0;
  uint64_t memsz = 0;
  uint64_t align = 0;
};

struct ElfSymbol {
  std::string name;
  uint64_t value = 0;  // vaddr
  uint64_t size = 0;
  uint8_t type = 0;    // STT_*
  uint8_t bind = 0;    // STB_*
  uint16_t shndx = 0;
};

class ElfFile {
 public:
  // Maps the file read-only. Errors: "open PATH: <errno>", "not an ELF file",
  // "not 64-bit x86-64 (found ELFCLASS32 / machine 183 (aarch64) ...)", "truncated ELF ...".
  static Result<std::unique_ptr<ElfFile>> Open(const std::string &path);
  // Parses a copy of `bytes` (tests, fuzzing).
  static Result<std::unique_ptr<ElfFile>> FromBytes(std::span<const uint8_t> bytes);

  ~ElfFile();
  ElfFile(const ElfFile &) = delete;
  ElfFile &operator=(const ElfFile &) = delete;

  // The whole file image.
  std::span<const uint8_t> Image() const { return image_; }
  const std::string &path() const { return path_; }

  uint16_t type() const { return e_type_; }  // ET_EXEC / ET_DYN
  uint64_t entry() const { return e_entry_; }

  const std::vector<ElfSection> &Sections() const { return sections_; }
  const std::vector<ElfSegment> &Segments() const { return segments_; }  // all program headers
  // nullptr when absent. Section headers may be missing entirely (stripped with sstrip).
  const ElfSection *FindSection(std::string_view name) const;
  // The section's bytes in the file; nullopt when absent, SHT_NOBITS or out of range.
  std::optional<std::span<const uint8_t>> SectionBytes(std::string_view name) const;
  std::optional<std::span<const uint8_t>> SectionBytes(const ElfSection &s) const;

  // Link-time vaddr <-> file offset through the PT_LOAD segments (only bytes backed by the
  // file, i.e. within p_filesz).
  std::optional<uint64_t> VaddrToFileOffset(uint64_t vaddr) const;
  std::optional<uint64_t> FileOffsetToVaddr(uint64_t offset) const;
  // `len` bytes at link-time `vaddr` as stored in the file. nullopt when any byte of the
  // range is not file-backed (e.g. .bss) or crosses a segment end.
  std::optional<std::span<const uint8_t>> ReadVirtual(uint64_t vaddr, uint64_t len) const;
  // A pointer-sized value at `vaddr` as the loader would leave it before the program
  // runs: for PIE the file holds 0 (or the addend) and the value comes from an
  // R_X86_64_RELATIVE (RELA) or RELR relocation; returned as a link-time vaddr (no bias).
  std::optional<uint64_t> ReadPointer(uint64_t vaddr) const;
  std::optional<uint64_t> ReadU64(uint64_t vaddr) const;
  // vaddrs of every 8-aligned pointer-sized slot in the writable PT_LOAD segments whose
  // (relocated) value is `target` — e.g. runtime.firstmoduledata.pcHeader -> pclntab.
  std::vector<uint64_t> FindPointersTo(uint64_t target) const;
  std::optional<uint32_t> ReadU32(uint64_t vaddr) const;

  // Symbols from .symtab / .dynsym (empty when absent). Unsorted, file order.
  const std::vector<ElfSymbol> &Symtab() const { return symtab_; }
  const std::vector<ElfSymbol> &Dynsym() const { return dynsym_; }
  // First .symtab symbol with this exact name (indexed at load), nullptr when absent.
  const ElfSymbol *FindSymtabSymbol(std::string_view name) const;

  // NT_GNU_BUILD_ID as lowercase hex ("" if absent), and the Go build ID note
  // (.note.go.buildid, "Go" owner, type 4; "" if absent).
  const std::string &gnu_build_id() const { return gnu_build_id_; }
  const std::string &go_build_id() const { return go_build_id_; }

  // Linkage facts.
  bool is_pie() const { return e_type_ == 3; }  // ET_DYN (Go executables are never shared libs)
  bool has_interp() const { return !interp_.empty(); }
  const std::string &interp() const { return interp_; }
  const std::vector<std::string> &needed() const { return needed_; }  // DT_NEEDED
  bool has_dynamic() const { return has_dynamic_; }
  // No PT_INTERP: the kernel runs it directly (Go's default internal link, or -static).
  bool is_static() const { return interp_.empty(); }
  bool has_symtab() const { return !symtab_.empty(); }
  bool has_dwarf() const;  // .debug_info or .zdebug_info present

 private:
  ElfFile() = default;
  Result<bool> Parse();  // fills the fields below from image_

  struct Mapping;
  std::unique_ptr<Mapping> mapping_;  // owns mmap or buffer
  std::span<const uint8_t> image_;
  std::string path_;
  uint16_t e_type_ = 0;
  uint64_t e_entry_ = 0;
  std::vector<ElfSection> sections_;
  std::vector<ElfSegment> segments_;
  std::vector<ElfSymbol> symtab_;
  std::vector<ElfSymbol> dynsym_;
  std::vector<uint32_t> symtab_by_name_;  // indexes into symtab_, sorted by name
  std::vector<std::pair<uint64_t, uint64_t>> relative_relocs_;  // (vaddr, value), sorted
  std::string gnu_build_id_;
  std::string go_build_id_;
  std::string interp_;
  std::vector<std::string> needed_;
  bool has_dynamic_ = false;
};

}  // namespace gotraced::gobin
