// ElfFile: own minimal ELF64 reader. <elf.h> supplies the constants and struct layouts
// only; every field is copied out with memcpy (no aligned access into the image) after
// a bounds check, because the input is untrusted and fuzzed.
#include "daemon/gobin/elf_file.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace gotraced::gobin {

namespace {

// Caps that keep a hostile header from making us allocate or loop without bound.
constexpr uint64_t kMaxHeaders = 1u << 16;
constexpr uint64_t kMaxSymbols = 1u << 24;
constexpr uint64_t kMaxRelocs = 1u << 24;

// [off, off+len) lies inside an image of `size` bytes, without overflow.
bool InRange(uint64_t off, uint64_t len, uint64_t size) { return off <= size && len <= size - off; }

template <class T>
bool ReadAt(std::span<const uint8_t> img, uint64_t off, T *out) {
  if (!InRange(off, sizeof(T), img.size())) return false;
  std::memcpy(out, img.data() + off, sizeof(T));
  return true;
}

// A NUL-terminated string inside [base, base+limit); nullopt if unterminated.
std::optional<std::string_view> CString(std::span<const uint8_t> img, uint64_t base, uint64_t limit,
                                        uint64_t off) {
  if (!InRange(base, limit, img.size()) || off >= limit) return std::nullopt;
  const char *p = reinterpret_cast<const char *>(img.data() + base + off);
  const void *nul = std::memchr(p, 0, limit - off);
  if (!nul) return std::nullopt;
  return std::string_view(p, static_cast<const char *>(nul) - p);
}

std::string MachineName(uint16_t m) {
  switch (m) {
    case EM_386: return "i386";
    case EM_X86_64: return "x86-64";
    case EM_AARCH64: return "aarch64";
    case EM_ARM: return "arm";
    case EM_RISCV: return "riscv";
    case EM_PPC64: return "ppc64";
    case EM_S390: return "s390";
    case EM_MIPS: return "mips";
    case EM_LOONGARCH: return "loongarch";
    default: return fmt::format("machine {}", m);
  }
}

std::string Hex(std::span<const uint8_t> b) {
  std::string s;
  s.reserve(b.size() * 2);
  for (uint8_t c : b) s += fmt::format("{:02x}", c);
  return s;
}

}  // namespace

struct ElfFile::Mapping {
  void *addr = nullptr;
  size_t len = 0;
  std::vector<uint8_t> buffer;
  ~Mapping() {
    if (addr) munmap(addr, len);
  }
};

ElfFile::~ElfFile() = default;

Result<std::unique_ptr<ElfFile>> ElfFile::Open(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{fmt::format("open {}: {}", path, std::strerror(errno))};
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Error{fmt::format("stat {}: {}", path, std::strerror(e))};
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error{fmt::format("{}: not a regular file", path)};
  }
  std::unique_ptr<ElfFile> f(new ElfFile());
  f->path_ = path;
  f->mapping_ = std::make_unique<Mapping>();
  if (st.st_size > 0) {
    void *p = mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int e = errno;
      ::close(fd);
      return Error{fmt::format("mmap {}: {}", path, std::strerror(e))};
    }
    f->mapping_->addr = p;
    f->mapping_->len = static_cast<size_t>(st.st_size);
    f->image_ = {static_cast<const uint8_t *>(p), f->mapping_->len};
  }
  ::close(fd);
  auto ok = f->Parse();
  if (!ok) return Error{ok.error()};
  return f;
}

Result<std::unique_ptr<ElfFile>> ElfFile::FromBytes(std::span<const uint8_t> bytes) {
  std::unique_ptr<ElfFile> f(new ElfFile());
  f->path_ = "<memory>";
  f->mapping_ = std::make_unique<Mapping>();
  f->mapping_->buffer.assign(bytes.begin(), bytes.end());
  f->image_ = f->mapping_->buffer;
  auto ok = f->Parse();
  if (!ok) return Error{ok.error()};
  return f;
}

