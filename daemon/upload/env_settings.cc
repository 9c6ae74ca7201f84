// Store settings from AWS_* variables. See env_settings.h.
#include "daemon/upload/env_settings.h"

#include <cstdlib>

namespace gotraced::upload {

namespace {
std::string Env(const char *name) {
  const char *v = std::getenv(name);
  return v ? v : "";
}
}  // namespace

std::optional<UploadSettings> SettingsFromEnvironment(const std::string &bucket, std::string *error) {
  UploadConfig c;
  c.bucket = bucket;
  c.endpoint = Env("AWS_ENDPOINT_URL_S3");
  if (c.endpoint.empty()) c.endpoint = Env("AWS_ENDPOINT_URL");
  c.region = Env("AWS_REGION");
  if (c.region.empty()) c.region = Env("AWS_DEFAULT_REGION");
  if (c.region.empty()) c.region = "us-east-1";
  c.path_style = !c.endpoint.empty();
  c.ca_file = Env("AWS_CA_BUNDLE");
  c.prefix.clear();
  return ResolveUpload(c, error);
}

}  // namespace gotraced::upload
