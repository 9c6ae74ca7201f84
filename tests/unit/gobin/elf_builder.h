// Hand-made ELF images for gobin's parser tests: a header, one PT_LOAD covering the
// whole file (vaddr = base + file offset), optional PT_NOTE, sections laid out in order,
// then .shstrtab and the section header table.
#pragma once

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace gotraced::testing {

inline void Put(std::vector<uint8_t> &b, const void *p, size_t n) {
  const auto *c = static_cast<const uint8_t *>(p);
  b.insert(b.end(), c, c + n);
}
template <class T>
void PutLE(std::vector<uint8_t> &b, T v) {
  Put(b, &v, sizeof v);
}
inline void PutAt(std::vector<uint8_t> &b, size_t off, const void *p, size_t n) { std::memcpy(b.data() + off, p, n); }
inline void Align(std::vector<uint8_t> &b, size_t a) {
  while (b.size() % a) b.push_back(0);
}

struct TestSection {
  std::string name;
  uint32_t type = SHT_PROGBITS;
  uint64_t flags = SHF_ALLOC;
  std::vector<uint8_t> data;
  uint64_t addr = 0;    // filled by Build for SHF_ALLOC sections
  uint64_t offset = 0;  // filled by Build
};

class ElfBuilder {
 public:
  uint8_t elf_class = ELFCLASS64;
  uint8_t data_encoding = ELFDATA2LSB;
  uint16_t machine = EM_X86_64;
  uint16_t type = ET_EXEC;
  uint64_t base = 0x400000;
  bool section_headers = true;
  uint32_t load_flags = PF_R | PF_W | PF_X;  // of the one PT_LOAD
  std::vector<TestSection> sections;

  // Adds a section; returns its index in `sections`.
  size_t Add(std::string name, std::vector<uint8_t> data, uint32_t type = SHT_PROGBITS,
             uint64_t flags = SHF_ALLOC) {
    sections.push_back({std::move(name), type, flags, std::move(data)});
    return sections.size() - 1;
  }
  // The vaddr a section's data will get, given the current list (Build lays out the
  // same way): valid only for sections added before calling it and never re-added.
  uint64_t AddrOf(size_t idx) const {
    uint64_t off = DataStart();
    for (size_t i = 0; i < sections.size(); i++) {
      off = (off + 15) & ~uint64_t{15};
      if (i == idx) return base + off;
      off += sections[i].data.size();
    }
    return 0;
  }

  std::vector<uint8_t> Build() {
    std::vector<uint8_t> b(DataStart(), 0);
    for (auto &s : sections) {
      Align(b, 16);
      s.offset = b.size();
      s.addr = (s.flags & SHF_ALLOC) ? base + s.offset : 0;
      Put(b, s.data.data(), s.data.size());
    }
    const size_t load_end = b.size();
    // .shstrtab
    std::vector<uint8_t> shstr(1, 0);
    std::vector<uint32_t> name_off;
    for (auto &s : sections) {
      name_off.push_back(static_cast<uint32_t>(shstr.size()));
      Put(shstr, s.name.c_str(), s.name.size() + 1);
    }
    uint32_t shstr_name = static_cast<uint32_t>(shstr.size());
    Put(shstr, ".shstrtab", 10);
    Align(b, 8);
    size_t shstr_off = b.size();
    Put(b, shstr.data(), shstr.size());
    Align(b, 8);
    size_t shoff = b.size();
    if (section_headers) {
      Elf64_Shdr null{};
      Put(b, &null, sizeof null);
      for (size_t i = 0; i < sections.size(); i++) {
        Elf64_Shdr sh{};
        sh.sh_name = name_off[i];
        sh.sh_type = sections[i].type;
        sh.sh_flags = sections[i].flags;
        sh.sh_addr = sections[i].addr;
        sh.sh_offset = sections[i].offset;
        sh.sh_size = sections[i].data.size();
        sh.sh_addralign = 16;
        Put(b, &sh, sizeof sh);
      }
      Elf64_Shdr s{};
      s.sh_name = shstr_name;
      s.sh_type = SHT_STRTAB;
      s.sh_offset = shstr_off;
      s.sh_size = shstr.size();
      Put(b, &s, sizeof s);
    }
    // ELF header.
    Elf64_Ehdr eh{};
    std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
    eh.e_ident[EI_CLASS] = elf_class;
    eh.e_ident[EI_DATA] = data_encoding;
    eh.e_ident[EI_VERSION] = EV_CURRENT;
    eh.e_type = type;
    eh.e_machine = machine;
    eh.e_version = EV_CURRENT;
    eh.e_entry = base + DataStart();
    eh.e_phoff = sizeof(Elf64_Ehdr);
    eh.e_ehsize = sizeof(Elf64_Ehdr);
    eh.e_phentsize = sizeof(Elf64_Phdr);
    eh.e_phnum = static_cast<uint16_t>(NumPhdrs());
    if (section_headers) {
      eh.e_shoff = shoff;
      eh.e_shentsize = sizeof(Elf64_Shdr);
      eh.e_shnum = static_cast<uint16_t>(sections.size() + 2);
      eh.e_shstrndx = static_cast<uint16_t>(sections.size() + 1);
    }
    PutAt(b, 0, &eh, sizeof eh);
    // PT_LOAD over everything up to the section data's end.
    Elf64_Phdr ph{};
    ph.p_type = PT_LOAD;
    ph.p_flags = load_flags;
    ph.p_offset = 0;
    ph.p_vaddr = ph.p_paddr = base;
    ph.p_filesz = ph.p_memsz = load_end;
    ph.p_align = 0x1000;
    PutAt(b, sizeof(Elf64_Ehdr), &ph, sizeof ph);
    size_t k = 1;
    for (auto &s : sections) {
      if (s.type != SHT_NOTE) continue;
      Elf64_Phdr nh{};
      nh.p_type = PT_NOTE;
      nh.p_flags = PF_R;
      nh.p_offset = s.offset;
      nh.p_vaddr = nh.p_paddr = s.addr;
      nh.p_filesz = nh.p_memsz = s.data.size();
      nh.p_align = 4;
      PutAt(b, sizeof(Elf64_Ehdr) + k * sizeof(Elf64_Phdr), &nh, sizeof nh);
      k++;
    }
    return b;
  }

 private:
  size_t NumPhdrs() const {
    size_t n = 1;
    for (auto &s : sections) n += s.type == SHT_NOTE;
    return n;
  }
  uint64_t DataStart() const { return sizeof(Elf64_Ehdr) + NumPhdrs() * sizeof(Elf64_Phdr); }
};

// An ELF note: namesz, descsz, type, name (padded to 4), desc (padded to 4).
inline std::vector<uint8_t> Note(const std::string &name_with_nul, uint32_t type, const std::vector<uint8_t> &desc) {
  std::vector<uint8_t> n;
  PutLE<uint32_t>(n, static_cast<uint32_t>(name_with_nul.size()));
  PutLE<uint32_t>(n, static_cast<uint32_t>(desc.size()));
  PutLE<uint32_t>(n, type);
  Put(n, name_with_nul.data(), name_with_nul.size());
  Align(n, 4);
  Put(n, desc.data(), desc.size());
  Align(n, 4);
  return n;
}

}  // namespace gotraced::testing
