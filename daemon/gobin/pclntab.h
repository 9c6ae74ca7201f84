// Pclntab: the Go runtime's own function table (.gopclntab), which survives stripping.
// Authority, per Go version: $GOROOT/src/runtime/symtab.go (pcHeader, moduledata, _func,
// funcInfo, pcvalue, funcdata, pcdatavalue), src/runtime/runtime2.go (_func in <=1.20),
// src/internal/abi/symtab.go (FuncID/FuncFlag, PCDATA_/FUNCDATA_ indices),
// src/cmd/link/internal/ld/pcln.go (how the linker lays the tables out) and
// src/debug/gosym/pclntab.go.
//
// Layouts handled: Go 1.16/1.17 (magic 0xfffffffa), 1.18/1.19 (0xfffffff0) and
// 1.20+ (0xfffffff1, including 1.26+ where pcHeader.textStart is always 0 and the text
// base comes from moduledata.text / runtime.text).
//
// All addresses are link-time vaddrs. The table is a view into the ElfFile image, which
// must outlive it. Every read is bounds-checked (fuzzed input).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "daemon/gobin/result.h"

namespace gotraced::gobin {

enum class PclnVersion { kGo116, kGo118, kGo120 };

// Indices, per src/internal/abi/symtab.go (stable since Go 1.12).
inline constexpr uint32_t kPcdataUnsafePoint = 0;
inline constexpr uint32_t kPcdataStackMapIndex = 1;
inline constexpr uint32_t kPcdataInlTreeIndex = 2;
inline constexpr uint32_t kFuncdataInlTree = 3;

// One entry of the function table: a decoded runtime._func.
struct FuncRecord {
  uint32_t index = 0;       // position in the function table (sorted by entry)
  uint64_t entry = 0;       // vaddr
  uint64_t end = 0;         // vaddr of the next function's entry (ftab[i+1].entryoff)
  int32_t name_off = 0;     // into funcnametab
  int32_t args = 0;
  uint32_t deferreturn = 0;
  uint32_t pcsp = 0, pcfile = 0, pcln = 0;  // offsets into pctab
  uint32_t npcdata = 0;
  uint32_t cu_offset = 0;
  int32_t start_line = 0;   // Go 1.20+, else 0
  uint8_t func_id = 0;      // raw value; its meaning is per-version (see FuncIdIsWrapper)
  uint8_t flag = 0;
  uint8_t nfuncdata = 0;
  uint64_t func_off = 0;    // offset of the _func within the pclntab bytes (for pcdata/funcdata)
};

// One runtime.inlinedCall (normalized over 1.16-1.19 and 1.20+ layouts).
struct InlinedCall {
  uint8_t func_id = 0;
  int32_t name_off = 0;
  int32_t parent_pc = 0;   // offset from the physical function's entry
  int32_t start_line = 0;  // 1.20+
  int16_t parent = -1;     // <=1.19 only (index of parent in the tree)
  int32_t file = 0, line = 0;  // <=1.19 only (call site); unused by the runtime
};

class Pclntab {
 public:
  // `data`: the table bytes starting at pcHeader, `vaddr`: where they are linked.
  // `text_start`: the text base (moduledata.text / runtime.text); 0 = use the header's
  // textStart (1.18-1.25). Errors: "pclntab: bad magic 0x...", "pclntab: truncated ...",
  // "pclntab: textStart is 0 (Go 1.26+): text base unknown".
  static Result<Pclntab> Parse(std::span<const uint8_t> data, uint64_t vaddr, uint64_t text_start);

  // The magic at `data` (or nullopt when not a known pclntab header); for magic scans.
  static std::optional<PclnVersion> ProbeMagic(std::span<const uint8_t> data);

  PclnVersion version() const { return version_; }
  uint64_t vaddr() const { return vaddr_; }
  uint64_t text_start() const { return text_start_; }
  uint64_t header_text_start() const { return header_text_start_; }  // 0 on 1.26+
  uint32_t num_funcs() const { return nfunc_; }
  uint32_t num_files() const { return nfiles_; }
  // Offsets of the sub-tables, relative to pcHeader (for moduledata validation).
  uint64_t funcname_offset() const { return funcname_off_; }
  uint64_t cu_offset() const { return cu_off_; }
  uint64_t filetab_offset() const { return filetab_off_; }
  uint64_t pctab_offset() const { return pctab_off_; }
  uint64_t pcln_offset() const { return pcln_off_; }
  std::span<const uint8_t> bytes() const { return data_; }

  // The i-th function (i < num_funcs()); nullopt if its record is malformed.
  std::optional<FuncRecord> Func(uint32_t i) const;
  // Binary search of the ftab: the function whose [entry, end) contains pc.
  std::optional<FuncRecord> FuncForPC(uint64_t pc) const;
  // The text end (ftab's sentinel entry), i.e. end of the last function.
  uint64_t text_end() const { return text_end_; }

  // NUL-terminated string at funcnametab[off]; "" when out of range.
  std::string_view FuncName(int32_t name_off) const;
  // File name of file number `fileno` of the function's CU (the pcfile value).
  std::string_view FileName(const FuncRecord &f, int32_t fileno) const;

  // runtime.pcvalue: the value of the pc-value table at `table_off` (into pctab) for
  // `pc` within function `f`; nullopt if pc is outside the table or the table is bad.
  std::optional<int32_t> PcValue(const FuncRecord &f, uint32_t table_off, uint64_t pc) const;
  // runtime.pcdatavalue: pcdata table `table` for pc; nullopt when the function has none.
  std::optional<int32_t> PcdataValue(const FuncRecord &f, uint32_t table, uint64_t pc) const;
  // runtime.funcdata `i`: on 1.18+ the raw uint32 offset relative to moduledata.gofunc;
  // on 1.16/1.17 the vaddr of the pointer slot (read it with ElfFile::ReadPointer, which
  // applies PIE relocations). nullopt when absent (^0 or i >= nfuncdata).
  std::optional<uint64_t> FuncdataRaw(const FuncRecord &f, uint32_t i) const;

  // File and line for pc (runtime.funcline1); nullopt where the runtime says ("?", 0).
  std::optional<std::pair<std::string_view, int32_t>> FileLine(const FuncRecord &f, uint64_t pc) const;

 private:
  std::span<const uint8_t> data_;
  uint64_t vaddr_ = 0;
  PclnVersion version_ = PclnVersion::kGo120;
  uint32_t nfunc_ = 0, nfiles_ = 0;
  uint64_t text_start_ = 0, header_text_start_ = 0, text_end_ = 0;
  uint64_t funcname_off_ = 0, cu_off_ = 0, filetab_off_ = 0, pctab_off_ = 0, pcln_off_ = 0;
  uint64_t ftab_off_ = 0;  // start of the functab inside pclntable (== pcln_off_)
};

}  // namespace gotraced::gobin
