// gobin_matrix_check: one cell of the Go-version x build-flavour matrix
// (tests/suites/30-gobin-matrix.sh). Given a binary built from tests/gobin/callers, the
// JSON it printed (runtime.Callers PCs and runtime.CallersFrames frames, from inside
// itself) and `go version -m` of it, asserts that gobin
//   1. reads the same Go version and build info as `go version -m` (byte for byte),
//   2. makes the same frames of the same PCs as runtime.CallersFrames (CallersFrames),
//   3. makes the same frames from the physical return addresses alone, as a frame-pointer
//      walk would give them (FramesForPC + wrapper elision: SymbolizeStack),
//   4. agrees with .symtab wherever the binary has one,
//   5. reports the build flags of the flavour (pie / stripped / cgo / trimpath),
//   6. does all of 1-3 again on a copy without section headers (as sstrip leaves a
//      binary): pclntab by magic scan, moduledata by pointer scan, buildinfo by segment.
// With --bench it also measures FramesForPC lookups per second on this binary.
// Exit status 0 = pass; otherwise every failed check is printed.
#include <chrono>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "daemon/gobin/go_binary.h"

using gotraced::gobin::Frame;
using gotraced::gobin::GoBinary;
using Json = nlohmann::json;

namespace {

std::string ReadFile(const std::string &p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The callers JSON (tests/gobin-matrix's Go program) is read with at(): a key it lacks is
// a failure of the check (nlohmann::json::exception, reported by main), not a default.
std::string Str(const Json &j, const char *k) { return j.at(k).get<std::string>(); }
uint64_t Hex(const Json &j) { return std::stoull(j.get<std::string>(), nullptr, 16); }

std::string Describe(const Frame &f, uint64_t bias) {
  return fmt::format("{} {}:{} pc=0x{:x} entry=0x{:x}{}", f.function, f.file, f.line, f.pc + bias, f.entry + bias,
                     f.inlined ? " (inlined)" : "");
}

std::string DescribeJson(const Json &f) {
  return fmt::format("{} {}:{} pc={} entry={}{}", Str(f, "function"), Str(f, "file"), f.at("line").get<int>(),
                     Str(f, "pc"), Str(f, "entry"), f.at("inlined").get<bool>() ? " (inlined)" : "");
}

bool Same(const Frame &g, const Json &w, uint64_t bias) {
  return g.function == Str(w, "function") && g.file == Str(w, "file") && g.line == w.at("line").get<int>() &&
         g.pc + bias == Hex(w.at("pc")) && g.entry + bias == Hex(w.at("entry")) && g.inlined == w.at("inlined").get<bool>();
}

// Compares gobin's frames with the runtime's; returns "" or the first difference.
std::string CompareFrames(const std::vector<Frame> &got, const Json &want, uint64_t bias) {
  size_t n = std::max(got.size(), want.size());
  for (size_t i = 0; i < n; i++) {
    if (i >= got.size()) return fmt::format("frame {}: gobin has none, runtime has {}", i, DescribeJson(want.at(i)));
    if (i >= want.size()) return fmt::format("frame {}: gobin has {}, runtime has none", i, Describe(got[i], bias));
    if (!Same(got[i], want.at(i), bias))
      return fmt::format("frame {}: gobin {} != runtime {}", i, Describe(got[i], bias), DescribeJson(want.at(i)));
  }
  return "";
}

// The physical return addresses in a runtime.Callers list: each physical PC is followed
// by the virtual PCs (parentPc+1) of its inlined callers, which FramesForPC predicts.
std::vector<uint64_t> PhysicalPcs(const GoBinary &bin, const std::vector<uint64_t> &pcs) {
  std::vector<uint64_t> phys;
  size_t i = 0;
  while (i < pcs.size()) {
    phys.push_back(pcs[i]);
    auto fr = bin.FramesForPC(pcs[i], gotraced::gobin::PcKind::kReturnAddress);
    for (size_t k = 1; k < fr.size(); k++) {
      if (i + 1 < pcs.size() && pcs[i + 1] == fr[k].pc + 1) i++;
    }
    i++;
  }
  return phys;
}

void Bench(const GoBinary &bin, double seconds) {
  // PCs spread over the whole Go text, each treated as a return address.
  std::vector<uint64_t> pcs;
  const uint64_t lo = bin.text_start(), hi = bin.pclntab().text_end();
  const size_t n = 1 << 16;
  for (size_t i = 0; i < n; i++) pcs.push_back(lo + 1 + (hi - lo - 1) * i / n);
  std::vector<Frame> out;
  size_t lookups = 0, frames = 0;
  auto t0 = std::chrono::steady_clock::now();
  double el = 0;
  while (el < seconds) {
    for (uint64_t pc : pcs) {
      out.clear();
      gotraced::gobin::FramesForPC(bin, pc, gotraced::gobin::PcKind::kReturnAddress, &out);
      frames += out.size();
    }
    lookups += pcs.size();
    el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  std::printf("FramesForPC: %.0f lookups/s (%zu lookups over %zu PCs spread across %u functions, %.2f frames/lookup, %.2fs)\n",
              lookups / el, lookups, pcs.size(), bin.pclntab().num_funcs(), double(frames) / lookups, el);
}

// Checks 2./3. for one binary; appends failures (prefixed) to *fails.
void CheckFrames(const GoBinary &bin, const Json &j, const std::string &prefix, std::vector<std::string> *fails,
                 size_t *chains, size_t *frames) {
  if (Str(j, "go_version") != bin.build_info().go_version)
    fails->push_back(fmt::format("{}runtime.Version() {} != buildinfo {}", prefix, Str(j, "go_version"), bin.build_info().go_version));
  const auto *mm = bin.FindFunction("main.main");
  if (!mm) {
    fails->push_back(prefix + "main.main not found");
    return;
  }
  const uint64_t bias = Hex(j.at("main_entry")) - mm->entry;
  if (!bin.flags().pie && bias != 0) fails->push_back(fmt::format("{}non-PIE binary with load bias 0x{:x}", prefix, bias));
  for (const auto &c : j.at("chains")) {
    (*chains)++;
    std::vector<uint64_t> pcs;
    for (const auto &p : c.at("pcs")) pcs.push_back(Hex(p) - bias);
    auto got = gotraced::gobin::CallersFrames(bin, pcs);
    if (auto d = CompareFrames(got, c.at("frames"), bias); !d.empty())
      fails->push_back(fmt::format("{}chain {} (CallersFrames): {}", prefix, Str(c, "name"), d));
    auto phys = PhysicalPcs(bin, pcs);
    auto sym = gotraced::gobin::SymbolizeStack(bin, phys, /*first_is_instruction=*/false);
    if (auto d = CompareFrames(sym, c.at("frames"), bias); !d.empty())
      fails->push_back(fmt::format("{}chain {} (FramesForPC on {} physical PCs): {}", prefix, Str(c, "name"), phys.size(), d));
    *frames += c.at("frames").size();
    bool inlined = false;
    for (const auto &f : c.at("frames")) inlined |= f.at("inlined").get<bool>();
    // Every chain but these goes through an inlined call; Go 1.19's compiler does not
    // inline calls to generic functions (go build -gcflags=-m: "can inline gen[...]"
    // but no "inlining call to gen").
    const std::string name = Str(c, "name");
    bool expect_inline = name != "wrapper" && name != "sigpanic" && name != "skip0" &&
                         !(name == "generic" && !bin.go_version().AtLeast(1, 20));
    if (!inlined && expect_inline)
      fails->push_back(fmt::format("{}chain {}: no inlined frame (the compiler did not inline: test is weaker)", prefix, name));
  }
}

// The file with e_shoff/e_shnum/e_shstrndx zeroed: what sstrip leaves.
std::vector<uint8_t> WithoutSectionHeaders(const std::string &path) {
  std::string s = ReadFile(path);
  std::vector<uint8_t> b(s.begin(), s.end());
  if (b.size() < 64) return b;
  std::memset(b.data() + 0x28, 0, 8);  // e_shoff
  std::memset(b.data() + 0x3c, 0, 4);  // e_shnum, e_shstrndx
  return b;
}

}  // namespace

int main(int argc, char **argv) {
  std::string binary, callers_json, gvm, flavour;
  double bench = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--binary") binary = argv[i + 1];
    else if (a == "--callers-json") callers_json = argv[i + 1];
    else if (a == "--go-version-m") gvm = argv[i + 1];
    else if (a == "--flavour") flavour = argv[i + 1];
    else if (a == "--bench") bench = std::stod(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  auto opened = GoBinary::Open(binary);
  if (!opened) {
    std::printf("FAIL open: %s\n", opened.error().c_str());
    return 1;
  }
  const GoBinary &bin = **opened;
  std::vector<std::string> fails;
  size_t checked_frames = 0, checked_chains = 0;
  std::string bare_how;

  // 1. go version -m.
  if (!gvm.empty()) {
    std::string text = ReadFile(gvm);
    size_t colon = text.find(": ");
    size_t nl = text.find('\n');
    if (colon == std::string::npos || nl == std::string::npos || colon > nl) {
      fails.push_back("go version -m output unreadable");
    } else {
      std::string ver = text.substr(colon + 2, nl - colon - 2);
      std::string rest = text.substr(nl + 1);
      if (ver != bin.build_info().go_version)
        fails.push_back(fmt::format("go version: gobin '{}' != go version -m '{}'", bin.build_info().go_version, ver));
      std::string mine = bin.build_info().FormatModInfoLikeGoVersionM();
      if (mine != rest)
        fails.push_back(fmt::format("build info differs from go version -m:\n--- gobin\n{}--- go version -m\n{}", mine, rest));
    }
  }

  // 2./3. Frames; 6. the same without section headers.
  if (!callers_json.empty()) {
    const auto j = Json::parse(ReadFile(callers_json), nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      fails.push_back("callers JSON unreadable");
    } else {
      try {
        CheckFrames(bin, j, "", &fails, &checked_chains, &checked_frames);
      } catch (const nlohmann::json::exception &e) {
        fails.push_back(std::string("callers JSON: ") + e.what());
      }
      auto bare = GoBinary::FromBytes(WithoutSectionHeaders(binary));
      if (!bare) {
        fails.push_back("no section headers: " + bare.error());
      } else {
        size_t c2 = 0, f2 = 0;
        try {
          CheckFrames(**bare, j, "no section headers: ", &fails, &c2, &f2);
        } catch (const nlohmann::json::exception &e) {
          fails.push_back(std::string("no section headers: callers JSON: ") + e.what());
        }
        const GoBinary &b2 = **bare;
        if (b2.build_info().go_version != bin.build_info().go_version ||
            b2.build_info().FormatModInfoLikeGoVersionM() != bin.build_info().FormatModInfoLikeGoVersionM())
          fails.push_back("no section headers: different build info");
        if (b2.pclntab().vaddr() != bin.pclntab().vaddr() || b2.text_start() != bin.text_start() ||
            b2.symbols().Functions().size() != bin.symbols().Functions().size())
          fails.push_back(fmt::format("no section headers: pclntab 0x{:x} text 0x{:x} {} funcs != 0x{:x} 0x{:x} {}",
                                      b2.pclntab().vaddr(), b2.text_start(), b2.symbols().Functions().size(),
                                      bin.pclntab().vaddr(), bin.text_start(), bin.symbols().Functions().size()));
        bare_how = fmt::format("; without section headers: pclntab by {}, moduledata by {}",
                               b2.pclntab_source() == gotraced::gobin::PclntabSource::kMagicScan ? "magic scan" : "?",
                               b2.moduledata() ? b2.moduledata()->found_by : "NONE");
      }
    }
  }

  // 4. .symtab agreement.
  size_t sym_checked = 0;
  auto mism = bin.symbols().CheckAgainstSymtab(bin.elf(), &sym_checked);
  for (size_t i = 0; i < mism.size() && i < 5; i++)
    fails.push_back(fmt::format(".symtab: {}: {}", mism[i].name, mism[i].what));
  if (mism.size() > 5) fails.push_back(fmt::format(".symtab: {} more mismatches", mism.size() - 5));

  // 5. Flags of the flavour.
  const auto &fl = bin.flags();
  auto expect = [&](bool cond, const char *what) {
    if (!cond) fails.push_back(fmt::format("flags: expected {} for flavour {}", what, flavour));
  };
  if (flavour == "default") expect(!fl.pie && !fl.stripped && !fl.cgo && !fl.trimpath && fl.static_linked, "static, not pie/stripped/cgo/trimpath");
  if (flavour == "strip") expect(fl.stripped && fl.no_dwarf && !fl.pie, "stripped, no DWARF");
  if (flavour == "pie") expect(fl.pie && !fl.stripped, "pie");
  if (flavour == "cgo") expect(fl.cgo && fl.external_link && !fl.static_linked, "cgo, external link, dynamic");
  if (flavour == "trimpath") expect(fl.trimpath && !fl.pie, "trimpath");

  std::printf("%s: %s, %zu chains / %zu frames compared, .symtab %s, pclntab %s%s%s\n", fails.empty() ? "PASS" : "FAIL",
              bin.build_info().go_version.c_str(), checked_chains, checked_frames,
              bin.elf().has_symtab() ? fmt::format("{} functions agree", sym_checked - std::min(sym_checked, mism.size())).c_str() : "absent",
              bin.pclntab_source() == gotraced::gobin::PclntabSource::kSection ? "by section" : "not by section",
              bin.moduledata() ? fmt::format(", moduledata by {}", bin.moduledata()->found_by).c_str() : ", NO moduledata",
              bare_how.c_str());
  for (const auto &f : fails) std::printf("  %s\n", f.c_str());
  if (bench > 0) Bench(bin, bench);
  return fails.empty() ? 0 : 1;
}
