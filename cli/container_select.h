// `gotraced --container ID|NAME` and `gotraced --pod NAME|UID [--namespace NS]`: the Go
// processes of a container or pod, found by their identity (daemon/container/identity.h).
// A process of it that is not a Go program (the pod's pause process, a shell) is named and
// skipped, not an error.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

#include "daemon/service/discovery.h"

namespace gotraced::cli {

struct ContainerSelector {
  std::string container;      // id, 4+ character id prefix, or name (glob)
  std::string pod;            // pod name or UID (glob)
  std::string pod_namespace;  // glob; with pod only
  bool empty() const { return container.empty() && pod.empty(); }
  // "pod shop/web", "container 3f2a1b4c": for messages.
  std::string What() const;
};

struct Selection {
  std::vector<service::ProcInfo> go;      // the Go processes, by pid
  std::vector<std::string> skipped;       // "pid 12 (/pause) in pod shop/web: not a Go program (...)"
};

bool Selects(const ContainerSelector &sel, const container::Identity &id);
Selection SelectProcesses(const ContainerSelector &sel);

}  // namespace gotraced::cli
