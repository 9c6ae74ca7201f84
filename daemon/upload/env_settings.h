// Store settings from the environment variables the AWS SDKs and CLI read, for one-off
// recordings (`--out s3://bucket/key`) and `gotraced traces --store s3://bucket/prefix`:
//   AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL   the endpoint; path-style addressing when
//                                                given (MinIO, Ceph RGW, versitygw ...),
//                                                else AWS's https://s3.<region>.amazonaws.com
//                                                with virtual-host addressing
//   AWS_REGION, else AWS_DEFAULT_REGION          the region (us-east-1 when neither)
//   AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN
//   AWS_CA_BUNDLE                                a PEM bundle to verify the store with
#pragma once

#include <optional>
#include <string>

#include "daemon/upload/uploader.h"

namespace gotraced::upload {

std::optional<UploadSettings> SettingsFromEnvironment(const std::string &bucket, std::string *error);

}  // namespace gotraced::upload
