// Identity: who a traced process is beyond its pid — the pid its own namespace gives it,
// its container and runtime, its Kubernetes pod and the node. Read from /proc (cgroup,
// status, exe) and, for the names, from the container runtimes' state on the node
// (oci_state.h); a source that is missing or unreadable leaves its fields empty.
//
// Nothing here talks to a runtime or the API server: a DaemonSet mounts the runtimes'
// state read-only (packaging/kubernetes) and the node name comes from the downward API
// ($NODE_NAME).
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>

namespace gotraced::container {

struct Identity {
  pid_t host_pid = 0;
  pid_t ns_pid = 0;        // in the process's own pid namespace (NSpid's last value); 0 if unknown
  std::string exe;         // the executable's path as the process sees it (/proc/PID/exe)
  std::string cgroup;      // the cgroup path the container was read from
  std::string runtime;     // docker, containerd, cri-o, podman, systemd-nspawn, cri
  std::string container_id;
  std::string container_name;  // Kubernetes container name, else the runtime's name for it
  std::string pod_name, pod_namespace, pod_uid, qos;
  std::string node;

  bool in_container() const { return !container_id.empty(); }
  std::string short_id() const { return container_id.substr(0, 12); }
};

// Where the node's files are: "" on the host; a test's or a container's view of the host
// root otherwise ("/host" when the host's / is mounted there).
struct IdentitySources {
  std::string root;      // prefix of the runtimes' state paths (/run/..., /var/lib/...)
  std::string proc = "/proc";
};

// Everything about pid that can be read; fields empty where a source is missing.
Identity ReadIdentity(pid_t pid, const IdentitySources &src = {});

// From texts already read (the pure part, unit-tested): /proc/PID/cgroup and
// /proc/PID/status; the runtimes' state is looked up under src.root.
Identity IdentityFromProc(pid_t pid, std::string_view cgroup_text, std::string_view status_text, std::string exe,
                          const IdentitySources &src);

// $NODE_NAME (the DaemonSet sets it from spec.nodeName), else the host name.
std::string NodeName();

// "pod default/web-7d4 container app (containerd 3f2a1b4c5d6e)", "container 3f2a1b4c5d6e
// (docker)", or "" for a process in no container.
std::string Describe(const Identity &id);
// Everything known, for the trace's "gotraced: target" log and the start-up log line:
// "pid 4284 (1 in its pid namespace) /app/svc; pod shop/web-7d4 uid 8d7c..., QoS Burstable;
// container api, containerd 3f2a...; node worker-3". Fields not known are left out.
std::string TargetLog(const Identity &id);
// A file-name stem: "<namespace>_<pod>_<container>" in a pod, "<container name or short
// id>" in a container, "" outside; only [A-Za-z0-9._-].
std::string FileStem(const Identity &id);

}  // namespace gotraced::container
