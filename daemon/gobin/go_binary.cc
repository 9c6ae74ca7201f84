// GoBinary: finds the pclntab (section, .data.rel.ro, or magic scan), the module data
// (for the text base and the funcdata base), and derives the build flags.
#include "daemon/gobin/go_binary.h"

#include <elf.h>

#include <algorithm>

#include <fmt/format.h>

namespace gotraced::gobin {

namespace {

// moduledata field offsets (amd64), from runtime/symtab.go `type moduledata struct` of
// each version: pcHeader 0, funcnametab 8 (slice), cutab 32, filetab 56, pctab 80,
// pclntable 104, ftab 128, findfunctab 152, minpc 160, maxpc 168, text 176, etext 184.
constexpr uint64_t kMdFuncnametab = 8;
constexpr uint64_t kMdText = 176;
constexpr uint64_t kMdEtext = 184;
// gofunc: 1.18/1.19 after {noptrdata..enoptrbss, end, gcdata, gcbss, types, etypes,
// rodata} = 304; 1.20-1.26 add covctrs/ecovctrs = 320; 1.27 adds typedesclen,
// itaboffset, itabsize = 344. rodata is the word before gofunc in all of them.
constexpr uint64_t kMdGofunc118 = 304;
constexpr uint64_t kMdGofunc120 = 320;
constexpr uint64_t kMdGofunc127 = 344;

const ElfSegment *SegmentOf(const ElfFile &elf, uint64_t vaddr) {
  for (const auto &ph : elf.Segments()) {
    if (ph.type == PT_LOAD && vaddr >= ph.vaddr && vaddr - ph.vaddr < ph.memsz) return &ph;
  }
  return nullptr;
}

// The bytes from vaddr to the end of its segment's file-backed part.
std::optional<std::span<const uint8_t>> TailFrom(const ElfFile &elf, uint64_t vaddr) {
  for (const auto &ph : elf.Segments()) {
    if (ph.type != PT_LOAD || vaddr < ph.vaddr || vaddr - ph.vaddr >= ph.filesz) continue;
    return elf.ReadVirtual(vaddr, ph.filesz - (vaddr - ph.vaddr));
  }
  return std::nullopt;
}

// Plausibility of a freshly parsed table: the first function has a name, the table
// offsets are in the order the linker writes them.
bool Plausible(const Pclntab &t) {
  if (t.num_funcs() == 0) return false;
  auto f = t.Func(0);
  if (!f || t.FuncName(f->name_off).empty()) return false;
  return t.funcname_offset() <= t.cu_offset() && t.cu_offset() <= t.filetab_offset() &&
         t.filetab_offset() <= t.pctab_offset() && t.pctab_offset() <= t.pcln_offset();
}

std::optional<std::string> ForPrint(std::string_view name) {
  std::string out = FuncNameForPrint(name);
  if (out == name) return std::nullopt;
  return out;
}

}  // namespace

GoBinary::~GoBinary() = default;

Result<std::unique_ptr<GoBinary>> GoBinary::Open(const std::string &path) {
  auto elf = ElfFile::Open(path);
  if (!elf) return Error{elf.error()};
  return Init(std::move(*elf));
}

Result<std::unique_ptr<GoBinary>> GoBinary::FromBytes(std::span<const uint8_t> bytes) {
  auto elf = ElfFile::FromBytes(bytes);
  if (!elf) return Error{elf.error()};
  return Init(std::move(*elf));
}

Result<std::unique_ptr<GoBinary>> GoBinary::Init(std::unique_ptr<ElfFile> elf_in) {
  std::unique_ptr<GoBinary> b(new GoBinary());
  b->elf_ = std::move(elf_in);
  const ElfFile &elf = *b->elf_;

  auto bi = ReadBuildInfo(elf);
  if (bi) b->build_info_ = std::move(*bi);
  const std::string vprefix = bi ? b->build_info_.go_version + ": " : "";

  // 1. Find the pclntab: named section (internal linking: .gopclntab; PIE <= 1.25:
  //    .data.rel.ro.gopclntab), the runtime.pclntab symbol, or a scan of the read-only
  //    segments for a pcHeader magic (sections stripped).
  std::span<const uint8_t> tab_bytes;
  uint64_t tab_vaddr = 0;
  std::string pcln_err;
  for (const char *name : {".gopclntab", ".data.rel.ro.gopclntab"}) {
    const ElfSection *s = elf.FindSection(name);
    if (!s) continue;
    auto bytes = elf.SectionBytes(*s);
    if (!bytes) continue;
    tab_bytes = *bytes;
    tab_vaddr = s->addr;
    b->pclntab_source_ = name[1] == 'g' ? PclntabSource::kSection : PclntabSource::kDataRelRo;
    break;
  }
  if (tab_bytes.empty()) {
    for (const char *sym : {"runtime.pcheader", "runtime.pclntab"}) {
      const ElfSymbol *s = elf.FindSymtabSymbol(sym);
      if (!s) continue;
      if (auto t = TailFrom(elf, s->value)) {
        tab_bytes = *t;
        tab_vaddr = s->value;
        b->pclntab_source_ = PclntabSource::kDataRelRo;
        break;
      }
    }
  }
  if (tab_bytes.empty()) {
    for (const auto &ph : elf.Segments()) {
      if (ph.type != PT_LOAD || (ph.flags & PF_X)) continue;
      auto seg = elf.ReadVirtual(ph.vaddr, ph.filesz);
      if (!seg) continue;
      for (uint64_t off = (8 - (ph.vaddr & 7)) & 7; off + 64 <= seg->size(); off += 8) {
        const uint8_t *p = seg->data() + off;
        if (p[0] < 0xf0 || p[1] != 0xff || p[2] != 0xff || p[3] != 0xff) continue;
        auto cand = seg->subspan(off);
        if (!Pclntab::ProbeMagic(cand)) continue;
        auto t = Pclntab::Parse(cand, ph.vaddr + off, /*text_start=*/1);
        if (!t || !Plausible(*t)) continue;
        tab_bytes = cand;
        tab_vaddr = ph.vaddr + off;
        b->pclntab_source_ = PclntabSource::kMagicScan;
        break;
      }
      if (!tab_bytes.empty()) break;
    }
  }
  if (tab_bytes.empty()) {
    if (!bi) return Error{"not a Go binary (no .go.buildinfo or .gopclntab)"};
    return Error{vprefix + "no .gopclntab found (section headers stripped and no pcHeader magic in the data)"};
  }
  // A first parse for the header offsets (text base not known yet).
  auto probe = Pclntab::Parse(tab_bytes, tab_vaddr, /*text_start=*/1);
  if (!probe) {
    if (b->build_info_.version.known() && !b->build_info_.version.AtLeast(1, 16))
      return Error{vprefix + "pclntab version unsupported (Go < 1.16)"};
    return Error{vprefix + probe.error()};
  }
  const PclnVersion pv = probe->version();
  if (!bi && pv == PclnVersion::kGo116) {
    b->build_info_.version = GoVersion{1, 16, 0, "(from pclntab magic)"};
  }

  // 2. Module data: .symtab, section .go.module (Go 1.26+), or the slot pointing at
  //    the pclntab whose next word is the funcnametab pointer.
  std::optional<uint64_t> md;
  std::string md_how;
  if (const ElfSymbol *s = elf.FindSymtabSymbol("runtime.firstmoduledata")) {
    md = s->value;
    md_how = "symtab";
  } else if (const ElfSection *s = elf.FindSection(".go.module")) {
    if (elf.ReadPointer(s->addr) == tab_vaddr) {
      md = s->addr;
      md_how = "section .go.module";
    }
  }
  if (!md) {
    for (uint64_t cand : elf.FindPointersTo(tab_vaddr)) {
      if (elf.ReadPointer(cand + kMdFuncnametab) == tab_vaddr + probe->funcname_offset()) {
        md = cand;
        md_how = "pointer scan";
        break;
      }
    }
  }
  if (md) {
    ModuleData m;
    m.vaddr = *md;
    m.found_by = md_how;
    m.text = elf.ReadPointer(*md + kMdText).value_or(0);
    m.etext = elf.ReadPointer(*md + kMdEtext).value_or(0);
    if (pv != PclnVersion::kGo116) {
      // gofunc's offset by version; without a version, the first candidate whose
      // rodata <= gofunc words both point into one non-executable segment.
      std::vector<uint64_t> cands;
      const GoVersion &v = b->build_info_.version;
      if (pv == PclnVersion::kGo118) cands = {kMdGofunc118};
      else if (v.known() && v.AtLeast(1, 27)) cands = {kMdGofunc127, kMdGofunc120};
      else if (v.known()) cands = {kMdGofunc120, kMdGofunc127};
      else cands = {kMdGofunc120, kMdGofunc127};
      for (uint64_t off : cands) {
        auto rodata = elf.ReadPointer(*md + off - 8);
        auto gofunc = elf.ReadPointer(*md + off);
        if (!rodata || !gofunc || *gofunc == 0 || *rodata > *gofunc) continue;
        const ElfSegment *sr = SegmentOf(elf, *rodata), *sg = SegmentOf(elf, *gofunc);
        if (!sr || sr != sg || (sg->flags & PF_X)) continue;
        m.gofunc = *gofunc;
        break;
      }
    }
    b->moduledata_ = m;
  }
  // Cross-check gofunc with the symbol when there is one (go:func.* since 1.20,
  // go.func.* before).
  if (b->moduledata_ && b->moduledata_->gofunc == 0) {
    for (const char *sym : {"go:func.*", "go.func.*"}) {
      if (const ElfSymbol *s = elf.FindSymtabSymbol(sym)) {
        b->moduledata_->gofunc = s->value;
        break;
      }
    }
  }

  // 3. The text base: moduledata.text, else the header's textStart (relocated for PIE;
  //    0 in Go 1.26+), else runtime.text, else the .text section (wrong for cgo, where C
  //    code comes first).
  uint64_t text = 0;
  if (pv != PclnVersion::kGo116) {
    if (b->moduledata_ && b->moduledata_->text) text = b->moduledata_->text;
    if (!text) text = elf.ReadPointer(tab_vaddr + 24).value_or(0);
    if (!text) {
      if (const ElfSymbol *s = elf.FindSymtabSymbol("runtime.text")) text = s->value;
    }
    if (!text) {
      if (const ElfSection *s = elf.FindSection(".text")) text = s->addr;
    }
    if (!text) return Error{vprefix + "pclntab: text start unknown (no moduledata, runtime.text or .text)"};
  }
  auto tab = Pclntab::Parse(tab_bytes, tab_vaddr, text);
  if (!tab) return Error{vprefix + tab.error()};
  b->pclntab_ = std::move(*tab);
  b->symbols_ = SymbolTable::FromPclntab(b->pclntab_);
  if (b->symbols_.Functions().empty()) return Error{vprefix + "pclntab has no functions"};

  // Printed names that differ from the raw ones (generic shapes).
  {
    auto names = b->pclntab_.bytes();
    uint64_t start = b->pclntab_.funcname_offset(), end = b->pclntab_.cu_offset();
    if (end > names.size() || start > end) end = start;
    for (uint64_t p = start; p < end;) {
      const uint8_t *s = names.data() + p;
      const void *nul = std::memchr(s, 0, end - p);
      size_t len = nul ? static_cast<const uint8_t *>(nul) - s : end - p;
      std::string_view name(reinterpret_cast<const char *>(s), len);
      if (auto pr = ForPrint(name)) b->print_names_.emplace_back(static_cast<int32_t>(p - start), std::move(*pr));
      p += len + 1;
    }
    std::sort(b->print_names_.begin(), b->print_names_.end());
  }

  // The FuncID numbering changes between versions (runtime/symtab.go funcID in <= 1.20,
  // internal/abi FuncID since 1.21, with entries added in 1.22 and 1.27), so read the
  // values off the functions that carry them in this very binary. The wrapper ID has
  // always directly followed systemstack_switch.
  auto id_of = [&](std::string_view fn) -> int {
    const FunctionSym *f = b->FindFunction(fn);
    return f && f->func_id ? f->func_id : -1;
  };
  int ss = id_of("runtime.systemstack_switch");
  b->fid_wrapper_ = ss > 0 ? ss + 1 : -1;
  b->fid_gopanic_ = id_of("runtime.gopanic");
  b->fid_sigpanic_ = id_of("runtime.sigpanic");
  b->fid_panicwrap_ = id_of("runtime.panicwrap");

  // 4. Flags.
  BuildFlags &fl = b->flags_;
  const BuildInfo &info = b->build_info_;
  fl.pie = elf.is_pie();
  fl.static_linked = elf.is_static();
  fl.stripped = !elf.has_symtab();
  fl.no_dwarf = !elf.has_dwarf();
  fl.trimpath = info.Setting("-trimpath").value_or("") == "true";
  fl.external_link = info.Setting("-ldflags").value_or("").find("-linkmode=external") != std::string::npos;
  // CGO_ENABLED=1 only says cgo was allowed (it is 1 by default whenever a C compiler
  // is around). cgo is in use when runtime/cgo is linked in: its assembly entry point
  // crosscall2 (runtime/cgo/asm_amd64.s) is then in the pclntab, stripped or not.
  fl.cgo = b->symbols_.FindFunction("crosscall2") != nullptr;
  // External linking: the ELF entry is the C runtime's _start (crt1.o), not Go's
  // _rt0_amd64_linux, so it is in no pclntab function.
  fl.external_link = fl.external_link || (elf.entry() != 0 && b->symbols_.FuncForPC(elf.entry()) == nullptr);
  return b;
}

const FunctionSym *GoBinary::FindFunction(std::string_view name) const {
  auto all = symbols_.FindFunctions(name);
  if (all.empty()) return nullptr;
  for (const FunctionSym *f : all) {
    if (fid_wrapper_ < 0 || f->func_id != fid_wrapper_) return f;
  }
  return all[0];
}

std::string_view GoBinary::PrintName(int32_t name_off) const {
  auto it = std::lower_bound(print_names_.begin(), print_names_.end(), name_off,
                             [](const auto &e, int32_t o) { return e.first < o; });
  if (it != print_names_.end() && it->first == name_off) return it->second;
  return pclntab_.FuncName(name_off);
}

std::optional<InlinedCall> GoBinary::InlineTreeEntry(const FuncRecord &f, int32_t ix) const {
  if (ix < 0 || ix >= (1 << 20)) return std::nullopt;
  auto raw = pclntab_.FuncdataRaw(f, kFuncdataInlTree);
  if (!raw) return std::nullopt;
  uint64_t base;
  if (pclntab_.version() == PclnVersion::kGo116) {
    auto p = elf_->ReadPointer(*raw);
    if (!p || *p == 0) return std::nullopt;
    base = *p;
  } else {
    if (!moduledata_ || moduledata_->gofunc == 0) return std::nullopt;
    base = moduledata_->gofunc + *raw;
  }
  InlinedCall c;
  if (pclntab_.version() == PclnVersion::kGo120) {
    // {funcID uint8, _ [3]byte, nameOff int32, parentPc int32, startLine int32}
    auto b = elf_->ReadVirtual(base + uint64_t(ix) * 16, 16);
    if (!b) return std::nullopt;
    c.func_id = (*b)[0];
    std::memcpy(&c.name_off, b->data() + 4, 4);
    std::memcpy(&c.parent_pc, b->data() + 8, 4);
    std::memcpy(&c.start_line, b->data() + 12, 4);
  } else {
    // {parent int16, funcID uint8, _ byte, file int32, line int32, func_ int32, parentPc int32}
    auto b = elf_->ReadVirtual(base + uint64_t(ix) * 20, 20);
    if (!b) return std::nullopt;
    std::memcpy(&c.parent, b->data(), 2);
    c.func_id = (*b)[2];
    std::memcpy(&c.file, b->data() + 4, 4);
    std::memcpy(&c.line, b->data() + 8, 4);
    std::memcpy(&c.name_off, b->data() + 12, 4);
    std::memcpy(&c.parent_pc, b->data() + 16, 4);
  }
  return c;
}

bool GoBinary::FuncIdIs(uint8_t func_id, std::string_view which) const {
  if (func_id == 0) return false;  // FuncIDNormal
  if (which == "wrapper") return func_id == fid_wrapper_;
  if (which == "gopanic") return func_id == fid_gopanic_;
  if (which == "sigpanic") return func_id == fid_sigpanic_;
  if (which == "panicwrap") return func_id == fid_panicwrap_;
  return false;
}

std::vector<Frame> GoBinary::FramesForPC(uint64_t pc, PcKind kind) const {
  std::vector<Frame> out;
  gobin::FramesForPC(*this, pc, kind, &out);
  return out;
}

}  // namespace gotraced::gobin
