// The foreign formats of daemon/container/, one runtime's sample at a time.
#include <gtest/gtest.h>

#include "daemon/container/cgroup_path.h"
#include "daemon/container/oci_state.h"
#include "daemon/container/proc_status.h"
#include "tests/unit/container/samples.h"

namespace gotraced::container {
namespace {

using testing::kId;
using testing::Sample;

struct CgroupCase {
  const char *file, *runtime, *id, *pod_uid, *qos;
};

class CgroupSample : public ::testing::TestWithParam<CgroupCase> {};

TEST_P(CgroupSample, Identifies) {
  const CgroupCase &c = GetParam();
  std::string text = Sample(c.file);
  ASSERT_FALSE(text.empty()) << c.file;
  CgroupIdentity id = IdentityFromProcCgroup(text);
  EXPECT_EQ(id.runtime, c.runtime);
  EXPECT_EQ(id.container_id, c.id);
  EXPECT_EQ(id.pod_uid, c.pod_uid);
  EXPECT_EQ(id.qos, c.qos);
  if (std::string(c.id).size() == 64) {  // (an nspawn name is escaped in the path)
    EXPECT_NE(id.path.find(c.id), std::string::npos) << id.path;
  }
}

constexpr const char *kPodA = "8d7c2b1a-4e5f-4a6b-9c8d-7e6f5a4b3c2d";
constexpr const char *kPodB = "0a1b2c3d-0000-4111-8222-333344445555";

INSTANTIATE_TEST_SUITE_P(
    Runtimes, CgroupSample,
    ::testing::Values(CgroupCase{"containerd-systemd-v2.cgroup", "containerd", kId, kPodA, "Burstable"},
                      CgroupCase{"containerd-cgroupfs-v1.cgroup", "cri", kId, kPodA, "BestEffort"},
                      CgroupCase{"crio-systemd-guaranteed.cgroup", "cri-o", kId, kPodB, "Guaranteed"},
                      CgroupCase{"crio-conmon.cgroup", "", "", kPodB, "Guaranteed"},
                      CgroupCase{"docker-cgroupfs-v1.cgroup", "docker", kId, "", ""},
                      CgroupCase{"docker-systemd-v2.cgroup", "docker", kId, "", ""},
                      CgroupCase{"podman-systemd-v2.cgroup", "podman", kId, "", ""},
                      CgroupCase{"podman-cgroupfs-hybrid.cgroup", "podman", kId, "11111111-2222-4333-8444-555555555555",
                                 "Burstable"},
                      CgroupCase{"nspawn.cgroup", "systemd-nspawn", "build-box", "", ""},
                      CgroupCase{"host.cgroup", "", "", "", ""},
                      CgroupCase{"containerd-namespace.cgroup", "containerd", kId, "", ""},
                      CgroupCase{"foreign-ns.cgroup", "cri", kId, kPodA, "Burstable"}),
    [](const auto &info) {
      std::string n = info.param.file;
      for (char &c : n)
        if (!isalnum(static_cast<unsigned char>(c))) c = '_';
      return n;
    });

TEST(CgroupPath, MachineScopeIsNspawn) {
  CgroupIdentity id = IdentityFromCgroupPath("/machine.slice/machine-db\\x2d1.scope/payload");
  EXPECT_EQ(id.runtime, "systemd-nspawn");
  EXPECT_EQ(id.container_id, "db-1");
}

TEST(CgroupPath, ProcCgroupSkipsMalformedLines) {
  auto lines = ParseProcCgroup("garbage\n3:cpu\nx:cpu:/a\n4:memory:/a:b\n0::/c\n");
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].path, "/a:b");
  EXPECT_EQ(lines[1].hierarchy, 0);
  EXPECT_EQ(lines[1].path, "/c");
}

TEST(CgroupPath, NotAContainerId) {
  EXPECT_TRUE(IdentityFromCgroupPath("/system.slice/docker-NOTHEX.scope").empty());
  EXPECT_TRUE(IdentityFromCgroupPath("/kubepods/burstable/podnot_a_uid!").empty());
  EXPECT_TRUE(IdentityFromCgroupPath("/").empty());
}

