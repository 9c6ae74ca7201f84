// Identity in serve's outputs. See identity_output.h.
#include "daemon/service/identity_output.h"

#include <map>

#include <fmt/format.h>

namespace gotraced::service {

json::Json IdentityJson(const container::Identity &id) {
  return {{"ns_pid", id.ns_pid},   {"runtime", id.runtime},     {"container_id", id.container_id},
          {"container", id.container_name}, {"pod", id.pod_name}, {"namespace", id.pod_namespace},
          {"pod_uid", id.pod_uid}, {"qos", id.qos},             {"node", id.node}};
}

std::string PodColumn(const container::Identity &id) {
  if (id.pod_name.empty()) return id.pod_uid.empty() ? "-" : id.pod_uid;
  return (id.pod_namespace.empty() ? "" : id.pod_namespace + "/") + id.pod_name;
}

std::string ContainerColumn(const container::Identity &id) {
  if (!id.container_name.empty()) return id.container_name;
  return id.in_container() ? id.short_id() : "-";
}

std::string LabelValue(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\\' || c == '"') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::vector<std::string> SeriesLabels(const std::vector<const ProcInfo *> &procs) {
  std::vector<std::string> out;
  for (const ProcInfo *p : procs) {
    const container::Identity &id = p->identity;
    std::string l;
    if (!id.pod_name.empty())
      l = fmt::format("namespace=\"{}\",pod=\"{}\",container=\"{}\"", LabelValue(id.pod_namespace), LabelValue(id.pod_name),
                      LabelValue(ContainerColumn(id)));
    else if (id.in_container())
      l = fmt::format("container=\"{}\"", LabelValue(ContainerColumn(id)));
    out.push_back(std::move(l));
  }
  // Names shared (two Go processes of one container, or a restarted container whose old
  // window is still held) or absent: the pid tells them apart.
  std::map<std::string, int> seen;
  for (const std::string &l : out) seen[l]++;
  for (std::size_t i = 0; i < out.size(); i++) {
    if (!out[i].empty() && seen[out[i]] == 1) continue;
    out[i] += fmt::format("{}pid=\"{}\",exe=\"{}\"", out[i].empty() ? "" : ",", procs[i]->pid, LabelValue(procs[i]->exe));
  }
  return out;
}

}  // namespace gotraced::service