Result<bool> ElfFile::Parse() {
  const auto img = image_;
  if (img.size() < 4 || std::memcmp(img.data(), ELFMAG, SELFMAG) != 0) return Error{"not an ELF file"};
  if (img.size() < EI_NIDENT) return Error{"truncated ELF header"};
  const uint8_t cls = img[EI_CLASS], data = img[EI_DATA];
  uint16_t machine = 0;
  if (img.size() >= 20) std::memcpy(&machine, img.data() + 18, 2);  // e_machine, same offset in 32/64
  if (data == ELFDATA2MSB) machine = static_cast<uint16_t>((machine >> 8) | (machine << 8));
  if (cls != ELFCLASS64 || data != ELFDATA2LSB || machine != EM_X86_64) {
    return Error{fmt::format("not 64-bit x86-64 (found {}, {}, {})",
                             cls == ELFCLASS64 ? "ELFCLASS64" : cls == ELFCLASS32 ? "ELFCLASS32" : "bad class",
                             data == ELFDATA2LSB ? "little-endian" : data == ELFDATA2MSB ? "big-endian" : "bad data encoding",
                             MachineName(machine))};
  }
  Elf64_Ehdr eh{};
  if (!ReadAt(img, 0, &eh)) return Error{"truncated ELF header"};
  e_type_ = eh.e_type;
  e_entry_ = eh.e_entry;
  if (e_type_ != ET_EXEC && e_type_ != ET_DYN) {
    return Error{fmt::format("not an executable (ELF type {})", e_type_)};
  }

  // Program headers.
  if (eh.e_phnum > 0) {
    if (eh.e_phentsize < sizeof(Elf64_Phdr)) return Error{"malformed ELF: bad e_phentsize"};
    if (!InRange(eh.e_phoff, uint64_t{eh.e_phnum} * eh.e_phentsize, img.size()))
      return Error{"truncated ELF: program headers beyond end of file"};
    for (uint64_t i = 0; i < eh.e_phnum; i++) {
      Elf64_Phdr ph{};
      ReadAt(img, eh.e_phoff + i * eh.e_phentsize, &ph);
      segments_.push_back({ph.p_type, ph.p_flags, ph.p_offset, ph.p_vaddr, ph.p_filesz, ph.p_memsz, ph.p_align});
    }
  }

  // Section headers (may be absent). e_shnum == 0 with e_shoff != 0 means the count is in
  // section 0's sh_size (ELF gABI, extended numbering); likewise SHN_XINDEX for shstrndx.
  if (eh.e_shoff != 0) {
    if (eh.e_shentsize < sizeof(Elf64_Shdr)) return Error{"malformed ELF: bad e_shentsize"};
    Elf64_Shdr sh0{};
    if (!ReadAt(img, eh.e_shoff, &sh0)) return Error{"truncated ELF: section headers beyond end of file"};
    uint64_t shnum = eh.e_shnum ? eh.e_shnum : sh0.sh_size;
    uint64_t shstrndx = eh.e_shstrndx == SHN_XINDEX ? sh0.sh_link : eh.e_shstrndx;
    if (shnum > kMaxHeaders) return Error{fmt::format("malformed ELF: {} sections", shnum)};
    if (!InRange(eh.e_shoff, shnum * eh.e_shentsize, img.size()))
      return Error{"truncated ELF: section headers beyond end of file"};
    std::vector<Elf64_Shdr> shdrs(shnum);
    for (uint64_t i = 0; i < shnum; i++) ReadAt(img, eh.e_shoff + i * eh.e_shentsize, &shdrs[i]);
    const Elf64_Shdr *strsh = shstrndx < shnum ? &shdrs[shstrndx] : nullptr;
    for (uint64_t i = 0; i < shnum; i++) {
      const auto &s = shdrs[i];
      ElfSection sec;
      if (strsh && strsh->sh_type != SHT_NOBITS) {
        if (auto n = CString(img, strsh->sh_offset, strsh->sh_size, s.sh_name)) sec.name = *n;
      }
      sec.type = s.sh_type;
      sec.flags = s.sh_flags;
      sec.addr = s.sh_addr;
      sec.offset = s.sh_offset;
      sec.size = s.sh_size;
      sec.has_file_bytes = s.sh_type != SHT_NOBITS && s.sh_type != SHT_NULL && InRange(s.sh_offset, s.sh_size, img.size());
      sections_.push_back(std::move(sec));
    }
    // Symbol tables: sh_link names the string table.
    for (uint64_t i = 0; i < shnum; i++) {
      const auto &s = shdrs[i];
      if (s.sh_type != SHT_SYMTAB && s.sh_type != SHT_DYNSYM) continue;
      if (!sections_[i].has_file_bytes || s.sh_link >= shnum || !sections_[s.sh_link].has_file_bytes) continue;
      const auto &str = shdrs[s.sh_link];
      uint64_t n = s.sh_size / sizeof(Elf64_Sym);
      if (n > kMaxSymbols) continue;
      auto &out = s.sh_type == SHT_SYMTAB ? symtab_ : dynsym_;
      out.reserve(n);
      for (uint64_t k = 1; k < n; k++) {  // entry 0 is the null symbol
        Elf64_Sym sym{};
        ReadAt(img, s.sh_offset + k * sizeof(Elf64_Sym), &sym);
        ElfSymbol es;
        if (auto nm = CString(img, str.sh_offset, str.sh_size, sym.st_name)) es.name = *nm;
        es.value = sym.st_value;
        es.size = sym.st_size;
        es.type = ELF64_ST_TYPE(sym.st_info);
        es.bind = ELF64_ST_BIND(sym.st_info);
        es.shndx = sym.st_shndx;
        out.push_back(std::move(es));
      }
    }
  }
  symtab_by_name_.resize(symtab_.size());
  for (uint32_t i = 0; i < symtab_.size(); i++) symtab_by_name_[i] = i;
  std::stable_sort(symtab_by_name_.begin(), symtab_by_name_.end(),
                   [&](uint32_t a, uint32_t b) { return symtab_[a].name < symtab_[b].name; });

  // Notes: from PT_NOTE segments, else SHT_NOTE sections.
  auto parse_notes = [&](uint64_t off, uint64_t size) {
    if (!InRange(off, size, img.size())) return;
    uint64_t p = 0;
    while (p + 12 <= size) {
      uint32_t namesz = 0, descsz = 0, type = 0;
      ReadAt(img, off + p, &namesz);
      ReadAt(img, off + p + 4, &descsz);
      ReadAt(img, off + p + 8, &type);
      uint64_t name_off = p + 12;
      uint64_t desc_off = name_off + ((uint64_t{namesz} + 3) & ~uint64_t{3});
      uint64_t next = desc_off + ((uint64_t{descsz} + 3) & ~uint64_t{3});
      if (desc_off > size || next > size || desc_off + descsz > size) return;
      std::string_view name(reinterpret_cast<const char *>(img.data() + off + name_off), namesz);
      auto desc = img.subspan(off + desc_off, descsz);
      if (name == std::string_view("GNU\0", 4) && type == NT_GNU_BUILD_ID && gnu_build_id_.empty()) {
        gnu_build_id_ = Hex(desc);
      } else if (name == std::string_view("Go\0\0", 4) && type == 4 && go_build_id_.empty()) {
        // cmd/link/internal/ld/elf.go: ELF_NOTE_GOBUILDID_TAG = 4, owner "Go\x00\x00".
        go_build_id_.assign(reinterpret_cast<const char *>(desc.data()), desc.size());
      }
      p = next;
    }
  };
  for (const auto &ph : segments_) {
    if (ph.type == PT_NOTE) parse_notes(ph.offset, ph.filesz);
  }
  for (const auto &s : sections_) {
    if (s.type == SHT_NOTE && s.has_file_bytes) parse_notes(s.offset, s.size);
  }

  // PT_INTERP.
  for (const auto &ph : segments_) {
    if (ph.type != PT_INTERP) continue;
    if (auto s = CString(img, ph.offset, ph.filesz, 0)) interp_ = *s;
    else if (InRange(ph.offset, ph.filesz, img.size()) && ph.filesz > 0)
      interp_.assign(reinterpret_cast<const char *>(img.data() + ph.offset), ph.filesz);
  }

  // PT_DYNAMIC: DT_NEEDED names and relative relocations (RELA and RELR).
  for (const auto &ph : segments_) {
    if (ph.type != PT_DYNAMIC) continue;
    has_dynamic_ = true;
    if (!InRange(ph.offset, ph.filesz, img.size())) break;
    uint64_t strtab = 0, strsz = 0, rela = 0, relasz = 0, relaent = sizeof(Elf64_Rela), relr = 0, relrsz = 0;
    std::vector<uint64_t> needed_offs;
    for (uint64_t p = 0; p + sizeof(Elf64_Dyn) <= ph.filesz && p / sizeof(Elf64_Dyn) < kMaxHeaders;
         p += sizeof(Elf64_Dyn)) {
      Elf64_Dyn d{};
      ReadAt(img, ph.offset + p, &d);
      if (d.d_tag == DT_NULL) break;
      switch (d.d_tag) {
        case DT_NEEDED: needed_offs.push_back(d.d_un.d_val); break;
        case DT_STRTAB: strtab = d.d_un.d_ptr; break;
        case DT_STRSZ: strsz = d.d_un.d_val; break;
        case DT_RELA: rela = d.d_un.d_ptr; break;
        case DT_RELASZ: relasz = d.d_un.d_val; break;
        case DT_RELAENT: relaent = d.d_un.d_val; break;
        case 36: relrsz = d.d_un.d_val; break;  // DT_RELRSZ
        case 37: relr = d.d_un.d_ptr; break;    // DT_RELR
        default: break;
      }
    }
    if (auto so = VaddrToFileOffset(strtab)) {
      for (uint64_t o : needed_offs) {
        if (auto s = CString(img, *so, strsz, o)) needed_.emplace_back(*s);
      }
    }
    if (auto ro = VaddrToFileOffset(rela); ro && relaent >= sizeof(Elf64_Rela) && InRange(*ro, relasz, img.size())) {
      for (uint64_t p = 0; p + sizeof(Elf64_Rela) <= relasz && relative_relocs_.size() < kMaxRelocs; p += relaent) {
        Elf64_Rela r{};
        ReadAt(img, *ro + p, &r);
        if (ELF64_R_TYPE(r.r_info) == R_X86_64_RELATIVE)
          relative_relocs_.emplace_back(r.r_offset, static_cast<uint64_t>(r.r_addend));
      }
    }
    // RELR (implicit addends): the value is already in the file; record it so
    // ReadPointer can say "this location is relocated".
    if (auto ro = VaddrToFileOffset(relr); ro && InRange(*ro, relrsz, img.size())) {
      uint64_t where = 0;
      for (uint64_t p = 0; p + 8 <= relrsz && relative_relocs_.size() < kMaxRelocs; p += 8) {
        uint64_t e = 0;
        ReadAt(img, *ro + p, &e);
        if ((e & 1) == 0) {
          where = e;
          if (auto v = ReadU64(where)) relative_relocs_.emplace_back(where, *v);
          where += 8;
        } else {
          for (uint64_t bit = 1; bit < 64 && relative_relocs_.size() < kMaxRelocs; bit++) {
            if ((e >> bit) & 1) {
              uint64_t a = where + (bit - 1) * 8;
              if (auto v = ReadU64(a)) relative_relocs_.emplace_back(a, *v);
            }
          }
          where += 63 * 8;
        }
      }
    }
    break;
  }
  std::sort(relative_relocs_.begin(), relative_relocs_.end());
  return true;
}

