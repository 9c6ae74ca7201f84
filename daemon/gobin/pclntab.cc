// Decoding of .gopclntab. Authority (read for each Go version on the machine):
//   runtime/symtab.go   pcHeader, functab, funcInfo.entry, pcvalue, step, readvarint,
//                       pcdatastart, pcdatavalue, funcdata, funcline1, funcfile
//   runtime/runtime2.go _func (Go <= 1.20; in symtab.go/runtime2.go afterwards)
//   cmd/link/internal/ld/pcln.go  (writer: header, funcnametab, cutab, filetab, pctab,
//                                  functab {entryoff, funcoff} + sentinel, _func records)
//   debug/gosym/pclntab.go        (ver116/ver118/ver120 readers)
#include "daemon/gobin/pclntab.h"

#include <cstring>

#include <fmt/format.h>

namespace gotraced::gobin {

namespace {

// pcHeader.magic values (internal/abi/symtab.go PCLnTabMagic; debug/gosym go12magic...).
constexpr uint32_t kMagic116 = 0xfffffffa;
constexpr uint32_t kMagic118 = 0xfffffff0;
constexpr uint32_t kMagic120 = 0xfffffff1;

bool InRange(uint64_t off, uint64_t len, uint64_t size) { return off <= size && len <= size - off; }

template <class T>
std::optional<T> Load(std::span<const uint8_t> d, uint64_t off) {
  if (!InRange(off, sizeof(T), d.size())) return std::nullopt;
  T v;
  std::memcpy(&v, d.data() + off, sizeof(T));
  return v;
}

// Size of the fixed part of _func, before the pcdata offsets.
//   1.16/1.17: entry uintptr, nameoff..cuOffset (8 x 4), funcID, flag/pad, pad, nfuncdata
//   1.18/1.19: entryoff uint32 instead of entry uintptr
//   1.20+:     + startLine int32 before funcID
uint64_t FuncFixedSize(PclnVersion v) {
  switch (v) {
    case PclnVersion::kGo116: return 8 + 8 * 4 + 4;
    case PclnVersion::kGo118: return 4 + 8 * 4 + 4;
    case PclnVersion::kGo120: return 4 + 9 * 4 + 4;
  }
  return 0;
}

}  // namespace

std::optional<PclnVersion> Pclntab::ProbeMagic(std::span<const uint8_t> d) {
  auto magic = Load<uint32_t>(d, 0);
  if (!magic || d.size() < 8) return std::nullopt;
  // pad1, pad2 == 0; minLC == 1 on amd64 (PCQuantum); ptrSize == 8.
  if (d[4] != 0 || d[5] != 0 || d[6] != 1 || d[7] != 8) return std::nullopt;
  switch (*magic) {
    case kMagic116: return PclnVersion::kGo116;
    case kMagic118: return PclnVersion::kGo118;
    case kMagic120: return PclnVersion::kGo120;
    default: return std::nullopt;
  }
}

Result<Pclntab> Pclntab::Parse(std::span<const uint8_t> data, uint64_t vaddr, uint64_t text_start) {
  auto magic = Load<uint32_t>(data, 0);
  if (!magic) return Error{"pclntab: truncated header"};
  auto ver = ProbeMagic(data);
  if (!ver) {
    if (*magic == 0xfffffffb) return Error{"pclntab: Go 1.2-1.15 layout (magic 0xfffffffb) unsupported"};
    return Error{fmt::format("pclntab: bad magic 0x{:08x} (or minLC/ptrSize not amd64)", *magic)};
  }
  Pclntab t;
  t.data_ = data;
  t.vaddr_ = vaddr;
  t.version_ = *ver;
  // Header words after the 8 fixed bytes (all uintptr-sized):
  //   1.16:  nfunc, nfiles, funcnameOffset, cuOffset, filetabOffset, pctabOffset, pclnOffset
  //   1.18+: nfunc, nfiles, textStart, funcnameOffset, ... (textStart unused and 0 in 1.26+)
  const bool has_text = *ver != PclnVersion::kGo116;
  const uint64_t nwords = has_text ? 8 : 7;
  if (!InRange(0, 8 + 8 * nwords, data.size())) return Error{"pclntab: truncated header"};
  uint64_t w[8] = {};
  for (uint64_t i = 0; i < nwords; i++) w[i] = *Load<uint64_t>(data, 8 + 8 * i);
  uint64_t nfunc = w[0], nfiles = w[1];
  size_t k = 2;
  if (has_text) t.header_text_start_ = w[k++];
  t.funcname_off_ = w[k++];
  t.cu_off_ = w[k++];
  t.filetab_off_ = w[k++];
  t.pctab_off_ = w[k++];
  t.pcln_off_ = w[k++];
  for (uint64_t off : {t.funcname_off_, t.cu_off_, t.filetab_off_, t.pctab_off_, t.pcln_off_}) {
    if (off > data.size()) return Error{fmt::format("pclntab: table offset 0x{:x} beyond the {} bytes of the table", off, data.size())};
  }
  const uint64_t ftab_entry = has_text ? 8 : 16;  // {entryoff, funcoff uint32} or {entry, funcoff uintptr}
  if (nfunc > (data.size() - t.pcln_off_) / ftab_entry || nfunc + 1 > (data.size() - t.pcln_off_) / ftab_entry)
    return Error{fmt::format("pclntab: {} functions do not fit in the table", nfunc)};
  if (nfiles > data.size()) return Error{"pclntab: bad file count"};
  t.nfunc_ = static_cast<uint32_t>(nfunc);
  t.nfiles_ = static_cast<uint32_t>(nfiles);
  t.ftab_off_ = t.pcln_off_;
  if (has_text) {
    t.text_start_ = text_start ? text_start : t.header_text_start_;
    if (t.text_start_ == 0) return Error{"pclntab: textStart is 0 (Go 1.26+ or unrelocated PIE): text base unknown"};
    t.text_end_ = t.text_start_ + *Load<uint32_t>(data, t.ftab_off_ + nfunc * 8);
  } else {
    t.text_start_ = nfunc ? *Load<uint64_t>(data, t.ftab_off_) : 0;
    t.text_end_ = *Load<uint64_t>(data, t.ftab_off_ + nfunc * 16);
  }
  return t;
}

std::optional<FuncRecord> Pclntab::Func(uint32_t i) const {
  if (i >= nfunc_) return std::nullopt;
  FuncRecord f;
  f.index = i;
  uint64_t funcoff;
  if (version_ == PclnVersion::kGo116) {
    auto e = Load<uint64_t>(data_, ftab_off_ + uint64_t{i} * 16);
    auto fo = Load<uint64_t>(data_, ftab_off_ + uint64_t{i} * 16 + 8);
    auto en = Load<uint64_t>(data_, ftab_off_ + uint64_t{i + 1} * 16);
    if (!e || !fo || !en) return std::nullopt;
    f.entry = *e;
    f.end = *en;
    funcoff = *fo;
  } else {
    auto e = Load<uint32_t>(data_, ftab_off_ + uint64_t{i} * 8);
    auto fo = Load<uint32_t>(data_, ftab_off_ + uint64_t{i} * 8 + 4);
    auto en = Load<uint32_t>(data_, ftab_off_ + uint64_t{i + 1} * 8);
    if (!e || !fo || !en) return std::nullopt;
    f.entry = text_start_ + *e;
    f.end = text_start_ + *en;
    funcoff = *fo;
  }
  // _func lives at pclntable + funcoff (pclntable == pclnOffset).
  const uint64_t fo = pcln_off_ + funcoff;
  if (fo < pcln_off_ || !InRange(fo, FuncFixedSize(version_), data_.size())) return std::nullopt;
  f.func_off = fo;
  uint64_t p = fo;
  if (version_ == PclnVersion::kGo116) {
    p += 8;  // entry (must equal the ftab entry)
  } else {
    p += 4;  // entryOff
  }
  f.name_off = *Load<int32_t>(data_, p);
  f.args = *Load<int32_t>(data_, p + 4);
  f.deferreturn = *Load<uint32_t>(data_, p + 8);
  f.pcsp = *Load<uint32_t>(data_, p + 12);
  f.pcfile = *Load<uint32_t>(data_, p + 16);
  f.pcln = *Load<uint32_t>(data_, p + 20);
  f.npcdata = *Load<uint32_t>(data_, p + 24);
  f.cu_offset = *Load<uint32_t>(data_, p + 28);
  p += 32;
  if (version_ == PclnVersion::kGo120) {
    f.start_line = *Load<int32_t>(data_, p);
    p += 4;
  }
  f.func_id = data_[p];
  f.flag = version_ == PclnVersion::kGo116 ? 0 : data_[p + 1];  // 1.16 had padding; 1.17 flag
  f.nfuncdata = data_[p + 3];
  return f;
}

std::optional<FuncRecord> Pclntab::FuncForPC(uint64_t pc) const {
  if (nfunc_ == 0 || pc < text_start_ || pc >= text_end_) return std::nullopt;
  // Binary search the functab for the last entry <= pc (what findfunc's buckets speed up).
  uint32_t lo = 0, hi = nfunc_;  // answer in [lo, hi)
  const bool wide = version_ == PclnVersion::kGo116;
  while (hi - lo > 1) {
    uint32_t mid = lo + (hi - lo) / 2;
    uint64_t e;
    if (wide) {
      auto v = Load<uint64_t>(data_, ftab_off_ + uint64_t{mid} * 16);
      if (!v) return std::nullopt;
      e = *v;
    } else {
      auto v = Load<uint32_t>(data_, ftab_off_ + uint64_t{mid} * 8);
      if (!v) return std::nullopt;
      e = text_start_ + *v;
    }
    if (e <= pc) lo = mid;
    else hi = mid;
  }
  auto f = Func(lo);
  if (!f || pc < f->entry || pc >= f->end) return std::nullopt;
  return f;
}

std::string_view Pclntab::FuncName(int32_t name_off) const {
  if (name_off < 0) return {};
  uint64_t base = funcname_off_;
  uint64_t off = base + static_cast<uint64_t>(name_off);
  if (off >= data_.size()) return {};
  const char *p = reinterpret_cast<const char *>(data_.data() + off);
  const void *nul = std::memchr(p, 0, data_.size() - off);
  if (!nul) return {};
  return {p, static_cast<size_t>(static_cast<const char *>(nul) - p)};
}

std::string_view Pclntab::FileName(const FuncRecord &f, int32_t fileno) const {
  // runtime.funcfile: fileoff := cutab[f.cuOffset + fileno]; ^0 means corrupt.
  if (fileno < 0) return {};
  uint64_t idx = uint64_t{f.cu_offset} + static_cast<uint64_t>(fileno);
  auto fileoff = Load<uint32_t>(data_, cu_off_ + idx * 4);
  if (!fileoff || *fileoff == ~uint32_t{0}) return {};
  uint64_t off = filetab_off_ + *fileoff;
  if (off >= data_.size()) return {};
  const char *p = reinterpret_cast<const char *>(data_.data() + off);
  const void *nul = std::memchr(p, 0, data_.size() - off);
  if (!nul) return {};
  return {p, static_cast<size_t>(static_cast<const char *>(nul) - p)};
}

std::optional<int32_t> Pclntab::PcValue(const FuncRecord &f, uint32_t table_off, uint64_t targetpc) const {
  // runtime.pcvalue (non-strict): walk (value delta, pc delta) pairs from the entry.
  if (table_off == 0) return std::nullopt;
  uint64_t p = pctab_off_ + table_off;
  if (p < pctab_off_) return std::nullopt;
  uint64_t pc = f.entry;
  int32_t val = -1;
  const uint64_t size = data_.size();
  auto readvarint = [&](uint64_t *pos, uint32_t *out) -> bool {
    // runtime.readvarint: at most 5 bytes, 32-bit result.
    uint32_t v = 0;
    for (unsigned shift = 0; shift < 35; shift += 7) {
      if (*pos >= size) return false;
      uint8_t b = data_[(*pos)++];
      v |= uint32_t{b & 0x7fu} << shift;
      if ((b & 0x80) == 0) {
        *out = v;
        return true;
      }
    }
    return false;
  };
  // A function's table has at most one pair per byte of code plus the terminator; a
  // bound keeps a corrupt table from looping for long.
  for (uint64_t steps = 0; steps <= (f.end - f.entry) + 1 && steps < (1u << 24); steps++) {
    // runtime.step
    if (p >= size) return std::nullopt;
    uint32_t uvdelta = data_[p];
    bool first = pc == f.entry;
    if (uvdelta == 0 && !first) return std::nullopt;  // end of table, pc not covered
    if (uvdelta & 0x80) {
      if (!readvarint(&p, &uvdelta)) return std::nullopt;
    } else {
      p++;
    }
    val += static_cast<int32_t>(-(uvdelta & 1) ^ (uvdelta >> 1));
    if (p >= size) return std::nullopt;
    uint32_t pcdelta = data_[p];
    if (pcdelta & 0x80) {
      if (!readvarint(&p, &pcdelta)) return std::nullopt;
    } else {
      p++;
    }
    pc += pcdelta;  // sys.PCQuantum == 1 on amd64
    if (targetpc < pc) return val;
  }
  return std::nullopt;
}

std::optional<int32_t> Pclntab::PcdataValue(const FuncRecord &f, uint32_t table, uint64_t pc) const {
  if (table >= f.npcdata) return std::nullopt;
  auto off = Load<uint32_t>(data_, f.func_off + FuncFixedSize(version_) + uint64_t{table} * 4);
  if (!off) return std::nullopt;
  return PcValue(f, *off, pc);
}

std::optional<uint64_t> Pclntab::FuncdataRaw(const FuncRecord &f, uint32_t i) const {
  if (i >= f.nfuncdata) return std::nullopt;
  uint64_t p = f.func_off + FuncFixedSize(version_) + uint64_t{f.npcdata} * 4;
  if (version_ == PclnVersion::kGo116) {
    // runtime.funcdata (1.16/1.17): pointer-aligned array of pointers after pcdata.
    if ((vaddr_ + p) & 4) p += 4;
    uint64_t slot = p + uint64_t{i} * 8;
    if (!InRange(slot, 8, data_.size())) return std::nullopt;
    return vaddr_ + slot;  // the slot's vaddr: the caller reads (and relocates) the pointer
  }
  auto off = Load<uint32_t>(data_, p + uint64_t{i} * 4);
  if (!off || *off == ~uint32_t{0}) return std::nullopt;
  return *off;
}

std::optional<std::pair<std::string_view, int32_t>> Pclntab::FileLine(const FuncRecord &f, uint64_t pc) const {
  // runtime.funcline1 (non-strict): "?", 0 on any failure.
  auto fileno = PcValue(f, f.pcfile, pc);
  auto line = PcValue(f, f.pcln, pc);
  if (!fileno || !line || *fileno == -1 || *line == -1) return std::nullopt;
  // runtime.funcfile answers "?" for a corrupt cutab entry but funcline1 keeps the line.
  auto file = FileName(f, *fileno);
  if (file.empty()) file = "?";
  return std::make_pair(file, *line);
}

}  // namespace gotraced::gobin
