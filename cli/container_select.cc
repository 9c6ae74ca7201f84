// Selecting processes by container or pod. See container_select.h.
#include "cli/container_select.h"

#include <fnmatch.h>
#include <unistd.h>

#include <fmt/format.h>

#include "daemon/gobin/buildinfo.h"
#include "daemon/gobin/elf_file.h"

namespace gotraced::cli {
namespace {

bool Glob(const std::string &g, const std::string &s) { return !s.empty() && fnmatch(g.c_str(), s.c_str(), 0) == 0; }

// Go's own mark on a binary (.go.buildinfo, debug/buildinfo); "" if it is one.
std::string NotGoBecause(const service::ProcInfo &p) {
  auto elf = gobin::ElfFile::Open(p.binary);
  if (!elf) return elf.error();
  auto bi = gobin::ReadBuildInfo(**elf);
  if (!bi) return "not a Go program (" + bi.error() + ")";
  return {};
}

}  // namespace

std::string ContainerSelector::What() const {
  if (!pod.empty()) return "pod " + (pod_namespace.empty() ? "" : pod_namespace + "/") + pod;
  return "container " + container;
}

bool Selects(const ContainerSelector &sel, const container::Identity &id) {
  if (!id.in_container()) return false;
  if (!sel.container.empty() && !service::MatchesContainer(sel.container, id)) return false;
  if (!sel.pod.empty() && !Glob(sel.pod, id.pod_name) && !Glob(sel.pod, id.pod_uid)) return false;
  if (!sel.pod_namespace.empty() && !Glob(sel.pod_namespace, id.pod_namespace)) return false;
  return true;
}

Selection SelectProcesses(const ContainerSelector &sel) {
  Selection out;
  const pid_t self = getpid();
  for (pid_t pid : service::ListPids()) {
    if (pid == self) continue;
    std::optional<service::ProcInfo> p = service::ReadProcInfo(pid);
    if (!p || p->kernel_thread || !Selects(sel, p->identity)) continue;
    if (std::string why = NotGoBecause(*p); !why.empty()) {
      out.skipped.push_back(fmt::format("pid {} ({}) in {}: {}", pid, p->exe, container::Describe(p->identity), why));
      continue;
    }
    out.go.push_back(std::move(*p));
  }
  return out;
}

}  // namespace gotraced::cli
