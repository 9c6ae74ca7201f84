#include "daemon/bpfcheck/program_check.h"

#include <cstdarg>
#include <cstdio>
#include <deque>
#include <string_view>

#include <fmt/format.h>

#include "daemon/capture/prog_stack.h"

namespace gotraced::bpfcheck {
namespace {

// BPF_LOG_LEVEL1 and BPF_LOG_STATS (include/linux/bpf_verifier.h).
constexpr uint32_t kLogLevel1 = 1;
constexpr uint32_t kLogStats = 4;
// A BPF_LOG_STATS log is a few lines (plus the refusal's reason); a level-1 log of a
// refused program can be huge: 6.4+ kernels keep its tail in a rotating buffer, older
// ones its head (then the stats log's tail is quoted instead).
constexpr size_t kStatsLogSize = size_t{1} << 20;
constexpr size_t kFullLogSize = size_t{16} << 20;
constexpr size_t kTailLines = 15;

// libbpf's messages while a check loads, kept instead of printed: a refused program is
// reported in the table, with libbpf's own complaint when the kernel never saw it.
thread_local std::vector<std::string> *g_sink = nullptr;

int Collect(enum libbpf_print_level level, const char *format, va_list args) {
  if (!g_sink || level != LIBBPF_WARN) return 0;
  char buf[1024];
  std::vsnprintf(buf, sizeof(buf), format, args);
  std::string line = buf;
  while (!line.empty() && line.back() == '\n') line.pop_back();
  if (line.starts_with("libbpf: ")) line.erase(0, 8);
  g_sink->push_back(std::move(line));
  return 0;
}

class QuietLibbpf {
 public:
  explicit QuietLibbpf(std::vector<std::string> *sink) : previous_(libbpf_set_print(Collect)) { g_sink = sink; }
  ~QuietLibbpf() {
    g_sink = nullptr;
    libbpf_set_print(previous_);
  }
  QuietLibbpf(const QuietLibbpf &) = delete;
  QuietLibbpf &operator=(const QuietLibbpf &) = delete;

