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
#include "daemon/json/json_text.h"
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

// {"function":"main.f","file":"/x/main.go","line":12,"pc":"0x4a1b2c","entry":"0x4a1b00","inlined":false}
json::Json FrameJson(const gobin::Frame &f) {
  return {{"function", f.function}, {"file", f.file}, {"line", f.line}, {"pc", Hex(f.pc)},
          {"entry", Hex(f.entry)},    {"inlined", f.inlined}};
}

int RunAddr2line(const GoBinary &bin, const InspectOptions &o, uint64_t bias) {
  int rc = 0;
  json::Json groups = json::Json::array();
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
      json::Json fs = json::Json::array();
      for (const auto &f : frames) fs.push_back(FrameJson(f));
      groups.push_back({{"pc", Hex(*pc)}, {"vaddr", Hex(vaddr)}, {"frames", std::move(fs)}});
    } else {
      if (frames.empty()) std::printf("?? ??:0\n");
      for (const auto &f : frames) {
        std::printf("%.*s %.*s:%d\n", static_cast<int>(f.function.size()), f.function.data(),
                    static_cast<int>(f.file.size()), f.file.data(), f.line);
      }
    }
  }
  if (o.json) std::printf("%s\n", json::Text(groups).c_str());
  return rc;
}

struct FnRow {
  std::string name;
  const gobin::FunctionSym *sym;
  std::optional<gobin::FunctionProbeSites> sites;
  std::string site_err;
};

// What inspect reports of a binary, found once, then printed as text or JSON.
struct Findings {
  std::string path;
  const char *pclntab_found_by;
  const char *pclntab_layout;
  size_t symtab_checked = 0;
  std::vector<gobin::SymtabMismatch> mismatches;
  std::vector<std::string> layout_notes;
  gobin::Result<gobin::RuntimeLayout> layout;
  std::vector<FnRow> functions;  // the runtime functions of the probe plan
};

Findings Find(const GoBinary &bin, const std::string &path) {
  const char *src = bin.pclntab_source() == gobin::PclntabSource::kSection     ? "section"
                    : bin.pclntab_source() == gobin::PclntabSource::kDataRelRo ? "data.rel.ro"
                                                                               : "magic scan";
  const char *layout_name = bin.pclntab().version() == gobin::PclnVersion::kGo116   ? "go1.16"
                            : bin.pclntab().version() == gobin::PclnVersion::kGo118 ? "go1.18"
                                                                                    : "go1.20";
  std::vector<std::string> notes;
  auto layout = gobin::ResolveRuntimeLayout(bin.elf(), bin.go_version(), &notes);
  Findings f{.path = path, .pclntab_found_by = src, .pclntab_layout = layout_name, .layout_notes = std::move(notes),
             .layout = std::move(layout)};
  f.mismatches = bin.symbols().CheckAgainstSymtab(bin.elf(), &f.symtab_checked);
  for (const auto &rf : gobin::RequiredRuntimeFunctionsFor(bin.go_version())) {
    FnRow r{rf.name, bin.FindFunction(rf.name), std::nullopt, ""};
    if (r.sym) {
      auto s = gobin::FindProbeSites(bin, rf.name);
      if (s) gobin::CountDirectCalls(bin, *s);
      if (s) r.sites = std::move(*s);
      else r.site_err = s.error();
    }
    f.functions.push_back(std::move(r));
  }
  return f;
}

json::Json FunctionJson(const FnRow &r) {
  json::Json j = {{"name", r.name}, {"found", r.sym != nullptr}};
  if (r.sym) {
    j["entry"] = Hex(r.sym->entry);
    j["end"] = Hex(r.sym->end);
  }
  if (r.sites) {
    j["probe_best"] = Hex(r.sites->best.vaddr);
    j["returns"] = r.sites->returns.size();
  }
  if (!r.site_err.empty()) j["probe_error"] = r.site_err;
  return j;
}

json::Json LayoutJson(const gobin::Result<gobin::RuntimeLayout> &layout) {
  if (!layout) return {{"error", layout.error()}};
  std::string missing;
  const bool complete = layout->Complete(&missing);
  json::Json fields = json::Json::array();
  for (const auto &spec : gobin::RuntimeFieldSpecs()) {
    const auto &loc = gobin::FieldOf(*layout, spec);
    fields.push_back({{"name", spec.name}, {"offset", loc.offset}, {"size", loc.size}, {"required", spec.required}});
  }
  return {{"source", gobin::LayoutSourceName(layout->source)},
          {"from", layout->go_version},
          {"complete", complete},
          {"missing", missing},
          {"fields", std::move(fields)}};
}

