// gotraced-uprobe-cost: what one uprobe hit costs at a chosen site of a Go function,
// measured in the same run as the workload timings of scripts/bench-overhead.sh.
//
//   gotraced-uprobe-cost TARGET [--function main.probeTarget] [--calls N]
//                        [--slow-calls N] [--reps R]
//
// TARGET is the fidelity target (tests/fidelity/targets): `TARGET -workload calls
// -calls N` calls the function N times and prints "calls N ns T cpu_ns C". The tool finds the
// function's probe sites with gobin (the same code gotraced's probe plan uses:
// daemon/gobin/probe_sites.h), then times the calls with no probe, with an empty BPF
// program at entry+4 (the JLS after the stack check, which the kernel emulates), with a
// 32-byte ring-buffer record at the same site (BPF_RB_NO_WAKEUP, drained every 1 ms),
// and with the empty program at the entry (the CMP there is single-stepped). Per hit =
// ns/call with the probe minus ns/call without (median of R runs each), in wall time
// and in the target's CPU time (user + system over the loop: the trap and the BPF
// program run in the target's context, and CPU time holds up on a loaded machine). The uprobes are
// attached for every process mapping TARGET (pid -1) before the child starts, so attach
// time is not measured (shared/docs/perf-anchors.md, "Method").
//
// Last lines, for scripts: "uprobe_hit_ns <mode> <wall ns> <cpu ns>".
#include <bpf/libbpf.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "daemon/gobin/go_binary.h"
#include "daemon/gobin/probe_sites.h"
#include "uprobe_cost.skel.h"