 private:
  libbpf_print_fn_t previous_;
};

std::vector<std::string> Lines(std::string_view log) {
  std::vector<std::string> out;
  while (!log.empty()) {
    size_t nl = log.find('\n');
    std::string_view line = log.substr(0, nl);
    log = nl == std::string_view::npos ? std::string_view{} : log.substr(nl + 1);
    while (!line.empty() && (line.back() == ' ' || line.back() == '\r')) line.remove_suffix(1);
    if (!line.empty()) out.emplace_back(line);
  }
  return out;
}

std::vector<std::string> Tail(const std::vector<std::string> &lines, size_t n) {
  return {lines.end() - std::ptrdiff_t(std::min(n, lines.size())), lines.end()};
}

bool IsStatsLine(std::string_view l) {
  return l.starts_with("processed ") || l.starts_with("stack depth ") || l.starts_with("verification time ");
}

// The refusal's reason: the last line of the log that is not a stats line.
std::string Reason(const std::vector<std::string> &lines) {
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (!IsStatsLine(*it)) return *it;
  return {};
}

// libbpf's complaint that explains a load the kernel's verifier did not refuse (a map it
// could not create, an attach target not found), skipping its generic summary lines.
std::string LibbpfComplaint(const std::vector<std::string> &warnings) {
  for (const auto &w : warnings) {
    if (w.find("BPF program load failed") != std::string::npos) continue;
    if (w.find("failed to load object") != std::string::npos) continue;
    if (w.find("failed to load program") != std::string::npos) continue;
    if (w.find("-- BEGIN PROG LOAD LOG --") != std::string::npos) continue;
    return w;
  }
  return warnings.empty() ? std::string() : warnings.front();
}

struct LoadOutcome {
  ProgramCheck check;
  std::string log;
};

LoadOutcome LoadOne(const std::string &object, const OpenObjectFn &open, const std::string &prog_name,
                    uint32_t log_level, size_t log_size) {
  LoadOutcome out;
  ProgramCheck &c = out.check;
  c.object = object;
  c.name = prog_name;
  std::string err;
  std::unique_ptr<OpenedObject> o = open(&err);
  if (!o) {
    c.err = errno;
    c.error = err;
    return out;
  }
  bpf_program *target = nullptr, *p = nullptr;
  bpf_object__for_each_program(p, o->obj()) {
    const bool me = prog_name == bpf_program__name(p);
    bpf_program__set_autoload(p, me);
    if (me) target = p;
  }
  if (!target) {
    c.error = "the program is gone from the object";
    return out;
  }
  c.section = bpf_program__section_name(target);
  std::vector<char> buf(log_size, '\0');
  bpf_program__set_log_buf(target, buf.data(), buf.size());
  bpf_program__set_log_level(target, log_level);
  std::vector<std::string> warnings;
  int rc;
  {
    QuietLibbpf quiet(&warnings);
    rc = bpf_object__load(o->obj());
  }
  buf.back() = '\0';
  out.log = buf.data();
  c.stats = capture::ParseVerifierStats(out.log);
  const std::vector<std::string> lines = Lines(out.log);
  const std::vector<uint32_t> &depths = c.stats.subprog_depths;
  if (rc == 0) {
    c.loaded = true;
    std::string why;
    if (auto g = capture::ReadSubprogGraph(bpf_program__fd(target), &why); g && g->names.size() == depths.size()) {
      c.subprog_names = g->names;
      c.combined_stack = capture::DeepestChainStack(depths, *g, &c.deepest_chain);
      c.combined_from_call_graph = true;
    } else {
      if (g) c.subprog_names = g->names;
      c.combined_stack = capture::AllFramesStack(depths);
    }
    return out;
  }
  c.err = rc < 0 ? -rc : errno;
  // A refused program's subprogs are all still there (the verifier removes dead code only
  // after it accepts), so libbpf's instructions give the verifier's call graph.
  std::string why;
  if (auto g = capture::GraphFromInsns(bpf_program__insns(target), bpf_program__insn_cnt(target),
                                       capture::InsnSource::kLibbpf, {}, &why);
      g && !depths.empty() && g->callees.size() == depths.size()) {
    c.combined_stack = capture::DeepestChainStack(depths, *g, &c.deepest_chain);
    c.combined_from_call_graph = true;
  } else {
    c.combined_stack = capture::AllFramesStack(depths);
  }
  c.log_tail = Tail(lines, kTailLines);
  if (lines.empty()) {
    const std::string complaint = LibbpfComplaint(warnings);
    c.error = complaint.empty() ? fmt::format("loading failed: {}", std::strerror(c.err))
                                : fmt::format("{} (the kernel's verifier did not see the program)", complaint);
  } else {
    c.error = fmt::format("the verifier refused it ({}): {}", std::strerror(c.err), Reason(lines));
  }
  return out;
}

}  // namespace

std::vector<ProgramCheck> CheckObjectPrograms(const std::string &object, const OpenObjectFn &open,
                                              bool first_refusal_log) {
  std::vector<std::string> names;
  {
    std::string err;
    std::unique_ptr<OpenedObject> o = open(&err);
    if (!o) {
      ProgramCheck c;
      c.object = object;
      c.name = "(object)";
      c.err = errno;
      c.error = err;
      return {c};
    }
    bpf_program *p = nullptr;
    bpf_object__for_each_program(p, o->obj()) names.emplace_back(bpf_program__name(p));
  }
  std::vector<ProgramCheck> out;
  bool quoted = !first_refusal_log;
  for (const auto &name : names) {
    ProgramCheck c = LoadOne(object, open, name, kLogStats, kStatsLogSize).check;
    const bool at_limit = c.stats.processed_insns && *c.stats.processed_insns >= capture::kVerifierInsnLimit;
    if (!c.loaded && !quoted && c.stats.processed_insns && !at_limit) {
      // The instructions before the refusal, for the report (the same verdict again).
      LoadOutcome full = LoadOne(object, open, name, kLogLevel1 | kLogStats, kFullLogSize);
      std::vector<std::string> lines = Lines(full.log);
      if (!full.check.loaded && !lines.empty() && full.check.stats.processed_insns) c.log_tail = Tail(lines, kTailLines);
    }
    if (!c.loaded) quoted = true;
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace gotraced::bpfcheck
