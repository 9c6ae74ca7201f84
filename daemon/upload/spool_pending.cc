// The pending state of spooled traces. See spool_pending.h.
#include "daemon/upload/spool_pending.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>

namespace gotraced::upload {

namespace {

bool Exists(const std::string &path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

std::string FilePath(const std::string &dir, const std::string &file) {
  return (std::filesystem::path(dir) / file).string();
}

}  // namespace

std::mutex &SpoolLock(const std::string &dir) {
  static std::mutex table_mu;
  static std::map<std::string, std::unique_ptr<std::mutex>> table;
  // "spool" and "spool/" name one directory.
  std::string key = std::filesystem::path(dir).lexically_normal().string();
  while (key.size() > 1 && key.back() == '/') key.pop_back();
  std::lock_guard<std::mutex> lock(table_mu);
  std::unique_ptr<std::mutex> &m = table[key];
  if (!m) m = std::make_unique<std::mutex>();
  return *m;
}

bool RewriteIfSpooled(const std::string &dir, const ManifestEntry &e, std::string *error) {
  std::lock_guard<std::mutex> lock(SpoolLock(dir));
  if (!Exists(FilePath(dir, e.file))) return true;
  return WriteManifest(dir, e, error);
}

bool DropIfOrphan(const std::string &dir, const std::string &file) {
  std::lock_guard<std::mutex> lock(SpoolLock(dir));
  if (Exists(FilePath(dir, file))) return false;
  return ::unlink(ManifestPath(dir, file).c_str()) == 0;
}

bool RemoveConfirmed(const std::string &dir, const std::string &file) {
  std::lock_guard<std::mutex> lock(SpoolLock(dir));
  ::unlink(FilePath(dir, file).c_str());
  return ::unlink(ManifestPath(dir, file).c_str()) == 0;
}

}  // namespace gotraced::upload
