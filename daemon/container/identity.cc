// Identity of a process: /proc first, then the runtimes' state for names. See identity.h.
#include "daemon/container/identity.h"

#include <glob.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "daemon/container/cgroup_path.h"
#include "daemon/container/oci_state.h"
#include "daemon/container/proc_status.h"

namespace gotraced::container {
namespace {

// State files are small (config.json: a few KiB); a larger one is not what we look for.
constexpr std::size_t kMaxStateFile = 4 << 20;

std::string ReadSmallFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::string out(kMaxStateFile, '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<std::size_t>(in.gcount()));
  return out;
}

std::vector<std::string> Glob(const std::string &pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (glob(pattern.c_str(), GLOB_NOSORT, nullptr, &g) == 0)
    for (std::size_t i = 0; i < g.gl_pathc; i++) out.emplace_back(g.gl_pathv[i]);
  globfree(&g);
  return out;
}

// Where each runtime keeps a container's OCI bundle config.json, and which runtime that
// place tells (the kubelet's cgroupfs paths do not say). <id> is the container id.
struct BundlePlace {
  const char *pattern;
  const char *runtime;
};
constexpr BundlePlace kBundles[] = {
    {"/run/containerd/io.containerd.runtime.v2.task/*/<id>/config.json", "containerd"},
    {"/run/containers/storage/overlay-containers/<id>/userdata/config.json", "cri-o"},
    {"/var/lib/containers/storage/overlay-containers/<id>/userdata/config.json", ""},  // podman or CRI-O
};
// runc's state.json under each runtime's runc root (runc --root).
constexpr const char *kRuncStates[] = {
    "/run/runc/<id>/state.json",
    "/run/containerd/runc/*/<id>/state.json",
    "/run/docker/runtime-runc/*/<id>/state.json",
};

std::string Expand(const std::string &root, std::string_view pattern, const std::string &id) {
  std::string p(pattern);
  p.replace(p.find("<id>"), 4, id);
  return root + p;
}

// The annotations of the container, from its bundle or else runc's state.
Annotations FindAnnotations(const IdentitySources &src, Identity &id) {
  for (const BundlePlace &b : kBundles)
    for (const std::string &path : Glob(Expand(src.root, b.pattern, id.container_id)))
      if (auto a = ParseOciConfigAnnotations(ReadSmallFile(path))) {
        if (id.runtime == "cri" && *b.runtime) id.runtime = b.runtime;
        return *a;
      }
  for (const char *pattern : kRuncStates)
    for (const std::string &path : Glob(Expand(src.root, pattern, id.container_id)))
      if (auto a = ParseRuncStateLabels(ReadSmallFile(path), nullptr)) return *a;
  return {};
}

// The name the runtime gave a container outside Kubernetes (podman run --name, docker run --name).
std::string RuntimeName(const IdentitySources &src, const Identity &id) {
  if (id.runtime == "podman") {
    for (const char *dir : {"/var/lib/containers/storage", "/run/containers/storage"})
      if (std::string n = NameFromStorageContainers(
              ReadSmallFile(src.root + dir + "/overlay-containers/containers.json"), id.container_id);
          !n.empty())
        return n;
  }
  if (id.runtime == "docker")
    return NameFromDockerConfig(ReadSmallFile(src.root + "/var/lib/docker/containers/" + id.container_id + "/config.v2.json"));
  if (id.runtime == "systemd-nspawn") return id.container_id;
  return {};
}

bool FileNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
}

std::string Sanitize(std::string_view s) {
  std::string out;
  for (char c : s) out += FileNameChar(c) ? c : '-';
  while (!out.empty() && out[0] == '.') out.erase(0, 1);  // no hidden or ".." names
  return out.substr(0, 80);
}

}  // namespace

Identity IdentityFromProc(pid_t pid, std::string_view cgroup_text, std::string_view status_text, std::string exe,
                          const IdentitySources &src) {
  Identity id;
  id.host_pid = pid;
  id.exe = std::move(exe);
  std::vector<pid_t> ns = ParseNsPid(status_text);
  if (!ns.empty()) id.ns_pid = ns.back();
  CgroupIdentity cg = IdentityFromProcCgroup(cgroup_text);
  id.cgroup = cg.path;
  id.runtime = cg.runtime;
  id.container_id = cg.container_id;
  id.pod_uid = cg.pod_uid;
  id.qos = cg.qos;
  id.node = NodeName();
  if (!id.in_container()) return id;
  KubernetesNames k = KubernetesFromAnnotations(FindAnnotations(src, id));
  id.pod_name = k.pod_name;
  id.pod_namespace = k.pod_namespace;
  if (id.pod_uid.empty()) id.pod_uid = k.pod_uid;
  id.container_name = !k.container_name.empty() ? k.container_name : RuntimeName(src, id);
  return id;
}

Identity ReadIdentity(pid_t pid, const IdentitySources &src) {
  const std::string dir = src.proc + "/" + std::to_string(pid);
  char buf[4096];
  ssize_t n = readlink((dir + "/exe").c_str(), buf, sizeof buf - 1);
  std::string exe = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
  return IdentityFromProc(pid, ReadSmallFile(dir + "/cgroup"), ReadSmallFile(dir + "/status"), std::move(exe), src);
}

std::string NodeName() {
  if (const char *e = std::getenv("NODE_NAME"); e && *e) return e;
  utsname u{};
  return uname(&u) == 0 ? std::string(u.nodename) : std::string();
}

std::string Describe(const Identity &id) {
  if (!id.in_container()) return {};
  std::string out;
  if (!id.pod_name.empty())
    out = "pod " + (id.pod_namespace.empty() ? "" : id.pod_namespace + "/") + id.pod_name + " ";
  else if (!id.pod_uid.empty())
    out = "pod uid " + id.pod_uid + " ";
  if (!id.container_name.empty()) out += "container " + id.container_name + " (" + id.runtime + " " + id.short_id() + ")";
  else out += "container " + id.short_id() + " (" + id.runtime + ")";
  return out;
}

std::string TargetLog(const Identity &id) {
  std::string out = "pid " + std::to_string(id.host_pid);
  if (id.ns_pid && id.ns_pid != id.host_pid) out += " (" + std::to_string(id.ns_pid) + " in its pid namespace)";
  if (!id.exe.empty()) out += " " + id.exe;
  if (!id.pod_name.empty() || !id.pod_uid.empty()) {
    out += "; pod ";
    if (!id.pod_name.empty()) out += (id.pod_namespace.empty() ? "" : id.pod_namespace + "/") + id.pod_name + " ";
    if (!id.pod_uid.empty()) out += "uid " + id.pod_uid;
    if (!id.qos.empty()) out += ", QoS " + id.qos;
  }
  if (id.in_container())
    out += "; container " + (id.container_name.empty() ? std::string() : id.container_name + ", ") + id.runtime + " " +
           id.container_id;
  if (!id.node.empty()) out += "; node " + id.node;
  return out;
}

std::string FileStem(const Identity &id) {
  if (!id.in_container()) return {};
  const std::string c = Sanitize(!id.container_name.empty() ? id.container_name : id.short_id());
  if (id.pod_name.empty()) return c;
  return Sanitize(id.pod_namespace.empty() ? "default" : id.pod_namespace) + "_" + Sanitize(id.pod_name) + "_" + c;
}

}  // namespace gotraced::container
