// HTTP/1.1 subset (see http.h). Grammar: RFC 9112 §3 (request line), §5 (fields),
// §7.1 (chunked coding); tokens per RFC 9110 §5.6.2.
#include "daemon/service/http.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace gotraced::service::http {

namespace {

bool IsTchar(char c) {
  if (std::isalnum(static_cast<unsigned char>(c))) return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+':
    case '-': case '.': case '^': case '_': case '`': case '|': case '~':
      return true;
    default:
      return false;
  }
}

bool IsToken(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!IsTchar(c)) return false;
  return true;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char &c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view TrimOws(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Splits off one line (CRLF or LF); false if there is none.
bool NextLine(std::string_view &rest, std::string_view *line) {
  std::size_t nl = rest.find('\n');
  if (nl == std::string_view::npos) return false;
  std::string_view l = rest.substr(0, nl);
  if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  *line = l;
  rest.remove_prefix(nl + 1);
  return true;
}

bool Error(ParseError *err, int status, std::string reason) {
  if (err) *err = ParseError{status, std::move(reason)};
  return false;
}

}  // namespace

std::optional<std::string> Request::Param(std::string_view key) const {
  for (const auto &[k, v] : query)
    if (k == key) return v;
  return std::nullopt;
}

std::optional<std::string> Request::Header(std::string_view lower_name) const {
  for (const auto &[k, v] : headers)
    if (k == lower_name) return v;
  return std::nullopt;
}

std::size_t FindHeadEnd(std::string_view data) {
  // The head ends at the first empty line: "\n\n" or "\n\r\n".
  for (std::size_t i = 0; i < data.size(); i++) {
    if (data[i] != '\n') continue;
    if (i + 1 < data.size() && data[i + 1] == '\n') return i + 2;
    if (i + 2 < data.size() && data[i + 1] == '\r' && data[i + 2] == '\n') return i + 3;
  }
  return 0;
}

bool PercentDecode(std::string_view in, bool plus_is_space, std::string *out) {
  out->clear();
  out->reserve(in.size());
  for (std::size_t i = 0; i < in.size(); i++) {
    char c = in[i];
    if (c == '%') {
      if (i + 2 >= in.size()) return false;
      int hi = HexDigit(in[i + 1]), lo = HexDigit(in[i + 2]);
      if (hi < 0 || lo < 0) return false;
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    } else if (c == '+' && plus_is_space) {
      c = ' ';
    }
    if (c == '\0') return false;
    out->push_back(c);
  }
  return true;
}

