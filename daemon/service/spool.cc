#include "daemon/service/spool.h"

#include "daemon/upload/manifest.h"
#include "daemon/upload/spool_pending.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace gotraced::service {

namespace fs = std::filesystem;

namespace {
upload::ManifestEntry WithFile(upload::ManifestEntry e, const std::string &name) {
  e.file = name;
  return e;
}
}  // namespace

Spool::Spool(std::string dir, std::size_t max_files, std::size_t max_bytes, EvictFn on_evict)
    : dir_(std::move(dir)), max_files_(max_files), max_bytes_(max_bytes), on_evict_(std::move(on_evict)) {}

std::vector<SpoolFile> Spool::List() const {
  std::vector<SpoolFile> out;
  std::error_code ec;
  for (const auto &e : fs::directory_iterator(dir_, ec)) {
    if (!e.is_regular_file(ec)) continue;
    const std::string n = e.path().filename().string();
    if (n.size() < 6 || n.compare(n.size() - 6, 6, ".trace") != 0) continue;
    SpoolFile f;
    f.name = n;
    f.bytes = e.file_size(ec);
    f.mtime_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(e.last_write_time(ec).time_since_epoch()).count();
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const SpoolFile &a, const SpoolFile &b) {
    return a.mtime_ns != b.mtime_ns ? a.mtime_ns < b.mtime_ns : a.name < b.name;
  });
  return out;
}

void Spool::MakeRoomLocked(std::size_t incoming) {
  std::vector<SpoolFile> files = List();
  std::uint64_t total = 0;
  for (const SpoolFile &f : files) total += f.bytes;
  std::size_t i = 0;
  while (i < files.size() && (files.size() - i + 1 > max_files_ || total + incoming > max_bytes_)) {
    std::error_code ec;
    fs::remove(fs::path(dir_) / files[i].name, ec);
    const bool pending = fs::remove(upload::ManifestPath(dir_, files[i].name), ec);
    if (on_evict_) on_evict_(files[i].name, files[i].bytes, pending);
    total -= files[i].bytes;
    ++i;
  }
}

bool Spool::WritePartial(const std::string &partial, const std::vector<std::uint8_t> &bytes, std::string *error) {
  int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  auto fail = [&](const char *what) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    ::unlink(partial.c_str());
    if (error) *error = fmt::format("{} {}: {}", what, partial, std::strerror(e));
    return false;
  };
  if (fd < 0) return fail("open");
  std::size_t off = 0;
  while (off < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + off, bytes.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      return fail("write");
    }
    off += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0) return fail("fsync");
  if (::close(fd) != 0) {
    fd = -1;
    return fail("close");
  }
  return true;
}

bool Spool::Save(const std::string &name, const std::vector<std::uint8_t> &bytes, std::string *error,
                 const upload::ManifestEntry *pending) {
  std::error_code ec;
  fs::create_directories(dir_, ec);
  if (ec) {
    if (error) *error = fmt::format("spool {}: {}", dir_, ec.message());
    return false;
  }
  if (bytes.size() > max_bytes_) {
    if (error) *error = fmt::format("{} bytes exceed the spool's max_mb", bytes.size());
    return false;
  }
  const std::string final_path = (fs::path(dir_) / name).string(), partial = final_path + ".partial";
  if (!WritePartial(partial, bytes, error)) return false;
  // The file enters the spool under the lock of its pending state (upload/spool_pending.h):
  // manifest first, so neither the eviction nor the uploader ever sees the file without it.
  std::lock_guard<std::mutex> lock(upload::SpoolLock(dir_));
  if (pending && !upload::WriteManifest(dir_, WithFile(*pending, name), error)) {
    ::unlink(partial.c_str());
    return false;
  }
  // Only now, with the new file whole on disk, are old ones removed to make room: a
  // write that fails (a full disk) costs no file already saved.
  MakeRoomLocked(bytes.size());
  if (::rename(partial.c_str(), final_path.c_str()) != 0) {
    const int e = errno;
    ::unlink(partial.c_str());
    if (pending) ::unlink(upload::ManifestPath(dir_, name).c_str());
    if (error) *error = fmt::format("rename {}: {}", partial, std::strerror(e));
    return false;
  }
  return true;
}

}  // namespace gotraced::service
