// One local file to one object: a single PUT up to part_bytes, else a multipart upload
// (create, parts of part_bytes, complete; aborted when a step fails, so no parts are
// left behind). Used by serve's uploader and by the one-off `--out s3://`.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "daemon/upload/s3_client.h"

namespace gotraced::upload {

struct UploadOutcome {
  S3Result result;      // ok: the store confirmed the object (result.etag)
  std::uint64_t bytes = 0;
  int parts = 0;        // 0 for a single PUT
  // A multipart upload begun and neither completed nor aborted (the abort failed or the
  // transfer was cancelled): its id, for a later abort.
  std::string unfinished_upload_id;
};

// on_upload_id(id) is called once a multipart upload exists, before its first part, so
// the caller can persist the id (manifest.h) against a crash.
UploadOutcome UploadFile(S3Client &client, const std::string &key, const std::string &path,
                         const std::map<std::string, std::string> &meta, std::uint64_t part_bytes,
                         const std::function<void(const std::string &)> &on_upload_id = {});

}  // namespace gotraced::upload
