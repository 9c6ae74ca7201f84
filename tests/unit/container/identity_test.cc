// A whole identity read from a fake node: /proc texts plus the runtimes' state files
// laid out under a temporary root as each runtime lays them out.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "daemon/container/identity.h"
#include "tests/unit/common/test_dir.h"
#include "tests/unit/container/samples.h"

namespace gotraced::container {
namespace {

using testing::kId;
using testing::Sample;
namespace fs = std::filesystem;

class FakeNode : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path();  // the node's root: removed with the test's directory
    src_.root = root_;
  }
  void Put(const std::string &rel, const std::string &text) {
    fs::path p = root_ + rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  Identity Of(const char *cgroup_sample) {
    return IdentityFromProc(4284, Sample(cgroup_sample), Sample("status.txt"), "/app/svc", src_);
  }
  testutil::TestDir dir_;
  std::string root_;
  IdentitySources src_;
};

// The names an identity carries ("" where the node did not say).
struct Names {
  const char *runtime, *pod, *ns, *container, *qos;
};
void ExpectNames(const Identity &id, const Names &want) {
  EXPECT_EQ(id.runtime, want.runtime);
  EXPECT_EQ(id.pod_name, want.pod);
  EXPECT_EQ(id.pod_namespace, want.ns);
  EXPECT_EQ(id.container_name, want.container);
  EXPECT_EQ(id.qos, want.qos);
}

TEST_F(FakeNode, ContainerdPod) {
  Put(std::string("/run/containerd/io.containerd.runtime.v2.task/k8s.io/") + kId + "/config.json",
      Sample("containerd-config.json"));
  Identity id = Of("containerd-cgroupfs-v1.cgroup");
  EXPECT_EQ(id.host_pid, 4284);
  EXPECT_EQ(id.ns_pid, 1);
  EXPECT_EQ(id.exe, "/app/svc");
  // The runtime: the kubelet's cgroupfs path did not say; the state did.
  ExpectNames(id, {"containerd", "web-7d4b9c-xk2lp", "shop", "api", "BestEffort"});
  EXPECT_EQ(Describe(id), "pod shop/web-7d4b9c-xk2lp container api (containerd 3f2a1b4c5d6e)");
  EXPECT_EQ(FileStem(id), "shop_web-7d4b9c-xk2lp_api");
}

TEST_F(FakeNode, ContainerdFromRuncStateOnly) {
  Put(std::string("/run/containerd/runc/k8s.io/") + kId + "/state.json", Sample("runc-state.json"));
  ExpectNames(Of("containerd-systemd-v2.cgroup"), {"containerd", "web-7d4b9c-xk2lp", "shop", "api", "Burstable"});
}

TEST_F(FakeNode, CrioPod) {
  Put(std::string("/run/containers/storage/overlay-containers/") + kId + "/userdata/config.json",
      Sample("crio-config.json"));
  ExpectNames(Of("crio-systemd-guaranteed.cgroup"), {"cri-o", "batch-0", "jobs", "worker", "Guaranteed"});
}

TEST_F(FakeNode, PodmanWithAnnotationsAndWithout) {
  Put(std::string("/var/lib/containers/storage/overlay-containers/") + kId + "/userdata/config.json",
      Sample("podman-config.json"));
  Identity id = Of("podman-cgroupfs-hybrid.cgroup");
  ExpectNames(id, {"podman", "pingpong-0", "demo", "app", "Burstable"});
  EXPECT_EQ(id.pod_uid, "11111111-2222-4333-8444-555555555555");
  // Without Kubernetes annotations: the name podman gave it.
  Put(std::string("/var/lib/containers/storage/overlay-containers/") + kId + "/userdata/config.json", "{}");
  Put("/var/lib/containers/storage/overlay-containers/containers.json", Sample("podman-containers.json"));
  id = Of("podman-systemd-v2.cgroup");
  EXPECT_EQ(id.container_name, "pingpong-app");
  EXPECT_EQ(id.pod_name, "");
  EXPECT_EQ(FileStem(id), "pingpong-app");
  EXPECT_EQ(Describe(id), "container pingpong-app (podman 3f2a1b4c5d6e)");
}

TEST_F(FakeNode, DockerName) {
  Put(std::string("/var/lib/docker/containers/") + kId + "/config.v2.json", Sample("docker-config.v2.json"));
  Identity id = Of("docker-systemd-v2.cgroup");
  EXPECT_EQ(id.runtime, "docker");
  EXPECT_EQ(id.container_name, "web");
}

TEST_F(FakeNode, MissingStateLeavesNamesEmpty) {
  Identity id = Of("containerd-systemd-v2.cgroup");
  EXPECT_EQ(id.container_id, kId);
  EXPECT_EQ(id.pod_uid, "8d7c2b1a-4e5f-4a6b-9c8d-7e6f5a4b3c2d");
  EXPECT_EQ(id.pod_name, "");
  EXPECT_EQ(id.container_name, "");
  EXPECT_EQ(Describe(id), "pod uid 8d7c2b1a-4e5f-4a6b-9c8d-7e6f5a4b3c2d container 3f2a1b4c5d6e (containerd)");
  EXPECT_EQ(FileStem(id), "3f2a1b4c5d6e");
}

TEST_F(FakeNode, HostProcess) {
  Identity id = Of("host.cgroup");
  EXPECT_FALSE(id.in_container());
  EXPECT_EQ(Describe(id), "");
  EXPECT_EQ(FileStem(id), "");
  EXPECT_EQ(id.ns_pid, 1);
}

TEST_F(FakeNode, StemIsAFileName) {
  Identity id;
  id.container_id = kId;
  id.pod_name = "../x y";
  id.pod_namespace = "a/b";
  id.container_name = "c";
  EXPECT_EQ(FileStem(id), "a-b_-x-y_c");
}

TEST(Identity, NodeNameFromDownwardApi) {
  setenv("NODE_NAME", "worker-3", 1);
  EXPECT_EQ(NodeName(), "worker-3");
  unsetenv("NODE_NAME");
  EXPECT_FALSE(NodeName().empty());
}

TEST(Identity, ThisProcess) {
  Identity id = ReadIdentity(getpid());
  EXPECT_EQ(id.host_pid, getpid());
  EXPECT_FALSE(id.exe.empty());
  EXPECT_GT(id.ns_pid, 0);
}

}  // namespace
}  // namespace gotraced::container
