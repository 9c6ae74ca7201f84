// S3 credentials: from files (a Kubernetes Secret mounted as files) or from the
// environment variables the AWS SDKs and CLI read. They never leave this struct except
// into libcurl's signing; Redact() takes them out of any text that might be shown.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gotraced::upload {

struct Credentials {
  std::string access_key, secret_key, session_token;
  // text with every occurrence of the three replaced by "[redacted]".
  std::string Redact(std::string_view text) const;
};

struct CredentialFiles {
  std::string access_key_file, secret_key_file, session_token_file;  // "" = the environment's
};

// Each of the three from its file when given, else from AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN. A file readable by group or others is
// refused (its mode in the message, never its content); the key and the secret are
// required. nullopt with *error otherwise.
std::optional<Credentials> LoadCredentials(const CredentialFiles &files, std::string *error);

}  // namespace gotraced::upload
