// An S3 client on libcurl: the requests gotraced makes of an S3-compatible store, each
// signed by libcurl's AWS SigV4 (CURLOPT_AWS_SIGV4) with the payload's SHA-256 (OpenSSL)
// given in x-amz-content-sha256, so curl signs that hash rather than hashing (or
// refusing to hash) an upload it streams from a file. No signing code of our own.
//
// Every call returns an S3Result: ok when the store confirmed (2xx and, for writes, an
// ETag); otherwise `code` is the store's S3 error code from its XML <Error> body
// (NoSuchBucket, SignatureDoesNotMatch, ...), or a name of our own for what never got an
// S3 answer: CouldNotConnect, Timeout, TlsError, NetworkError, NotS3 (a body that was not
// the XML S3 sends), NotFound / Forbidden / HttpNNN (an error status without a body, as
// HEAD answers), Cancelled.
// Messages never hold credentials (Credentials::Redact).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "daemon/upload/credentials.h"
#include "daemon/upload/s3_url.h"
#include "daemon/upload/s3_xml.h"

namespace gotraced::upload {

struct S3Settings {
  S3Endpoint endpoint;
  std::string region = "us-east-1";
  std::string bucket;
  bool path_style = true;
  Credentials credentials;
  std::string ca_file;
  bool tls_verify = true;
  std::uint64_t max_bytes_per_second = 0;
  long connect_timeout_ms = 5000;
  // A transfer slower than 1 KiB/s for this long is abandoned (no total timeout: a large
  // part under a bandwidth cap may rightly take minutes).
  long stall_seconds = 30;
};

struct S3Result {
  bool ok = false;
  long status = 0;          // HTTP status, 0 when none came
  std::string code;         // see the file comment; "" when ok
  std::string message;
  std::string etag;         // of the object or part written
  std::string Describe() const;  // "403 SignatureDoesNotMatch: ..." / "CouldNotConnect: ..."
};

struct ObjectInfo {
  std::uint64_t size = 0;
  std::string etag, last_modified;
  std::map<std::string, std::string> metadata;  // x-amz-meta-* names without the prefix, lowercase
};

class S3Client {
 public:
  explicit S3Client(S3Settings s);
  const S3Settings &settings() const { return s_; }
  // Transfers in progress end with code Cancelled once *flag is true (daemon stopping).
  void SetCancel(const std::atomic<bool> *flag) { cancel_ = flag; }

  // Bytes [offset, offset+length) of the file at path, as one PUT.
  S3Result PutObject(const std::string &key, const std::string &path, const std::map<std::string, std::string> &meta);
  S3Result CreateMultipart(const std::string &key, const std::map<std::string, std::string> &meta, std::string *upload_id);
  S3Result UploadPart(const std::string &key, const std::string &upload_id, int part, const std::string &path,
                      std::uint64_t offset, std::uint64_t length);
  S3Result CompleteMultipart(const std::string &key, const std::string &upload_id,
                             const std::vector<std::string> &part_etags);
  S3Result AbortMultipart(const std::string &key, const std::string &upload_id);
  S3Result ListObjects(const std::string &prefix, const std::string &token, ListPage *page);
  S3Result ListMultipartUploads(const std::string &prefix, std::vector<PendingUpload> *out);
  S3Result HeadObject(const std::string &key, ObjectInfo *info);
  // The object into `path` (created or truncated).
  S3Result GetObject(const std::string &key, const std::string &path, std::uint64_t *bytes);
  // The bucket exists and the endpoint answers as S3 (a listing of at most 0 keys).
  S3Result CheckBucket();

 private:
  struct Request;
  S3Result Perform(Request &r);
  S3Settings s_;
  const std::atomic<bool> *cancel_ = nullptr;
};

// Lowercase hex SHA-256 of bytes [offset, offset+length) of a file, or of a string.
std::optional<std::string> FileSha256(const std::string &path, std::uint64_t offset, std::uint64_t length,
                                      std::string *error);
std::string Sha256Hex(std::string_view data);

}  // namespace gotraced::upload
