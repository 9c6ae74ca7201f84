// gobin parsers on hand-made inputs: clear errors for what is not a (supported) Go
// binary, no crash on truncated or mutated input, and exact decoding of small,
// hand-assembled .go.buildinfo and .gopclntab tables.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "daemon/gobin/buildinfo.h"
#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/pclntab.h"
#include "daemon/gobin/symbols.h"
#include "tests/unit/gobin/elf_builder.h"

namespace gotraced::gobin {
namespace {

using testing::ElfBuilder;
using testing::Put;
using testing::PutLE;

std::vector<uint8_t> Bytes(std::string_view s) { return {s.begin(), s.end()}; }

// ---- .go.buildinfo (debug/buildinfo: 32-byte header, then varint strings) ----

std::vector<uint8_t> Varint(uint64_t v) {
  std::vector<uint8_t> b;
  while (v >= 0x80) {
    b.push_back(static_cast<uint8_t>(v | 0x80));
    v >>= 7;
  }
  b.push_back(static_cast<uint8_t>(v));
  return b;
}

std::vector<uint8_t> BuildInfoInline(const std::string &vers, const std::string &mod) {
  std::vector<uint8_t> b = Bytes(std::string("\xff Go buildinf:", 14));
  b.push_back(8);  // ptrSize
  b.push_back(2);  // flagsVersionInl, little endian
  b.resize(32, 0);
  auto lv = Varint(vers.size());
  Put(b, lv.data(), lv.size());
  Put(b, vers.data(), vers.size());
  // modinfo framed by the 16-byte sentinels of cmd/go/internal/modload.
  std::string framed = std::string(16, 'S') + mod + std::string(16, 'E');
  auto lm = Varint(framed.size());
  Put(b, lm.data(), lm.size());
  Put(b, framed.data(), framed.size());
  return b;
}

const std::string kModInfo =
    "path\texample.com/prog\n"
    "mod\texample.com/prog\t(devel)\t\n"
    "dep\tgolang.org/x/sys\tv0.1.0\th1:abc=\n"
    "dep\texample.com/old\tv1.0.0\n"
    "=>\texample.com/new\tv1.2.0\th1:def=\n"
    "build\t-buildmode=exe\n"
    "build\t-compiler=gc\n"
    "build\t-ldflags=\"-s -w\"\n"
    "build\tCGO_ENABLED=0\n"
    "build\t\"we ird\"=\"a\\tb\"\n";

TEST(BuildInfo, InlineFormat) {
  ElfBuilder eb;
  eb.Add(".go.buildinfo", BuildInfoInline("go1.22.3", kModInfo), SHT_PROGBITS, SHF_ALLOC | SHF_WRITE);
  auto img = eb.Build();
  auto elf = ElfFile::FromBytes(img);
  ASSERT_TRUE(elf) << elf.error();
  auto bi = ReadBuildInfo(**elf);
  ASSERT_TRUE(bi) << bi.error();
  EXPECT_EQ(bi->go_version, "go1.22.3");
  EXPECT_EQ(bi->version.major, 1);
  EXPECT_EQ(bi->version.minor, 22);
  EXPECT_EQ(bi->version.patch, 3);
  EXPECT_EQ(bi->path, "example.com/prog");
  ASSERT_TRUE(bi->main);
  EXPECT_EQ(bi->main->version, "(devel)");
  ASSERT_EQ(bi->deps.size(), 2u);
  EXPECT_EQ(bi->deps[0].sum, "h1:abc=");
  ASSERT_TRUE(bi->deps[1].replace_path);
  EXPECT_EQ(*bi->deps[1].replace_path, "example.com/new");
  EXPECT_EQ(bi->Setting("-ldflags").value_or(""), "-s -w");
  EXPECT_EQ(bi->Setting("we ird").value_or(""), "a\tb");
  EXPECT_EQ(bi->Setting("CGO_ENABLED").value_or(""), "0");
  // The same text `go version -m` prints after the first line.
  EXPECT_EQ(bi->FormatModInfoLikeGoVersionM(),
            "\tpath\texample.com/prog\n"
            "\tmod\texample.com/prog\t(devel)\t\n"
            "\tdep\tgolang.org/x/sys\tv0.1.0\th1:abc=\n"
            "\tdep\texample.com/old\tv1.0.0\n"
            "\t=>\texample.com/new\tv1.2.0\th1:def=\n"
            "\tbuild\t-buildmode=exe\n"
            "\tbuild\t-compiler=gc\n"
            "\tbuild\t-ldflags=\"-s -w\"\n"
            "\tbuild\tCGO_ENABLED=0\n"
            "\tbuild\t\"we ird\"=\"a\\tb\"\n");
}

TEST(BuildInfo, PointerFormat) {
  // Go <= 1.17: the header holds pointers to Go string headers {data, len}.
  ElfBuilder eb;
  std::string vers = "go1.16.15";
  std::string mod = std::string(16, 'S') + "path\tcmd\n" + std::string(16, 'E');
  // Reserve a data section first so its address is known.
  std::vector<uint8_t> data;
  size_t strings_idx = eb.Add(".rodata", {});
  size_t bi_idx = eb.Add(".go.buildinfo", std::vector<uint8_t>(32 + 32, 0), SHT_PROGBITS, SHF_ALLOC | SHF_WRITE);
  // Fill .rodata with the two strings, compute addresses, then the headers.
  Put(data, vers.data(), vers.size());
  Put(data, mod.data(), mod.size());
  eb.sections[strings_idx].data = data;
  uint64_t rodata = eb.AddrOf(strings_idx), bi_addr = eb.AddrOf(bi_idx);
  std::vector<uint8_t> b = Bytes(std::string("\xff Go buildinf:", 14));
  b.push_back(8);
  b.push_back(0);  // flagsVersionPtr
  b.resize(16, 0);
  PutLE<uint64_t>(b, bi_addr + 32);  // -> string header of vers
  PutLE<uint64_t>(b, bi_addr + 48);  // -> string header of mod
  PutLE<uint64_t>(b, rodata);
  PutLE<uint64_t>(b, vers.size());
  PutLE<uint64_t>(b, rodata + vers.size());
  PutLE<uint64_t>(b, mod.size());
  eb.sections[bi_idx].data = b;
  auto img = eb.Build();
  auto elf = ElfFile::FromBytes(img);
  ASSERT_TRUE(elf) << elf.error();
  auto bi = ReadBuildInfo(**elf);
  ASSERT_TRUE(bi) << bi.error();
  EXPECT_EQ(bi->go_version, "go1.16.15");
  EXPECT_EQ(bi->path, "cmd");
}

TEST(BuildInfo, Malformed) {
  ElfBuilder eb;
  auto b = BuildInfoInline("go1.22.3", kModInfo);
  b[32] = 0xff;  // varint length running off the end
  b.resize(40);
  eb.Add(".go.buildinfo", b, SHT_PROGBITS, SHF_ALLOC | SHF_WRITE);
  auto img = eb.Build();
  auto elf = ElfFile::FromBytes(img);
  ASSERT_TRUE(elf);
  auto bi = ReadBuildInfo(**elf);
  ASSERT_FALSE(bi);
  EXPECT_NE(bi.error().find("malformed .go.buildinfo"), std::string::npos) << bi.error();
}

TEST(GoVersion, Parse) {
  auto v = GoVersion::Parse("go1.27.3");
  EXPECT_EQ(v.minor, 27);
  EXPECT_EQ(v.patch, 3);
  EXPECT_TRUE(v.AtLeast(1, 27));
  EXPECT_FALSE(v.AtLeast(1, 28));
  v = GoVersion::Parse("go1.22rc1");
  EXPECT_EQ(v.minor, 22);
  EXPECT_EQ(v.suffix, "rc1");
  v = GoVersion::Parse("go1.21.13 X:loopvar");
  EXPECT_EQ(v.patch, 13);
  EXPECT_EQ(v.suffix, " X:loopvar");
  EXPECT_FALSE(GoVersion::Parse("devel +abc").known());
  EXPECT_FALSE(GoVersion::Parse("").known());
}

TEST(FuncNames, ForPrint) {
  EXPECT_EQ(FuncNameForPrint("main.Map[go.shape.int,go.shape.string]"), "main.Map[...]");
  EXPECT_EQ(FuncNameForPrint("main.(*T[go.shape.int]).M"), "main.(*T[...]).M");
  EXPECT_EQ(FuncNameForPrint("main.Map[...]"), "main.Map[...]");  // Go <= 1.20 tables
  EXPECT_EQ(FuncNameForPrint("runtime.gopark"), "runtime.gopark");
  EXPECT_EQ(FuncNameForPrint("odd]name["), "odd]name[");
}

// ---- .gopclntab, Go 1.20+ layout (runtime/symtab.go pcHeader, _func) ----

struct PclnFunc {
  std::string name;
  uint32_t entryoff;
  std::vector<uint8_t> pcfile, pcln;  // encoded pc-value tables
};

// zigzag value delta + pc delta pairs, then the 0 terminator (runtime.step).
std::vector<uint8_t> PcTable(const std::vector<std::pair<int32_t, uint32_t>> &vals_until) {
  // vals_until: (value, pc end offset) pairs; starts from value -1 at pc 0.
  std::vector<uint8_t> t;
  int32_t val = -1;
  uint32_t pc = 0;
  for (auto [v, end] : vals_until) {
    int32_t d = v - val;
    uint32_t zz = static_cast<uint32_t>((d << 1) ^ (d >> 31));
    auto a = Varint(zz);
    Put(t, a.data(), a.size());
    auto p = Varint(end - pc);
    Put(t, p.data(), p.size());
    val = v;
    pc = end;
  }
  t.push_back(0);
  return t;
}

std::vector<uint8_t> Pclntab120(const std::vector<PclnFunc> &funcs, uint32_t text_end_off, uint64_t text_start,
                                const std::string &file) {
  std::vector<uint8_t> names, cutab, filetab, pctab(1, 0), pclntable;
  std::vector<int32_t> name_offs;
  std::vector<uint32_t> pcfile_offs, pcln_offs;
  for (auto &f : funcs) {
    name_offs.push_back(static_cast<int32_t>(names.size()));
    Put(names, f.name.c_str(), f.name.size() + 1);
    pcfile_offs.push_back(static_cast<uint32_t>(pctab.size()));
    Put(pctab, f.pcfile.data(), f.pcfile.size());
    pcln_offs.push_back(static_cast<uint32_t>(pctab.size()));
    Put(pctab, f.pcln.data(), f.pcln.size());
  }
  PutLE<uint32_t>(cutab, 0);  // CU 0, file 0 -> filetab offset 0
  Put(filetab, file.c_str(), file.size() + 1);
  // pclntable: functab {entryoff, funcoff} x (n+1), then the _func records.
  const uint32_t n = static_cast<uint32_t>(funcs.size());
  const uint32_t func_size = 44;  // 1.20+ fixed part, no pcdata/funcdata
  for (uint32_t i = 0; i < n; i++) {
    PutLE<uint32_t>(pclntable, funcs[i].entryoff);
    PutLE<uint32_t>(pclntable, (n + 1) * 8 + i * func_size);
  }
  PutLE<uint32_t>(pclntable, text_end_off);
  PutLE<uint32_t>(pclntable, 0);
  for (uint32_t i = 0; i < n; i++) {
    PutLE<uint32_t>(pclntable, funcs[i].entryoff);
    PutLE<int32_t>(pclntable, name_offs[i]);
    PutLE<int32_t>(pclntable, 0);   // args
    PutLE<uint32_t>(pclntable, 0);  // deferreturn
    PutLE<uint32_t>(pclntable, 0);  // pcsp
    PutLE<uint32_t>(pclntable, pcfile_offs[i]);
    PutLE<uint32_t>(pclntable, pcln_offs[i]);
    PutLE<uint32_t>(pclntable, 0);  // npcdata
    PutLE<uint32_t>(pclntable, 0);  // cuOffset
    PutLE<int32_t>(pclntable, 7);   // startLine
    pclntable.push_back(0);         // funcID
    pclntable.push_back(0);         // flag
    pclntable.push_back(0);
    pclntable.push_back(0);  // nfuncdata
  }
  std::vector<uint8_t> t;
  PutLE<uint32_t>(t, 0xfffffff1);
  t.push_back(0);
  t.push_back(0);
  t.push_back(1);
  t.push_back(8);
  uint64_t off = 72;
  uint64_t fn = off, cu = fn + names.size(), ft = cu + cutab.size(), pc = ft + filetab.size(), pl = pc + pctab.size();
  pl = (pl + 7) & ~uint64_t{7};
  for (uint64_t w : {uint64_t{n}, uint64_t{1}, text_start, fn, cu, ft, pc, pl}) PutLE<uint64_t>(t, w);
  Put(t, names.data(), names.size());
  Put(t, cutab.data(), cutab.size());
  Put(t, filetab.data(), filetab.size());
  Put(t, pctab.data(), pctab.size());
  testing::Align(t, 8);
  Put(t, pclntable.data(), pclntable.size());
  return t;
}

std::vector<PclnFunc> TwoFuncs() {
  return {
      {"main.f", 0, PcTable({{0, 0x20}}), PcTable({{10, 0x10}, {11, 0x20}})},
      {"main.g", 0x20, PcTable({{0, 0x18}}), PcTable({{20, 0x18}})},
  };
}

TEST(Pclntab, Decode120) {
  auto t = Pclntab120(TwoFuncs(), 0x18 + 0x20, 0x401000, "/src/a.go");
  auto p = Pclntab::Parse(t, 0x500000, 0);
  ASSERT_TRUE(p) << p.error();
  EXPECT_EQ(p->version(), PclnVersion::kGo120);
  EXPECT_EQ(p->num_funcs(), 2u);
  EXPECT_EQ(p->text_start(), 0x401000u);
  EXPECT_EQ(p->text_end(), 0x401038u);
  auto f = p->FuncForPC(0x401010);
  ASSERT_TRUE(f);
  EXPECT_EQ(p->FuncName(f->name_off), "main.f");
  EXPECT_EQ(f->entry, 0x401000u);
  EXPECT_EQ(f->end, 0x401020u);
  EXPECT_EQ(f->start_line, 7);
  auto fl = p->FileLine(*f, 0x40100f);
  ASSERT_TRUE(fl);
  EXPECT_EQ(fl->first, "/src/a.go");
  EXPECT_EQ(fl->second, 10);
  EXPECT_EQ(p->FileLine(*f, 0x401010)->second, 11);
  auto g = p->FuncForPC(0x401037);
  ASSERT_TRUE(g);
  EXPECT_EQ(p->FuncName(g->name_off), "main.g");
  EXPECT_EQ(p->FileLine(*g, 0x401037)->second, 20);
  EXPECT_FALSE(p->FuncForPC(0x401038));
  EXPECT_FALSE(p->FuncForPC(0x400fff));
  // A text base given by the caller (moduledata.text) wins over the header.
  auto q = Pclntab::Parse(t, 0x500000, 0x801000);
  ASSERT_TRUE(q);
  EXPECT_EQ(q->FuncForPC(0x801021)->entry, 0x801020u);
}

TEST(Pclntab, Errors) {
  auto t = Pclntab120(TwoFuncs(), 0x38, 0x401000, "/src/a.go");
  auto bad = t;
  bad[0] = 0xfb;  // Go 1.2-1.15 magic
  auto r = Pclntab::Parse(bad, 0, 0);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("1.2-1.15"), std::string::npos) << r.error();
  bad = t;
  bad[0] = 0x12;
  r = Pclntab::Parse(bad, 0, 0);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("bad magic"), std::string::npos) << r.error();
  // Go 1.26+: textStart 0 in the header and no text base given.
  auto zero = t;
  std::memset(zero.data() + 24, 0, 8);
  r = Pclntab::Parse(zero, 0, 0);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().find("textStart is 0"), std::string::npos) << r.error();
  EXPECT_TRUE(Pclntab::Parse(zero, 0, 0x401000));
  // Every truncation parses or fails cleanly, and lookups stay in bounds.
  for (size_t n = 0; n < t.size(); n++) {
    std::vector<uint8_t> cut(t.begin(), t.begin() + static_cast<long>(n));
    auto c = Pclntab::Parse(cut, 0, 0);
    if (!c) continue;
    for (uint64_t pc = 0x400ff0; pc < 0x401040; pc++) {
      if (auto f = c->FuncForPC(pc)) {
        (void)c->FileLine(*f, pc);
        (void)c->FuncName(f->name_off);
      }
    }
  }
}

