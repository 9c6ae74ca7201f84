// GET /processes's layout. See processes_json.h.
#include "daemon/service/processes_json.h"

namespace gotraced::service {

std::string ProcessesDocument(const std::vector<json::Json> &processes, const json::Json &daemon,
                              const json::Json &upload) {
  std::string out = "{\"processes\":[";
  for (std::size_t i = 0; i < processes.size(); ++i) out += (i ? ",\n" : "\n") + json::Text(processes[i]);
  out += "\n],\n\"daemon\":" + json::Text(daemon);
  if (!upload.is_null()) out += ",\n\"upload\":" + json::Text(upload);
  return out + "}\n";
}

}  // namespace gotraced::service
