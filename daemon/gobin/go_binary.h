// GoBinary: everything gotraced knows about one Go executable on disk — the facade the
// rest of the daemon uses (nothing above gobin/ parses ELF bytes).
//
//   auto bin = GoBinary::Open("/usr/bin/prog");
//   if (!bin) { log(bin.error()); }      // "not a Go binary (no .go.buildinfo or .gopclntab)"
//   const FunctionSym *f = (*bin)->FindFunction("runtime.casgstatus");
//   std::vector<Frame> fr = (*bin)->FramesForPC(pc - load_bias);
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/gobin/buildinfo.h"
#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/frames.h"
#include "daemon/gobin/pclntab.h"
#include "daemon/gobin/result.h"
#include "daemon/gobin/symbols.h"

namespace gotraced::gobin {

// Where the pclntab was found, for `inspect` and diagnostics.
enum class PclntabSource { kSection, kDataRelRo, kMagicScan };

// moduledata fields gobin needs (link-time vaddrs), found through .symtab
// (runtime.firstmoduledata), section .go.module (1.26+) or by searching the data
// segments for a pointer to the pclntab.
struct ModuleData {
  uint64_t vaddr = 0;   // &runtime.firstmoduledata
  uint64_t text = 0;    // moduledata.text (== runtime.text)
  uint64_t etext = 0;
  uint64_t gofunc = 0;  // moduledata.gofunc (base of funcdata offsets, 1.18+)
  std::string found_by; // "symtab", "section .go.module", "pointer scan"
};

struct BuildFlags {
  bool pie = false;
  bool static_linked = false;  // no PT_INTERP
  bool cgo = false;            // CGO_ENABLED=1 in buildinfo, or runtime/cgo linked in
  bool external_link = false;  // -linkmode=external (buildinfo), or inferred
  bool stripped = false;       // no .symtab
  bool no_dwarf = false;       // no .debug_info
  bool trimpath = false;       // -trimpath=true build setting
};

class GoBinary {
 public:
  // Errors: "not an ELF file", "not 64-bit x86-64 (found ...)",
  // "not a Go binary (no .go.buildinfo or .gopclntab)",
  // "Go 1.x.y: pclntab version unsupported", "open PATH: No such file or directory" ...
  static Result<std::unique_ptr<GoBinary>> Open(const std::string &path);
  // For tests and fuzzing: the same from bytes.
  static Result<std::unique_ptr<GoBinary>> FromBytes(std::span<const uint8_t> bytes);

  const ElfFile &elf() const { return *elf_; }
  // Empty go_version when .go.buildinfo is missing (the version then comes from the
  // pclntab magic only, see go_version()).
  const BuildInfo &build_info() const { return build_info_; }
  const GoVersion &go_version() const { return build_info_.version; }
  const Pclntab &pclntab() const { return pclntab_; }
  PclntabSource pclntab_source() const { return pclntab_source_; }
  const SymbolTable &symbols() const { return symbols_; }
  const std::optional<ModuleData> &moduledata() const { return moduledata_; }
  const BuildFlags &flags() const { return flags_; }
  // Start of Go text (moduledata.text / runtime.text). Not .text's start when cgo or
  // external linking put C code first.
  uint64_t text_start() const { return pclntab_.text_start(); }

  // Shortcuts.
  // By exact name; when an assembly function and its ABI wrapper share the name, the
  // non-wrapper (the real body).
  const FunctionSym *FindFunction(std::string_view name) const;
  const FunctionSym *FuncForPC(uint64_t pc) const { return symbols_.FuncForPC(pc); }
  std::vector<Frame> FramesForPC(uint64_t pc, PcKind kind = PcKind::kReturnAddress) const;

  // Printable function name for a funcnametab offset (funcNameForPrint on Go >= 1.21).
  std::string_view PrintName(int32_t name_off) const;
  // The runtime.inlinedCall at index `ix` of function f's FUNCDATA_InlTree; nullopt if
  // unavailable (no tree, bad index, gofunc unknown).
  std::optional<InlinedCall> InlineTreeEntry(const FuncRecord &f, int32_t ix) const;
  // Is this raw FuncID "wrapper" / "gopanic" / "sigpanic" / "panicwrap" in this binary's
  // Go version (the numbering changed in 1.21 with internal/abi)?
  bool FuncIdIs(uint8_t func_id, std::string_view which) const;

  ~GoBinary();

 private:
  GoBinary() = default;
  static Result<std::unique_ptr<GoBinary>> Init(std::unique_ptr<ElfFile> elf);

  std::unique_ptr<ElfFile> elf_;
  BuildInfo build_info_;
  Pclntab pclntab_;
  PclntabSource pclntab_source_ = PclntabSource::kSection;
  SymbolTable symbols_;
  std::optional<ModuleData> moduledata_;
  BuildFlags flags_;
  // funcnametab offsets whose printed name differs (generic "[...]" shortening).
  std::vector<std::pair<int32_t, std::string>> print_names_;
  // Raw FuncID values of this binary (-1 = unknown), see FuncIdIs.
  int fid_wrapper_ = -1, fid_gopanic_ = -1, fid_sigpanic_ = -1, fid_panicwrap_ = -1;
  // B's struct layouts and probe sites attach here later.
};

}  // namespace gotraced::gobin
