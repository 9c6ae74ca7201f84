// Where an S3 request goes: the endpoint URL of the config ("https://host:port"), the
// bucket, the object key, the query, built the way SigV4 signs them.
//
// SigV4 signs the canonical URI (each path segment URI-encoded with RFC 3986's
// unreserved set, '/' kept) and the canonical query (names and values encoded, '/' too,
// sorted by name, "name=" for an empty value): AWS "Create a canonical request". curl's
// CURLOPT_AWS_SIGV4 signs the URL it is given, so the URL is built here already in
// canonical form; then what curl signs and what the store recomputes are the same text.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gotraced::upload {

struct S3Endpoint {
  std::string scheme;  // http or https
  std::string host;    // name, IPv4, or [IPv6]
  std::string port;    // "" for the scheme's default
  std::string HostPort() const { return port.empty() ? host : host + ":" + port; }
  std::string Text() const { return scheme + "://" + HostPort(); }
};

// "https://s3.example.com", "http://127.0.0.1:9000" (a trailing "/" allowed; no path,
// query, user or fragment). nullopt with *error saying what is wrong.
std::optional<S3Endpoint> ParseEndpoint(std::string_view url, std::string *error);

// Bucket names as S3 accepts them: 3..63 of [a-z0-9.-], starting and ending with a letter
// or digit (uppercase and '_' too: older stores allow them). nullopt = ok, else why not.
std::optional<std::string> BucketNameProblem(std::string_view bucket);

// RFC 3986 unreserved characters pass, every other byte is %XX (uppercase hex); '/' is
// kept when keep_slash (object keys in the path), encoded otherwise (query values).
std::string UriEncode(std::string_view s, bool keep_slash);

using Query = std::vector<std::pair<std::string, std::string>>;

// The request URL: path-style https://host/bucket/key or virtual-host
// https://bucket.host/key, with the query sorted and encoded.
std::string RequestUrl(const S3Endpoint &ep, std::string_view bucket, bool path_style, std::string_view key,
                       Query query);

// "s3://bucket/key/with/slashes" -> (bucket, key); nullopt with *error otherwise.
std::optional<std::pair<std::string, std::string>> ParseS3Url(std::string_view url, std::string *error);

}  // namespace gotraced::upload
