// What a container runtime's state on the node says about a container: its OCI
// annotations (where the CRI runtimes write the pod and container names) and the name it
// was given. Formats, each parsed from the file's text and nothing else:
//
//   bundle config.json      the OCI runtime spec (opencontainers/runtime-spec config.md,
//                           "annotations": {string: string}); containerd writes
//                           /run/containerd/io.containerd.runtime.v2.task/<ns>/<id>/config.json,
//                           CRI-O and podman .../overlay-containers/<id>/userdata/config.json
//   runc state.json         libcontainer's saved state; its "config"."labels" holds every
//                           annotation as "key=value" plus "bundle=<dir>"
//                           (runc libcontainer/specconv/spec_linux.go CreateLibcontainerConfig)
//   podman containers.json  containers/storage's list: [{"id":..., "names":[...]}]
//   docker config.v2.json   /var/lib/docker/containers/<id>/config.v2.json, "Name": "/web"
//
// Kubernetes names from annotations: containerd's CRI plugin writes
// io.kubernetes.cri.{sandbox-name,sandbox-namespace,sandbox-uid,container-name}
// (containerd pkg/cri/annotations), CRI-O io.kubernetes.pod.{name,namespace,uid} and
// io.kubernetes.container.name (CRI-O pkg/annotations, the kubelet's label keys).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace gotraced::container {

using Annotations = std::map<std::string, std::string>;

// "annotations" of an OCI config.json; nullopt if the text is not a JSON object.
std::optional<Annotations> ParseOciConfigAnnotations(std::string_view json);
// The annotations runc keeps in state.json's config.labels (and "bundle"); nullopt if not
// a runc state.
std::optional<Annotations> ParseRuncStateLabels(std::string_view json, std::string *bundle);

struct KubernetesNames {
  std::string pod_name, pod_namespace, pod_uid, container_name;
  bool empty() const { return pod_name.empty() && pod_namespace.empty() && container_name.empty() && pod_uid.empty(); }
};
// The pod and container names a CRI runtime left in the annotations (either runtime's keys).
KubernetesNames KubernetesFromAnnotations(const Annotations &a);

// The first name containers/storage's containers.json gives id; "" if none.
std::string NameFromStorageContainers(std::string_view json, std::string_view id);
// docker's config.v2.json "Name" without its leading '/'; "" if none.
std::string NameFromDockerConfig(std::string_view json);

}  // namespace gotraced::container
