// scenario_gen: writes randomized, consistent scheduler scenarios as Go traces with the
// encoder, plus the counts Go's parser must report; and compares those counts with
// tests/tracecheck's JSON. Driven by tests/suites/20-encoder-property.sh.
//
//   scenario_gen run --seed N --version 19|21|22|23|25|26 --out FILE [--expect FILE]
//                    [--gens G] [--steps S] [--break KIND] [--verbose]
//   scenario_gen compare EXPECTED.json TRACECHECK.json
//
// --break: missing-status | wrong-seq | new-goroutine-status | missing-eog
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <span>
#include <set>
#include <sstream>
#include <string>

#include "encoder/legacy_rebase.h"
#include "encoder/legacy_writer.h"
#include "encoder/trace_writer.h"
#include "tests/unit/encoder/scenario/flat_json.h"
#include "tests/unit/encoder/scenario/scenario.h"

using namespace gotraced::encoder;
using namespace gotraced::encoder::scenario;

namespace {

int Usage() {
  std::fprintf(stderr,
               "usage: scenario_gen run --seed N --version V --out FILE [--expect FILE] [--gens G] [--steps S]\n"
               "                        [--break missing-status|wrong-seq|new-goroutine-status|missing-eog] "
               "[--verbose] [--from-gen K]\n"
               "       scenario_gen compare EXPECTED.json TRACECHECK.json\n");
  return 2;
}

bool ReadAll(const char *path, std::string &out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::stringstream ss;
  ss << f.rdbuf();
  out = ss.str();
  return true;
}

bool WriteAll(const std::string &path, const void *data, std::size_t n) {
  std::FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(data, 1, n, f) == n;
  return std::fclose(f) == 0 && ok;
}

int Run(int argc, char **argv) {
  ScenarioConfig cfg;
  std::string out, expect;
  bool verbose = false;
  std::uint64_t from_gen = 1;  // legacy: write the trace a flight-recorder dump from K would hold
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--seed") cfg.seed = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--version") cfg.version = static_cast<Version>(std::atoi(next().c_str()));
    else if (a == "--gens") cfg.generations = std::atoi(next().c_str());
    else if (a == "--steps") cfg.steps_per_generation = std::atoi(next().c_str());
    else if (a == "--out") out = next();
    else if (a == "--expect") expect = next();
    else if (a == "--verbose") verbose = true;
    else if (a == "--from-gen") from_gen = std::strtoull(next().c_str(), nullptr, 10);
    else if (a == "--break") {
      std::string k = next();
      if (k == "missing-status") cfg.breakage = Breakage::kMissingStatus;
      else if (k == "wrong-seq") cfg.breakage = Breakage::kWrongSeq;
      else if (k == "new-goroutine-status") cfg.breakage = Breakage::kNewGoroutineStatus;
      else if (k == "missing-eog") cfg.breakage = Breakage::kMissingEndOfGeneration;
      else return Usage();
    } else {
      return Usage();
    }
  }
  int v = static_cast<int>(cfg.version);
  if (out.empty() || (v != 19 && v != 21 && v != 22 && v != 23 && v != 25 && v != 26) || cfg.generations < 2)
    return Usage();

  MemorySink sink;
  WriterOptions opts;
  opts.version = cfg.version;
  opts.tick_divisor = 64;
  opts.wall_minus_mono_ns = 1'700'000'000'000'000'000;
  // 19 and 21: the same scenario through the legacy writer (its output is checked by Go
  // 1.19's / 1.21's own parser in tests/suites/20-encoder-property.sh; the expected
  // counts are v2's and not compared).
  std::unique_ptr<EventWriter> w;
  struct Restarts final : LegacyRestartSink {
    std::map<std::uint64_t, StoredLegacyRestart> by_gen;
    void WriteLegacyPrelude(std::uint64_t gen, const LegacyRestart &r) override {
      by_gen[gen] = StoredLegacyRestart::From(r);
    }
  } restarts;
  if (IsLegacy(cfg.version))
    w = std::make_unique<LegacyTraceWriter>(sink, LegacyWriterOptions{.version = cfg.version, .tick_divisor = 64},
                                            &restarts);
  else
    w = std::make_unique<TraceWriter>(sink, opts);
  EventWriter &writer = *w;
  ScenarioResult r;
  try {
    r = RunScenario(cfg, writer);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "scenario_gen: %s\n", e.what());
    return 1;
  }
  std::size_t n = sink.bytes().size();
  if (cfg.breakage == Breakage::kMissingEndOfGeneration && n > 0 && sink.bytes().back() == 0x34) --n;
  const std::uint8_t *data = sink.bytes().data();
  std::vector<std::uint8_t> dump;
  if (from_gen > 1) {
    // What FlightRecorder hands out when its oldest generation is K (legacy_rebase.h).
    const auto &offs = sink.generation_offsets();
    auto it = restarts.by_gen.find(from_gen);
    if (!IsLegacy(cfg.version) || it == restarts.by_gen.end() || from_gen > offs.size()) {
      std::fprintf(stderr, "scenario_gen: --from-gen %llu: needs a legacy version and that generation\n",
                   static_cast<unsigned long long>(from_gen));
      return 1;
    }
    std::span<const std::uint8_t> all(sink.bytes());
    std::vector<std::span<const std::uint8_t>> gens;
    for (std::size_t g = from_gen - 1; g < offs.size(); ++g) {
      std::size_t end = g + 1 < offs.size() ? offs[g + 1] : all.size();
      gens.push_back(all.subspan(offs[g], end - offs[g]));
    }
    std::string err;
    dump = LegacyTraceFrom(all.first(16), it->second, gens, &err);
    if (dump.empty()) {
      std::fprintf(stderr, "scenario_gen: %s\n", err.c_str());
      return 1;
    }
    data = dump.data();
    n = dump.size();
  }
  if (!WriteAll(out, data, n)) {
    std::fprintf(stderr, "scenario_gen: cannot write %s\n", out.c_str());
    return 1;
  }
  if (!expect.empty()) {
    std::string j = r.expected.ToJson();
    if (!WriteAll(expect, j.data(), j.size())) {
      std::fprintf(stderr, "scenario_gen: cannot write %s\n", expect.c_str());
      return 1;
    }
  }
  const WriterStats &st = writer.stats();
  std::printf("%s; %zu bytes, %.2f bytes/event, %llu batches\n", r.description.c_str(), n,
              static_cast<double>(n) / static_cast<double>(st.events ? st.events : 1),
              static_cast<unsigned long long>(st.batches));
  if (!r.missing_kinds.empty()) std::printf("  not emitted: %s\n", r.missing_kinds.c_str());
  if (verbose) {
    std::string line = "  emitted:";
    for (const auto &[k, c] : r.emitted) line += " " + k + "=" + std::to_string(c);
    std::printf("%s\n", line.c_str());
  }
  return 0;
}