bool ParseRequestHead(std::string_view head, Request *out, ParseError *err) {
  *out = Request{};
  if (head.size() > kMaxHeadBytes) return Error(err, 431, "request head too large");
  std::string_view rest = head;
  std::string_view line;
  // RFC 9112 §2.2: a server SHOULD ignore at least one empty line before the request line.
  if (!NextLine(rest, &line)) return Error(err, 400, "no request line");
  if (line.empty() && !NextLine(rest, &line)) return Error(err, 400, "no request line");

  // method SP request-target SP HTTP-version
  std::size_t sp1 = line.find(' ');
  if (sp1 == std::string_view::npos) return Error(err, 400, "malformed request line");
  std::size_t sp2 = line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return Error(err, 400, "malformed request line");
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (!IsToken(method)) return Error(err, 400, "malformed method");
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || !std::isdigit(static_cast<unsigned char>(version[5])) ||
      version[6] != '.' || !std::isdigit(static_cast<unsigned char>(version[7])))
    return Error(err, 400, "malformed HTTP version");
  if (version[5] != '1') return Error(err, 505, "only HTTP/1.x is supported");
  out->minor_version = version[7] - '0';
  if (target.empty() || target.size() > 4096) return Error(err, target.empty() ? 400 : 414, "bad request target");
  for (char c : target)
    if (static_cast<unsigned char>(c) <= 0x20 || static_cast<unsigned char>(c) >= 0x7f)
      return Error(err, 400, "invalid character in request target");
  // origin-form only ("/path?query"); absolute-form from a proxy is accepted for its path.
  std::string_view t = target;
  if (t.substr(0, 7) == "http://") {
    std::size_t slash = t.find('/', 7);
    t = slash == std::string_view::npos ? std::string_view("/") : t.substr(slash);
  }
  if (t.empty() || t[0] != '/') return Error(err, 400, "request target must be a path");
  out->method = std::string(method);
  out->target = std::string(target);
  std::size_t hash = t.find('#');
  if (hash != std::string_view::npos) t = t.substr(0, hash);
  std::size_t q = t.find('?');
  if (!PercentDecode(t.substr(0, q), false, &out->path)) return Error(err, 400, "malformed path escape");
  if (q != std::string_view::npos) {
    std::string_view qs = t.substr(q + 1);
    while (!qs.empty()) {
      std::size_t amp = qs.find('&');
      std::string_view pair = qs.substr(0, amp);
      qs = amp == std::string_view::npos ? std::string_view() : qs.substr(amp + 1);
      if (pair.empty()) continue;
      std::size_t eq = pair.find('=');
      std::string k, v;
      if (!PercentDecode(pair.substr(0, eq), true, &k) ||
          !PercentDecode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true, &v))
        return Error(err, 400, "malformed query escape");
      if (out->query.size() >= 32) return Error(err, 400, "too many query parameters");
      out->query.emplace_back(std::move(k), std::move(v));
    }
  }

  // field-line = field-name ":" OWS field-value OWS
  while (NextLine(rest, &line)) {
    if (line.empty()) break;
    if (line[0] == ' ' || line[0] == '\t') return Error(err, 400, "obsolete header line folding");
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return Error(err, 400, "header line without a colon");
    std::string_view name = line.substr(0, colon);
    if (!IsToken(name)) return Error(err, 400, "malformed header name");
    std::string_view value = TrimOws(line.substr(colon + 1));
    for (char c : value)
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f)
        return Error(err, 400, "control character in header value");
    if (out->headers.size() >= kMaxHeaders) return Error(err, 431, "too many header lines");
    out->headers.emplace_back(Lower(name), std::string(value));
  }
  if (out->minor_version >= 1 && !out->Header("host")) return Error(err, 400, "HTTP/1.1 request without Host");
  if (out->Header("transfer-encoding")) return Error(err, 400, "request bodies are not accepted");
  if (auto cl = out->Header("content-length")) {
    auto n = ParseInt(*cl, 0, INT64_MAX);
    if (!n) return Error(err, 400, "malformed Content-Length");
    if (*n > 0) return Error(err, 413, "request bodies are not accepted");
  }
  return true;
}

std::optional<std::int64_t> ParseInt(std::string_view s, std::int64_t min, std::int64_t max) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9') return std::nullopt;
  std::int64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  if (v < min || v > max) return std::nullopt;
  return v;
}

std::optional<double> ParseSeconds(std::string_view s, double max) {
  if (s.empty() || s.size() > 32) return std::nullopt;
  int dots = 0;
  for (char c : s) {
    if (c == '.') dots++;
    else if (c < '0' || c > '9') return std::nullopt;
  }
  if (dots > 1 || s.front() == '.' || s.back() == '.') return std::nullopt;
  std::string copy(s);
  double v = std::strtod(copy.c_str(), nullptr);
  if (!(v > 0) || !std::isfinite(v) || v > max) return std::nullopt;
  return v;
}