// ---- ELF identification ----

TEST(ElfFile, NotElf) {
  for (std::string s : {std::string(), std::string("x"), std::string("#!/bin/sh\necho hi\n"), std::string(100, '\0')}) {
    auto r = ElfFile::FromBytes(Bytes(s));
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error(), "not an ELF file");
    auto g = GoBinary::FromBytes(Bytes(s));
    ASSERT_FALSE(g);
    EXPECT_EQ(g.error(), "not an ELF file");
  }
}

TEST(ElfFile, WrongArch) {
  ElfBuilder eb;
  eb.machine = EM_AARCH64;
  auto r = ElfFile::FromBytes(eb.Build());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "not 64-bit x86-64 (found ELFCLASS64, little-endian, aarch64)");
  ElfBuilder e32;
  e32.elf_class = ELFCLASS32;
  e32.machine = EM_386;
  r = ElfFile::FromBytes(e32.Build());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "not 64-bit x86-64 (found ELFCLASS32, little-endian, i386)");
}

TEST(ElfFile, OpenErrors) {
  auto r = ElfFile::Open("/nonexistent/gobin-test");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "open /nonexistent/gobin-test: No such file or directory");
  r = ElfFile::Open("/");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "/: not a regular file");
}

TEST(ElfFile, SectionsSegmentsNotes) {
  ElfBuilder eb;
  size_t text = eb.Add(".text", std::vector<uint8_t>(64, 0xcc), SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR);
  std::vector<uint8_t> id = {0xde, 0xad, 0xbe, 0xef};
  eb.Add(".note.gnu.build-id", testing::Note(std::string("GNU\0", 4), NT_GNU_BUILD_ID, id), SHT_NOTE);
  eb.Add(".note.go.buildid", testing::Note(std::string("Go\0\0", 4), 4, Bytes("abc/def")), SHT_NOTE);
  auto img = eb.Build();
  auto r = ElfFile::FromBytes(img);
  ASSERT_TRUE(r) << r.error();
  const ElfFile &e = **r;
  EXPECT_EQ(e.gnu_build_id(), "deadbeef");
  EXPECT_EQ(e.go_build_id(), "abc/def");
  EXPECT_FALSE(e.is_pie());
  EXPECT_TRUE(e.is_static());
  EXPECT_FALSE(e.has_symtab());
  const ElfSection *s = e.FindSection(".text");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->addr, eb.sections[text].addr);
  auto bytes = e.SectionBytes(".text");
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->size(), 64u);
  EXPECT_EQ(e.VaddrToFileOffset(s->addr), s->offset);
  EXPECT_EQ(e.FileOffsetToVaddr(s->offset), s->addr);
  EXPECT_TRUE(e.ReadVirtual(s->addr, 64));
  EXPECT_EQ(e.ReadU32(s->addr).value_or(0), 0xccccccccu);
  // Beyond the file-backed part of the segment: nothing.
  EXPECT_FALSE(e.ReadVirtual(0x400000 + img.size() + 0x1000, 1));
  EXPECT_FALSE(e.ReadVirtual(s->addr, ~uint64_t{0}));
  EXPECT_FALSE(e.VaddrToFileOffset(0x10));
  EXPECT_FALSE(e.SectionBytes(".nope"));
  // An ELF that is not Go.
  auto g = GoBinary::FromBytes(img);
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error(), "not a Go binary (no .go.buildinfo or .gopclntab)");
}