struct BundleCase {
  const char *file, *pod, *ns, *container, *uid;
};

class OciBundle : public ::testing::TestWithParam<BundleCase> {};

TEST_P(OciBundle, KubernetesNamesFromAnnotations) {
  const BundleCase &c = GetParam();
  auto a = ParseOciConfigAnnotations(Sample(c.file));
  ASSERT_TRUE(a);
  KubernetesNames k = KubernetesFromAnnotations(*a);
  EXPECT_EQ(k.pod_name, c.pod);
  EXPECT_EQ(k.pod_namespace, c.ns);
  EXPECT_EQ(k.container_name, c.container);
  EXPECT_EQ(k.pod_uid, c.uid);
}

// containerd's CRI annotations (io.kubernetes.cri.*) and CRI-O's (io.kubernetes.pod.*).
INSTANTIATE_TEST_SUITE_P(Runtimes, OciBundle,
                         ::testing::Values(BundleCase{"containerd-config.json", "web-7d4b9c-xk2lp", "shop", "api", kPodA},
                                           BundleCase{"crio-config.json", "batch-0", "jobs", "worker", kPodB}));

TEST(OciState, PodmanBundle) {
  auto a = ParseOciConfigAnnotations(Sample("podman-config.json"));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->at("io.container.manager"), "libpod");
  EXPECT_EQ(KubernetesFromAnnotations(*a).pod_name, "pingpong-0");
}

TEST(OciState, BundleWithoutAnnotationsIsEmptyNotAnError) {
  auto a = ParseOciConfigAnnotations(R"({"ociVersion":"1.0.0","annotations":{"n":1}})");
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->empty());
  EXPECT_TRUE(KubernetesFromAnnotations(*a).empty());
  EXPECT_FALSE(ParseOciConfigAnnotations("[1,2]"));
  EXPECT_FALSE(ParseOciConfigAnnotations("{\"annotations\":"));
  EXPECT_FALSE(ParseOciConfigAnnotations(""));
}

TEST(OciState, RuncStateLabels) {
  std::string bundle;
  auto a = ParseRuncStateLabels(Sample("runc-state.json"), &bundle);
  ASSERT_TRUE(a);
  EXPECT_EQ(bundle, std::string("/run/containerd/io.containerd.runtime.v2.task/k8s.io/") + kId);
  KubernetesNames k = KubernetesFromAnnotations(*a);
  EXPECT_EQ(k.pod_name, "web-7d4b9c-xk2lp");
  EXPECT_EQ(k.container_name, "api");
  EXPECT_EQ(a->count("odd-label-without-value"), 0u);
  EXPECT_EQ(a->count(""), 0u);
  EXPECT_FALSE(ParseRuncStateLabels(R"({"id":"x"})", nullptr));
}

TEST(OciState, RuntimeNames) {
  EXPECT_EQ(NameFromStorageContainers(Sample("podman-containers.json"), kId), "pingpong-app");
  EXPECT_EQ(NameFromStorageContainers(Sample("podman-containers.json"), "ffff"), "");
  EXPECT_EQ(NameFromStorageContainers("{}", kId), "");
  EXPECT_EQ(NameFromDockerConfig(Sample("docker-config.v2.json")), "web");
  EXPECT_EQ(NameFromDockerConfig("{\"Name\":5}"), "");
}

TEST(ProcStatus, NsPid) {
  EXPECT_EQ(ParseNsPid(Sample("status.txt")), (std::vector<pid_t>{4284, 1}));
  EXPECT_EQ(ParseNsPid("Name:\tx\nNSpid:\t77\n"), (std::vector<pid_t>{77}));
  EXPECT_TRUE(ParseNsPid("Name:\tx\n").empty());
  EXPECT_TRUE(ParseNsPid("NSpid:\t12x 3\n").empty());
  EXPECT_TRUE(ParseNsPid("NSpid:\t-1\n").empty());
}

}  // namespace
}  // namespace gotraced::container
