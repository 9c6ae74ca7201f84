// The endpoint's resources (HTTP GET on the Unix socket):
//
//   /processes            JSON: every target the caller may see (pid, exe, Go version,
//                         state, window held, events, lost records ...)
//   /flight?pid=N         the recent window of N as a trace file: the held generations at
//                         once, then the generation in progress when it ends (like
//                         runtime/trace FlightRecorder.WriteTo's forced advance), chunk by
//                         chunk; &wait=0 skips the wait
//   /trace?pid=N&seconds=S  the next S seconds of N as a trace, streamed generation by
//                         generation as they finish (like runtime.ReadTrace and
//                         net/http/pprof's /debug/pprof/trace); a Go process not watched
//                         is attached just for the request
//   /metrics              Prometheus text
//
// Access: per request, from the connection's SO_PEERCRED: root sees everything; any
// other uid only processes whose real or effective uid is its own (others: 403, logged).
#pragma once

#include <string>

#include "daemon/service/endpoint.h"
#include "daemon/service/http.h"

namespace gotraced::service {

class Service;

void HandleRequest(Service &svc, const http::Request &req, const Peer &peer, ResponseWriter &w);
// The TCP metrics listener ([endpoint] metrics_address): GET /metrics (every target's
// series: the listener is for the node's monitoring, as a kubelet's or node exporter's
// /metrics) and GET /ready (200 once serve runs: a readiness probe); nothing else.
void HandleNetworkRequest(Service &svc, const http::Request &req, ResponseWriter &w);
// /metrics body for a peer (per-target series only for targets the peer may see).
std::string MetricsText(const Service &svc, const Peer &peer);
// /processes body (JSON: processes_json.h), and ?format=text for `gotraced ps`.
std::string ProcessesJson(const Service &svc, const Peer &peer);
std::string ProcessesText(const Service &svc, const Peer &peer);

}  // namespace gotraced::service
