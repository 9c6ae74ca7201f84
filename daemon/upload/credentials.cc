// S3 credentials. See credentials.h.
#include "daemon/upload/credentials.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace gotraced::upload {

namespace {

// One value per file; surrounding whitespace (the newline an editor adds) dropped.
bool ReadSecretFile(const std::string &path, std::string *out, std::string *error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = fmt::format("credentials file {}: {}", path, std::strerror(errno));
    return false;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    *error = fmt::format("credentials file {}: not a regular file", path);
    return false;
  }
  if (st.st_mode & (S_IRGRP | S_IROTH | S_IWGRP | S_IWOTH)) {
    ::close(fd);
    *error = fmt::format("credentials file {} is readable or writable by other users (mode {:04o}): refused; "
                         "chmod 600 it (Kubernetes: defaultMode: 0400 on the Secret's volume)",
                         path, st.st_mode & 07777);
    return false;
  }
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0 && text.size() < 65536) text.append(buf, static_cast<std::size_t>(n));
  const int rerr = errno;
  ::close(fd);
  if (n < 0) {
    *error = fmt::format("credentials file {}: {}", path, std::strerror(rerr));
    return false;
  }
  const std::size_t b = text.find_first_not_of(" \t\r\n");
  const std::size_t e = text.find_last_not_of(" \t\r\n");
  *out = b == std::string::npos ? "" : text.substr(b, e - b + 1);
  if (out->empty()) {
    *error = fmt::format("credentials file {} is empty", path);
    return false;
  }
  return true;
}

bool One(const std::string &file, const char *env, std::string *out, std::string *error) {
  if (!file.empty()) return ReadSecretFile(file, out, error);
  const char *v = std::getenv(env);
  *out = v ? v : "";
  return true;
}

}  // namespace

std::string Credentials::Redact(std::string_view text) const {
  std::string out(text);
  for (const std::string *s : {&secret_key, &session_token, &access_key}) {
    if (s->size() < 4) continue;  // too short to be a real credential, too likely to be common text
    for (std::size_t p = out.find(*s); p != std::string::npos; p = out.find(*s, p)) {
      out.replace(p, s->size(), "[redacted]");
      p += 10;
    }
  }
  return out;
}

std::optional<Credentials> LoadCredentials(const CredentialFiles &files, std::string *error) {
  Credentials c;
  std::string err;
  if (!One(files.access_key_file, "AWS_ACCESS_KEY_ID", &c.access_key, &err) ||
      !One(files.secret_key_file, "AWS_SECRET_ACCESS_KEY", &c.secret_key, &err) ||
      !One(files.session_token_file, "AWS_SESSION_TOKEN", &c.session_token, &err)) {
    if (error) *error = err;
    return std::nullopt;
  }
  if (c.access_key.empty() || c.secret_key.empty()) {
    if (error)
      *error = "no S3 credentials: set access_key_file and secret_key_file in [upload], or AWS_ACCESS_KEY_ID and "
               "AWS_SECRET_ACCESS_KEY in the daemon's environment";
    return std::nullopt;
  }
  return c;
}

}  // namespace gotraced::upload
