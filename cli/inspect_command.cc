// gotraced inspect: a report of what gobin found in a Go binary (see inspect_command.h).
#include "cli/inspect_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/layout_resolver.h"
#include "daemon/gobin/probe_sites.h"
#include "daemon/gobin/runtime_globals.h"
#include "daemon/gobin/required_symbols.h"
#include "daemon/gobin/runtime_layout.h"

namespace gotraced::cli {

namespace {

using gobin::GoBinary;

struct InspectOptions {
  std::string binary;
  int pid = 0;
  bool json = false;
  bool callers = false;  // --addr2line PCs are return addresses (runtime.Callers)
  std::vector<std::string> addr2line;
};

std::string JsonEscape(std::string_view s) {
  std::string o;
  o.reserve(s.size() + 2);
  o += '"';
  for (unsigned char c : s) {
    switch (c) {
      case '"': o += "\\\""; break;
      case '\\': o += "\\\\"; break;
      case '\n': o += "\\n"; break;
      case '\t': o += "\\t"; break;
      case '\r': o += "\\r"; break;
      default:
        if (c < 0x20) o += fmt::format("\\u{:04x}", c);
        else o += static_cast<char>(c);
    }
  }
  o += '"';
  return o;
}

std::string Hex(uint64_t v) { return fmt::format("0x{:x}", v); }

// The load bias of a running process's main executable: the start of the mapping of its
// first PT_LOAD minus that segment's (page-aligned) vaddr. 0 for non-PIE.
std::optional<uint64_t> LoadBias(int pid, const gobin::ElfFile &elf, std::string *err) {
  if (!elf.is_pie()) return 0;
  struct stat st {};
  if (stat(fmt::format("/proc/{}/exe", pid).c_str(), &st) != 0) {
    *err = fmt::format("stat /proc/{}/exe failed", pid);
    return std::nullopt;
  }
  const gobin::ElfSegment *first = nullptr;
  for (const auto &ph : elf.Segments()) {
    if (ph.type == 1 /*PT_LOAD*/ && (!first || ph.vaddr < first->vaddr)) first = &ph;
  }
  if (!first) {
    *err = "no PT_LOAD segment";
    return std::nullopt;
  }
  std::ifstream maps(fmt::format("/proc/{}/maps", pid));
  std::string line;
  while (std::getline(maps, line)) {
    // start-end perms offset dev inode path
    std::istringstream is(line);
    std::string range, perms, off, dev;
    unsigned long inode = 0;
    is >> range >> perms >> off >> dev >> inode;
    if (inode != st.st_ino) continue;
    uint64_t start = std::stoull(range.substr(0, range.find('-')), nullptr, 16);
    uint64_t offset = std::stoull(off, nullptr, 16);
    if (offset == (first->offset & ~uint64_t{0xfff})) return start - (first->vaddr & ~uint64_t{0xfff});
  }
  *err = fmt::format("no mapping of the executable in /proc/{}/maps", pid);
  return std::nullopt;
}

std::optional<uint64_t> ParsePc(const std::string &s) {
  try {
    size_t used = 0;
    std::string t = s;
    if (t.rfind("0x", 0) == 0 || t.rfind("0X", 0) == 0) t = t.substr(2);
    uint64_t v = std::stoull(t, &used, 16);
    if (used != t.size()) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

int RunAddr2line(const GoBinary &bin, const InspectOptions &o, uint64_t bias) {
  int rc = 0;
  bool first_group = true;
  std::string json = "[";
  for (const auto &s : o.addr2line) {
    auto pc = ParsePc(s);
    if (!pc) {
      std::fprintf(stderr, "inspect: bad PC %s (hex expected)\n", s.c_str());
      rc = 2;
      continue;
    }
    uint64_t vaddr = *pc - bias;
    auto frames = bin.FramesForPC(vaddr, o.callers ? gobin::PcKind::kReturnAddress : gobin::PcKind::kInstruction);
    if (o.json) {
      json += fmt::format("{}{{\"pc\":{},\"vaddr\":{},\"frames\":[", first_group ? "" : ",", JsonEscape(Hex(*pc)),
                          JsonEscape(Hex(vaddr)));
      for (size_t i = 0; i < frames.size(); i++) {
        const auto &f = frames[i];
        json += fmt::format("{}{{\"function\":{},\"file\":{},\"line\":{},\"pc\":{},\"entry\":{},\"inlined\":{}}}",
                            i ? "," : "", JsonEscape(f.function), JsonEscape(f.file), f.line, JsonEscape(Hex(f.pc)),
                            JsonEscape(Hex(f.entry)), f.inlined ? "true" : "false");
      }
      json += "]}";
    } else {
      if (frames.empty()) std::printf("?? ??:0\n");
      for (const auto &f : frames) {
        std::printf("%.*s %.*s:%d\n", static_cast<int>(f.function.size()), f.function.data(),
                    static_cast<int>(f.file.size()), f.file.data(), f.line);
      }
    }
    first_group = false;
  }
  if (o.json) std::printf("%s]\n", json.c_str());
  return rc;
}

int RunInspect(const InspectOptions &o) {
  std::string path = o.binary;
  if (o.pid > 0) path = fmt::format("/proc/{}/exe", o.pid);
  if (path.empty()) {
    std::fprintf(stderr, "inspect: give a BINARY or --pid N\n");
    return 2;
  }
  auto opened = GoBinary::Open(path);
  if (!opened) {
    std::fprintf(stderr, "inspect: %s: %s\n", path.c_str(), opened.error().c_str());
    return 1;
  }
  const GoBinary &bin = **opened;
  uint64_t bias = 0;
  if (o.pid > 0) {
    std::string err;
    auto b = LoadBias(o.pid, bin.elf(), &err);
    if (!b) {
      std::fprintf(stderr, "inspect: pid %d: %s\n", o.pid, err.c_str());
      return 1;
    }
    bias = *b;
  }
  if (!o.addr2line.empty()) return RunAddr2line(bin, o, bias);

  const auto &bi = bin.build_info();
  const auto &fl = bin.flags();
  const auto &elf = bin.elf();
  const char *src = bin.pclntab_source() == gobin::PclntabSource::kSection     ? "section"
                    : bin.pclntab_source() == gobin::PclntabSource::kDataRelRo ? "data.rel.ro"
                                                                               : "magic scan";
  const char *layout_name = bin.pclntab().version() == gobin::PclnVersion::kGo116   ? "go1.16"
                            : bin.pclntab().version() == gobin::PclnVersion::kGo118 ? "go1.18"
                                                                                    : "go1.20";
  size_t checked = 0;
  auto mismatches = bin.symbols().CheckAgainstSymtab(elf, &checked);

  std::vector<std::string> layout_notes;
  auto layout = gobin::ResolveRuntimeLayout(elf, bin.go_version(), &layout_notes);

  struct FnRow {
    std::string name;
    const gobin::FunctionSym *sym;
    std::optional<gobin::FunctionProbeSites> sites;
    std::string site_err;
  };
  std::vector<FnRow> rows;
  for (const auto &rf : gobin::RequiredRuntimeFunctionsFor(bin.go_version())) {
    FnRow r{rf.name, bin.FindFunction(rf.name), std::nullopt, ""};
    if (r.sym) {
      auto s = gobin::FindProbeSites(bin, rf.name);
      if (s) gobin::CountDirectCalls(bin, *s);
      if (s) r.sites = std::move(*s);
      else r.site_err = s.error();
    }
    rows.push_back(std::move(r));
  }

  if (o.json) {
    std::string j = "{";
    j += fmt::format("\"path\":{},\"go_version\":{},", JsonEscape(path), JsonEscape(bi.go_version));
    j += fmt::format("\"build_id\":{{\"go\":{},\"gnu\":{}}},", JsonEscape(elf.go_build_id()), JsonEscape(elf.gnu_build_id()));
    j += fmt::format("\"main_path\":{},\"settings\":[", JsonEscape(bi.path));
    for (size_t i = 0; i < bi.settings.size(); i++)
      j += fmt::format("{}[{},{}]", i ? "," : "", JsonEscape(bi.settings[i].key), JsonEscape(bi.settings[i].value));
    j += "],";
    j += fmt::format(
        "\"flags\":{{\"pie\":{},\"static\":{},\"cgo\":{},\"external_link\":{},\"stripped\":{},\"dwarf\":{},\"trimpath\":{}}},",
        fl.pie, fl.static_linked, fl.cgo, fl.external_link, fl.stripped, !fl.no_dwarf, fl.trimpath);
    j += fmt::format("\"pclntab\":{{\"vaddr\":{},\"found_by\":{},\"layout\":{},\"functions\":{},\"text_start\":{},\"text_end\":{}}},",
                     JsonEscape(Hex(bin.pclntab().vaddr())), JsonEscape(src), JsonEscape(layout_name),
                     bin.pclntab().num_funcs(), JsonEscape(Hex(bin.text_start())), JsonEscape(Hex(bin.pclntab().text_end())));
    if (bin.moduledata()) {
      const auto &m = *bin.moduledata();
      j += fmt::format("\"moduledata\":{{\"vaddr\":{},\"found_by\":{},\"text\":{},\"gofunc\":{}}},", JsonEscape(Hex(m.vaddr)),
                       JsonEscape(m.found_by), JsonEscape(Hex(m.text)), JsonEscape(Hex(m.gofunc)));
    }
    j += fmt::format("\"symtab_check\":{{\"checked\":{},\"mismatches\":{}}},", checked, mismatches.size());
    j += "\"functions\":[";
    for (size_t i = 0; i < rows.size(); i++) {
      const auto &r = rows[i];
      j += fmt::format("{}{{\"name\":{},\"found\":{}", i ? "," : "", JsonEscape(r.name), r.sym != nullptr);
      if (r.sym) j += fmt::format(",\"entry\":{},\"end\":{}", JsonEscape(Hex(r.sym->entry)), JsonEscape(Hex(r.sym->end)));
      if (r.sites)
        j += fmt::format(",\"probe_best\":{},\"returns\":{}", JsonEscape(Hex(r.sites->best.vaddr)), r.sites->returns.size());
      if (!r.site_err.empty()) j += fmt::format(",\"probe_error\":{}", JsonEscape(r.site_err));
      j += "}";
    }
    j += "],";
    if (layout) {
      std::string missing;
      bool complete = layout->Complete(&missing);
      j += fmt::format("\"layout\":{{\"source\":{},\"from\":{},\"complete\":{},\"missing\":{},\"fields\":[",
                       JsonEscape(gobin::LayoutSourceName(layout->source)), JsonEscape(layout->go_version), complete,
                       JsonEscape(missing));
      bool first = true;
      for (const auto &spec : gobin::RuntimeFieldSpecs()) {
        const auto &loc = gobin::FieldOf(*layout, spec);
        j += fmt::format("{}{{\"name\":{},\"offset\":{},\"size\":{},\"required\":{}}}", first ? "" : ",",
                         JsonEscape(spec.name), loc.offset, loc.size, spec.required);
        first = false;
      }
      j += "]}";
    } else {
      j += fmt::format("\"layout\":{{\"error\":{}}}", JsonEscape(layout.error()));
    }
    j += "}";
    std::printf("%s\n", j.c_str());
    return 0;
  }

  std::printf("binary:       %s\n", path.c_str());
  std::printf("go version:   %s\n", bi.go_version.empty() ? "(no .go.buildinfo)" : bi.go_version.c_str());
  std::printf("build id:     go=%s gnu=%s\n", elf.go_build_id().empty() ? "-" : elf.go_build_id().c_str(),
              elf.gnu_build_id().empty() ? "-" : elf.gnu_build_id().c_str());
  std::printf("flags:        pie=%s static=%s cgo=%s external-link=%s stripped=%s dwarf=%s trimpath=%s\n",
              fl.pie ? "yes" : "no", fl.static_linked ? "yes" : "no", fl.cgo ? "yes" : "no",
              fl.external_link ? "yes" : "no", fl.stripped ? "yes" : "no", fl.no_dwarf ? "no" : "yes",
              fl.trimpath ? "yes" : "no");
  if (!bi.settings.empty()) {
    std::printf("build settings:\n");
    std::printf("%s", bi.FormatModInfoLikeGoVersionM().c_str());
  }
  std::printf("pclntab:      %s at 0x%lx (%s), %u functions, Go text 0x%lx-0x%lx\n", src,
              static_cast<unsigned long>(bin.pclntab().vaddr()), layout_name, bin.pclntab().num_funcs(),
              static_cast<unsigned long>(bin.text_start()), static_cast<unsigned long>(bin.pclntab().text_end()));
  if (bin.moduledata()) {
    const auto &m = *bin.moduledata();
    std::printf("moduledata:   0x%lx (%s), text 0x%lx, gofunc 0x%lx\n", static_cast<unsigned long>(m.vaddr),
                m.found_by.c_str(), static_cast<unsigned long>(m.text), static_cast<unsigned long>(m.gofunc));
  } else {
    std::printf("moduledata:   not found (inline expansion unavailable)\n");
  }
  if (elf.has_symtab()) {
    std::printf(".symtab:      %zu functions checked against pclntab, %zu mismatches\n", checked, mismatches.size());
    for (size_t i = 0; i < mismatches.size() && i < 10; i++)
      std::printf("  %s: %s\n", mismatches[i].name.c_str(), mismatches[i].what.c_str());
  } else {
    std::printf(".symtab:      absent (stripped): symbols from pclntab only\n");
  }
  std::printf("runtime functions (probe plan):\n");
  for (const auto &r : rows) {
    if (!r.sym) {
      std::printf("  %-32s MISSING\n", r.name.c_str());
      continue;
    }
    std::printf("  %-32s 0x%lx-0x%lx", r.name.c_str(), static_cast<unsigned long>(r.sym->entry),
                static_cast<unsigned long>(r.sym->end));
    if (r.sites)
      std::printf("  best site 0x%lx (%s), %zu RET", static_cast<unsigned long>(r.sites->best.vaddr),
                  std::string(gobin::UprobeHandlingName(r.sites->best.handling)).c_str(), r.sites->returns.size());
    else if (!r.site_err.empty())
      std::printf("  probe sites: %s", r.site_err.c_str());
    std::printf("\n");
  }
  if (layout) {
    std::string missing;
    bool complete = layout->Complete(&missing);
    std::printf("struct layout: from %s (%s), %s\n", std::string(gobin::LayoutSourceName(layout->source)).c_str(),
                layout->go_version.c_str(), complete ? "complete" : ("MISSING " + missing).c_str());
    std::printf("%s", gobin::DescribeLayout(*layout).c_str());
  } else {
    std::printf("struct layout: %s\n", layout.error().c_str());
  }
  for (const auto &n : layout_notes) std::printf("  note: %s\n", n.c_str());
  std::printf("%s", gobin::DescribeGlobals(gobin::FindRuntimeGlobals(bin, layout ? &*layout : nullptr)).c_str());
  return 0;
}

}  // namespace

void RegisterInspect(CLI::App &app) {
  auto opts = std::make_shared<InspectOptions>();
  auto *cmd = app.add_subcommand("inspect", "what gotraced finds in a Go binary (version, flags, symbols, offsets)");
  cmd->add_option("binary", opts->binary, "the Go executable");
  cmd->add_option("--pid", opts->pid, "inspect the executable of a running process (/proc/N/exe)");
  cmd->add_flag("--json", opts->json, "machine-readable output");
  cmd->add_option("--addr2line", opts->addr2line,
                  "print inline-expanded frames (func file:line, innermost first) for each PC "
                  "(hex; runtime addresses with --pid)")
      ->expected(1, -1);
  cmd->add_flag("--callers", opts->callers,
                "with --addr2line: the PCs are return addresses (runtime.Callers), look up pc-1");
  cmd->callback([opts] {
    int rc = RunInspect(*opts);
    std::fflush(stdout);
    if (rc != 0) throw CLI::RuntimeError(rc);
  });
}

}  // namespace gotraced::cli