json::Json FindingsJson(const GoBinary &bin, const Findings &f) {
  const auto &bi = bin.build_info();
  const auto &fl = bin.flags();
  json::Json settings = json::Json::array();
  for (const auto &kv : bi.settings) settings.push_back(json::Json::array({kv.key, kv.value}));  // [key, value] pairs
  json::Json j = {
      {"path", f.path},
      {"go_version", bi.go_version},
      {"build_id", {{"go", bin.elf().go_build_id()}, {"gnu", bin.elf().gnu_build_id()}}},
      {"main_path", bi.path},
      {"settings", std::move(settings)},
      {"flags",
       {{"pie", fl.pie}, {"static", fl.static_linked}, {"cgo", fl.cgo}, {"external_link", fl.external_link},
        {"stripped", fl.stripped}, {"dwarf", !fl.no_dwarf}, {"trimpath", fl.trimpath}}},
      {"pclntab",
       {{"vaddr", Hex(bin.pclntab().vaddr())}, {"found_by", f.pclntab_found_by}, {"layout", f.pclntab_layout},
        {"functions", bin.pclntab().num_funcs()}, {"text_start", Hex(bin.text_start())},
        {"text_end", Hex(bin.pclntab().text_end())}}}};
  if (const auto &m = bin.moduledata())
    j["moduledata"] = {{"vaddr", Hex(m->vaddr)}, {"found_by", m->found_by}, {"text", Hex(m->text)}, {"gofunc", Hex(m->gofunc)}};
  j["symtab_check"] = {{"checked", f.symtab_checked}, {"mismatches", f.mismatches.size()}};
  j["functions"] = json::Json::array();
  for (const FnRow &r : f.functions) j["functions"].push_back(FunctionJson(r));
  j["layout"] = LayoutJson(f.layout);
  return j;
}

void PrintFunctionsAndLayout(const GoBinary &bin, const Findings &f) {
  std::printf("runtime functions (probe plan):\n");
  for (const auto &r : f.functions) {
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
  const auto &layout = f.layout;
  if (layout) {
    std::string missing;
    bool complete = layout->Complete(&missing);
    std::printf("struct layout: from %s (%s), %s\n", std::string(gobin::LayoutSourceName(layout->source)).c_str(),
                layout->go_version.c_str(), complete ? "complete" : ("MISSING " + missing).c_str());
    std::printf("%s", gobin::DescribeLayout(*layout).c_str());
  } else {
    std::printf("struct layout: %s\n", layout.error().c_str());
  }
  for (const auto &n : f.layout_notes) std::printf("  note: %s\n", n.c_str());
  std::printf("%s", gobin::DescribeGlobals(gobin::FindRuntimeGlobals(bin, layout ? &*layout : nullptr)).c_str());
}

void PrintFindings(const GoBinary &bin, const Findings &f) {
  const auto &bi = bin.build_info();
  const auto &fl = bin.flags();
  const auto &elf = bin.elf();
  std::printf("binary:       %s\n", f.path.c_str());
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
  std::printf("pclntab:      %s at 0x%lx (%s), %u functions, Go text 0x%lx-0x%lx\n", f.pclntab_found_by,
              static_cast<unsigned long>(bin.pclntab().vaddr()), f.pclntab_layout, bin.pclntab().num_funcs(),
              static_cast<unsigned long>(bin.text_start()), static_cast<unsigned long>(bin.pclntab().text_end()));
  if (bin.moduledata()) {
    const auto &m = *bin.moduledata();
    std::printf("moduledata:   0x%lx (%s), text 0x%lx, gofunc 0x%lx\n", static_cast<unsigned long>(m.vaddr),
                m.found_by.c_str(), static_cast<unsigned long>(m.text), static_cast<unsigned long>(m.gofunc));
  } else {
    std::printf("moduledata:   not found (inline expansion unavailable)\n");
  }
  if (elf.has_symtab()) {
    std::printf(".symtab:      %zu functions checked against pclntab, %zu mismatches\n", f.symtab_checked,
                f.mismatches.size());
    for (size_t i = 0; i < f.mismatches.size() && i < 10; i++)
      std::printf("  %s: %s\n", f.mismatches[i].name.c_str(), f.mismatches[i].what.c_str());
  } else {
    std::printf(".symtab:      absent (stripped): symbols from pclntab only\n");
  }
  PrintFunctionsAndLayout(bin, f);
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
  const Findings f = Find(bin, path);
  if (o.json) std::printf("%s\n", json::Text(FindingsJson(bin, f)).c_str());
  else PrintFindings(bin, f);
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
