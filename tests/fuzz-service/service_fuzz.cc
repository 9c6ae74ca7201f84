// Fuzzes the parsers of `gotraced serve` (daemon/service, daemon/upload), the JSON it
// writes from untrusted strings, and the container identity it reads from any container's
// files (daemon/container): the first byte picks one.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "daemon/container/cgroup_path.h"
#include "daemon/container/oci_state.h"
#include "daemon/container/proc_status.h"
#include "daemon/service/config.h"
#include "daemon/service/http.h"
#include "daemon/service/processes_json.h"
#include "daemon/upload/manifest.h"
#include "daemon/upload/s3_url.h"
#include "daemon/upload/s3_xml.h"

using namespace gotraced::service;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view in(reinterpret_cast<const char *>(data) + 1, size - 1);
  switch (data[0] % 10) {
    case 0: {  // request head, as the endpoint reads it
      std::size_t end = http::FindHeadEnd(in);
      http::Request r;
      http::ParseError e;
      if (http::ParseRequestHead(end ? in.substr(0, end) : in, &r, &e)) {
        (void)r.Param("pid");
        for (const auto &[k, v] : r.query) {
          (void)http::ParseInt(v, 1, 0x3fffffff);
          (void)http::ParseSeconds(v, 300);
        }
      }
      break;
    }
    case 1: {  // response stream, fed in uneven pieces
      http::ResponseParser p;
      std::size_t step = 1 + (size % 13);
      for (std::size_t i = 0; i < in.size(); i += step) p.Feed(in.substr(i, step), [](std::string_view) {});
      p.Eof();
      break;
    }
    case 2: {
      std::string out;
      (void)http::PercentDecode(in, true, &out);
      break;
    }
    case 4: {  // GET /processes with any bytes as a process's name and path: valid JSON, always
      const gotraced::json::Json p = {{"pid", 1}, {"exe", in}, {"name", in.substr(0, 15)}};
      const std::string text = ProcessesDocument({p, p}, {{"pid", 2}});
      if (!nlohmann::json::accept(text)) __builtin_trap();
      break;
    }
    case 5: {  // what an S3 store answers (daemon/upload/s3_xml.h), the upload manifest, URLs
      std::string err;
      (void)gotraced::upload::ParseS3Error(in);
      (void)gotraced::upload::ParseUploadId(in, &err);
      (void)gotraced::upload::ParseCompleteMultipart(in, &err);
      (void)gotraced::upload::ParseListObjectsV2(in, &err);
      (void)gotraced::upload::ParseListMultipartUploads(in, &err);
      (void)gotraced::upload::ParseManifest(in, &err);
      (void)gotraced::upload::ParseEndpoint(in, &err);
      (void)gotraced::upload::ParseS3Url(in, &err);
      break;
    }
    case 3: {  // configuration file
      std::string err;
      (void)ParseConfig(in, "fuzz.toml", &err);
      break;
    }
    case 6: {  // /proc/PID/cgroup (a container's processes choose their cgroup names)
      (void)gotraced::container::IdentityFromProcCgroup(in);
      (void)gotraced::container::IdentityFromCgroupPath(in);
      break;
    }
    case 7: {  // an OCI bundle's config.json (annotations come from the pod spec)
      if (auto a = gotraced::container::ParseOciConfigAnnotations(in)) (void)gotraced::container::KubernetesFromAnnotations(*a);
      break;
    }
    case 8: {  // runc's state.json
      std::string bundle;
      if (auto a = gotraced::container::ParseRuncStateLabels(in, &bundle))
        (void)gotraced::container::KubernetesFromAnnotations(*a);
      break;
    }
    default: {  // containers.json, docker's config.v2.json, /proc/PID/status
      (void)gotraced::container::NameFromStorageContainers(in, "3f2a1b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f708");
      (void)gotraced::container::NameFromDockerConfig(in);
      (void)gotraced::container::ParseNsPid(in);
      break;
    }
  }
  return 0;
}
