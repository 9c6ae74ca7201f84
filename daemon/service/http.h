// The small part of HTTP/1.1 the endpoint speaks (RFC 9112): one GET per connection,
// no request bodies, responses with Content-Length or chunked transfer coding, then
// close. Pure functions over bytes, so they are unit-tested and fuzzed on their own.
//
// Why not cpp-httplib: Debian's 0.11 cannot listen on a Unix socket (its listener goes
// through getaddrinfo, AF_UNIX arrived in later releases) and does not expose the
// accepted socket to handlers, which SO_PEERCRED needs. The subset here is ~200 lines.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gotraced::service::http {

inline constexpr std::size_t kMaxHeadBytes = 16 * 1024;
inline constexpr std::size_t kMaxHeaders = 64;

struct Request {
  std::string method;  // "GET"
  std::string target;  // "/flight?pid=12" as sent
  std::string path;    // "/flight" (percent-decoded)
  std::vector<std::pair<std::string, std::string>> query;  // decoded, in order
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  int minor_version = 1;  // HTTP/1.<minor>

  // First value of a query parameter.
  std::optional<std::string> Param(std::string_view key) const;
  std::optional<std::string> Header(std::string_view lower_name) const;
};

struct ParseError {
  int status = 400;  // 400, 405, 413, 414, 431, 501, 505
  std::string reason;
};

// Offset just past the end of the request head (the blank line), or 0 if `data` does not
// hold a complete head yet. Accepts CRLF and bare LF line ends.
std::size_t FindHeadEnd(std::string_view data);

// Parses a complete request head (everything up to and including the blank line). Any
// request with a body (Content-Length > 0, Transfer-Encoding) is refused: the endpoint's
// resources are all GETs.
bool ParseRequestHead(std::string_view head, Request *out, ParseError *err);

// Decodes %XX and (in queries) '+'. False on a malformed escape or a NUL byte.
bool PercentDecode(std::string_view in, bool plus_is_space, std::string *out);

// Strict decimal parsers for query parameters: digits only (no sign, no spaces), in range.
std::optional<std::int64_t> ParseInt(std::string_view s, std::int64_t min, std::int64_t max);
// Decimal seconds, "10" or "2.5": > 0 and <= max.
std::optional<double> ParseSeconds(std::string_view s, double max);

std::string_view StatusText(int status);

// "HTTP/1.1 200 OK\r\n..." with Connection: close. `content_length` < 0 means chunked.
std::string ResponseHead(int status, std::string_view content_type, long long content_length,
                         const std::vector<std::pair<std::string, std::string>> &extra = {});
// One chunk of chunked transfer coding ("<hex>\r\n<data>\r\n"); empty data is the last chunk.
std::string ChunkHeader(std::size_t size);
inline constexpr std::string_view kChunkTrailer = "\r\n";
inline constexpr std::string_view kLastChunk = "0\r\n\r\n";

// Client side: incremental decoder of a response (status line, headers, then the body in
// Content-Length, chunked or until-close form).
class ResponseParser {
 public:
  enum class State { kHead, kBody, kDone, kError };
  // Feeds bytes; body bytes are passed to `on_body` as they are decoded.
  State Feed(std::string_view data, const std::function<void(std::string_view)> &on_body);
  // The peer closed the connection: ends an until-close body, else an error if incomplete.
  State Eof();
  int status() const { return status_; }
  const std::map<std::string, std::string> &headers() const { return headers_; }
  const std::string &error() const { return error_; }
  State state() const { return state_; }

 private:
  State Fail(std::string why);
  bool ParseHead(std::string_view head);
  State state_ = State::kHead;
  std::string buf_;
  int status_ = 0;
  std::map<std::string, std::string> headers_;
  bool chunked_ = false;
  long long remaining_ = -1;  // Content-Length left; -1 = until close
  // chunked sub-state
  enum class Chunk { kSize, kData, kDataEnd, kTrailer } chunk_ = Chunk::kSize;
  std::size_t chunk_left_ = 0;
  std::string error_;
};

}  // namespace gotraced::service::http