namespace {

struct Options {
  std::string target;
  std::string function = "main.probeTarget";
  long calls = 300'000;      // emulated sites: ~1 us per hit -> ~0.3 s a run
  long slow_calls = 20'000;  // the single-stepped entry: ~15 us per hit
  int reps = 5;
};

struct Sample {
  long calls = 0;
  double ns_per_call = 0;      // wall
  double cpu_ns_per_call = 0;  // process CPU (user + system: the trap is system time)
};

// Runs TARGET -workload calls -calls N and parses its "calls N ns T" line.
std::optional<Sample> RunTarget(const std::string &target, long calls, std::string *err) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    *err = std::string("pipe: ") + std::strerror(errno);
    return std::nullopt;
  }
  const std::string n = std::to_string(calls);
  pid_t pid = fork();
  if (pid < 0) {
    *err = std::string("fork: ") + std::strerror(errno);
    return std::nullopt;
  }
  if (pid == 0) {
    dup2(fds[1], STDOUT_FILENO);
    execl(target.c_str(), target.c_str(), "-workload", "calls", "-calls", n.c_str(), static_cast<char *>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string out;
  char buf[512];
  for (ssize_t r; (r = read(fds[0], buf, sizeof buf)) != 0;) {
    if (r < 0) {
      if (errno == EINTR) continue;
      break;
    }
    out.append(buf, static_cast<size_t>(r));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    *err = target + " -workload calls failed (status " + std::to_string(status) + "): " + out;
    return std::nullopt;
  }
  long got = 0, ns = 0, cpu = 0;
  const char *line = std::strstr(out.c_str(), "calls ");
  if (!line || std::sscanf(line, "calls %ld ns %ld cpu_ns %ld", &got, &ns, &cpu) != 3 || got <= 0) {
    *err = "no 'calls N ns T cpu_ns C' line in: " + out;
    return std::nullopt;
  }
  const double n_calls = static_cast<double>(got);
  return Sample{got, static_cast<double>(ns) / n_calls, static_cast<double>(cpu) / n_calls};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Drains the ring buffer every millisecond on its own thread while a run is going on,
// counting records (each is one probe hit).
class Drainer {
 public:
  explicit Drainer(int map_fd) {
    rb_ = ring_buffer__new(
        map_fd, [](void *ctx, void *, size_t) { return ++*static_cast<long *>(ctx), 0; }, &count_, nullptr);
    if (rb_)
      thread_ = std::thread([this] {
        while (!stop_.load()) {
          ring_buffer__consume(rb_);
          std::this_thread::sleep_for(std::chrono::milliseconds(1));
        }
        ring_buffer__consume(rb_);
      });
  }
  ~Drainer() {
    Stop();
    ring_buffer__free(rb_);
  }
  // Joins the thread after a last drain; count() is then final.
  void Stop() {
    stop_.store(true);
    if (thread_.joinable()) thread_.join();
  }
  bool ok() const { return rb_ != nullptr; }
  long count() const { return count_; }

 private:
  ring_buffer *rb_ = nullptr;
  std::atomic<bool> stop_{false};
  long count_ = 0;
  std::thread thread_;
};

struct Mode {
  std::string name;   // for the machine-readable line
  std::string about;  // for the table
  const gotraced::gobin::InsnSite *site = nullptr;
  bpf_program *prog = nullptr;
  long calls = 0;
};

int Usage() {
  std::fprintf(stderr,
               "usage: gotraced-uprobe-cost TARGET [--function NAME] [--calls N] [--slow-calls N] [--reps R]\n");
  return 2;
}

}  // namespace

int main(int argc, char **argv) {
  Options o;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto next = [&]() -> const char * { return i + 1 < argc ? argv[++i] : nullptr; };
    const char *v = nullptr;
    if (a == "--function" && (v = next())) o.function = v;
    else if (a == "--calls" && (v = next())) o.calls = std::atol(v);
    else if (a == "--slow-calls" && (v = next())) o.slow_calls = std::atol(v);
    else if (a == "--reps" && (v = next())) o.reps = std::atoi(v);
    else if (!a.empty() && a[0] != '-' && o.target.empty()) o.target = a;
    else return Usage();
  }
  if (o.target.empty() || o.calls <= 0 || o.slow_calls <= 0 || o.reps <= 0) return Usage();

  auto bin = gotraced::gobin::GoBinary::Open(o.target);
  if (!bin) {
    std::fprintf(stderr, "uprobe-cost: %s: %s\n", o.target.c_str(), bin.error().c_str());
    return 1;
  }
  auto sites = gotraced::gobin::FindProbeSites(**bin, o.function);
  if (!sites) {
    std::fprintf(stderr, "uprobe-cost: %s\n", sites.error().c_str());
    return 1;
  }
  if (!sites->after_check) {
    std::fprintf(stderr, "uprobe-cost: %s has no stack-bound check (prologue %s): pick a non-leaf function\n",
                 o.function.c_str(), std::string(gotraced::gobin::PrologueKindName(sites->prologue)).c_str());
    return 1;
  }

  uprobe_cost *skel = uprobe_cost__open_and_load();
  if (!skel) {
    std::fprintf(stderr, "uprobe-cost: loading the BPF programs failed: %s (run as root)\n", std::strerror(errno));
    return 1;
  }
  std::vector<Mode> modes = {
      {"none", "no probe", nullptr, nullptr, o.calls},
      {"after_check_empty", "entry+4, empty program", &*sites->after_check, skel->progs.empty_probe, o.calls},
      {"after_check_record", "entry+4, 32 B ringbuf record, NO_WAKEUP", &*sites->after_check,
       skel->progs.record_probe, o.calls},
      {"entry_empty", "entry, empty program", &sites->entry_site, skel->progs.empty_probe, o.slow_calls},
  };

  const auto &gv = (*bin)->go_version();
  std::printf("uprobe cost: %s in %s (go%d.%d.%d), median of %d runs each\n", o.function.c_str(), o.target.c_str(),
              gv.major, gv.minor, gv.patch, o.reps);
  std::printf("%-40s %-34s %-14s %7s %9s %9s %9s %9s\n", "probe", "instruction", "kernel", "calls", "wall/call",
              "cpu/call", "hit wall", "hit cpu");
  double base = 0, base_cpu = 0;
  int rc = 0;
  struct Hit {
    std::string name;
    double wall, cpu;
  };
  std::vector<Hit> machine;
  for (const Mode &m : modes) {
    bpf_link *link = nullptr;
    if (m.prog) {
      link = bpf_program__attach_uprobe(m.prog, false, -1, o.target.c_str(), m.site->file_offset);
      if (!link) {
        std::fprintf(stderr, "uprobe-cost: attach at %s+0x%llx failed: %s\n", o.target.c_str(),
                     static_cast<unsigned long long>(m.site->file_offset), std::strerror(errno));
        rc = 1;
        continue;
      }
    }
    std::optional<Drainer> drain;
    if (m.prog == skel->progs.record_probe) drain.emplace(bpf_map__fd(skel->maps.records));
    std::vector<double> ns, cpu;
    std::string err;
    for (int r = 0; r < o.reps; r++) {
      auto s = RunTarget(o.target, m.calls, &err);
      if (!s) break;
      ns.push_back(s->ns_per_call);
      cpu.push_back(s->cpu_ns_per_call);
    }
    bpf_link__destroy(link);
    long expect_hits = 0;
    for (size_t i = 0; i < ns.size(); i++) expect_hits += m.calls;
    if (drain) {
      // One record per call: the site is the one the calls go through, and the entry+4
      // probe fired once per call (no morestack re-entry in this loop).
      drain->Stop();
      if (drain->count() < expect_hits) {
        std::fprintf(stderr, "uprobe-cost: %s: %ld records for %ld calls (ring buffer overrun?)\n",
                     m.name.c_str(), drain->count(), expect_hits);
        rc = 1;
      }
    }
    if (ns.size() != static_cast<size_t>(o.reps)) {
      std::fprintf(stderr, "uprobe-cost: %s: %s\n", m.name.c_str(), err.c_str());
      rc = 1;
      continue;
    }
    const double med = Median(ns), med_cpu = Median(cpu);
    if (!m.prog) base = med, base_cpu = med_cpu;
    std::string insn = m.site ? m.site->text : "-";
    std::string handling = m.site ? std::string(gotraced::gobin::UprobeHandlingName(m.site->handling)) : "-";
    auto per_hit = [&](double v) { return m.prog ? fmt::format("{:.0f} ns", v) : std::string("-"); };
    std::printf("%-40s %-34s %-14s %7ld %9.1f %9.1f %9s %9s\n", m.about.c_str(), insn.c_str(), handling.c_str(),
                m.calls, med, med_cpu, per_hit(med - base).c_str(), per_hit(med_cpu - base_cpu).c_str());
    if (m.prog) machine.push_back({m.name, med - base, med_cpu - base_cpu});
  }
  for (const auto &h : machine) std::printf("uprobe_hit_ns %s %.0f %.0f\n", h.name.c_str(), h.wall, h.cpu);
  uprobe_cost__destroy(skel);
  return rc;
}
