// `--out s3://bucket/key` for the one-off commands (record --pid, launch, dump): the
// trace is written to a local file first, uploaded with the settings of serve's [upload]
// table when --store CONFIG names its file, else of the AWS_* environment
// (store_settings.h), and removed only once the store confirmed it; when the
// upload fails the file stays, its path and the store's error are printed, and the
// command exits 1.
#pragma once

#include <optional>
#include <string>

namespace gotraced::cli {

struct S3Out {
  std::string url;    // s3://bucket/key as given
  std::string bucket, key;
  std::string local;  // where the trace is written first
  std::string store;  // serve's config file (--store), or "" for the AWS_* environment
};

// nullopt when `out` is not an s3:// URL; on a malformed one, *error is set too. The
// settings are checked now (credentials, endpoint), before anything is recorded. `store`
// (--store CONFIG) without an s3:// `out` is an error too.
std::optional<S3Out> ParseS3Out(const std::string &out, const std::string &store, std::string *error);

// Uploads o.local to o.url and removes it; 0, or 1 with the path and the error printed.
int UploadAndRemove(const S3Out &o);

}  // namespace gotraced::cli
