// gotraced-layoutgen: the generator and drift checker of daemon/gobin/layout_tables.inc.
//
//   gotraced-layoutgen emit BIN[=GOROOT]...   print one table row per binary (C++ source),
//        from the binary's DWARF (LayoutFromDwarf) and its string arrays
//        (ReadRuntimeStringTable): the live code path
//   gotraced-layoutgen check BIN[=GOROOT]...  compare each binary's DWARF+data against the
//        checked-in row of its Go version; exit 1 on drift
//   gotraced-layoutgen parkcheck < SITES       check gopark_sites.sh output ("file:line
//        waitReasonX traceBlockY" lines) against wait_reasons.cc; exit 1 on a mismatch
//
// Binaries must be unstripped (DWARF and .symtab). gen_layouts.sh builds them.
// When the linker left an array out of the symbol table (Go 1.22 keeps
// traceBlockReasonStrings only as a static initializer of trace2.go's string ids), the
// array is read from GOROOT/src/runtime/*.go instead: `var NAME = [...]string{ key: "s", ...}`
// with each key's value taken from the DWARF constants of the same binary.
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <string>

#include "daemon/gobin/buildinfo.h"
#include "daemon/gobin/dwarf_layout.h"
#include "daemon/gobin/elf_file.h"
#include "daemon/gobin/layout_tables.h"
#include "daemon/gobin/runtime_strings.h"
#include "daemon/gobin/wait_reasons.h"

using namespace gotraced::gobin;

namespace {

// Go version without experiment suffixes ("go1.27.3 X:foo" -> "go1.27.3").
std::string BareVersion(const std::string &v) { return v.substr(0, v.find(' ')); }

// `var NAME = [...]string{ key: "str", ... }` from the runtime sources; keys resolved via
// the binary's constants. nullopt when the var is not in any file.
std::optional<std::vector<std::string>> ArrayFromSource(const std::string &goroot, const std::string &name,
                                                        const RuntimeLayout &l, std::string *err) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const std::string start = "var " + name + " = [...]string{";
  static const std::regex kEntry(R"re(^\s*(\w+):\s*"((?:[^"\\]|\\.)*)",?\s*(//.*)?$)re");
  for (const auto &ent : fs::directory_iterator(goroot + "/src/runtime", ec)) {
    std::string fn = ent.path().string();
    if (ent.path().extension() != ".go" || fn.ends_with("_test.go")) continue;
    std::ifstream in(fn);
    std::string line;
    bool inside = false;
    std::vector<std::string> out;
    while (std::getline(in, line)) {
      if (!inside) {
        inside = line.rfind(start, 0) == 0;
        continue;
      }
      if (line.rfind("}", 0) == 0) return out;
      std::smatch m;
      if (!std::regex_match(line, m, kEntry)) continue;
      auto v = l.Constant(m[1].str());
      if (!v || *v < 0 || *v > 1000) {
        *err = name + ": key " + m[1].str() + " has no DWARF constant";
        return std::nullopt;
      }
      if (out.size() <= static_cast<size_t>(*v)) out.resize(*v + 1);
      out[*v] = m[2].str();
    }
  }
  return std::nullopt;
}

Result<RuntimeLayout> FromBinary(const std::string &arg) {
  std::string path = arg.substr(0, arg.find('='));
  std::string goroot = arg.find('=') == std::string::npos ? "" : arg.substr(arg.find('=') + 1);
  auto elf = ElfFile::Open(path);
  if (!elf) return Error{path + ": " + elf.error()};
  auto bi = ReadBuildInfo(**elf);
  if (!bi) return Error{path + ": " + bi.error()};
  auto l = LayoutFromDwarf(**elf);
  if (!l) return Error{path + ": " + l.error()};
  l->go_version = BareVersion(bi->go_version);
  const std::pair<const char *, std::vector<std::string> *> arrays[] = {
      {"waitReasonStrings", &l->wait_reason_strings},
      {"traceBlockReasonStrings", &l->trace_block_reason_strings},
      {"traceGoStopReasonStrings", &l->trace_go_stop_reason_strings},
      {"stwReasonStrings", &l->stw_reason_strings},
  };
  for (auto [name, dst] : arrays) {
    if (auto s = ReadRuntimeStringTable(**elf, std::string("runtime.") + name)) {
      *dst = std::move(*s);
    } else if (!goroot.empty()) {
      std::string err;
      auto src = ArrayFromSource(goroot, name, *l, &err);
      if (!err.empty()) return Error{path + ": " + err};
      if (src) *dst = std::move(*src);
    }
  }
  if (l->wait_reason_strings.empty()) return Error{path + ": no runtime.waitReasonStrings (stripped?)"};
  return l;
}

}  // namespace

// Every call site that passes constants must agree with TraceBlockForWaitReason (for
// Go <= 1.20 the site passes a legacy event: compare through LegacyEventForTraceBlock).
int ParkCheck() {
  std::string site, wr, tr;
  int rc = 0, checked = 0;
  while (std::cin >> site >> wr >> tr) {
    if (!wr.starts_with("waitReason") || wr == "waitReason" || !(tr.starts_with("traceBlock") || tr.starts_with("traceEv"))) {
      std::printf("variable  %s %s %s (reason chosen by callers)\n", site.c_str(), wr.c_str(), tr.c_str());
      continue;
    }
    auto block = TraceBlockForWaitReason(wr);
    std::string want = block ? std::string(*block) : "(none)";
    if (block && tr.starts_with("traceEv")) {
      auto e = LegacyEventForTraceBlock(*block);
      want = e ? std::string(*e) : "(none)";
    }
    ++checked;
    if (want != tr) {
      std::printf("MISMATCH  %s %s passes %s, wait_reasons.cc says %s\n", site.c_str(), wr.c_str(), tr.c_str(),
                  want.c_str());
      rc = 1;
    }
  }
  std::printf("%d gopark call sites checked\n", checked);
  return rc;
}

int main(int argc, char **argv) {
  if (argc == 2 && std::strcmp(argv[1], "parkcheck") == 0) return ParkCheck();
  if (argc < 3 || (std::strcmp(argv[1], "emit") != 0 && std::strcmp(argv[1], "check") != 0)) {
    std::fprintf(stderr, "usage: %s emit|check BIN...\n", argv[0]);
    return 2;
  }
  const bool check = std::strcmp(argv[1], "check") == 0;
  int rc = 0;
  if (!check) std::printf("// Generated by tests/gobin-layouts/gen_layouts.sh (gotraced-layoutgen): do not edit.\n");
  for (int i = 2; i < argc; ++i) {
    auto l = FromBinary(argv[i]);
    if (!l) {
      std::fprintf(stderr, "%s\n", l.error().c_str());
      rc = 1;
      continue;
    }
    if (!check) {
      std::printf("%s", FormatLayoutTableRow(*l).c_str());
      continue;
    }
    auto table = LayoutFromTable(GoVersion::Parse(l->go_version));
    if (!table) {
      std::printf("DRIFT %s (%s): no checked-in table row for this Go version\n", argv[i], l->go_version.c_str());
      rc = 1;
      continue;
    }
    auto diff = DiffLayouts(*l, *table);
    if (diff.empty()) {
      std::printf("ok %s: %s DWARF == table %s\n", l->go_version.c_str(), argv[i], table->go_version.c_str());
    } else {
      rc = 1;
      std::printf("DRIFT %s: %s DWARF vs table %s:\n", l->go_version.c_str(), argv[i], table->go_version.c_str());
      for (auto &d : diff) std::printf("  %s\n", d.c_str());
    }
  }
  return rc;
}
