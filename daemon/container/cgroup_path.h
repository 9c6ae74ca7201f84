// What a cgroup path says about the container and pod a process runs in.
//
// The container runtimes and the kubelet name their cgroups after what they hold; the
// names are the only place a container id, a pod UID and a QoS class can be read for any
// process of the host without asking a runtime's API:
//
//   docker           /docker/<id>                       system.slice/docker-<id>.scope
//   containerd       /<namespace>/<id> (nerdctl)        .../cri-containerd-<id>.scope
//   CRI-O            .../crio-<id>                      .../crio-<id>.scope (crio-conmon-<id>: its monitor)
//   podman (libpod)  /libpod_parent/libpod-<id>         machine.slice/libpod-<id>.scope[/container]
//   systemd-nspawn                                      machine.slice/systemd-nspawn@<name>.service/payload,
//                                                       machine.slice/machine-<name>.scope
//   kubelet cgroupfs /kubepods[/burstable|/besteffort]/pod<uid>/<container id>
//   kubelet systemd  /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid_with_underscores>.slice/
//                    cri-containerd-<id>.scope (or crio-<id>.scope, docker-<id>.scope)
//
// Authorities: kubelet pkg/kubelet/cm/cgroup_manager_linux.go (ToSystemd/ConvertCgroupNameToSystemd:
// '-' in a pod UID becomes '_'), pkg/kubelet/cm/qos_container_manager_linux.go (Guaranteed pods
// sit directly under kubepods); containerd's CRI plugin and CRI-O's cgroup naming
// (internal/config/cgmgr: "crio-" / "crio-conmon-" prefixes); podman libpod/runtime_ctr.go
// ("libpod-" + id, "libpod-conmon-"); systemd-nspawn(1) (machine-<name>.scope, escaped as
// systemd-escape(1): '-' -> \x2d).
//
// /proc/PID/cgroup has one line per hierarchy, "ID:CONTROLLERS:PATH" (cgroups(7)); v2 is
// "0::PATH". Seen from another cgroup namespace a path starts with "/.." components.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gotraced::container {

struct CgroupLine {
  int hierarchy = 0;        // 0 for cgroup v2
  std::string controllers;  // "" for v2, "cpu,cpuacct", "name=systemd" ...
  std::string path;
};

// Every well-formed line of /proc/PID/cgroup; malformed lines are skipped.
std::vector<CgroupLine> ParseProcCgroup(std::string_view text);

struct CgroupIdentity {
  std::string runtime;       // docker, containerd, cri-o, podman, systemd-nspawn, cri (a kubelet path that does not say)
  std::string container_id;  // the runtime's id (64 hex for OCI runtimes), the machine name for nspawn
  std::string pod_uid;       // Kubernetes pod UID, with '-' (also from systemd's '_' form)
  std::string qos;           // Guaranteed, Burstable, BestEffort ("" outside kubepods)
  std::string path;          // the cgroup path the above was read from
  bool empty() const { return container_id.empty() && pod_uid.empty(); }
};

// What one cgroup path says (may be empty).
CgroupIdentity IdentityFromCgroupPath(std::string_view path);

// The best of all the lines: the v2 line when it names a container or pod, else the first
// v1 line that does (hybrid hosts put runtimes' cgroups in v1 only).
CgroupIdentity IdentityFromProcCgroup(std::string_view text);

}  // namespace gotraced::container