const ElfSection *ElfFile::FindSection(std::string_view name) const {
  for (const auto &s : sections_) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

std::optional<std::span<const uint8_t>> ElfFile::SectionBytes(const ElfSection &s) const {
  if (!s.has_file_bytes) return std::nullopt;
  return image_.subspan(s.offset, s.size);
}

std::optional<std::span<const uint8_t>> ElfFile::SectionBytes(std::string_view name) const {
  const ElfSection *s = FindSection(name);
  if (!s) return std::nullopt;
  return SectionBytes(*s);
}

std::optional<uint64_t> ElfFile::VaddrToFileOffset(uint64_t vaddr) const {
  for (const auto &ph : segments_) {
    if (ph.type != PT_LOAD) continue;
    if (vaddr >= ph.vaddr && vaddr - ph.vaddr < ph.filesz) {
      uint64_t off = ph.offset + (vaddr - ph.vaddr);
      if (off < ph.offset || off >= image_.size()) return std::nullopt;
      return off;
    }
  }
  return std::nullopt;
}

std::optional<uint64_t> ElfFile::FileOffsetToVaddr(uint64_t offset) const {
  for (const auto &ph : segments_) {
    if (ph.type != PT_LOAD) continue;
    if (offset >= ph.offset && offset - ph.offset < ph.filesz) return ph.vaddr + (offset - ph.offset);
  }
  return std::nullopt;
}

std::optional<std::span<const uint8_t>> ElfFile::ReadVirtual(uint64_t vaddr, uint64_t len) const {
  for (const auto &ph : segments_) {
    if (ph.type != PT_LOAD) continue;
    if (vaddr >= ph.vaddr && vaddr - ph.vaddr < ph.filesz) {
      uint64_t rel = vaddr - ph.vaddr;
      if (len > ph.filesz - rel) return std::nullopt;
      uint64_t off = ph.offset + rel;
      if (off < ph.offset || !InRange(off, len, image_.size())) return std::nullopt;
      return image_.subspan(off, len);
    }
  }
  return std::nullopt;
}

std::optional<uint64_t> ElfFile::ReadU64(uint64_t vaddr) const {
  auto b = ReadVirtual(vaddr, 8);
  if (!b) return std::nullopt;
  uint64_t v;
  std::memcpy(&v, b->data(), 8);
  return v;
}

std::optional<uint32_t> ElfFile::ReadU32(uint64_t vaddr) const {
  auto b = ReadVirtual(vaddr, 4);
  if (!b) return std::nullopt;
  uint32_t v;
  std::memcpy(&v, b->data(), 4);
  return v;
}

std::optional<uint64_t> ElfFile::ReadPointer(uint64_t vaddr) const {
  auto it = std::lower_bound(relative_relocs_.begin(), relative_relocs_.end(), std::make_pair(vaddr, uint64_t{0}));
  if (it != relative_relocs_.end() && it->first == vaddr) return it->second;
  return ReadU64(vaddr);
}

std::vector<uint64_t> ElfFile::FindPointersTo(uint64_t target) const {
  std::vector<uint64_t> out;
  for (const auto &r : relative_relocs_) {
    if (r.second == target) out.push_back(r.first);
  }
  for (const auto &ph : segments_) {
    if (ph.type != PT_LOAD || (ph.flags & PF_W) == 0) continue;
    if (!InRange(ph.offset, ph.filesz, image_.size())) continue;
    uint64_t start = (ph.vaddr + 7) & ~uint64_t{7};
    for (uint64_t a = start; a + 8 <= ph.vaddr + ph.filesz; a += 8) {
      uint64_t v;
      std::memcpy(&v, image_.data() + ph.offset + (a - ph.vaddr), 8);
      if (v == target) out.push_back(a);
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

const ElfSymbol *ElfFile::FindSymtabSymbol(std::string_view name) const {
  auto it = std::lower_bound(symtab_by_name_.begin(), symtab_by_name_.end(), name,
                             [&](uint32_t i, std::string_view n) { return symtab_[i].name < n; });
  if (it != symtab_by_name_.end() && symtab_[*it].name == name) return &symtab_[*it];
  return nullptr;
}

bool ElfFile::has_dwarf() const {
  return FindSection(".debug_info") != nullptr || FindSection(".zdebug_info") != nullptr;
}

}  // namespace gotraced::gobin
