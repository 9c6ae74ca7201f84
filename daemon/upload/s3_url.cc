// Request URLs for S3. See s3_url.h.
#include "daemon/upload/s3_url.h"

#include <fmt/format.h>

#include <algorithm>

namespace gotraced::upload {

namespace {

bool Unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
         c == '_' || c == '~';
}

bool HostChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.';
}

}  // namespace

std::optional<S3Endpoint> ParseEndpoint(std::string_view url, std::string *error) {
  auto fail = [&](std::string why) -> std::optional<S3Endpoint> {
    if (error) *error = fmt::format("endpoint \"{}\": {}", url.substr(0, 200), why);
    return std::nullopt;
  };
  S3Endpoint ep;
  const std::size_t sep = url.find("://");
  if (sep == std::string_view::npos) return fail("expected a URL such as https://s3.example.com or http://127.0.0.1:9000");
  ep.scheme = std::string(url.substr(0, sep));
  if (ep.scheme != "http" && ep.scheme != "https") return fail("the scheme must be http or https");
  std::string_view rest = url.substr(sep + 3);
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  if (rest.find_first_of("/?#@ ") != std::string_view::npos)
    return fail("only scheme://host[:port] is accepted (no path, query, user or spaces; the bucket is its own key)");
  std::string_view host = rest, port;
  if (!rest.empty() && rest[0] == '[') {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos) return fail("unterminated [IPv6] address");
    host = rest.substr(0, close + 1);
    if (close + 1 < rest.size()) {
      if (rest[close + 1] != ':') return fail("expected :port after the [IPv6] address");
      port = rest.substr(close + 2);
    }
    if (host.size() < 3 || host.substr(1, host.size() - 2).find_first_not_of("0123456789abcdefABCDEF:.") !=
                               std::string_view::npos)
      return fail("not an IPv6 address");
  } else {
    const std::size_t colon = rest.rfind(':');
    if (colon != std::string_view::npos) {
      host = rest.substr(0, colon);
      port = rest.substr(colon + 1);
    }
    if (host.empty()) return fail("no host");
    if (!std::all_of(host.begin(), host.end(), HostChar)) return fail("the host has characters a host name cannot have");
  }
  if (port.empty() && !rest.empty() && rest.back() == ':') return fail("empty port");
  if (!port.empty()) {
    if (port.size() > 5 || !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return fail("the port must be a number");
    const int p = std::stoi(std::string(port));
    if (p < 1 || p > 65535) return fail("the port must be 1..65535");
  }
  ep.host = std::string(host);
  ep.port = std::string(port);
  return ep;
}

std::optional<std::string> BucketNameProblem(std::string_view b) {
  if (b.size() < 3 || b.size() > 63) return fmt::format("bucket \"{}\": a bucket name has 3 to 63 characters", b.substr(0, 80));
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
  for (char c : b)
    if (!alnum(c) && c != '.' && c != '-' && c != '_')
      return fmt::format("bucket \"{}\": only letters, digits, '.', '-' and '_' are allowed", b);
  if (!alnum(b.front()) || !alnum(b.back()))
    return fmt::format("bucket \"{}\": must start and end with a letter or digit", b);
  return std::nullopt;
}

std::string UriEncode(std::string_view s, bool keep_slash) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (Unreserved(c) || (keep_slash && c == '/')) out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

std::string RequestUrl(const S3Endpoint &ep, std::string_view bucket, bool path_style, std::string_view key,
                       Query query) {
  std::string url = ep.scheme + "://";
  if (path_style) {
    url += ep.HostPort() + "/" + UriEncode(bucket, false);
    if (!key.empty()) url += "/" + UriEncode(key, true);
  } else {
    url += std::string(bucket) + "." + ep.HostPort() + "/" + UriEncode(key, true);
  }
  std::sort(query.begin(), query.end());
  for (std::size_t i = 0; i < query.size(); i++)
    url += (i ? "&" : "?") + UriEncode(query[i].first, false) + "=" + UriEncode(query[i].second, false);
  return url;
}

std::optional<std::pair<std::string, std::string>> ParseS3Url(std::string_view url, std::string *error) {
  auto fail = [&](const char *why) -> std::optional<std::pair<std::string, std::string>> {
    if (error) *error = fmt::format("\"{}\": {} (expected s3://BUCKET/KEY)", url.substr(0, 200), why);
    return std::nullopt;
  };
  if (url.substr(0, 5) != "s3://") return fail("not an s3:// URL");
  const std::string_view rest = url.substr(5);
  const std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash + 1 == rest.size()) return fail("no object key");
  std::string bucket(rest.substr(0, slash)), key(rest.substr(slash + 1));
  if (auto why = BucketNameProblem(bucket)) {
    if (error) *error = *why;
    return std::nullopt;
  }
  if (key.size() > 1024) return fail("the key is longer than 1024 bytes");
  return std::make_pair(bucket, key);
}

}  // namespace gotraced::upload
