// serve's [upload] table (docs/upload.md): where saved traces go and how they get there.
// Parsed with the rest of the config (daemon/service/config.cc ParseUpload); nothing
// here touches the network or the files it names.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gotraced::upload {

// {prefix}/{node}/{date}/{time}-{exe}-{pid}-{trigger}.{part}.trace, e.g.
// gotraced/node-7/2026-12-06/20261206T121314.015Z-api-4242-stw.before.trace
inline constexpr const char *kDefaultKeyTemplate = "{prefix}/{node}/{date}/{time}-{exe}-{pid}-{trigger}.{part}.trace";

struct UploadConfig {
  std::string endpoint;        // https://host[:port]; "" = AWS's https://s3.<region>.amazonaws.com
  std::string bucket;
  std::string prefix = "gotraced";
  std::string region = "us-east-1";
  bool path_style = true;      // https://host/bucket/key; false: https://bucket.host/key
  // Credentials: each from its file when given (a Kubernetes Secret mounted as files;
  // a file readable by group or others is refused), else from AWS_ACCESS_KEY_ID,
  // AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN. Read again at every reload.
  std::string access_key_file, secret_key_file, session_token_file;
  std::string ca_file;         // PEM bundle to verify the store's certificate with ("" = the system's)
  bool tls_verify = true;
  std::string node;            // {node} and x-amz-meta-node; "" = $NODE_NAME, else the host name
  std::string key_template = kDefaultKeyTemplate;
  std::size_t part_bytes = std::size_t{8} << 20;   // files above this go in parts of this size (S3: >= 5 MiB)
  double retry_initial_seconds = 1;                 // backoff: doubled per failure, jittered, capped
  double retry_max_seconds = 300;
  std::uint64_t max_bytes_per_second = 0;           // upload bandwidth cap (0 = none)
  int line = 0;                                      // of [upload], for messages

  bool operator==(const UploadConfig &) const = default;
};

}  // namespace gotraced::upload
