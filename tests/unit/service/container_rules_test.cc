// Serve's container and pod side (issue 31): [[watch]]'s container, pod, namespace and
// container_name selectors, the metric labels that name a process by its pod, the
// identity in /processes, metrics_address, and the TCP metrics listener.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "daemon/service/client.h"
#include "daemon/service/config.h"
#include "daemon/service/discovery.h"
#include "daemon/service/endpoint.h"
#include "daemon/service/identity_output.h"
#include "daemon/service/tcp_listen.h"

namespace gotraced::service {
namespace {

constexpr const char *kId = "3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708";

ProcInfo InPod(pid_t pid, std::string pod, std::string ns, std::string container) {
  ProcInfo p;
  p.pid = pid;
  p.exe = "/app/svc";
  p.identity.container_id = kId;
  p.identity.runtime = "containerd";
  p.identity.pod_name = std::move(pod);
  p.identity.pod_namespace = std::move(ns);
  p.identity.pod_uid = "8d7c2b1a-4e5f-4a6b-9c8d-7e6f5a4b3c2d";
  p.identity.container_name = std::move(container);
  return p;
}

TEST(ContainerRules, ConfigKeys) {
  std::string err;
  auto c = ParseConfig(
      "[[watch]]\npod = \"web-*\"\nnamespace = [\"shop\", \"jobs\"]\ncontainer_name = \"api\"\ncontainer = \"3f2a\"\n",
      "t.toml", &err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->watch[0].pod, std::vector<std::string>{"web-*"});
  EXPECT_EQ(c->watch[0].pod_namespace, (std::vector<std::string>{"shop", "jobs"}));
  EXPECT_EQ(c->watch[0].container_name, std::vector<std::string>{"api"});
  EXPECT_EQ(c->watch[0].container, std::vector<std::string>{"3f2a"});
  EXPECT_FALSE(ParseConfig("[[watch]]\nwindow_seconds = 3\n", "t.toml", &err));
  EXPECT_NE(err.find("container, pod, namespace, container_name"), std::string::npos) << err;
}

TEST(ContainerRules, MetricsAddress) {
  std::string err;
  auto c = ParseConfig("[endpoint]\nmetrics_address = \"0.0.0.0:9464\"\n[[watch]]\npod = \"x\"\n", "t.toml", &err);
  ASSERT_TRUE(c) << err;
  EXPECT_EQ(c->metrics_address, "0.0.0.0:9464");
  EXPECT_FALSE(ParseConfig("[endpoint]\nmetrics_address = \"9464\"\n[[watch]]\npod = \"x\"\n", "t.toml", &err));
  EXPECT_NE(err.find("t.toml:2:"), std::string::npos) << err;
  std::string host;
  int port = 0;
  EXPECT_TRUE(SplitHostPort("[::1]:80", &host, &port));
  EXPECT_EQ(host, "::1");
  EXPECT_FALSE(SplitHostPort("::1:80", &host, &port));
  EXPECT_FALSE(SplitHostPort("h:70000", &host, &port));
}

TEST(ContainerRules, Selectors) {
  const ProcInfo p = InPod(7, "web-7d4", "shop", "api");
  WatchRule r;
  r.pod = {"web-*"};
  EXPECT_TRUE(MatchesRule(r, p));
  r.pod_namespace = {"jobs"};
  EXPECT_FALSE(MatchesRule(r, p));
  r.pod_namespace = {"shop"};
  r.container_name = {"api"};
  EXPECT_TRUE(MatchesRule(r, p));
  WatchRule by_uid;
  by_uid.pod = {"8d7c2b1a-*"};
  EXPECT_TRUE(MatchesRule(by_uid, p));
  WatchRule by_id;
  by_id.container = {"3f2a1b4c"};  // a prefix, as `crictl ps` prints it
  EXPECT_TRUE(MatchesRule(by_id, p));
  by_id.container = {"api"};  // or the name
  EXPECT_TRUE(MatchesRule(by_id, p));
  by_id.container = {"3f2"};  // too short to be a prefix, and no glob matches
  EXPECT_FALSE(MatchesRule(by_id, p));
  ProcInfo host;
  host.pid = 8;
  host.exe = "/usr/bin/web-server";
  EXPECT_FALSE(MatchesRule(r, host));
  EXPECT_FALSE(MatchesRule(by_uid, host));
}

TEST(ContainerRules, SeriesLabelsNamePodsWithoutPid) {
  const ProcInfo a = InPod(7, "web-7d4", "shop", "api");
  ProcInfo b = InPod(9, "web-7d4", "shop", "api");  // a second Go process of the same container
  const ProcInfo c = InPod(11, "batch-0", "jobs", "worker");
  ProcInfo host;
  host.pid = 12;
  host.exe = "/usr/bin/x\"y";
  ProcInfo plain;
  plain.pid = 13;
  plain.exe = "/app/svc";
  plain.identity.container_id = kId;
  plain.identity.runtime = "docker";
  auto l = SeriesLabels({&a, &b, &c, &host, &plain});
  EXPECT_EQ(l[0], "namespace=\"shop\",pod=\"web-7d4\",container=\"api\",pid=\"7\",exe=\"/app/svc\"");
  EXPECT_EQ(l[1], "namespace=\"shop\",pod=\"web-7d4\",container=\"api\",pid=\"9\",exe=\"/app/svc\"");
  EXPECT_EQ(l[2], "namespace=\"jobs\",pod=\"batch-0\",container=\"worker\"");
  EXPECT_EQ(l[3], "pid=\"12\",exe=\"/usr/bin/x\\\"y\"");
  EXPECT_EQ(l[4], "container=\"3f2a1b4c5d6e\"");
}

TEST(ContainerRules, IdentityJsonAndColumns) {
  ProcInfo p = InPod(7, "web-7d4", "shop", "api");
  p.identity.ns_pid = 1;
  auto j = nlohmann::json::parse(json::Text(IdentityJson(p.identity)));
  EXPECT_EQ(j["ns_pid"], 1);
  EXPECT_EQ(j["pod"], "web-7d4");
  EXPECT_EQ(j["namespace"], "shop");
  EXPECT_EQ(j["container"], "api");
  EXPECT_EQ(j["container_id"], kId);
  EXPECT_EQ(PodColumn(p.identity), "shop/web-7d4");
  EXPECT_EQ(ContainerColumn(p.identity), "api");
  EXPECT_EQ(PodColumn(container::Identity{}), "-");
  EXPECT_EQ(ContainerColumn(container::Identity{}), "-");
}

TEST(ContainerRules, TcpEndpointOnEphemeralPort) {
  Endpoint::Options o;
  o.tcp_address = "127.0.0.1:0";
  Endpoint ep(
      o,
      [](const http::Request &req, const Peer &peer, ResponseWriter &w) {
        w.Reply(200, "text/plain", req.path + (peer.uid == static_cast<uid_t>(-1) ? " uid -1" : " uid set"));
      },
      nullptr);
  std::string err;
  ASSERT_TRUE(ep.Start(&err)) << err;
  ASSERT_GT(ep.tcp_port(), 0);
  // A raw HTTP/1.0 GET over TCP: no credentials reach the handler (uid -1).
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<std::uint16_t>(ep.tcp_port()));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr *>(&a), sizeof a), 0);
  const std::string req = "GET /metrics HTTP/1.0\r\n\r\n";
  ASSERT_EQ(send(fd, req.data(), req.size(), 0), static_cast<ssize_t>(req.size()));
  std::string got;
  char buf[512];
  for (ssize_t n; (n = recv(fd, buf, sizeof buf, 0)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  close(fd);
  EXPECT_NE(got.find("200"), std::string::npos) << got;
  EXPECT_NE(got.find("/metrics uid -1"), std::string::npos) << got;
  ep.Stop();
}

}  // namespace
}  // namespace gotraced::service
