// How a target's identity (daemon/container/identity.h) appears in what serve writes:
// /processes' "identity" object, `gotraced ps` columns and the labels of the per-process
// metric series.
//
// Metric labels follow Prometheus' conventions for a fleet: a process in a pod is named by
// namespace, pod and container (the labels cAdvisor and kube-state-metrics use), one in a
// container by its container name or short id, so its series keep their identity when the
// process restarts with a new pid; pid and exe name only a process that nothing else names,
// or two processes the other labels cannot tell apart.
#pragma once

#include <string>
#include <vector>

#include "daemon/container/identity.h"
#include "daemon/json/json_text.h"
#include "daemon/service/discovery.h"

namespace gotraced::service {

// {"ns_pid":1,"runtime":"containerd","container_id":"...","container":"api","pod":"web",
//  "namespace":"shop","pod_uid":"...","qos":"Burstable","node":"worker-3"}
json::Json IdentityJson(const container::Identity &id);

// `gotraced ps` columns: "shop/web" (or "-") and "api" (or the short id, or "-").
std::string PodColumn(const container::Identity &id);
std::string ContainerColumn(const container::Identity &id);

// The label set (without braces) of each process's series, in the order given; values
// escaped as the text format requires.
std::vector<std::string> SeriesLabels(const std::vector<const ProcInfo *> &procs);

// A Prometheus label value: backslash, double quote and newline escaped.
std::string LabelValue(std::string_view s);

}  // namespace gotraced::service
