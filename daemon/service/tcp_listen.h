// A listening TCP socket for serve's metrics listener ([endpoint] metrics_address): the one
// part of the endpoint a Prometheus server or a kubelet readiness probe reaches over the
// network (GET /metrics, /ready; nothing else is served there).
#pragma once

#include <string>

namespace gotraced::service {

// "HOST:PORT" or "[V6]:PORT"; HOST may be empty (all addresses) or a numeric address.
// Port 0 picks a free one. Returns the fd (SOCK_CLOEXEC, listening) and sets *port, or -1
// with *error.
int ListenTcp(const std::string &address, int *port, std::string *error);

// Splits "HOST:PORT" / "[V6]:PORT"; false if malformed (port not 0..65535).
bool SplitHostPort(const std::string &address, std::string *host, int *port);

}  // namespace gotraced::service
