// `--out s3://bucket/key`. See s3_out.h.
#include "cli/s3_out.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "cli/store_settings.h"
#include "daemon/upload/env_settings.h"
#include "daemon/upload/upload_file.h"

namespace gotraced::cli {

std::optional<S3Out> ParseS3Out(const std::string &out, const std::string &store, std::string *error) {
  if (out.rfind("s3://", 0) != 0) {
    if (!store.empty() && error) *error = "--store CONFIG is for --out s3://BUCKET/KEY";
    return std::nullopt;
  }
  std::optional<std::pair<std::string, std::string>> bk = upload::ParseS3Url(out, error);
  if (!bk) return std::nullopt;
  if (!StoreSettings(store, bk->first, error)) return std::nullopt;
  S3Out o;
  o.url = out;
  o.store = store;
  o.bucket = bk->first;
  o.key = bk->second;
  const char *tmp = std::getenv("TMPDIR");
  const std::string base = std::filesystem::path(o.key).filename().string();
  o.local = (std::filesystem::path(tmp && *tmp ? tmp : "/tmp") /
             fmt::format("gotraced-{}-{}", getpid(), base.empty() ? "trace" : base))
                .string();
  if (error) error->clear();
  return o;
}

int UploadAndRemove(const S3Out &o) {
  std::string err;
  std::optional<upload::UploadSettings> s = StoreSettings(o.store, o.bucket, &err);
  upload::S3Result r;
  if (s) {
    upload::S3Client client(s->s3);
    r = upload::UploadFile(client, o.key, o.local, {}, std::uint64_t{64} << 20).result;
  } else {
    r.code = "Configuration";
    r.message = err;
  }
  if (!r.ok) {
    std::fprintf(stderr, "gotraced: upload to %s failed: %s\ngotraced: the trace is kept in %s\n", o.url.c_str(),
                 r.Describe().c_str(), o.local.c_str());
    return 1;
  }
  std::remove(o.local.c_str());
  std::fprintf(stderr, "gotraced: uploaded to %s (ETag %s)\n", o.url.c_str(), r.etag.c_str());
  return 0;
}

}  // namespace gotraced::cli
