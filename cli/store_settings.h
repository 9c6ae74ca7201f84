// Where the commands that talk to a store without serve (`--out s3://`, `gotraced traces`)
// find its settings: serve's config file, its [upload] table (endpoint, region, addressing,
// credential files, CA, tls_verify: the one file an operator already keeps), or, without
// one, the AWS_* environment (daemon/upload/env_settings.h).
#pragma once

#include <optional>
#include <string>

#include "daemon/upload/uploader.h"

namespace gotraced::cli {

// `config`: serve's config file, or "" for the environment. `bucket`: the bucket to use
// ("" keeps the [upload] table's; required with the environment).
std::optional<upload::UploadSettings> StoreSettings(const std::string &config, const std::string &bucket,
                                                    std::string *error);

}  // namespace gotraced::cli
