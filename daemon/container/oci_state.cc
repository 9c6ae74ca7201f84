// Parsers of container runtimes' state files. See oci_state.h for the formats.
#include "daemon/container/oci_state.h"

#include <nlohmann/json.hpp>

namespace gotraced::container {
namespace {

using nlohmann::json;

// Parsed without exceptions: a malformed file is a "don't know", never an error.
json Parse(std::string_view text) { return json::parse(text.begin(), text.end(), nullptr, false); }

std::string StringAt(const json &obj, const char *key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string First(const Annotations &a, std::initializer_list<const char *> keys) {
  for (const char *k : keys)
    if (auto it = a.find(k); it != a.end() && !it->second.empty()) return it->second;
  return {};
}

}  // namespace

std::optional<Annotations> ParseOciConfigAnnotations(std::string_view text) {
  json j = Parse(text);
  if (!j.is_object()) return std::nullopt;
  Annotations out;
  auto it = j.find("annotations");
  if (it == j.end() || !it->is_object()) return out;
  for (auto &[k, v] : it->items())
    if (v.is_string()) out[k] = v.get<std::string>();
  return out;
}

std::optional<Annotations> ParseRuncStateLabels(std::string_view text, std::string *bundle) {
  json j = Parse(text);
  if (!j.is_object()) return std::nullopt;
  auto cfg = j.find("config");
  if (cfg == j.end() || !cfg->is_object()) return std::nullopt;
  Annotations out;
  auto labels = cfg->find("labels");
  if (labels == cfg->end() || !labels->is_array()) return out;
  for (const json &l : *labels) {
    if (!l.is_string()) continue;
    const std::string &s = l.get_ref<const std::string &>();
    std::size_t eq = s.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    std::string key = s.substr(0, eq);
    if (key == "bundle") {
      if (bundle) *bundle = s.substr(eq + 1);
      continue;
    }
    out[key] = s.substr(eq + 1);
  }
  return out;
}

KubernetesNames KubernetesFromAnnotations(const Annotations &a) {
  KubernetesNames k;
  k.pod_name = First(a, {"io.kubernetes.cri.sandbox-name", "io.kubernetes.pod.name"});
  k.pod_namespace = First(a, {"io.kubernetes.cri.sandbox-namespace", "io.kubernetes.pod.namespace"});
  k.pod_uid = First(a, {"io.kubernetes.cri.sandbox-uid", "io.kubernetes.pod.uid"});
  k.container_name = First(a, {"io.kubernetes.cri.container-name", "io.kubernetes.container.name"});
  return k;
}

std::string NameFromStorageContainers(std::string_view text, std::string_view id) {
  json j = Parse(text);
  if (!j.is_array()) return {};
  for (const json &c : j) {
    if (!c.is_object() || StringAt(c, "id") != id) continue;
    auto names = c.find("names");
    if (names == c.end() || !names->is_array()) return {};
    for (const json &n : *names)
      if (n.is_string() && !n.get_ref<const std::string &>().empty()) return n.get<std::string>();
    return {};
  }
  return {};
}

std::string NameFromDockerConfig(std::string_view text) {
  json j = Parse(text);
  if (!j.is_object()) return {};
  std::string name = StringAt(j, "Name");
  if (!name.empty() && name[0] == '/') name.erase(0, 1);
  return name;
}

}  // namespace gotraced::container