std::string_view StatusText(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 504: return "Gateway Timeout";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

std::string ResponseHead(int status, std::string_view content_type, long long content_length,
                         const std::vector<std::pair<std::string, std::string>> &extra) {
  std::string h = fmt::format("HTTP/1.1 {} {}\r\nServer: gotraced\r\nConnection: close\r\nContent-Type: {}\r\n", status,
                              StatusText(status), content_type);
  if (content_length < 0) h += "Transfer-Encoding: chunked\r\n";
  else h += fmt::format("Content-Length: {}\r\n", content_length);
  for (const auto &[k, v] : extra) h += fmt::format("{}: {}\r\n", k, v);
  h += "\r\n";
  return h;
}

std::string ChunkHeader(std::size_t size) { return fmt::format("{:x}\r\n", size); }

// ---- ResponseParser ----------------------------------------------------------------------

ResponseParser::State ResponseParser::Fail(std::string why) {
  error_ = std::move(why);
  state_ = State::kError;
  return state_;
}

bool ResponseParser::ParseHead(std::string_view head) {
  std::string_view rest = head, line;
  if (!NextLine(rest, &line)) return false;
  // HTTP/1.1 SP 3DIGIT SP reason
  if (line.size() < 12 || line.substr(0, 7) != "HTTP/1." || line[8] != ' ') return false;
  auto code = ParseInt(line.substr(9, 3), 100, 999);
  if (!code) return false;
  status_ = static_cast<int>(*code);
  while (NextLine(rest, &line)) {
    if (line.empty()) break;
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return false;
    headers_[Lower(line.substr(0, colon))] = std::string(TrimOws(line.substr(colon + 1)));
  }
  auto te = headers_.find("transfer-encoding");
  chunked_ = te != headers_.end() && Lower(te->second).find("chunked") != std::string::npos;
  auto cl = headers_.find("content-length");
  if (!chunked_ && cl != headers_.end()) {
    auto n = ParseInt(cl->second, 0, INT64_MAX);
    if (!n) return false;
    remaining_ = *n;
  }
  return true;
}

ResponseParser::State ResponseParser::Feed(std::string_view data, const std::function<void(std::string_view)> &on_body) {
  if (state_ == State::kError || state_ == State::kDone) return state_;
  buf_.append(data);
  if (state_ == State::kHead) {
    std::size_t end = FindHeadEnd(buf_);
    if (!end) {
      if (buf_.size() > kMaxHeadBytes) return Fail("response head too large");
      return state_;
    }
    if (!ParseHead(std::string_view(buf_).substr(0, end))) return Fail("malformed response head");
    buf_.erase(0, end);
    state_ = State::kBody;
    if (!chunked_ && remaining_ == 0) state_ = State::kDone;
  }
  if (state_ != State::kBody) return state_;
  if (!chunked_) {
    std::string_view b = buf_;
    if (remaining_ >= 0 && static_cast<long long>(b.size()) > remaining_) b = b.substr(0, static_cast<std::size_t>(remaining_));
    if (!b.empty()) on_body(b);
    if (remaining_ >= 0) {
      remaining_ -= static_cast<long long>(b.size());
      if (remaining_ == 0) state_ = State::kDone;
    }
    buf_.clear();
    return state_;
  }
  std::size_t pos = 0;
  while (state_ == State::kBody) {
    std::string_view rest = std::string_view(buf_).substr(pos);
    if (chunk_ == Chunk::kData) {
      if (rest.empty()) break;
      std::size_t n = std::min(rest.size(), chunk_left_);
      on_body(rest.substr(0, n));
      pos += n;
      chunk_left_ -= n;
      if (chunk_left_ == 0) chunk_ = Chunk::kDataEnd;
      continue;
    }
    std::size_t nl = rest.find('\n');
    if (nl == std::string_view::npos) {
      if (rest.size() > 1024) return Fail("chunk line too long");
      break;
    }
    std::string_view line = rest.substr(0, nl);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos += nl + 1;
    if (chunk_ == Chunk::kDataEnd) {
      if (!line.empty()) return Fail("chunk data not followed by CRLF");
      chunk_ = Chunk::kSize;
    } else if (chunk_ == Chunk::kSize) {
      std::string_view hex = line.substr(0, line.find(';'));
      hex = TrimOws(hex);
      if (hex.empty() || hex.size() > 15) return Fail("malformed chunk size");
      std::size_t n = 0;
      for (char c : hex) {
        int d = HexDigit(c);
        if (d < 0) return Fail("malformed chunk size");
        n = n * 16 + static_cast<std::size_t>(d);
      }
      if (n == 0) chunk_ = Chunk::kTrailer;
      else {
        chunk_left_ = n;
        chunk_ = Chunk::kData;
      }
    } else {  // trailer section ends with an empty line
      if (line.empty()) state_ = State::kDone;
    }
  }
  buf_.erase(0, pos);
  return state_;
}

ResponseParser::State ResponseParser::Eof() {
  if (state_ == State::kBody && !chunked_ && remaining_ < 0) state_ = State::kDone;
  if (state_ == State::kHead) return Fail(buf_.empty() ? "connection closed without a response" : "truncated response head");
  if (state_ == State::kBody) return Fail("connection closed before the end of the response");
  return state_;
}

}  // namespace gotraced::service::http
