#include "daemon/capture/host_hooks.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <mutex>

#include "daemon/capture/cpu_sampler.h"
#include "daemon/probes/attach.h"
#include "gt_host.skel.h"

namespace gotraced::capture {

namespace {

const char *HookName(std::uint32_t h) {
  switch (h) {
    case GT_HOOK_SYS_ENTER: return "raw_syscalls/sys_enter";
    case GT_HOOK_SYS_EXIT: return "raw_syscalls/sys_exit";
    case GT_HOOK_SCHED_PREV:
    case GT_HOOK_SCHED_NEXT: return "sched_switch (kernel view, level low's syscalls)";
    case GT_HOOK_WAKEUP: return "sched_wakeup (kernel view)";
    case GT_HOOK_TASK_EXIT: return "sched_process_exit";
    case GT_HOOK_EXEC: return "sched_process_exec";
    case GT_HOOK_TASK_NEW: return "task_newtask";
    case GT_HOOK_CPU: return "cpu samples";
    default: return "?";
  }
}

// The dispatcher program of a hook; both halves of sched_switch are one program.
bpf_program *HostProgram(gt_host *skel, std::uint32_t h) {
  switch (h) {
    case GT_HOOK_SYS_ENTER: return skel->progs.gt_host_sys_enter;
    case GT_HOOK_SYS_EXIT: return skel->progs.gt_host_sys_exit;
    case GT_HOOK_SCHED_PREV:
    case GT_HOOK_SCHED_NEXT: return skel->progs.gt_host_sched_switch;
    case GT_HOOK_WAKEUP: return skel->progs.gt_host_sched_wakeup;
    case GT_HOOK_TASK_EXIT: return skel->progs.gt_host_task_exit;
    case GT_HOOK_EXEC: return skel->progs.gt_host_exec;
    case GT_HOOK_TASK_NEW: return skel->progs.gt_host_task_new;
    case GT_HOOK_CPU: return skel->progs.gt_host_cpu_sample;
    default: return nullptr;
  }
}

bpf_map *ProgArray(gt_host *skel, std::uint32_t h) {
  switch (h) {
    case GT_HOOK_SYS_ENTER: return skel->maps.gt_hp_sys_enter;
    case GT_HOOK_SYS_EXIT: return skel->maps.gt_hp_sys_exit;
    case GT_HOOK_SCHED_PREV: return skel->maps.gt_hp_sched_prev;
    case GT_HOOK_SCHED_NEXT: return skel->maps.gt_hp_sched_next;
    case GT_HOOK_WAKEUP: return skel->maps.gt_hp_wakeup;
    case GT_HOOK_TASK_EXIT: return skel->maps.gt_hp_task_exit;
    case GT_HOOK_EXEC: return skel->maps.gt_hp_exec;
    case GT_HOOK_TASK_NEW: return skel->maps.gt_hp_task_new;
    case GT_HOOK_CPU: return skel->maps.gt_hp_cpu;
    default: return nullptr;
  }
}

}  // namespace

struct HostHooks::Impl {
  mutable std::mutex mu;
  gt_host *skel = nullptr;
  std::vector<bool> used = std::vector<bool>(GT_HOST_SLOTS, false);
  // Per slot: its process and the hooks it joined.
  struct Slot {
    pid_t tgid = 0;
    std::array<bool, GT_HOOKS> joined{};
  };
  std::map<std::uint32_t, Slot> slots;
  // Per process, per hook: its slots in dispatch order.
  std::map<pid_t, std::array<std::vector<std::uint32_t>, GT_HOOKS>> chains;
  // Per dispatcher program: its link while some slot uses it.
  std::map<bpf_program *, bpf_link *> links;
  std::unique_ptr<CpuSampler> cpu;
  std::uint32_t cpu_hz = 0;
  // The CPU-sample programs' per-CPU scratch (bpf/gt_cpu.bpf.h cpu_scratch), one for every
  // recording: ~5.9 KB per possible CPU, which each recording held a copy of (and a
  // standby, which never samples). A perf-event program does not nest on its CPU
  // (bpf_prog_active) and the recordings' programs run one after another in a tail-call
  // chain, so no two of them use it at once. Made by the first ShareMaps, as the
  // recording's object declares it (-1: not yet).
  int cpu_scratch_fd = -1;

  std::size_t Users(bpf_program *prog) const {
    std::size_t n = 0;
    for (const auto &[slot, s] : slots)
      for (std::uint32_t h = 0; h < GT_HOOKS; h++) n += s.joined[h] && HostProgram(skel, h) == prog;
    return n;
  }

