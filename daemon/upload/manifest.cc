// The upload manifest. See manifest.h.
#include "daemon/upload/manifest.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "daemon/json/json_text.h"

namespace gotraced::upload {

namespace fs = std::filesystem;

std::string ManifestPath(const std::string &dir, const std::string &file) {
  return (fs::path(dir) / (file + std::string(kManifestSuffix))).string();
}

bool IsManifestName(std::string_view n) {
  return n.size() > kManifestSuffix.size() && n.substr(n.size() - kManifestSuffix.size()) == kManifestSuffix;
}

std::string ManifestJson(const ManifestEntry &e) {
  const json::Json j = {{"file", e.file},
                        {"key", e.key},
                        {"metadata", e.metadata},
                        {"queued_unix_ns", e.queued_unix_ns},
                        {"multipart_upload_id", e.multipart_upload_id},
                        {"attempts", e.attempts},
                        {"last_error", e.last_error}};
  return json::Text(j) + "\n";  // never throws on bytes that are not UTF-8 (json_text.h)
}

std::optional<ManifestEntry> ParseManifest(std::string_view text, std::string *error) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  auto fail = [&](const char *why) -> std::optional<ManifestEntry> {
    if (error) *error = why;
    return std::nullopt;
  };
  if (!j.is_object()) return fail("not a JSON object");
  ManifestEntry e;
  auto str = [&](const char *k, std::string &out, bool required) {
    auto it = j.find(k);
    if (it == j.end()) return !required;
    if (!it->is_string()) return false;
    out = it->get<std::string>();
    return !required || !out.empty();
  };
  if (!str("file", e.file, true) || !str("key", e.key, true)) return fail("\"file\" and \"key\" must be non-empty strings");
  if (e.file.find('/') != std::string::npos || e.file == "." || e.file == "..")
    return fail("\"file\" must be a name in the spool, not a path");
  if (!str("multipart_upload_id", e.multipart_upload_id, false) || !str("last_error", e.last_error, false))
    return fail("\"multipart_upload_id\" and \"last_error\" must be strings");
  if (auto it = j.find("metadata"); it != j.end()) {
    if (!it->is_object()) return fail("\"metadata\" must be an object of strings");
    for (auto m = it->begin(); m != it->end(); ++m) {
      if (!m.value().is_string()) return fail("\"metadata\" must be an object of strings");
      e.metadata[m.key()] = m.value().get<std::string>();
    }
  }
  if (auto it = j.find("queued_unix_ns"); it != j.end()) {
    if (!it->is_number_integer()) return fail("\"queued_unix_ns\" must be an integer");
    e.queued_unix_ns = it->get<std::int64_t>();
  }
  if (auto it = j.find("attempts"); it != j.end()) {
    if (!it->is_number_unsigned()) return fail("\"attempts\" must be a non-negative integer");
    e.attempts = it->get<std::uint64_t>();
  }
  return e;
}

bool WriteManifest(const std::string &dir, const ManifestEntry &e, std::string *error) {
  const std::string path = ManifestPath(dir, e.file), partial = path + ".partial";
  const std::string text = ManifestJson(e);
  int fd = ::open(partial.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
  auto fail = [&](const char *what) {
    const int err = errno;
    if (fd >= 0) ::close(fd);
    ::unlink(partial.c_str());
    if (error) *error = fmt::format("{} {}: {}", what, partial, std::strerror(err));
    return false;
  };
  if (fd < 0) return fail("open");
  if (::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    if (errno == 0) errno = ENOSPC;
    return fail("write");
  }
  if (::fsync(fd) != 0) return fail("fsync");
  if (::close(fd) != 0) {
    fd = -1;
    return fail("close");
  }
  fd = -1;
  if (::rename(partial.c_str(), path.c_str()) != 0) return fail("rename");
  return true;
}

std::optional<ManifestEntry> ReadManifest(const std::string &path, std::string *error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = fmt::format("{}: {}", path, std::strerror(errno));
    return std::nullopt;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string why;
  std::optional<ManifestEntry> e = ParseManifest(ss.str(), &why);
  if (!e && error) *error = fmt::format("{}: {}", path, why);
  return e;
}

std::vector<ManifestEntry> ListManifests(const std::string &dir, std::vector<std::string> *broken) {
  std::vector<ManifestEntry> out;
  std::error_code ec;
  for (const auto &d : fs::directory_iterator(dir, ec)) {
    const std::string name = d.path().filename().string();
    if (!IsManifestName(name)) continue;
    std::string err;
    std::optional<ManifestEntry> e = ReadManifest(d.path().string(), &err);
    if (!e) {
      if (broken) broken->push_back(err);
      continue;
    }
    out.push_back(std::move(*e));
  }
  std::sort(out.begin(), out.end(), [](const ManifestEntry &a, const ManifestEntry &b) {
    return a.queued_unix_ns != b.queued_unix_ns ? a.queued_unix_ns < b.queued_unix_ns : a.file < b.file;
  });
  return out;
}

}  // namespace gotraced::upload
