#include "daemon/capture/kernel_features.h"

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "daemon/probes/privileges.h"

namespace gotraced::capture {
namespace {

using State = KernelFeature::State;

constexpr const char *kNoPrivilege =
    "not probed: this process may not load BPF programs (run as root, or with CAP_BPF + CAP_PERFMON)";

std::string KernelRelease() {
  utsname u{};
  return uname(&u) == 0 ? u.release : "unknown";
}

std::string Upgrade(const char *since) {
  return fmt::format("upgrade to Linux {} or newer (it appeared in {}; this kernel is {})", kMinimumKernel, since,
                     KernelRelease());
}

// libbpf_probe_*: 1 supported, 0 not, < 0 the probe itself failed.
void FromLibbpf(KernelFeature &f, int rc, const std::string &how) {
  if (rc == 1) {
    f.state = State::kPresent;
    f.detail = how;
  } else if (rc == 0) {
    f.state = State::kMissing;
    f.detail = how + ": not supported";
  } else {
    f.state = State::kUnknown;
    f.detail = fmt::format("{}: the probe failed ({})", how, std::strerror(-rc));
  }
}

// tp_btf programs (BPF_PROG_TYPE_TRACING + BPF_TRACE_RAW_TP): libbpf's prog-type probe
// cannot load them (they need a tracepoint's BTF id), so load `r0 = 0; exit` against
// btf_trace_sched_switch, the way libbpf loads SEC("tp_btf/sched_switch").
void ProbeTpBtf(KernelFeature &f) {
  btf *vmlinux = btf__load_vmlinux_btf();
  if (!vmlinux) {
    f.state = State::kMissing;
    f.detail = "needs the kernel's BTF, which is missing";
    return;
  }
  const int id = btf__find_by_name_kind(vmlinux, "btf_trace_sched_switch", BTF_KIND_TYPEDEF);
  btf__free(vmlinux);
  if (id <= 0) {
    f.state = State::kMissing;
    f.detail = "the kernel's BTF has no btf_trace_sched_switch";
    return;
  }
  bpf_insn insns[2] = {};
  insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;  // r0 = 0
  insns[1].code = BPF_JMP | BPF_EXIT;
  char log[512] = "";
  LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = BPF_TRACE_RAW_TP, .attach_btf_id = uint32_t(id),
              .log_level = 1, .log_size = sizeof(log), .log_buf = log);
  const int fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "gt_probe_tpbtf", "GPL", insns, 2, &opts);
  const int err = errno;
  if (fd >= 0) {
    close(fd);
    f.state = State::kPresent;
    f.detail = "a tp_btf/sched_switch program loads";
    return;
  }
  // EINVAL: no such program type or attach type; E2BIG: attr fields this kernel does not
  // know (bpf_check_uarg_tail_zero); 524: the kernel's ENOTSUPP.
  f.state = err == EINVAL || err == E2BIG || err == EOPNOTSUPP || err == 524 ? State::kMissing : State::kUnknown;
  std::string why = log;
  while (!why.empty() && why.back() == '\n') why.pop_back();
  f.detail = fmt::format("a tp_btf/sched_switch program does not load: {}{}", std::strerror(err),
                         why.empty() ? "" : " (" + why + ")");
}

}  // namespace

