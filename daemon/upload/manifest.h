// The upload manifest: one small JSON file beside each spooled trace that still has to
// reach the store, NAME.upload.json next to NAME. It is written (fsync, rename) before
// the uploader may start and removed only after the store confirmed the object, so a
// pending upload survives a restart of the daemon and a reboot; the spool's eviction
// reads it to know that what it removes was never uploaded (a loss to count and name).
//
// {"file":"api-4242-...before.trace","key":"gotraced/node/2026-12-06/...",
//  "metadata":{"pid":"4242",...},"queued_unix_ns":1796...,"multipart_upload_id":"",
//  "attempts":0,"last_error":""}
// multipart_upload_id names a multipart upload begun and not yet completed or aborted:
// the next attempt (in this process or after a restart) aborts it first, so no orphan
// parts stay in the store.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gotraced::upload {

inline constexpr std::string_view kManifestSuffix = ".upload.json";

struct ManifestEntry {
  std::string file;  // the spooled file's name (no directory)
  std::string key;   // object key in the bucket
  std::map<std::string, std::string> metadata;  // x-amz-meta-* without the prefix
  std::int64_t queued_unix_ns = 0;
  std::string multipart_upload_id;
  std::uint64_t attempts = 0;
  std::string last_error;
};

std::string ManifestPath(const std::string &dir, const std::string &file);
bool IsManifestName(std::string_view name);

std::string ManifestJson(const ManifestEntry &e);
std::optional<ManifestEntry> ParseManifest(std::string_view text, std::string *error);

// Whole or not at all (NAME.upload.json.partial, fsync, rename).
bool WriteManifest(const std::string &dir, const ManifestEntry &e, std::string *error);
std::optional<ManifestEntry> ReadManifest(const std::string &path, std::string *error);
// Every manifest of dir, oldest queued first; unreadable ones are named in *broken.
std::vector<ManifestEntry> ListManifests(const std::string &dir, std::vector<std::string> *broken);

}  // namespace gotraced::upload
