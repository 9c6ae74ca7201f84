// Client side of the endpoint, for `gotraced dump` and `gotraced ps`: one GET over the
// Unix socket, the body delivered piece by piece as it arrives (a /trace response takes
// as long as the recording).
#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace gotraced::service {

struct ClientResult {
  bool ok = false;      // a complete response was received (any status)
  int status = 0;
  std::string error;    // transport problem when !ok
  std::string body;     // non-200 bodies (the server's reason), and 200 bodies if no sink
};

// GET `target` (e.g. "/flight?pid=12") on the server at `socket_path`. A 200 body goes to
// `on_body` when given, else into result.body; `timeout_ms` bounds the wait for each read.
ClientResult UnixGet(const std::string &socket_path, const std::string &target,
                     const std::function<bool(std::string_view)> &on_body = {}, int timeout_ms = 60000);

}  // namespace gotraced::service
