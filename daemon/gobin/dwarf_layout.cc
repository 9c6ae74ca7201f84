#include "daemon/gobin/dwarf_layout.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <libelf.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "daemon/gobin/elf_file.h"

namespace gotraced::gobin {
namespace {

constexpr std::string_view kRuntimePrefix = "runtime.";

struct ElfDeleter {
  void operator()(Elf *e) const { elf_end(e); }
};
struct DwarfDeleter {
  void operator()(Dwarf *d) const { dwarf_end(d); }
};

struct FdCloser {
  int fd = -1;
  ~FdCloser() {
    if (fd >= 0) close(fd);
  }
};

std::string LibdwError() {
  const char *m = dwarf_errmsg(-1);
  return m ? m : "unknown libdw error";
}

// The byte size of a (peeled) type DIE; pointers/functions without DW_AT_byte_size are a
// machine word.
int32_t TypeSize(Dwarf_Die *type) {
  Dwarf_Word sz = 0;
  if (dwarf_aggregate_size(type, &sz) == 0 && sz < (1u << 30)) return static_cast<int32_t>(sz);
  int tag = dwarf_tag(type);
  if (tag == DW_TAG_pointer_type || tag == DW_TAG_subroutine_type) return 8;
  return 0;
}

// The type of `die` (member/variable), typedefs and qualifiers peeled; false if none.
bool MemberType(Dwarf_Die *die, Dwarf_Die *out) {
  Dwarf_Attribute attr;
  if (!dwarf_attr_integrate(die, DW_AT_type, &attr)) return false;
  Dwarf_Die t;
  if (!dwarf_formref_die(&attr, &t)) return false;
  if (dwarf_peel_type(&t, out) != 0) return false;
  return true;
}

// Finds member `name` among the direct children of struct `st`; writes its offset and
// (peeled) type.
bool FindMember(Dwarf_Die *st, std::string_view name, int64_t *offset, Dwarf_Die *type) {
  Dwarf_Die child;
  if (dwarf_child(st, &child) != 0) return false;
  // Go structs have at most a few hundred members; the cap guards cyclic/malformed input.
  for (int n = 0; n < 100000; ++n) {
    if (dwarf_tag(&child) == DW_TAG_member) {
      const char *mn = dwarf_diename(&child);
      if (mn && name == mn) {
        Dwarf_Attribute attr;
        Dwarf_Word off = 0;
        if (!dwarf_attr_integrate(&child, DW_AT_data_member_location, &attr)) return false;
        if (dwarf_formudata(&attr, &off) != 0) return false;  // Go always emits a constant
        if (off > (1u << 30)) return false;
        *offset = static_cast<int64_t>(off);
        return MemberType(&child, type);
      }
    }
    if (dwarf_siblingof(&child, &child) != 0) break;
  }
  return false;
}

// Resolves "a.b.c" starting at struct `st`: offset from st's start and the leaf size.
bool ResolvePath(Dwarf_Die st, std::string_view path, FieldLoc *out) {
  int64_t total = 0;
  Dwarf_Die cur = st;
  for (int depth = 0; depth < 8; ++depth) {
    size_t dot = path.find('.');
    std::string_view head = path.substr(0, dot);
    int64_t off = 0;
    Dwarf_Die type;
    if (!FindMember(&cur, head, &off, &type)) return false;
    total += off;
    if (total > (1 << 30)) return false;
    if (dot == std::string_view::npos) {
      out->offset = static_cast<int32_t>(total);
      out->size = TypeSize(&type);
      return true;
    }
    if (dwarf_tag(&type) != DW_TAG_structure_type) return false;
    cur = type;
    path = path.substr(dot + 1);
  }
  return false;
}

// RuntimeConstantPrefixes(), and for the status prefixes _G/_P only lower-case names
// (_Grunning, _Psyscall_unused), not _GCmark, _GoidCacheBatch, _PageSize or _PROT_READ.
bool IsRuntimeConstantWanted(std::string_view bare) {
  for (auto p : RuntimeConstantPrefixes()) {
    if (bare.substr(0, p.size()) != p) continue;
    if (p == "_G" || p == "_P") {
      std::string_view rest = bare.substr(p.size());
      if (rest.empty()) return false;
      for (char ch : rest)
        if (!((ch >= 'a' && ch <= 'z') || ch == '_')) return false;
    }
    return true;
  }
  return false;
}

struct Collected {
  std::map<std::string, Dwarf_Die, std::less<>> structs;  // DWARF name -> DIE
  std::vector<std::pair<std::string, int64_t>> constants;
};

void VisitTopLevel(Dwarf_Die *cudie, Collected *c, const std::vector<std::string> &wanted) {
  Dwarf_Die die;
  if (dwarf_child(cudie, &die) != 0) return;
  for (;;) {
    int tag = dwarf_tag(&die);
    if (tag == DW_TAG_structure_type || tag == DW_TAG_constant) {
      const char *name = dwarf_diename(&die);
      std::string_view n = name ? name : "";
      if (n.substr(0, kRuntimePrefix.size()) == kRuntimePrefix) {
        if (tag == DW_TAG_structure_type) {
          if (!c->structs.count(n) && !dwarf_hasattr(&die, DW_AT_declaration) &&
              std::find(wanted.begin(), wanted.end(), n) != wanted.end())
            c->structs.emplace(std::string(n), die);
        } else {
          std::string_view bare = n.substr(kRuntimePrefix.size());
          bool keep = IsRuntimeConstantWanted(bare);
          Dwarf_Attribute attr;
          Dwarf_Sword v = 0;
          if (keep && dwarf_attr(&die, DW_AT_const_value, &attr) && dwarf_formsdata(&attr, &v) == 0)
            c->constants.emplace_back(std::string(bare), static_cast<int64_t>(v));
        }
      }
    }
    if (dwarf_siblingof(&die, &die) != 0) break;
  }
}

}  // namespace

Result<RuntimeLayout> LayoutFromDwarf(const ElfFile &elf) {
  if (!elf.has_dwarf()) return Error{"no DWARF (.debug_info absent: built with -ldflags=-w?)"};
  elf_version(EV_CURRENT);
  // libelf may write into the image it reads (section headers of compressed sections are
  // updated in place when decompressing), so it never gets ElfFile's read-only mapping:
  // a file is mapped again copy-on-write (ELF_C_READ_MMAP_PRIVATE), an in-memory image
  // is copied.
  auto image = elf.Image();
  std::unique_ptr<char[]> copy;
  FdCloser fd;
  std::unique_ptr<Elf, ElfDeleter> e;
  if (!elf.path().empty()) {
    fd.fd = open(elf.path().c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st;
    // Only when the file is still the one ElfFile parsed (same size).
    if (fd.fd >= 0 && fstat(fd.fd, &st) == 0 && static_cast<uint64_t>(st.st_size) == image.size())
      e.reset(elf_begin(fd.fd, ELF_C_READ_MMAP_PRIVATE, nullptr));
  }
  if (!e) {
    copy.reset(new char[image.size()]);
    std::memcpy(copy.get(), image.data(), image.size());
    e.reset(elf_memory(copy.get(), image.size()));
  }
  if (!e) return Error{std::string("DWARF: libelf: ") + elf_errmsg(-1)};
  std::unique_ptr<Dwarf, DwarfDeleter> dw(dwarf_begin_elf(e.get(), DWARF_C_READ, nullptr));
  if (!dw) return Error{"DWARF: " + LibdwError()};

  std::vector<std::string> wanted;
  for (auto s : kRuntimeStructs)
    wanted.emplace_back(RuntimeStructDwarfName(s));

  Collected c;
  Dwarf_CU *cu = nullptr;
  Dwarf_Die cudie, subdie;
  Dwarf_Half version = 0;
  uint8_t unit_type = 0;
  for (int guard = 0; guard < 1000000; ++guard) {
    Dwarf_CU *next = nullptr;
    if (dwarf_get_units(dw.get(), cu, &next, &version, &unit_type, &cudie, &subdie) != 0) break;
    cu = next;
    if (unit_type == DW_UT_compile || unit_type == DW_UT_partial) VisitTopLevel(&cudie, &c, wanted);
  }
  if (!c.structs.count("runtime.g")) return Error{"DWARF has no runtime.g type"};

  RuntimeLayout l;
  l.source = LayoutSource::kDwarf;
  for (auto s : kRuntimeStructs) {
    auto it = c.structs.find(RuntimeStructDwarfName(s));
    if (it != c.structs.end()) RuntimeStructSize(l, s) = TypeSize(&it->second);
  }
  for (const auto &f : RuntimeFieldSpecs()) {
    auto it = c.structs.find(RuntimeStructDwarfName(f.in));
    if (it == c.structs.end()) continue;
    for (const char *path : f.paths) {
      FieldLoc loc;
      if (ResolvePath(it->second, path, &loc)) {
        f.get(l) = loc;
        break;
      }
    }
  }
  std::sort(c.constants.begin(), c.constants.end());
  c.constants.erase(std::unique(c.constants.begin(), c.constants.end(),
                                [](const auto &a, const auto &b) { return a.first == b.first; }),
                    c.constants.end());
  l.constants = std::move(c.constants);
  return l;
}

}  // namespace gotraced::gobin
