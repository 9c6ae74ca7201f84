// The background uploader of serve (docs/upload.md): spool first, upload after, never
// lose a file silently.
//
//   Entry      the manifest (manifest.h: key, metadata) of a file about to be saved; the
//              spool writes it with the file (spool_pending.h), so the file is pending
//              from the moment it is in the spool. No network: the trigger path never
//              waits on the store. Wake then starts its upload.
//   thread     uploads the pending files oldest first: one PUT up to part_bytes, else a
//              multipart upload (create, parts, complete; abort on failure, and an
//              upload id left by a crash is aborted before the next try, so no orphan
//              parts stay). A file leaves the spool only when the store confirmed it
//              (2xx with an ETag). A failure is counted by its S3 error code and retried
//              with exponential backoff (doubled from retry_initial_seconds, capped at
//              retry_max_seconds, full jitter in [d/2, d]); a reload retries at once.
//   restart    pending uploads are the manifests in the spool: a restart or a reboot
//              finds them again.
//   eviction   the spool's cap may remove a pending file (spool.h): NoteEvicted counts
//              it as lost, logs its name and keeps the last names for `gotraced ps`.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "daemon/upload/key_template.h"
#include "daemon/upload/manifest.h"
#include "daemon/upload/s3_client.h"
#include "daemon/upload/upload_config.h"

namespace gotraced::upload {

// An [upload] table made usable: endpoint parsed, credentials read.
struct UploadSettings {
  UploadConfig config;
  S3Settings s3;
  std::string node;  // resolved ({node})
};
// nullopt with *error when the endpoint, bucket or template is malformed or the
// credentials cannot be had (a file readable by others included).
std::optional<UploadSettings> ResolveUpload(const UploadConfig &c, std::string *error);

// Asks the store whether the bucket exists and the endpoint speaks S3. Returns false
// (*error) for answers that a retry will not change: no such bucket, an endpoint that is
// not S3, a malformed address. Network failures and credential refusals are true, with
// *warning set: the store may come up, the credentials may be fixed by a reload, and the
// files wait in the spool meanwhile.
bool CheckStore(const UploadSettings &s, std::string *error, std::string *warning);

struct UploadStats {
  bool configured = false;
  std::string store;  // "s3://bucket (endpoint)"
  std::uint64_t uploaded = 0, bytes = 0, retries = 0, lost = 0;
  std::map<std::string, std::uint64_t> failures;  // by S3 error code
  std::uint64_t pending = 0, pending_bytes = 0;
  double oldest_pending_seconds = 0;
  std::vector<std::string> recent_lost;  // at most 8
  std::string last_error, last_error_file;
  std::string last_key;  // the last object written
};

class Uploader {
 public:
  Uploader();
  ~Uploader();
  Uploader(const Uploader &) = delete;
  Uploader &operator=(const Uploader &) = delete;

  // New settings (nullopt: uploads off; pending files wait) and the spool they work on.
  void Configure(std::optional<UploadSettings> s, const std::string &spool_dir);
  // The manifest of `file`, to be saved with it (Spool::Save). nullopt (*error) when no
  // upload is configured.
  std::optional<ManifestEntry> Entry(const std::string &file, TraceFacts facts, std::string *error) const;
  // A pending file was saved: look at the spool now.
  void Wake();
  // The spool's eviction removed `file` (and its manifest, when pending).
  void NoteEvicted(const std::string &file, std::uint64_t bytes, bool pending);
  UploadStats Stats() const;
  void Stop();

 private:
  void Run();
  struct Due;
  bool Attempt(const UploadSettings &s, S3Client &client, ManifestEntry &e, S3Result *fail);
  void RefreshPending(const std::vector<ManifestEntry> &entries);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::shared_ptr<const UploadSettings> settings_;
  std::string spool_dir_;
  bool wake_ = false;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  UploadStats stats_;
  // Per pending file: failed attempts in this process and when to try again.
  std::map<std::string, std::chrono::steady_clock::time_point> next_try_;
  std::map<std::string, unsigned> failures_in_row_;
};

}  // namespace gotraced::upload