TEST(ElfFile, TruncatedHeaders) {
  ElfBuilder eb;
  eb.Add(".text", std::vector<uint8_t>(64, 0x90), SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR);
  auto img = eb.Build();
  // Cut inside the section header table (at the end of the file).
  std::vector<uint8_t> cut(img.begin(), img.end() - 10);
  auto r = ElfFile::FromBytes(cut);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "truncated ELF: section headers beyond end of file");
  // Cut inside the program headers.
  std::vector<uint8_t> cut2(img.begin(), img.begin() + 80);
  r = ElfFile::FromBytes(cut2);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "truncated ELF: program headers beyond end of file");
  std::vector<uint8_t> cut3(img.begin(), img.begin() + 30);
  r = ElfFile::FromBytes(cut3);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error(), "truncated ELF header");
}

// ---- A whole (tiny) Go binary: buildinfo + pclntab + .text ----

std::vector<uint8_t> TinyGoBinary(bool with_sections) {
  ElfBuilder eb;
  eb.section_headers = with_sections;
  // Without section headers gobin scans non-executable segments for the pcHeader magic
  // and writable ones for the buildinfo magic, as debug/buildinfo does.
  if (!with_sections) eb.load_flags = PF_R | PF_W;
  size_t text = eb.Add(".text", std::vector<uint8_t>(0x40, 0x90), SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR);
  uint64_t text_addr = eb.AddrOf(text);
  eb.Add(".gopclntab", Pclntab120(TwoFuncs(), 0x38, text_addr, "/src/a.go"));
  eb.Add(".go.buildinfo", BuildInfoInline("go1.22.3", kModInfo), SHT_PROGBITS, SHF_ALLOC | SHF_WRITE);
  return eb.Build();
}

