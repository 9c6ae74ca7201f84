// Spool: the bounded directory where serve's triggers save the windows they catch
// (config.h [spool]). At most max_files files and max_bytes bytes: before a file is added
// the oldest are removed until it fits. A file appears only whole: it is written as
// NAME.partial and renamed once every byte is on disk (fsync), so a full disk or a crash
// leaves no torn trace; the old files are removed only after that write succeeded, so a
// failed write (its .partial removed) never costs a file already there. A file with an
// upload manifest (daemon/upload/manifest.h) is pending: Save writes the manifest before
// the file is renamed into place, evicting removes the manifest too and tells on_evict,
// so the loss is counted and named. Both happen under upload::SpoolLock(dir), the lock the
// uploader takes for its own changes of the pending state (upload/spool_pending.h), and
// that every Spool of one directory shares.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "daemon/upload/manifest.h"

namespace gotraced::service {

struct SpoolFile {
  std::string name;
  std::uint64_t bytes = 0;
  std::int64_t mtime_ns = 0;
};

class Spool {
 public:
  using EvictFn = std::function<void(const std::string &name, std::uint64_t bytes, bool pending)>;
  Spool(std::string dir, std::size_t max_files, std::size_t max_bytes, EvictFn on_evict = {});
  // Saves `bytes` as dir/name (whole or not at all). With `pending`, the file is pending
  // upload from the moment it appears: its manifest is written first (a manifest that
  // cannot be written fails the save). False with *error on failure.
  bool Save(const std::string &name, const std::vector<std::uint8_t> &bytes, std::string *error,
            const upload::ManifestEntry *pending = nullptr);
  std::vector<SpoolFile> List() const;  // oldest first
  const std::string &dir() const { return dir_; }

 private:
  bool WritePartial(const std::string &partial, const std::vector<std::uint8_t> &bytes, std::string *error);
  void MakeRoomLocked(std::size_t incoming);
  std::string dir_;
  std::size_t max_files_, max_bytes_;
  EvictFn on_evict_;
};

}  // namespace gotraced::service