std::vector<KernelFeature> ProbeKernelFeatures(const std::vector<std::string> &only) {
  const bool privileged = probes::CurrentPrivileges().can_load();
  auto wanted = [&](const std::string &id) {
    return only.empty() || std::find(only.begin(), only.end(), id) != only.end();
  };
  std::vector<KernelFeature> out;
  auto add = [&](std::string id, std::string name, std::string since, bool cpu_only, std::string remedy) -> KernelFeature & {
    KernelFeature f;
    f.id = std::move(id);
    f.name = std::move(name);
    f.since = std::move(since);
    f.cpu_hz_only = cpu_only;
    f.remedy = std::move(remedy);
    out.push_back(std::move(f));
    return out.back();
  };
  auto bpf_probe = [&](KernelFeature &f, auto probe) {
    if (!wanted(f.id)) return;  // dropped below
    if (!privileged) {
      f.state = State::kUnknown;
      f.detail = kNoPrivilege;
      return;
    }
    probe(f);
  };

  // Kernel BTF: vmlinux.h at build time, CO-RE, tp_btf, bpf_get_current_task_btf, task
  // storage (kernel/bpf/sysfs_btf.c; CONFIG_DEBUG_INFO_BTF).
  {
    auto &f = add("btf", "kernel BTF at /sys/kernel/btf/vmlinux (CONFIG_DEBUG_INFO_BTF=y)", "5.4", false,
                  "boot a kernel built with CONFIG_DEBUG_INFO_BTF=y (Debian's, Fedora's and Ubuntu's from 20.10 are)");
    const bool readable = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
    f.state = readable ? State::kPresent : State::kMissing;
    f.detail = readable ? "readable" : fmt::format("not readable: {}", std::strerror(errno));
  }
  // Every record goes through one ring buffer (gt_maps.bpf.h `events`).
  bpf_probe(add("ringbuf", "BPF ring buffer map (BPF_MAP_TYPE_RINGBUF)", "5.8", false, Upgrade("5.8")),
            [](KernelFeature &f) {
              FromLibbpf(f, libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, nullptr), "map create");
            });
  // Per-thread state: the M cache, the sweep bracket, the scratch space.
  bpf_probe(add("task_storage", "task storage map (BPF_MAP_TYPE_TASK_STORAGE)", "5.11", false, Upgrade("5.11")),
            [](KernelFeature &f) {
              FromLibbpf(f, libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, nullptr), "map create");
            });
  // The helpers, probed in a uprobe (kprobe-type) program as gotraced calls them.
  struct Helper {
    const char *id, *name, *since;
    bpf_func_id func;
    bpf_prog_type type;
    bool cpu_only;
  };
  for (const Helper &h : {
           Helper{"bpf_loop", "bpf_loop helper (stack walks)", "5.17", BPF_FUNC_loop, BPF_PROG_TYPE_KPROBE, false},
           Helper{"attach_cookie", "bpf_get_attach_cookie helper (which probe site fired)", "5.15",
                  BPF_FUNC_get_attach_cookie, BPF_PROG_TYPE_KPROBE, false},
           Helper{"current_task_btf", "bpf_get_current_task_btf helper", "5.11", BPF_FUNC_get_current_task_btf,
                  BPF_PROG_TYPE_KPROBE, false},
           // Level low's syscalls from sched_switch need it too, and fall back to the
           // syscall tracepoints without it (SysSwitchMissing): not a refusal there.
           Helper{"task_pt_regs", "bpf_task_pt_regs helper (CPU samples in kernel mode)", "5.15",
                  BPF_FUNC_task_pt_regs, BPF_PROG_TYPE_PERF_EVENT, true},
       }) {
    std::string remedy = Upgrade(h.since);
    if (h.cpu_only) remedy = "record without --cpu-hz, or " + remedy;
    bpf_probe(add(h.id, h.name, h.since, h.cpu_only, remedy), [&](KernelFeature &f) {
      FromLibbpf(f, libbpf_probe_bpf_helper(h.type, h.func, nullptr),
                 h.type == BPF_PROG_TYPE_KPROBE ? "helper in a kprobe/uprobe program" : "helper in a perf_event program");
    });
  }
  // Scheduler, syscall and process tracepoints (gt_kernel.bpf.h: SEC("tp_btf/...")).
  bpf_probe(add("tp_btf", "BTF tracepoint programs (tp_btf, BPF_TRACE_RAW_TP)", "5.5", false,
                "needs kernel BTF and Linux 5.5 or newer: " + Upgrade("5.5")),
            ProbeTpBtf);
  // libbpf creates uprobes through the uprobe PMU (perf_event_open with its type); the
  // PMU is there whenever the kernel has uprobe events at all (4.17+).
  {
    auto &f = add("uprobe_pmu", "uprobe PMU (/sys/bus/event_source/devices/uprobe, CONFIG_UPROBE_EVENTS=y)", "4.17",
                  false, "boot a kernel built with CONFIG_UPROBE_EVENTS=y (every major distribution's is)");
    const bool ok = access("/sys/bus/event_source/devices/uprobe/type", R_OK) == 0;
    f.state = ok ? State::kPresent : State::kMissing;
    f.detail = ok ? "registered" : fmt::format("not registered: {}", std::strerror(errno));
  }
  // --cpu-hz: a perf_event program on a cpu-clock event per thread (cpu_sampler.h).
  bpf_probe(add("perf_event_prog", "perf_event programs (BPF_PROG_TYPE_PERF_EVENT, for --cpu-hz)", "4.9", true,
                "record without --cpu-hz, or boot a kernel built with CONFIG_PERF_EVENTS=y"),
            [](KernelFeature &f) {
              FromLibbpf(f, libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_PERF_EVENT, nullptr), "program load");
            });
  std::erase_if(out, [&](const KernelFeature &f) { return !wanted(f.id); });
  return out;
}

std::string DescribeMissing(const KernelFeature &f) {
  return fmt::format("{} (Linux {}+){} is missing: {}", f.name, f.since, f.cpu_hz_only ? ", needed for --cpu-hz," : "",
                     f.remedy);
}

std::string SysSwitchMissing(const std::vector<KernelFeature> &features) {
  std::string out;
  for (const auto &f : features)
    if (f.state == State::kMissing && f.id == "task_pt_regs")
      out += fmt::format("{}{} (Linux {}+) is missing", out.empty() ? "" : "; ", f.name, f.since);
  return out;
}

const std::string &SysSwitchMissingHere() {
  static const std::string missing = SysSwitchMissing(ProbeKernelFeatures({"task_pt_regs"}));
  return missing;
}

std::vector<std::string> MissingFeatures(const std::vector<KernelFeature> &features) {
  std::vector<std::string> out;
  for (int pass = 0; pass < 2; pass++)
    for (const auto &f : features)
      if (f.state == State::kMissing && f.cpu_hz_only == (pass == 1)) out.push_back(DescribeMissing(f));
  return out;
}

}  // namespace gotraced::capture
