// One file to one object. See upload_file.h.
#include "daemon/upload/upload_file.h"

#include <sys/stat.h>

#include <algorithm>

namespace gotraced::upload {

UploadOutcome UploadFile(S3Client &client, const std::string &key, const std::string &path,
                         const std::map<std::string, std::string> &meta, std::uint64_t part_bytes,
                         const std::function<void(const std::string &)> &on_upload_id) {
  UploadOutcome out;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    out.result = S3Result{false, 0, "LocalFileError", path + ": cannot stat", ""};
    return out;
  }
  out.bytes = static_cast<std::uint64_t>(st.st_size);
  if (out.bytes <= part_bytes || part_bytes == 0) {
    out.result = client.PutObject(key, path, meta);
    return out;
  }
  std::string id;
  S3Result r = client.CreateMultipart(key, meta, &id);
  if (!r.ok) {
    out.result = r;
    return out;
  }
  if (on_upload_id) on_upload_id(id);
  std::vector<std::string> etags;
  for (std::uint64_t off = 0; off < out.bytes && r.ok; off += part_bytes) {
    r = client.UploadPart(key, id, static_cast<int>(etags.size() + 1), path, off, std::min(part_bytes, out.bytes - off));
    if (r.ok) etags.push_back(r.etag);
  }
  if (r.ok) r = client.CompleteMultipart(key, id, etags);
  out.result = r;
  out.parts = static_cast<int>(etags.size());
  if (r.ok) return out;
  // Cancelled (the daemon stops): the id stays for the next start to abort.
  if (r.code == "Cancelled" || !client.AbortMultipart(key, id).ok) out.unfinished_upload_id = id;
  return out;
}

}  // namespace gotraced::upload