  // Writes the process's chain on `hook` into the maps: next entries first, then the head,
  // so that a dispatcher running meanwhile never follows a slot that is not there yet.
  void WriteChain(pid_t tgid, std::uint32_t hook) {
    const auto &chain = chains[tgid][hook];
    const int next_fd = bpf_map__fd(skel->maps.gt_host_next);
    for (std::size_t i = 0; i < chain.size(); i++) {
      std::uint32_t k = hook * GT_HOST_SLOTS + chain[i];
      std::uint32_t v = i + 1 < chain.size() ? chain[i + 1] : GT_HOST_NONE;
      bpf_map_update_elem(next_fd, &k, &v, BPF_ANY);
    }
    WriteHeads(tgid);
  }

  void WriteHeads(pid_t tgid) {
    const int fd = bpf_map__fd(skel->maps.gt_host_tgids);
    std::uint32_t key = std::uint32_t(tgid);
    auto it = chains.find(tgid);
    gt_host_heads heads{};
    bool any = false;
    if (it != chains.end())
      for (std::uint32_t h = 0; h < GT_HOOKS; h++) {
        heads.head[h] = it->second[h].empty() ? GT_HOST_NONE : it->second[h].front();
        any = any || !it->second[h].empty();
      }
    if (any) {
      bpf_map_update_elem(fd, &key, &heads, BPF_ANY);
    } else {
      bpf_map_delete_elem(fd, &key);
      if (it != chains.end()) chains.erase(it);
    }
  }

  // Attaches the dispatcher program of `hook` if no one has it attached. "" or why not.
  std::string AttachHook(std::uint32_t hook, std::uint32_t hz, bool *cpu_own) {
    if (hook == GT_HOOK_CPU) {
      if (cpu) {
        if (hz != cpu_hz && cpu_own) *cpu_own = true;
        return "";
      }
      auto s = CpuSampler::Attach(skel->progs.gt_host_cpu_sample, hz);
      if (!s) return s.error();
      cpu = std::move(*s);
      cpu_hz = hz;
      return "";
    }
    bpf_program *prog = HostProgram(skel, hook);
    if (links.count(prog)) return "";
    bpf_link *l = bpf_program__attach(prog);
    if (!l) return fmt::format("attaching {} failed: {}", HookName(hook), probes::ExplainAttachErrno(errno));
    links[prog] = l;
    return "";
  }

  void DetachUnused() {
    for (auto it = links.begin(); it != links.end();) {
      if (Users(it->first) == 0) {
        bpf_link__destroy(it->second);
        it = links.erase(it);
      } else {
        ++it;
      }
    }
    if (cpu && Users(skel->progs.gt_host_cpu_sample) == 0) {
      cpu.reset();
      cpu_hz = 0;
    }
  }

  void Leave(std::uint32_t slot) {
    auto it = slots.find(slot);
    if (it == slots.end()) return;
    const pid_t tgid = it->second.tgid;
    for (std::uint32_t h = 0; h < GT_HOOKS; h++) {
      if (!it->second.joined[h]) continue;
      it->second.joined[h] = false;
      auto &chain = chains[tgid][h];
      chain.erase(std::remove(chain.begin(), chain.end(), slot), chain.end());
      WriteChain(tgid, h);
      std::uint32_t k = h * GT_HOST_SLOTS + slot, none = GT_HOST_NONE;
      bpf_map_update_elem(bpf_map__fd(skel->maps.gt_host_next), &k, &none, BPF_ANY);
      bpf_map_delete_elem(bpf_map__fd(ProgArray(skel, h)), &slot);
    }
    WriteHeads(tgid);
    DetachUnused();
  }
};

gobin::Result<HostHooks *> HostHooks::Get() {
  // Never destroyed: recordings may end during the process's exit, and the kernel drops
  // its links and maps with the process anyway.
  static std::mutex mu;
  static HostHooks *hooks = nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (hooks) return hooks;
  gt_host *skel = gt_host__open();
  if (!skel) return gobin::Error{fmt::format("opening the hook dispatcher: {}", std::strerror(errno))};
  if (int err = gt_host__load(skel); err != 0) {
    gt_host__destroy(skel);
    // EPERM/EACCES here is the first BPF load of the process: say what it lacks, as the
    // per-recording loads' refusal does (faults suite: another user without capabilities).
    const bool refused = err == -EPERM || err == -EACCES;
    return gobin::Error{fmt::format(
        "loading the hook dispatcher (bpf/gt_host.bpf.c): {}{}", std::strerror(-err),
        refused ? " (loading BPF programs needs root, or CAP_BPF and CAP_PERFMON; run it as root or give it "
                  "CAP_BPF, CAP_PERFMON and CAP_SYS_PTRACE)"
                : "")};
  }
  auto *h = new HostHooks();
  h->impl_ = new Impl();
  h->impl_->skel = skel;
  hooks = h;
  return hooks;
}

gobin::Result<std::uint32_t> HostHooks::Reserve() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  for (std::uint32_t s = 1; s < GT_HOST_SLOTS; s++) {
    if (impl_->used[s]) continue;
    impl_->used[s] = true;
    return s;
  }
  return gobin::Error{fmt::format("too many recordings loaded at once (the most is {})", GT_HOST_SLOTS - 1)};
}