TEST(GoBinary, TinyBinary) {
  for (bool sections : {true, false}) {
    auto img = TinyGoBinary(sections);
    auto g = GoBinary::FromBytes(img);
    ASSERT_TRUE(g) << g.error();
    const GoBinary &b = **g;
    EXPECT_EQ(b.build_info().go_version, "go1.22.3");
    EXPECT_EQ(b.pclntab_source(), sections ? PclntabSource::kSection : PclntabSource::kMagicScan);
    const FunctionSym *f = b.FindFunction("main.g");
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->end - f->entry, 0x18u);
    EXPECT_EQ(b.FuncForPC(f->entry + 3), f);
    EXPECT_EQ(b.FindFunction("main.nope"), nullptr);
    auto fr = b.FramesForPC(b.FindFunction("main.f")->entry + 0x10, PcKind::kReturnAddress);
    ASSERT_EQ(fr.size(), 1u);
    EXPECT_EQ(fr[0].function, "main.f");
    EXPECT_EQ(fr[0].file, "/src/a.go");
    EXPECT_EQ(fr[0].line, 10);  // pc-1 is still in the first line's range
    EXPECT_EQ(fr[0].pc, fr[0].entry + 0x0f);
    EXPECT_FALSE(fr[0].inlined);
    fr = b.FramesForPC(b.FindFunction("main.f")->entry + 0x10, PcKind::kInstruction);
    ASSERT_EQ(fr.size(), 1u);
    EXPECT_EQ(fr[0].line, 11);
    EXPECT_TRUE(b.FramesForPC(0x10).empty());
  }
}

