// A store's settings for the one-off commands. See store_settings.h.
#include "cli/store_settings.h"

#include "daemon/service/config.h"
#include "daemon/upload/env_settings.h"

namespace gotraced::cli {

std::optional<upload::UploadSettings> StoreSettings(const std::string &config, const std::string &bucket,
                                                    std::string *error) {
  if (config.empty()) return upload::SettingsFromEnvironment(bucket, error);
  std::optional<service::Config> cfg = service::LoadConfig(config, error);
  if (!cfg) return std::nullopt;
  if (!cfg->upload) {
    if (error) *error = config + ": no [upload] table";
    return std::nullopt;
  }
  upload::UploadConfig c = *cfg->upload;
  if (!bucket.empty()) c.bucket = bucket;
  std::optional<upload::UploadSettings> s = upload::ResolveUpload(c, error);
  if (!s && error) *error = config + ": [upload]: " + *error;
  return s;
}

}  // namespace gotraced::cli
