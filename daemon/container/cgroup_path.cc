// Container and pod identity from cgroup paths. See cgroup_path.h for the naming schemes
// and their authorities.
#include "daemon/container/cgroup_path.h"

#include <cctype>
#include <charconv>

namespace gotraced::container {
namespace {

bool StartsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool EndsWith(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }

std::string_view StripSuffix(std::string_view s, std::string_view suffix) {
  return EndsWith(s, suffix) ? s.substr(0, s.size() - suffix.size()) : s;
}

// An OCI runtime's container id: lower-case hex, 64 characters (docker, containerd,
// CRI-O and podman all use 32 random bytes); 12 or more accepted for shortened ids.
bool IsContainerId(std::string_view s) {
  if (s.size() < 12 || s.size() > 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

// A pod UID (RFC 4122 text, as the API server writes it): hex digits and dashes.
bool IsPodUid(std::string_view s) {
  if (s.size() < 8 || s.size() > 64) return false;
  for (char c : s)
    if (!(std::isxdigit(static_cast<unsigned char>(c)) || c == '-')) return false;
  return true;
}

// systemd-escape(1): "\xHH" stands for one byte.
std::string SystemdUnescape(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); i++) {
    unsigned v = 0;
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x' &&
        std::from_chars(s.data() + i + 2, s.data() + i + 4, v, 16).ptr == s.data() + i + 4) {
      out += static_cast<char>(v);
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

// "<prefix><id>[.scope]" -> id, when it is one.
bool PrefixedId(std::string_view comp, std::string_view prefix, std::string *id) {
  if (!StartsWith(comp, prefix)) return false;
  std::string_view rest = StripSuffix(comp.substr(prefix.size()), ".scope");
  if (!IsContainerId(rest)) return false;
  *id = std::string(rest);
  return true;
}

// The kubelet's QoS and pod components (cgroupfs and systemd forms).
void KubeComponent(std::string_view c, CgroupIdentity &id) {
  if (c == "burstable" || c == "kubepods-burstable.slice") id.qos = "Burstable";
  else if (c == "besteffort" || c == "kubepods-besteffort.slice") id.qos = "BestEffort";
  std::string_view pod;
  if (StartsWith(c, "pod")) pod = c.substr(3);
  else if (StartsWith(c, "kubepods-") && EndsWith(c, ".slice") && c.find("-pod") != std::string_view::npos)
    pod = StripSuffix(c.substr(c.find("-pod") + 4), ".slice");
  if (!IsPodUid(pod)) {
    // systemd's form has '_' for '-' (ConvertCgroupNameToSystemd).
    std::string fixed(pod);
    for (char &ch : fixed)
      if (ch == '_') ch = '-';
    if (pod.empty() || !IsPodUid(fixed)) return;
    id.pod_uid = fixed;
    return;
  }
  id.pod_uid = std::string(pod);
}

// One component that names a container; false if it does not.
bool ContainerComponent(std::string_view c, std::string_view parent, bool in_kube, CgroupIdentity &id) {
  std::string cid;
  std::string runtime;
  if (StartsWith(c, "crio-conmon-") || StartsWith(c, "libpod-conmon-")) return false;  // monitors, not containers
  if (PrefixedId(c, "docker-", &cid)) runtime = "docker";
  else if (PrefixedId(c, "cri-containerd-", &cid)) runtime = "containerd";
  else if (PrefixedId(c, "nerdctl-", &cid)) runtime = "containerd";
  else if (PrefixedId(c, "crio-", &cid)) runtime = "cri-o";
  else if (PrefixedId(c, "libpod-", &cid)) runtime = "podman";
  else if (StartsWith(c, "systemd-nspawn@") && EndsWith(c, ".service")) {
    runtime = "systemd-nspawn";
    cid = SystemdUnescape(StripSuffix(c.substr(15), ".service"));
  } else if (parent == "machine.slice" && StartsWith(c, "machine-") && EndsWith(c, ".scope")) {
    runtime = "systemd-nspawn";
    cid = SystemdUnescape(StripSuffix(c.substr(8), ".scope"));
  } else if (IsContainerId(c) && c.size() == 64) {
    cid = std::string(c);
    // The kubelet's cgroupfs driver names the container by its bare id, whatever the
    // runtime; outside Kubernetes, docker's cgroupfs driver uses /docker/<id> and
    // containerd /<namespace>/<id>.
    runtime = in_kube ? "cri" : parent == "docker" ? "docker" : "containerd";
  } else {
    return false;
  }
  if (cid.empty()) return false;
  id.runtime = runtime;
  id.container_id = cid;
  return true;
}

}  // namespace

std::vector<CgroupLine> ParseProcCgroup(std::string_view text) {
  std::vector<CgroupLine> out;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view{} : text.substr(nl + 1);
    std::size_t c1 = line.find(':');
    if (c1 == std::string_view::npos) continue;
    std::size_t c2 = line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    CgroupLine l;
    std::string_view num = line.substr(0, c1);
    if (num.empty() || std::from_chars(num.data(), num.data() + num.size(), l.hierarchy).ptr != num.data() + num.size())
      continue;
    l.controllers = std::string(line.substr(c1 + 1, c2 - c1 - 1));
    l.path = std::string(line.substr(c2 + 1));  // a path may itself contain ':'
    if (l.path.empty() || l.path[0] != '/') continue;
    out.push_back(std::move(l));
  }
  return out;
}

CgroupIdentity IdentityFromCgroupPath(std::string_view path) {
  CgroupIdentity id;
  bool in_kube = false;
  std::string_view parent;
  while (!path.empty()) {
    std::size_t slash = path.find('/');
    std::string_view c = path.substr(0, slash);
    path = slash == std::string_view::npos ? std::string_view{} : path.substr(slash + 1);
    if (c.empty() || c == "." || c == "..") continue;
    if (c == "kubepods" || c == "kubepods.slice") {
      in_kube = true;
      id.qos = "Guaranteed";  // pods of the other classes sit one level lower
    } else if (in_kube && id.container_id.empty()) {
      KubeComponent(c, id);
    }
    ContainerComponent(c, parent, in_kube && !id.pod_uid.empty(), id);  // the innermost container wins
    parent = c;
  }
  if (!in_kube) id.qos.clear();
  if (id.pod_uid.empty() && id.container_id.empty()) id.qos.clear();
  return id;
}

CgroupIdentity IdentityFromProcCgroup(std::string_view text) {
  std::vector<CgroupLine> lines = ParseProcCgroup(text);
  auto pick = [&](bool v2) -> CgroupIdentity {
    for (const CgroupLine &l : lines) {
      if ((l.hierarchy == 0 && l.controllers.empty()) != v2) continue;
      CgroupIdentity id = IdentityFromCgroupPath(l.path);
      if (!id.empty()) {
        id.path = l.path;
        return id;
      }
    }
    return {};
  };
  CgroupIdentity id = pick(true);
  return id.empty() ? pick(false) : id;
}

}  // namespace gotraced::container