TEST(GoBinary, PclntabVersionTooOld) {
  ElfBuilder eb;
  auto t = Pclntab120(TwoFuncs(), 0x38, 0x401000, "/src/a.go");
  t[0] = 0xfb;
  eb.Add(".gopclntab", t);
  eb.Add(".go.buildinfo", BuildInfoInline("go1.15.2", "path\tx\n"), SHT_PROGBITS, SHF_ALLOC | SHF_WRITE);
  auto g = GoBinary::FromBytes(eb.Build());
  ASSERT_FALSE(g);
  EXPECT_EQ(g.error(), "go1.15.2: pclntab version unsupported (Go < 1.16)");
}

// Truncations and random byte flips of a small Go binary: an error or a usable object,
// never a crash (the libFuzzer target does this at scale).
TEST(GoBinary, TruncatedAndMutatedNoCrash) {
  auto img = TinyGoBinary(true);
  for (size_t n = 0; n < img.size(); n += 3) {
    std::vector<uint8_t> cut(img.begin(), img.begin() + static_cast<long>(n));
    auto g = GoBinary::FromBytes(cut);
    if (g) (void)(*g)->FramesForPC((*g)->text_start() + 5);
  }
  std::mt19937 rng(42);
  for (int iter = 0; iter < 3000; iter++) {
    auto m = img;
    int flips = 1 + static_cast<int>(rng() % 8);
    for (int k = 0; k < flips; k++) m[rng() % m.size()] = static_cast<uint8_t>(rng());
    auto g = GoBinary::FromBytes(m);
    if (!g) continue;
    const GoBinary &b = **g;
    for (uint64_t pc = b.text_start(); pc < b.text_start() + 0x40; pc += 5) (void)b.FramesForPC(pc);
    (void)b.symbols().CheckAgainstSymtab(b.elf());
  }
}

}  // namespace
}  // namespace gotraced::gobin
