#include "daemon/bpfcheck/bpf_selftest.h"

#include <spawn.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "daemon/bpfcheck/selftest_target.h"
#include "daemon/capture/bpf_config_fill.h"
#include "daemon/capture/libbpf_log.h"
#include "daemon/capture/load_error.h"
#include "daemon/json/json_text.h"
#include "daemon/probes/privileges.h"
#include "exec_watch.skel.h"
#include "gotrace.skel.h"
#include "gt_host.skel.h"
#include "hello.skel.h"
#include "proto/records.h"

extern char **environ;

namespace gotraced {
namespace {

using capture::KernelFeature;

struct Seen {
  int pid = 0;
  bool got = false;
};

int OnRecord(void *ctx, void *data, size_t size) {
  auto *seen = static_cast<Seen *>(ctx);
  if (size < sizeof(gt_hello_record)) return 0;
  auto *r = static_cast<const gt_hello_record *>(data);
  if (r->h.kind == GT_REC_HELLO && static_cast<int>(r->h.tgid) == seen->pid) seen->got = true;
  return 0;
}

// Step 3: hello on sched_process_exec sees /bin/true start, through the ring buffer.
std::string AttachCheck() {
  hello *skel = nullptr;
  {
    capture::LibbpfLogCapture log;
    skel = hello__open_and_load();
    if (!skel) {
      const int err = errno;
      capture::LoadContext c;
      c.what = "loading the BPF self-test";
      c.versions = capture::ReportVersions("");
      return capture::ExplainLoadFailure(capture::ObservedLoadFailure(err, log), c);
    }
  }
  std::string result;
  if (hello__attach(skel) != 0) {
    result = std::string("attaching sched_process_exec failed: ") + std::strerror(errno) +
             " (is tracefs mounted? mount -t tracefs tracefs /sys/kernel/tracing)";
  } else {
    Seen seen;
    ring_buffer *rb = ring_buffer__new(bpf_map__fd(skel->maps.events), OnRecord, &seen, nullptr);
    const char *argv[] = {"/bin/true", nullptr};
    pid_t pid = 0;
    if (!rb) {
      result = std::string("ring_buffer__new failed: ") + std::strerror(errno);
    } else if (posix_spawn(&pid, argv[0], nullptr, nullptr, const_cast<char **>(argv), environ) != 0) {
      result = "could not spawn /bin/true";
    } else {
      seen.pid = pid;
      int status = 0;
      waitpid(pid, &status, 0);
      for (int i = 0; i < 20 && !seen.got; i++) ring_buffer__poll(rb, 50);
      if (!seen.got) result = "BPF program attached but recorded nothing for /bin/true";
    }
    ring_buffer__free(rb);
  }
  hello__destroy(skel);
  return result;
}

const bpfcheck::ProgramCheck *FirstRefusal(const SelftestReport &r) {
  for (const auto &p : r.programs)
    if (!p.loaded) return &p;
  return nullptr;
}

std::string Thousands(uint64_t v) {
  std::string s = std::to_string(v);
  for (int i = int(s.size()) - 3; i > 0; i -= 3) s.insert(size_t(i), ",");
  return s;
}

std::string Depths(const std::vector<uint32_t> &d) {
  std::string s;
  for (size_t i = 0; i < d.size(); i++) s += (i ? "+" : "") + std::to_string(d[i]);
  return s.empty() ? "-" : s;
}

std::string StateWord(KernelFeature::State s) {
  switch (s) {
    case KernelFeature::State::kPresent: return "present";
    case KernelFeature::State::kMissing: return "missing";
    case KernelFeature::State::kUnknown: break;
  }
  return "unknown";
}

}  // namespace

int SelftestReport::ExitCode() const {
  if (!privileged) return 1;
  for (const auto &f : features)
    if (f.state == KernelFeature::State::kMissing) return 1;
  if (!target_error.empty()) return 1;
  if (FirstRefusal(*this)) return 2;
  if (attach_ran && !attach_error.empty()) return 1;
  return 0;
}

std::string SelftestReport::Problem() const {
  if (!privileged)
    return "this process may not load BPF programs: run gotraced as root, or with CAP_BPF + CAP_PERFMON "
           "(and CAP_SYS_PTRACE to trace another user's process)";
  if (auto missing = capture::MissingFeatures(features); !missing.empty()) {
    std::string s = fmt::format("this kernel ({}) lacks what gotraced needs:", kernel);
    for (const auto &m : missing) s += "\n  - " + m;
    s += fmt::format("\ngotraced supports Linux {} and newer.", capture::kMinimumKernel);
    return s;
  }
  if (!target_error.empty()) return "--binary: " + target_error;
  if (const auto *p = FirstRefusal(*this)) {
    std::string s = fmt::format("program {} ({}, SEC(\"{}\")) was not loaded: {}", p->name, p->object, p->section,
                                p->error);
    if (!p->log_tail.empty()) {
      s += "\nThe verifier's last lines:";
      for (const auto &l : p->log_tail) s += "\n    " + l;
    }
    s += fmt::format(
        "\nThis kernel has every feature gotraced needs, so this is a gotraced bug: please report it with this "
        "output and these versions: {}",
        versions);
    return s;
  }
  if (attach_ran && !attach_error.empty()) return attach_error;
  return {};
}

std::vector<bpfcheck::ProgramCheck> CheckAllPrograms(const probes::ProbePlan *plan) {
  std::vector<bpfcheck::ProgramCheck> out;
  bool quote = true;  // the verifier's level-1 log of the first refusal only
  auto add = [&](std::vector<bpfcheck::ProgramCheck> v) {
    for (auto &c : v) {
      if (!c.loaded) quote = false;
      out.push_back(std::move(c));
    }
  };
  if (plan) {
    const pid_t self = getpid();
    add(bpfcheck::CheckObjectPrograms(
        "gotrace",
        bpfcheck::SkeletonOpener<gotrace>(gotrace__open, gotrace__destroy,
                                          [plan, self](gotrace *s) {
                                            // As capture.cc Capture::Start fills it.
                                            capture::FillConfig(*plan, self, &s->rodata->cfg);
                                            s->bss->gt_target_tgid = std::uint32_t(self);
                                            // Every body of the syscall and sched_switch programs,
                                            // whichever options a recording sets.
                                            s->rodata->cfg.raw_sys = 1;
                                            s->rodata->cfg.sched_view = 1;
                                            s->rodata->cfg.sys_switch = 1;  // level low's syscalls
                                            if (plan->user_tracing_flag_vaddr) {
                                              s->rodata->gt_user_tracing_addr = plan->user_tracing_flag_vaddr;
                                              s->rodata->gt_user_tracing_size = plan->user_tracing_flag_size;
                                            }
                                          }),
        quote));
  }
  add(bpfcheck::CheckObjectPrograms("gt_host", bpfcheck::SkeletonOpener<gt_host>(gt_host__open, gt_host__destroy),
                                    quote));
  add(bpfcheck::CheckObjectPrograms(
      "exec_watch", bpfcheck::SkeletonOpener<exec_watch>(exec_watch__open, exec_watch__destroy), quote));
  add(bpfcheck::CheckObjectPrograms("hello", bpfcheck::SkeletonOpener<hello>(hello__open, hello__destroy), quote));
  return out;
}

SelftestReport RunSelftest(const SelftestOptions &opts) {
  SelftestReport r;
  utsname u{};
  r.kernel = uname(&u) == 0 ? u.release : "unknown";
  r.versions = capture::ReportVersions("");
  r.privileged = probes::CurrentPrivileges().can_load();
  r.features = capture::ProbeKernelFeatures();

  auto target = opts.binary.empty() ? bpfcheck::BuiltinTarget() : bpfcheck::TargetFromBinary(opts.binary);
  if (!target) {
    r.target = opts.binary;
    r.target_error = target.error();
  } else {
    r.target = target->description;
  }
  if (!r.privileged) return r;

  r.programs = CheckAllPrograms(target ? &target->plan : nullptr);

  if (opts.attach_check) {
    r.attach_ran = true;
    r.attach_error = AttachCheck();
  }
  return r;
}

std::string FormatSelftestText(const SelftestReport &r) {
  std::string s = fmt::format("gotraced selftest: kernel {}; gotrace config from {}\n", r.kernel,
                              r.target.empty() ? "-" : r.target);
  s += "\nKernel features (first mainline Linux that has each):\n";
  for (const auto &f : r.features) {
    s += fmt::format("  {:<8} {:<6} {}{}\n", StateWord(f.state), f.since, f.name, f.cpu_hz_only ? "  [--cpu-hz only]" : "");
    if (f.state != KernelFeature::State::kPresent) s += fmt::format("{:17}{}\n", "", f.detail);
    if (f.state == KernelFeature::State::kMissing) s += fmt::format("{:17}what to do: {}\n", "", f.remedy);
  }
  if (!r.privileged) {
    s += "\nPrograms: not loaded (no privilege to load BPF programs)\n";
  } else {
    s += fmt::format(
        "\nPrograms, each loaded and verified on its own (insns: instructions the verifier processed, of its limit of "
        "{}; stack: bytes per subprog, and of the deepest call chain with frames rounded as Linux 6.1 does, of {}):\n",
        Thousands(capture::kVerifierInsnLimit), capture::kMaxBpfStack);
    size_t wname = 7, wsec = 7, wstack = 17;  // column widths: the longest entry
    for (const auto &p : r.programs) {
      wname = std::max(wname, p.name.size());
      wsec = std::max(wsec, p.section.size());
      wstack = std::max(wstack, Depths(p.stats.subprog_depths).size());
    }
    const std::string row = fmt::format("  {{:<10}} {{:<{}}} {{:<{}}} {{:<7}} {{:>9}} {{:>6}}  {{:<{}}} {{:>8}} {{:>10}}\n",
                                        wname, wsec, wstack);
    s += fmt::format(fmt::runtime(row), "object", "program", "section", "result", "insns", "limit",
                     "stack per subprog", "combined", "verify");
    for (const auto &p : r.programs) {
      const auto &st = p.stats;
      std::string insns = st.processed_insns ? Thousands(*st.processed_insns) : "-";
      std::string pct = st.processed_insns ? fmt::format("{:.1f}%", st.PercentOfLimit()) : "-";
      std::string combined = st.subprog_depths.empty() && !st.too_large_combined
                                 ? "-"
                                 : (p.combined_from_call_graph ? "" : "<=") + std::to_string(p.combined_stack);
      std::string time = st.verification_usec ? fmt::format("{:.1f} ms", double(*st.verification_usec) / 1000.0) : "-";
      s += fmt::format(fmt::runtime(row), p.object, p.name, p.section, p.loaded ? "ok" : "REFUSED", insns, pct,
                       Depths(st.subprog_depths), combined, time);
      if (p.loaded && p.subprog_names.size() > 1) {
        std::string names;
        for (size_t i = 0; i < p.subprog_names.size(); i++)
          names += fmt::format("{}{}={}", i ? ", " : "", p.subprog_names[i].empty() ? "?" : p.subprog_names[i],
                               i < st.subprog_depths.size() ? st.subprog_depths[i] : 0);
        s += fmt::format("{:13}subprogs: {}\n", "", names);
      }
      if (!p.loaded) s += fmt::format("{:13}{}\n", "", p.error);
    }
  }
  if (r.attach_ran)
    s += fmt::format("\nAttach check (hello on sched_process_exec, /bin/true through the ring buffer): {}\n",
                     r.attach_error.empty() ? "ok" : r.attach_error);
  const int code = r.ExitCode();
  if (code == 0) s += "\nbpf selftest: ok\n";
  else s += fmt::format("\nbpf selftest: FAILED (exit {}): {}\n", code, r.Problem());
  return s;
}

namespace {

json::Json OrNull(const std::optional<uint64_t> &v) { return v ? json::Json(*v) : json::Json(nullptr); }

json::Json FeatureJson(const KernelFeature &f) {
  return {{"id", f.id},
          {"name", f.name},
          {"since", f.since},
          {"needed_for", f.cpu_hz_only ? "--cpu-hz" : "recording"},
          {"state", StateWord(f.state)},
          {"detail", f.detail},
          {"remedy", f.remedy}};
}

json::Json ProgramJson(const bpfcheck::ProgramCheck &p) {
  const auto &st = p.stats;
  return {{"object", p.object},
          {"name", p.name},
          {"section", p.section},
          {"uprobe", p.IsUprobe()},
          {"loaded", p.loaded},
          {"errno", p.err},
          {"error", p.error},
          {"processed_insns", OrNull(st.processed_insns)},
          {"insn_limit", st.insn_limit ? st.insn_limit : capture::kVerifierInsnLimit},
          {"percent_of_limit", json::Rounded(st.PercentOfLimit(), 2)},
          {"max_states_per_insn", st.max_states_per_insn},
          {"total_states", st.total_states},
          {"peak_states", st.peak_states},
          {"verification_usec", OrNull(st.verification_usec)},
          {"stack_depths", st.subprog_depths},
          {"max_subprog_stack", st.MaxSubprogDepth()},
          {"subprogs", p.subprog_names},
          {"combined_stack", p.combined_stack},
          {"combined_from_call_graph", p.combined_from_call_graph},
          {"deepest_chain", p.deepest_chain},
          {"log_tail", p.log_tail}};
}

}  // namespace

std::string FormatSelftestJson(const SelftestReport &r) {
  json::Json features = json::Json::array(), programs = json::Json::array();
  for (const KernelFeature &f : r.features) features.push_back(FeatureJson(f));
  for (const bpfcheck::ProgramCheck &p : r.programs) programs.push_back(ProgramJson(p));
  const json::Json j = {{"kernel", r.kernel},
                        {"versions", r.versions},
                        {"target", r.target},
                        {"target_error", r.target_error},
                        {"privileged", r.privileged},
                        {"features", std::move(features)},
                        {"programs", std::move(programs)},
                        {"attach", {{"ran", r.attach_ran}, {"error", r.attach_error}}},
                        {"exit", r.ExitCode()},
                        {"problem", r.Problem()}};
  return json::Text(j) + "\n";
}

}  // namespace gotraced