// Keys of tracecheck's summary that depend on clock values, not on what was encoded, and
// log_categories, which splits `logs` (compared) by a category the scenario does not count.
bool Ignored(const std::string &k) {
  return k == "first_ns" || k == "last_ns" || k == "duration_ns" || k.rfind("validation.", 0) == 0 ||
         k.rfind("log_first_ns.", 0) == 0 || k.rfind("log_categories.", 0) == 0;
}

int Compare(const char *want_path, const char *got_path) {
  std::string wt, gt, err;
  if (!ReadAll(want_path, wt) || !ReadAll(got_path, gt)) {
    std::fprintf(stderr, "compare: cannot read input\n");
    return 2;
  }
  auto want = ParseFlatJson(wt, &err);
  if (!want) {
    std::fprintf(stderr, "compare: %s: %s\n", want_path, err.c_str());
    return 2;
  }
  auto got = ParseFlatJson(gt, &err);
  if (!got) {
    std::fprintf(stderr, "compare: %s: %s\n", got_path, err.c_str());
    return 2;
  }
  int diffs = 0;
  std::set<std::string> keys;
  for (const auto &[k, v] : *want) keys.insert(k);
  for (const auto &[k, v] : *got) keys.insert(k);
  for (const auto &k : keys) {
    if (Ignored(k)) continue;
    auto w = want->find(k);
    auto g = got->find(k);
    std::string wv = w == want->end() ? "(absent)" : w->second;
    std::string gv = g == got->end() ? "(absent)" : g->second;
    if (wv != gv) {
      std::printf("  MISMATCH %s: expected %s, tracecheck %s\n", k.c_str(), wv.c_str(), gv.c_str());
      ++diffs;
    }
  }
  auto errs = got->find("validation.errors");
  if (errs != got->end() && errs->second != "0") {
    std::printf("  tracecheck validation errors: %s\n", errs->second.c_str());
    ++diffs;
  }
  // What the parser saw, for the suite's log.
  auto val = [&](const char *k) {
    auto it = got->find(k);
    return it == got->end() ? std::string("-") : it->second;
  };
  std::int64_t transitions = 0;
  for (const auto &[k, v] : *got)
    if (k.rfind("transitions.", 0) == 0) transitions += std::atoll(v.c_str());
  std::printf("  parsed: %s events, %s generations, %lld transitions, %s goroutines, %s procs, %s threads, "
              "%s stacks, %s cpu samples, %s tasks, %s regions, %s logs, %s labels\n",
              val("events").c_str(), val("generations").c_str(), static_cast<long long>(transitions),
              val("goroutines").c_str(), val("procs").c_str(), val("threads").c_str(), val("stacks").c_str(),
              val("cpu_samples").c_str(), val("tasks").c_str(), val("regions").c_str(), val("logs").c_str(),
              val("labels").c_str());
  if (diffs) return 1;
  std::printf("  match: all %zu keys equal\n", keys.size());
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc >= 2 && std::strcmp(argv[1], "run") == 0) return Run(argc - 2, argv + 2);
  if (argc == 4 && std::strcmp(argv[1], "compare") == 0) return Compare(argv[2], argv[3]);
  return Usage();
}