std::string HostHooks::ShareMaps(bpf_object *obj) {
  gt_host *skel = impl_->skel;
  std::vector<bpf_map *> shared = {skel->maps.gt_host_tgids, skel->maps.gt_host_next, skel->maps.gt_host_oncpu};
  for (std::uint32_t h = 0; h < GT_HOOKS; h++) shared.push_back(ProgArray(skel, h));
  for (bpf_map *m : shared) {
    bpf_map *mine = bpf_object__find_map_by_name(obj, bpf_map__name(m));
    if (!mine) return fmt::format("the recording's object has no map {}", bpf_map__name(m));
    if (int err = bpf_map__reuse_fd(mine, bpf_map__fd(m)); err != 0)
      return fmt::format("sharing map {}: {}", bpf_map__name(m), std::strerror(-err));
  }
  bpf_map *scratch = bpf_object__find_map_by_name(obj, "cpu_scratch");
  if (!scratch) return "the recording's object has no map cpu_scratch";
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->cpu_scratch_fd < 0) {
    int fd = bpf_map_create(bpf_map__type(scratch), "cpu_scratch", bpf_map__key_size(scratch),
                            bpf_map__value_size(scratch), bpf_map__max_entries(scratch), nullptr);
    if (fd < 0) return fmt::format("creating the shared cpu_scratch map: {}", std::strerror(errno));
    impl_->cpu_scratch_fd = fd;
  }
  if (int err = bpf_map__reuse_fd(scratch, impl_->cpu_scratch_fd); err != 0)
    return fmt::format("sharing map cpu_scratch: {}", std::strerror(-err));
  return "";
}

std::string HostHooks::Join(std::uint32_t slot, pid_t tgid, const HookPrograms &p, std::vector<std::string> *warnings,
                            bool *cpu_own) {
  Impl &I = *impl_;
  std::lock_guard<std::mutex> lock(I.mu);
  Impl::Slot &s = I.slots[slot];
  s.tgid = tgid;
  for (std::uint32_t h = 0; h < GT_HOOKS; h++) {
    if (!p.prog[h] || s.joined[h]) continue;
    if (std::string err = I.AttachHook(h, p.cpu_hz, cpu_own); !err.empty()) {
      if (p.required[h]) return err;
      if (warnings) warnings->push_back(err);
      continue;
    }
    if (h == GT_HOOK_CPU && cpu_own && *cpu_own) continue;  // samples with events of its own
    const int fd = bpf_program__fd(p.prog[h]);
    if (bpf_map_update_elem(bpf_map__fd(ProgArray(I.skel, h)), &slot, &fd, BPF_ANY) != 0) {
      std::string err = fmt::format("{}: the recording's program joins no dispatch: {}", HookName(h),
                                    std::strerror(errno));
      if (p.required[h]) return err;
      if (warnings) warnings->push_back(err);
      continue;
    }
    s.joined[h] = true;
    I.chains[tgid][h].push_back(slot);
    I.WriteChain(tgid, h);
  }
  I.DetachUnused();  // a hook attached for a program that then failed to join
  return "";
}

void HostHooks::Leave(std::uint32_t slot) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->Leave(slot);
}

void HostHooks::Release(std::uint32_t slot) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->Leave(slot);
  impl_->slots.erase(slot);
  if (slot < GT_HOST_SLOTS) impl_->used[slot] = false;
}

HostHooksStats HostHooks::stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  HostHooksStats st;
  st.slots = std::size_t(std::count(impl_->used.begin(), impl_->used.end(), true));
  st.processes = impl_->chains.size();
  st.hooks_attached = impl_->links.size() + (impl_->cpu ? 1 : 0);
  st.cpu_hz = impl_->cpu_hz;
  return st;
}

}  // namespace gotraced::capture
