#include "cli/capture_dump.h"

#include <signal.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "daemon/capture/capture.h"
#include "daemon/gobin/go_binary.h"
#include "daemon/probes/probe_plan.h"
#include "daemon/session/capture_level.h"

namespace gotraced::cli {
namespace {

std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }

struct DumpArgs {
  int pid = 0;
  double duration_s = 2;
  bool quiet = false;       // counts only
  bool symbolize = false;   // function names for caller_pc and stack PCs
  bool snapshot = false;    // print the runtime snapshot
  bool syscalls = false;
  bool no_sched = false;
  bool no_stacks = false;
  size_t ring_mb = 32;
  std::string level = "full";
  std::string syscalls_by = "switch";  // record's default
};

std::string Sym(const gobin::GoBinary &bin, uint64_t bias, uint64_t pc) {
  if (!pc) return "0";
  const gobin::FunctionSym *f = bin.FuncForPC(pc - bias);
  return f ? fmt::format("{}+{:#x}", f->name, pc - bias - f->entry) : fmt::format("{:#x}", pc);
}

int Run(const DumpArgs &a) {
  capture::CaptureOptions o;
  o.pid = a.pid;
  o.ring_bytes = a.ring_mb << 20;
  o.plan.syscall_tracepoints = a.syscalls;
  o.plan.sched_switch = !a.no_sched;
  o.plan.stacks = !a.no_stacks;
  const auto level = session::ParseCaptureLevel(a.level);
  if (!level) {
    std::fprintf(stderr, "capture-dump: --level %s: expected full, sched or low\n", a.level.c_str());
    return 1;
  }
  session::ApplyCaptureLevel(*level, o.plan);  // the sites a recording of that level attaches
  if (*level == session::CaptureLevel::kLow) {  // the level's syscalls, as a recording's (session.cc)
    o.plan.syscall_min_ns = 1'000'000;
    o.plan.syscall_sample = a.syscalls_by == "sample";
    o.plan.syscall_switch = a.syscalls_by == "switch";
  }
  auto cap = capture::Capture::Start(o);
  if (!cap) {
    std::fprintf(stderr, "capture-dump: %s\n", cap.error().c_str());
    return 1;
  }
  capture::Capture &c = **cap;
  std::printf("%s", probes::DescribePlan(c.plan()).c_str());
  for (const auto &w : c.warnings()) std::printf("warning: %s\n", w.c_str());
  if (a.snapshot) std::printf("%s", procmem::DescribeSnapshot(c.snapshot()).c_str());
  signal(SIGINT, OnSignal);
  signal(SIGTERM, OnSignal);
  std::map<std::string, uint64_t> counts;
  auto print = [&](const capture::RecordView &r) {
    std::string key = capture::RecordKindName(r.header().kind);
    if (auto *g = r.gstatus()) key += fmt::format(" {}->{}", g->oldval, g->newval);
    if (auto *cl = r.call())
      if (auto *s = c.plan().site(cl->probe_id)) key += std::string(" ") + std::string(probes::ProbeRoleName(s->role));
    counts[key]++;
    if (a.quiet) return;
    std::string line = r.Describe();
    if (a.symbolize) {
      if (auto *ctx = r.go_ctx()) line += " | caller=" + Sym(c.binary(), c.load_bias(), ctx->caller_pc);
      auto st = r.stack();
      if (!st.empty()) {
        line += " | frames:";
        for (uint64_t pc : st) line += " " + Sym(c.binary(), c.load_bias(), pc);
      }
    }
    std::printf("%s\n", line.c_str());
  };
  auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(int64_t(a.duration_s * 1000));
  while (!g_stop && std::chrono::steady_clock::now() < end && !c.target_exited())
    c.Poll(print, std::chrono::milliseconds(10));
  c.Stop();
  c.Flush(print);
  auto s = c.stats();
  std::printf("--- %llu records, %llu probe hits, %llu morestack skips, %llu lost, %llu seq gaps, %llu late, "
              "%llu read faults, %llu invalid%s\n",
              (unsigned long long)s.consumer.records, (unsigned long long)s.probe_hits,
              (unsigned long long)s.morestack_skips, (unsigned long long)s.consumer.lost(),
              (unsigned long long)s.consumer.seq_gaps, (unsigned long long)s.consumer.late,
              (unsigned long long)s.read_faults, (unsigned long long)s.consumer.invalid,
              s.target_exited ? ", target exited" : "");
  for (const auto &[k, v] : counts) std::printf("  %-40s %llu\n", k.c_str(), (unsigned long long)v);
  return 0;
}

}  // namespace

void RegisterCaptureDump(CLI::App &app) {
  auto args = std::make_shared<DumpArgs>();
  auto *sub = app.add_subcommand("capture-dump", "attach to a Go process and print the decoded capture records");
  sub->add_option("--pid,-p", args->pid, "target process id")->required();
  sub->add_option("--duration,-d", args->duration_s, "seconds to capture (default 2)");
  sub->add_flag("--quiet,-q", args->quiet, "print only the counts per record kind");
  sub->add_flag("--symbolize,-s", args->symbolize, "name the functions of caller and stack PCs");
  sub->add_flag("--snapshot", args->snapshot, "print the runtime snapshot taken at attach");
  sub->add_flag("--syscalls", args->syscalls, "also attach raw_syscalls sys_enter/sys_exit");
  sub->add_flag("--no-sched-switch", args->no_sched, "do not attach sched_switch");
  sub->add_flag("--no-stacks", args->no_stacks, "no stack walks (cost measurements)");
  sub->add_option("--level", args->level, "attach the probe plan of this capture level (full, sched, low)");
  sub->add_option("--syscalls-by", args->syscalls_by, "level low: syscalls by switch, sample or tracepoint (record's --syscalls-by)")
      ->check(CLI::IsMember({"switch", "sample", "tracepoint"}));
  sub->add_option("--ring-mb", args->ring_mb, "ring buffer size in MiB (default 32)");
  sub->callback([args] { std::exit(Run(*args)); });
}

}  // namespace gotraced::cli
